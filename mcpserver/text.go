package mcpserver

import (
	"fmt"
	"sort"
	"strings"
	"unicode"

	"github.com/papers-cli/papers/ingest/chunk"
	"github.com/papers-cli/papers/internal/safetext"
	"github.com/papers-cli/papers/role"
	"github.com/papers-cli/papers/store"
)

// paperText is a paper's text as read_paper serves it: the title and
// abstract, then the body chunks in order without the sentences each
// repeats of the one before (chunk.Trim), "[page N]" where page N starts.
// A chunk that spans pages is cut where each page starts (store.Chunk's
// PageBreaks), so that a page's text is exactly its own; chunks stored
// before page breaks were kept stay whole, filed under their first page.
// Offsets count characters (Unicode code points), which stay put for as
// long as the paper is not re-ingested.
type paperText struct {
	runes  []rune
	pieces []textPiece
}

// textPiece is where a stretch of one chunk starts (at its page mark, if
// it has one): one page of it (pageStart == pageEnd), or the whole chunk
// when its page breaks are not known.
type textPiece struct {
	start              int
	pageStart, pageEnd int
	section            string
	role               role.Role
}

// exact reports whether the piece is one page's text, or has no page.
func (p textPiece) exact() bool { return p.pageStart == p.pageEnd }

// segment is a stretch of a chunk's text on the pages from..to.
type segment struct {
	text     string
	from, to int
}

// segments cuts c's text (trimmed of its first skip bytes, the overlap
// with the chunk before) at its page breaks.
func segments(c store.Chunk, skip int) []segment {
	breaks := c.PageBreaks
	if len(breaks) != c.PageEnd-c.PageStart || c.PageStart <= 0 {
		return []segment{{text: c.Text[skip:], from: c.PageStart, to: c.PageEnd}}
	}
	var out []segment
	prev := 0
	for i := 0; i <= len(breaks); i++ {
		end := len(c.Text)
		if i < len(breaks) {
			end = min(max(breaks[i], prev), len(c.Text))
		}
		if a := max(prev, skip); a < end {
			out = append(out, segment{text: c.Text[a:end], from: c.PageStart + i, to: c.PageStart + i})
		}
		prev = end
	}
	return out
}

func textOf(chunks []store.Chunk) *paperText {
	chunks = append([]store.Chunk(nil), chunks...)
	sort.Slice(chunks, func(i, j int) bool { return chunks[i].Seq < chunks[j].Seq })
	var b strings.Builder
	var pieces []textPiece
	n, page := 0, 0
	for i, c := range chunks {
		skip := 0
		if i > 0 && c.Seq > 1 && chunks[i-1].Section == c.Section {
			skip = len(c.Text) - len(chunk.Trim(chunks[i-1].Text, c.Text))
		}
		for _, sg := range segments(c, skip) {
			text := strings.TrimSpace(safetext.Clean(sg.text))
			if text == "" {
				continue
			}
			if n > 0 {
				b.WriteString("\n\n")
				n += 2
			}
			pieces = append(pieces, textPiece{start: n, pageStart: sg.from, pageEnd: sg.to, section: c.Section, role: c.Role.OfChunk()})
			if sg.from > 0 && sg.from != page {
				page = sg.from
				m := fmt.Sprintf("[page %d]\n", page)
				b.WriteString(m)
				n += len(m) // ASCII
			}
			b.WriteString(text)
			n += len([]rune(text))
		}
	}
	return &paperText{runes: []rune(b.String()), pieces: pieces}
}

func (t *paperText) chars() int { return len(t.runes) }

// end is where piece i's text ends (the next one's start, or the end).
func (t *paperText) end(i int) int {
	if i+1 < len(t.pieces) {
		return t.pieces[i+1].start
	}
	return len(t.runes)
}

// sections lists the headings in force, in reading order, each once per
// stretch, with their pages and where they start.
func (t *paperText) sections() []Section {
	out := []Section{}
	for _, p := range t.pieces {
		if p.section == "" {
			continue
		}
		if n := len(out); n > 0 && out[n-1].Title == p.section {
			out[n-1].PageEnd = max(out[n-1].PageEnd, p.pageEnd)
			continue
		}
		out = append(out, Section{Title: p.section, PageStart: p.pageStart, PageEnd: p.pageEnd, Start: p.start})
	}
	return out
}

// window is the stretch of text the pages from..to hold (0: unbounded;
// the whole text when neither is given), and whether it is exactly
// theirs: false when a piece in it spans pages (a chunk whose page breaks
// were not kept).
func (t *paperText) window(from, to int) (start, end int, exact bool) {
	if from <= 0 && to <= 0 {
		return 0, len(t.runes), true
	}
	start, end, exact = -1, -1, true
	for i, p := range t.pieces {
		if p.pageStart <= 0 || p.pageEnd < from || to > 0 && p.pageStart > to {
			continue
		}
		if start < 0 {
			start = p.start
		}
		end = t.end(i)
		exact = exact && p.exact()
	}
	if start < 0 {
		return 0, 0, true
	}
	return start, end, exact
}

// textRead is a piece of the text read.
type textRead struct {
	text               string
	n                  int // characters read
	pageStart, pageEnd int
}

// read returns the text from start to at most end, cut back to the last
// white space when it would end inside a word (unless the word is longer
// than half the piece). The chunks of the roles in omit are left out of
// the text, each run of them replaced by a line "[table left out]" (the
// offsets still count them).
func (t *paperText) read(start, end int, omit map[role.Role]bool) textRead {
	if end < len(t.runes) && end > start && !unicode.IsSpace(t.runes[end]) {
		cut := end
		for cut > start+(end-start)/2 && !unicode.IsSpace(t.runes[cut-1]) {
			cut--
		}
		if cut > start+(end-start)/2 {
			end = cut
		}
	}
	r := textRead{text: t.kept(start, end, omit), n: end - start}
	for i, p := range t.pieces {
		if t.end(i) <= start || p.start >= end || p.pageStart <= 0 {
			continue
		}
		if r.pageStart == 0 {
			r.pageStart = p.pageStart
		}
		r.pageEnd = max(r.pageEnd, p.pageEnd)
	}
	return r
}

// pageMark is the "[page N]\n" that starts at offset i, or "".
func (t *paperText) pageMark(i int) string {
	s := string(t.runes[i:min(len(t.runes), i+16)])
	if !strings.HasPrefix(s, "[page ") {
		return ""
	}
	if j := strings.IndexByte(s, '\n'); j > 0 {
		return s[:j+1]
	}
	return ""
}

// kept is the text from start to end without the chunks of the roles in
// omit (see read).
func (t *paperText) kept(start, end int, omit map[role.Role]bool) string {
	if len(omit) == 0 {
		return string(t.runes[start:end])
	}
	var b strings.Builder
	at := start
	var left role.Role // the role of the run being left out, if any
	for i, p := range t.pieces {
		pe := t.end(i)
		if pe <= start || p.start >= end {
			continue
		}
		if !omit[p.role] {
			left = ""
			continue
		}
		from, to := max(p.start, start), min(pe, end)
		b.WriteString(string(t.runes[at:from]))
		if mark := t.pageMark(from); mark != "" {
			b.WriteString(mark) // where a page starts stays marked
		}
		if left != p.role {
			fmt.Fprintf(&b, "[%s left out]\n\n", p.role)
			left = p.role
		}
		at = to
	}
	b.WriteString(string(t.runes[at:end]))
	return b.String()
}
