// Package chunk cuts a paper's text into retrievable passages on paragraph
// and sentence boundaries, each knowing its page span and section.
package chunk

import (
	"fmt"
	"sort"
	"strings"

	"github.com/papers-cli/papers/store"
	"github.com/papers-cli/papers/textseg"
)

// Algorithm is bumped whenever the same input would be cut differently.
// v2: textseg ends a sentence at a footnote mark after a period
// ("model.10 The"), not at the periods of "U.S.".
const Algorithm = "v2"

// Heading is a section heading detected at a byte offset of a page's text.
type Heading struct {
	Offset int
	Text   string
}

// Page is the text of one page (N is 1-based) with its detected headings.
type Page struct {
	N        int
	Text     string
	Headings []Heading
}

// Options size the chunks, in words (about 1.3 tokens each for English).
// They are used as given (Overlap 0 is no overlap), except that the zero
// Options stands for Defaults; Check says whether they are usable.
type Options struct {
	Size    int // target words per chunk, at least 1
	Overlap int // words of trailing sentences repeated at the start of the next chunk, from 0 to Size-1
}

// Defaults are the chunks of papers ingest unless told otherwise
// (--chunk-size, --chunk-overlap).
var Defaults = Options{Size: 180, Overlap: 30}

// Check reports options Body cannot use.
func (o Options) Check() error {
	if o == (Options{}) {
		return nil // Defaults
	}
	if o.Size < 1 {
		return fmt.Errorf("chunk size must be at least 1 word, got %d", o.Size)
	}
	if o.Overlap < 0 || o.Overlap >= o.Size {
		return fmt.Errorf("chunk overlap must be from 0 to %d words (less than the size), got %d", o.Size-1, o.Overlap)
	}
	return nil
}

// resolved is o, or Defaults for the zero Options or options Check refuses
// (Body never cuts with a size below 1).
func (o Options) resolved() Options {
	if o == (Options{}) || o.Size < 1 || o.Overlap < 0 || o.Overlap >= o.Size {
		return Defaults
	}
	return o
}

// Version names the algorithm and its parameters ("v2/words180-overlap30"),
// as the library's manifest records the chunker its papers are cut with.
func (o Options) Version() string {
	o = o.resolved()
	return fmt.Sprintf("%s/words%d-overlap%d", Algorithm, o.Size, o.Overlap)
}

// ParseVersion reads the options back from a Version string (of this or an
// earlier algorithm).
func ParseVersion(v string) (Options, error) {
	var o Options
	_, params, ok := strings.Cut(v, "/")
	if !ok {
		return o, fmt.Errorf("chunker version %q: want ALGORITHM/wordsN-overlapM", v)
	}
	if _, err := fmt.Sscanf(params, "words%d-overlap%d", &o.Size, &o.Overlap); err != nil || o.Check() != nil || o == (Options{}) {
		return Options{}, fmt.Errorf("chunker version %q: want ALGORITHM/wordsN-overlapM", v)
	}
	return o, nil
}

// Abstract is the first chunk of every paper: title and abstract together.
func Abstract(paperID, title, abstract string) store.Chunk {
	text := strings.TrimSpace(title)
	if a := strings.Join(strings.Fields(abstract), " "); a != "" {
		if text != "" {
			text += "\n\n"
		}
		text += a
	}
	return store.Chunk{PaperID: paperID, Seq: 0, Text: text}
}

// sentence is one unit of text with where it came from.
type sentence struct {
	text      string
	words     int
	page      int
	section   string
	newSect   bool // first sentence after a heading
	paraStart bool // first sentence of a paragraph
}

// Body splits full text into chunks numbered from firstSeq, in reading
// order. A chunk never spans two sections: a heading starts a new chunk.
// A sentence longer than Size words is cut into Size-word pieces.
func Body(paperID string, pages []Page, firstSeq int, opt Options) []store.Chunk {
	opt = opt.resolved()
	sents := split(pages, opt.Size)
	var out []store.Chunk
	var cur []sentence
	words := 0
	carried := 0 // leading sentences of cur repeated from the previous chunk
	emit := func() {
		if len(cur) > 0 {
			out = append(out, build(paperID, firstSeq+len(out), cur))
		}
		cur, words, carried = nil, 0, 0
	}
	// emitOverlap emits the current chunk and opens the next with trailing
	// sentences worth at most Overlap words, if next still fits after them.
	emitOverlap := func(next sentence) {
		last := cur
		emit()
		i, w := len(last), 0
		for i > 0 && w+last[i-1].words <= opt.Overlap {
			i--
			w += last[i].words
		}
		if i == 0 || w+next.words > opt.Size {
			return
		}
		cur = append(cur, last[i:]...)
		carried, words = len(cur), w
	}
	for _, s := range sents {
		switch {
		case s.newSect:
			emit()
		case words > 0 && words+s.words > opt.Size:
			emitOverlap(s)
		case s.paraStart && words >= opt.Size*3/4:
			emitOverlap(s)
		}
		cur = append(cur, s)
		words += s.words
	}
	if len(cur) > carried {
		emit()
	}
	return out
}

