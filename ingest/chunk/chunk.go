// Package chunk cuts a paper's text into retrievable passages on paragraph
// and sentence boundaries, each knowing its page span and section.
package chunk

import (
	"fmt"
	"sort"
	"strings"
	"unicode"

	"github.com/papers-cli/papers/role"
	"github.com/papers-cli/papers/store"
	"github.com/papers-cli/papers/textseg"
)

// Algorithm is bumped whenever the same input would be cut differently.
// v2: textseg ends a sentence at a footnote mark after a period
// ("model.10 The"), not at the periods of "U.S.". v3: a chunk holds text
// of one role (prose, a table, a caption, ...; see Page.Spans).
const Algorithm = "v3"

// Heading is a section heading detected at a byte offset of a page's text.
type Heading struct {
	Offset int
	Text   string
}

// Page is the text of one page (N is 1-based) with its detected headings
// and what each part of it is there for.
type Page struct {
	N        int
	Text     string
	Headings []Heading
	// Spans give the role of Text[Start:End]; text no span covers (all
	// of it when Spans is nil) is body text.
	Spans []Span
}

// Span is a run of a page's text of one role.
type Span struct {
	Start, End int
	Role       role.Role
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

// Version names the algorithm and its parameters ("v3/words180-overlap30"),
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

// sentence is one unit of text with where it came from: a sentence of
// prose, or a line of other text (a table's row, a line of a caption).
type sentence struct {
	text      string
	words     int
	page      int
	section   string
	role      role.Role // as chunks have it: role.Body for prose
	newSect   bool      // first sentence after a heading
	paraStart bool      // first sentence of a paragraph
}

// Body splits full text into chunks numbered from firstSeq, in reading
// order. A chunk never spans two sections (a heading starts a new chunk)
// nor two roles: prose (body text and its headings) is cut into sentences
// and chunks of role.Body; a caption, table, figure's text, footnote,
// reference entries or equation is a chunk of its own role (or several,
// cut at its lines), its lines kept as lines; running heads and page
// numbers (role.Furniture) are in no chunk. A sentence or line longer
// than Size words is cut into Size-word pieces.
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
		case s.newSect, len(cur) > 0 && s.role != cur[len(cur)-1].role:
			emit()
		case words > 0 && words+s.words > opt.Size && s.role != role.Body:
			emit() // other text than prose is cut with no overlap
		case words > 0 && words+s.words > opt.Size:
			emitOverlap(s)
		case s.paraStart && words >= opt.Size*3/4 && s.role == role.Body:
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
	lines := ss[0].role != role.Body
	var breaks []int
	ordered := true
	for i, s := range ss {
		if i > 0 {
			if s.paraStart || lines {
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
	return store.Chunk{PaperID: paperID, Seq: seq, PageStart: first, PageEnd: last, Section: ss[0].section, Role: ss[0].role, Text: b.String(), PageBreaks: breaks}
}

// split turns pages into sentences, tracking the section in force.
func split(pages []Page, maxWords int) []sentence {
	var out []sentence
	section := ""
	// headPending: the heading's words are still to open the section's
	// first prose (a table or figure may come between them)
	headPending := false
	for _, p := range pages {
		newSect := false
		for _, sg := range segments(p) {
			if sg.heading != "" {
				section, newSect, headPending = sg.heading, true, true
				continue
			}
			text := sg.text
			if sg.role == role.Furniture {
				continue // running heads, page numbers: in no chunk
			}
			if sg.role != role.Body {
				// lines stay lines: a table's rows, a caption's lines
				para := true
				for _, ln := range strings.Split(text, "\n") {
					ln = strings.Join(strings.Fields(ln), " ")
					if ln == "" {
						para = true
						continue
					}
					for _, piece := range cut(ln, maxWords) {
						out = append(out, sentence{
							text: piece, words: textseg.WordCount(piece), page: p.N,
							section: section, role: sg.role, newSect: newSect, paraStart: para,
						})
						newSect, para = false, false
					}
				}
				continue
			}
			if headPending {
				// the heading's own words open the section's prose: keep
				// them in the text, as a paragraph of their own, with the
				// prose that follows them (not alone before a table)
				text = strings.TrimLeft(text, " \t\n")
				if h := strings.Fields(section); len(h) > 0 {
					if end := headingEnd(text, h); end > 0 {
						if strings.TrimSpace(text[end:]) == "" {
							continue // the heading's line alone: it goes with the prose after
						}
						text = text[:end] + "\n\n" + text[end:]
					} else if strings.TrimSpace(text) != "" {
						text = section + "\n\n" + text
					}
				}
				if strings.TrimSpace(text) != "" {
					headPending = false
				}
			}
			for _, para := range textseg.Paragraphs(text) {
				for k, s := range textseg.Sentences(para) {
					for _, piece := range cut(s, maxWords) {
						out = append(out, sentence{
							text: piece, words: textseg.WordCount(piece), page: p.N,
							section: section, role: role.Body, newSect: newSect, paraStart: k == 0,
						})
						newSect = false
					}
				}
			}
		}
	}
	return out
}

// segment is a part of a page's text: a heading (its text, no body), or
// text of one role (as chunks have it) up to the next heading or change
// of role.
type segment struct {
	text    string
	heading string
	role    role.Role
}

// segments cuts a page at its headings and where its spans change role.
func segments(p Page) []segment {
	type cutAt struct {
		at      int
		heading string // a heading starts here
		role    role.Role
		isRole  bool
	}
	var cuts []cutAt
	for _, h := range p.Headings {
		if h.Offset >= 0 && h.Offset <= len(p.Text) {
			cuts = append(cuts, cutAt{at: h.Offset, heading: strings.Join(strings.Fields(h.Text), " ")})
		}
	}
	covered := 0
	for _, sp := range p.Spans {
		if sp.Start < covered || sp.End > len(p.Text) || sp.End < sp.Start {
			continue // out of order or out of range: the text stays body
		}
		if sp.Role.OfChunk() != role.Body && fragment(p.Text[sp.Start:sp.End]) {
			// a lone symbol stays with the text before it (see fragment)
			if sp.Start == covered {
				covered = sp.End
			}
			continue
		}
		if sp.Start > covered {
			cuts = append(cuts, cutAt{at: covered, role: role.Body, isRole: true})
		}
		cuts = append(cuts, cutAt{at: sp.Start, role: sp.Role.OfChunk(), isRole: true})
		covered = sp.End
	}
	if covered > 0 && covered < len(p.Text) {
		cuts = append(cuts, cutAt{at: covered, role: role.Body, isRole: true})
	}
	// headings before role changes at the same offset: a heading's line
	// starts the body text that follows it
	sort.SliceStable(cuts, func(i, j int) bool {
		if cuts[i].at != cuts[j].at {
			return cuts[i].at < cuts[j].at
		}
		return !cuts[i].isRole && cuts[j].isRole
	})
	var out []segment
	prev, cur := 0, role.Body
	for _, c := range cuts {
		if c.at < prev || c.isRole && c.role == cur {
			continue // out of order, or no change of role
		}
		if c.at > prev {
			out = append(out, segment{text: p.Text[prev:c.at], role: cur})
		}
		if c.isRole {
			cur = c.role
		} else {
			out = append(out, segment{heading: c.heading})
		}
		prev = c.at
	}
	out = append(out, segment{text: p.Text[prev:], role: cur})
	return out
}

// fragment reports a span too small to be a chunk of its own: fewer than
// three letters or digits, such as an equation's lone "√" or bracket
// between two lines of a paragraph, or a figure's "(a)". Cut out, it would
// be a chunk nobody can search and would split the paragraph around it
// (a word hyphenated across it stays apart).
func fragment(s string) bool {
	n := 0
	for _, r := range s {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			if n++; n >= 3 {
				return false
			}
		}
	}
	return true
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
