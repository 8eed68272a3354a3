package review

import (
	"strings"
	"sync"
	"unicode"

	"golang.org/x/text/unicode/norm"

	"github.com/papers-cli/papers/ask/rank"
	"github.com/papers-cli/papers/internal/lazyre"
	"github.com/papers-cli/papers/store"
)

// A quote is verbatim when its words, in order, are the paper's: the text
// of one chunk (or two that follow each other, for a sentence the chunker
// cut at a page break) holds it once both are reduced to a skeleton. The
// skeleton keeps letters and digits only, lower-cased and NFKC-normalised
// (ligatures, full-width forms), with a decimal point or a percent sign
// kept where it touches a digit, and reference marks dropped: so line
// breaks, hyphenation at a line end ("one-\ndimensional"), spacing,
// quotation marks and dashes do not matter, and a changed word, number or
// name does.

// refMark is a paper's bracketed reference ("[12]", "[3, 4]") or the
// form prompts.Fence gives it in a prompt ("(ref. 12)").
var refMark = lazyre.New(`\[\s*\d{1,4}(?:\s*[,;–-]\s*\d{1,4})*\s*\]|\(ref\. [^)]{1,40}\)`)

// ellipsis splits a quote the model shortened: each piece must be found,
// in order.
var ellipsis = lazyre.New(`\s*(?:\.\.\.|…|\[\.\.\.\]|\[…\])\s*`)

// skeleton reduces text to what a verbatim quote must keep.
func skeleton(s string) string {
	s = refMark.ReplaceAllString(s, " ")
	s = norm.NFKC.String(s)
	var b strings.Builder
	b.Grow(len(s))
	rs := []rune(s)
	for i, r := range rs {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(unicode.ToLower(r))
		case (r == '.' || r == ',') && i > 0 && i+1 < len(rs) && unicode.IsDigit(rs[i-1]) && unicode.IsDigit(rs[i+1]):
			b.WriteByte('.') // 2.70, 1,000 (a thousands comma reads as a point: both are kept)
		case r == '%' && i > 0 && unicode.IsDigit(rs[i-1]):
			b.WriteByte('%')
		}
	}
	return b.String()
}

// minQuote is the least skeleton a quote must have to count as one: a
// word or two is found anywhere and proves nothing.
const minQuote = 12

// paperText is one paper's chunks, reduced for finding quotes.
type paperText struct {
	paper  store.Paper
	chunks []store.Chunk
	skel   []string

	parasOnce sync.Once
	paras     []rank.Paragraph // the chunks read back into paragraphs, once asked for

	surveyOnce sync.Once
	survey     bool // the paper calls itself a survey (isSurvey), once asked
}

// paragraphs are the paper's paragraphs as the answer ranker reads them.
func (t *paperText) paragraphs() []rank.Paragraph {
	t.parasOnce.Do(func() { t.paras = rank.Paragraphs(t.chunks) })
	return t.paras
}

func newPaperText(p store.Paper, chunks []store.Chunk) *paperText {
	t := &paperText{paper: p, chunks: chunks, skel: make([]string, len(chunks))}
	for i, c := range chunks {
		t.skel[i] = skeleton(c.Text)
	}
	return t
}

// located is where a quote is in a paper.
type located struct {
	chunk store.Chunk
	page  int // 1-based; 0 when the paper has no pages (a record with an abstract only)
}

// locate finds quote in the paper: the body first (a PDF's abstract is on
// its first page), in a chunk of one page before one spanning two, then
// across two chunks that follow each other, then in the title and
// abstract. ok is false when the paper does not hold it, or it is too
// short to tell.
func (t *paperText) locate(quote string) (located, bool) {
	var pieces []string
	total := 0
	for _, part := range ellipsis.Split(quote, -1) {
		if s := skeleton(part); s != "" {
			pieces = append(pieces, s)
			total += len(s)
		}
	}
	if total < minQuote {
		return located{}, false
	}
	best := -1
	for i, c := range t.chunks {
		if c.Seq == 0 || !holds(t.skel[i], pieces) {
			continue
		}
		if c.PageStart == c.PageEnd {
			return located{chunk: c, page: c.PageStart}, true
		}
		if best < 0 {
			best = i
		}
	}
	if best >= 0 {
		c := t.chunks[best]
		return located{chunk: c, page: pageWithin(c, t.skel[best], pieces[0])}, true
	}
	for i := 0; i+1 < len(t.chunks); i++ {
		a, b := t.chunks[i], t.chunks[i+1]
		if a.Seq == 0 || b.Seq != a.Seq+1 {
			continue
		}
		if holds(t.skel[i]+t.skel[i+1], pieces) {
			return located{chunk: a, page: a.PageEnd}, true // it starts in a
		}
	}
	for i, c := range t.chunks {
		if c.Seq == 0 && holds(t.skel[i], pieces) {
			l := located{chunk: c}
			if t.paper.Pages > 0 {
				l.page = 1
			}
			return l, true
		}
	}
	return located{}, false
}

// holds reports whether the pieces occur in s, in order.
func holds(s string, pieces []string) bool {
	for _, p := range pieces {
		i := strings.Index(s, p)
		if i < 0 {
			return false
		}
		s = s[i+len(p):]
	}
	return true
}

// brokenWord is a word hyphenated at a line end that ingest left split:
// it joins those within a page, so one left split marks where a page (or
// a column) ends.
var brokenWord = lazyre.New(`\p{L}-\n\p{Ll}`)

// pageWithin guesses the page of a quote in a chunk spanning pages (the
// chunk does not record where its pages break): for two pages, the page
// before a word left split at a line end when there is one (the quote
// starts before it) or after; otherwise the quote's place in the chunk's
// text, taken as its place among the pages.
func pageWithin(c store.Chunk, skel, piece string) int {
	i := strings.Index(skel, piece)
	if i < 0 || len(skel) == 0 {
		return c.PageStart
	}
	if m := brokenWord.FindAllStringIndex(c.Text, -1); len(m) > 0 && c.PageEnd == c.PageStart+1 {
		if i < len(skeleton(c.Text[:m[len(m)-1][0]+1])) {
			return c.PageStart
		}
		return c.PageEnd
	}
	n := c.PageEnd - c.PageStart + 1
	return c.PageStart + min(n-1, i*n/len(skel))
}