// build joins sentences into a chunk. A chunk that spans pages records
// where each page after its first starts (store.Chunk.PageBreaks): a
// sentence is on one page, so pages start at sentences.
func build(paperID string, seq int, ss []sentence) store.Chunk {
	var b strings.Builder
	var breaks []int
	ordered := true
	for i, s := range ss {
		if i > 0 {
			if s.paraStart {
				b.WriteString("\n")
			} else {
				b.WriteString(" ")
			}
			prev := ss[i-1].page
			ordered = ordered && s.page >= prev
			for p := prev + 1; p <= s.page; p++ {
				breaks = append(breaks, b.Len()) // one per page crossed: an empty page starts and ends here
			}
		}
		b.WriteString(s.text)
	}
	first, last := ss[0].page, ss[0].page
	for _, s := range ss {
		first = min(first, s.page)
		last = max(last, s.page)
	}
	if !ordered || len(breaks) != last-first {
		breaks = nil // pages out of order: which text is on which is not told
	}
	return store.Chunk{PaperID: paperID, Seq: seq, PageStart: first, PageEnd: last, Section: ss[0].section, Text: b.String(), PageBreaks: breaks}
}

// split turns pages into sentences, tracking the section in force.
func split(pages []Page, maxWords int) []sentence {
	var out []sentence
	section := ""
	for _, p := range pages {
		hs := append([]Heading(nil), p.Headings...)
		sort.Slice(hs, func(i, j int) bool { return hs[i].Offset < hs[j].Offset })
		// segments of the page: before the first heading, then one per heading
		type segment struct {
			text    string
			heading string
			isHead  bool
		}
		var segs []segment
		prev := 0
		for _, h := range hs {
			if h.Offset < prev || h.Offset > len(p.Text) {
				continue
			}
			segs = append(segs, segment{text: p.Text[prev:h.Offset]})
			segs = append(segs, segment{heading: strings.Join(strings.Fields(h.Text), " "), isHead: true})
			prev = h.Offset
		}
		segs = append(segs, segment{text: p.Text[prev:]})
		newSect := false
		for _, sg := range segs {
			if sg.isHead {
				section, newSect = sg.heading, true
				continue
			}
			text := sg.text
			if newSect {
				// the heading's own words open the segment: keep them in the
				// text, as a paragraph of their own
				text = strings.TrimLeft(text, " \t\n")
				if h := strings.Fields(section); len(h) > 0 {
					if end := headingEnd(text, h); end > 0 {
						text = text[:end] + "\n\n" + text[end:]
					}
				}
			}
			for _, para := range textseg.Paragraphs(text) {
				for k, s := range textseg.Sentences(para) {
					for _, piece := range cut(s, maxWords) {
						out = append(out, sentence{
							text: piece, words: textseg.WordCount(piece), page: p.N,
							section: section, newSect: newSect, paraStart: k == 0,
						})
						newSect = false
					}
				}
			}
		}
	}
	return out
}

// cut splits an over-long sentence into pieces of at most max words.
func cut(s string, max int) []string {
	w := strings.Fields(s)
	if len(w) <= max {
		return []string{s}
	}
	var out []string
	for len(w) > 0 {
		n := min(max, len(w))
		out = append(out, strings.Join(w[:n], " "))
		w = w[n:]
	}
	return out
}

// headingEnd returns the byte offset just past the heading's words at the
// start of text, or 0 when text does not start with them.
func headingEnd(text string, words []string) int {
	pos := 0
	for _, w := range words {
		rest := strings.TrimLeft(text[pos:], " \t\n")
		if !strings.HasPrefix(rest, w) {
			return 0
		}
		pos = len(text) - len(rest) + len(w)
	}
	return pos
}

// Trim returns next without the leading sentences it repeats from the end
// of prev: the overlap Body gives consecutive chunks of one section. The
// text of a paper is its chunks in order, each trimmed by the one before.
// Text shared by coincidence is trimmed only when it is whole sentences at
// the end of prev and the start of next.
func Trim(prev, next string) string {
	best := 0
	for i := 0; i < len(next) && i <= len(prev); i++ {
		if next[i] != ' ' && next[i] != '\n' {
			continue
		}
		if strings.HasSuffix(prev, next[:i]) && sentenceStart(prev, len(prev)-i) {
			best = i
		}
	}
	if best == 0 && len(next) <= len(prev) && strings.HasSuffix(prev, next) {
		return "" // all of next is repeated
	}
	return strings.TrimLeft(next[best:], " \n")
}

// sentenceStart reports whether a sentence of text can start at byte i:
// at its start, or after a separator that follows no lower-case word or
// comma (a sentence's end, a heading, a footnote mark).
func sentenceStart(text string, i int) bool {
	if i == 0 {
		return true
	}
	if text[i-1] == '\n' {
		return true
	}
	if text[i-1] != ' ' || i < 2 {
		return false
	}
	c := text[i-2]
	return !(c >= 'a' && c <= 'z' || c == ',')
}
