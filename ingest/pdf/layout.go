package pdf

import (
	"math"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/papers-cli/papers/internal/lazyre"
	"github.com/papers-cli/papers/role"
)

// Layout thresholds, in units of the font size (em). They come from how
// typesetters space text, not from the test files: TeX's interword space is
// 0.33em and shrinks to about 0.22em, while kerns and italic corrections stay
// under 0.1em (pdftotext also breaks words at 0.1em); superscripts rise less
// than half an em; lines are at least 1.1em apart; a column gutter is over
// 1em wide.
const (
	wordGapEm    = 0.10 // gap that makes a word break
	sameLineEm   = 0.5  // baseline shift still on the same line (super/subscripts)
	fragBreakEm  = 1.0  // gap that splits a line into separate fragments (columns, table cells)
	backMoveEm   = 0.7  // a move back further than this starts a new fragment
	cutEm        = 0.5  // a gap inside a fragment a column gutter may run through
	lineGroupEm  = 0.35 // fragments whose baselines differ less are one line
	paraGapEm    = 1.6  // baseline distance (in line heights) that starts a new paragraph
	capGapEm     = 0.2  // gap after a drop cap that makes a word break (under a shrunk interword space)
	minColumnGap = 0.15 // each column holds at least this share of the page's characters
	headGapEm    = 3.0  // a blank strip this tall across both columns ends a band of no running text (author blocks, a figure's labels)
	headFrags    = 10   // a band of at most this many fragments a column ends there too
)

// frag is a run of glyphs drawn left to right on one baseline, in stream
// order: a line, or a piece of one.
type frag struct {
	x0, x1, xmax float64
	base, size   float64
	lastSize     float64
	text         strings.Builder
	nchar        int
	style             // glyphs in bold, italic and math fonts
	pending      bool // a space glyph was seen
	lastY        float64
	accent       rune // combining mark waiting for the next glyph
	// cuts are the wide gaps inside the fragment, where it may be split
	// if a column gutter runs through one (columns closer than fragBreakEm).
	cuts []cut
	// dropCap is set on the line a drop cap starts: the lines beside the
	// cap are indented by it, which is not a paragraph's indent.
	dropCap *dropCap
	capGap  bool // the next glyph is the first after the drop cap
	// A superscript run and the subscript set under it (TeX's x_i^2
	// draws the 2, then moves back for the i): supAt is where the
	// superscript's text starts (before any space written ahead of it),
	// supX where the glyph it sits on ends, supX0 where the superscript
	// starts, supWrote whether a space was written before it; subAt is
	// where the subscript's text goes while it runs, subX1 where its last
	// glyph ends.
	supAt, subAt       int
	supX, supX0, subX1 float64
	supWrote           bool
}

// dropCap is an initial set two or three lines tall: its baseline (the
// lowest line beside it) and its right edge.
type dropCap struct {
	base, x1 float64
}

// cut is a gap inside a fragment: from x0 to x1, after the first at bytes
// of its text and nchar of its characters.
type cut struct {
	x0, x1    float64
	at, nchar int
}

// combining maps spacing accents to the combining marks NFKC composes.
var combining = map[string]rune{
	"\u00a8": 0x308, "\u00b4": 0x301, "`": 0x300, "\u02c6": 0x302, "^": 0x302, "\u02dc": 0x303,
	"~": 0x303, "\u00af": 0x304, "\u02d8": 0x306, "\u02d9": 0x307, "\u02da": 0x30a, "\u02dd": 0x30b,
	"\u02c7": 0x30c, "\u00b8": 0x327, "\u02db": 0x328,
}

// style counts the glyphs of a fragment or line set in bold, italic and
// math fonts (or drawing math symbols).
type style struct{ bold, italic, math int }

func (s *style) add(g *glyph) {
	if f := g.font; f != nil {
		if f.bold {
			s.bold++
		}
		if f.italic {
			s.italic++
		}
		if f.math || isMathText(g.text) {
			s.math++
		}
	}
}

func (s style) plus(o style) style {
	return style{s.bold + o.bold, s.italic + o.italic, s.math + o.math}
}

// part is the share of s that n of total glyphs hold (all of a count
// that covers every glyph stays all).
func (s style) part(n, total int) style {
	if total <= 0 {
		return style{}
	}
	f := func(x int) int { return (x*n + total/2) / total }
	return style{f(s.bold), f(s.italic), f(s.math)}
}

// isMathText says whether a glyph's text is a mathematical symbol: an
// operator, arrow, Greek letter or mathematical alphanumeric.
func isMathText(t string) bool {
	r, _ := utf8.DecodeRuneInString(t)
	switch {
	case r >= 0x391 && r <= 0x3c9, // Greek
		r >= 0x2190 && r <= 0x22ff,   // arrows, operators
		r >= 0x27c0 && r <= 0x2aff,   // more operators and arrows
		r >= 0x1d400 && r <= 0x1d7ff, // mathematical alphanumerics
		r == '=' || r == '+' || r == '<' || r == '>' || r == '×' || r == '±' || r == '·' || r == '−':
		return true
	}
	return false
}

// line is a line of text in reading order, before document-level cleanup.
type line struct {
	text    string
	x0, x1  float64
	base    float64
	size    float64
	bold    bool // every character is in a bold font
	nchar   int  // glyphs that drew text
	style        // of its glyphs
	cells   bool // part of a table read column by column (see tableColumns)
	role    role.Role
	paraGap bool // a paragraph starts here
	// groupStart: the first line of a column (or band) as order read it,
	// whose paraGap says only that the column starts
	groupStart bool
	col        int  // 0 full width or single column, 1 left, 2 right
	drop       bool // running head, page number, line number or arXiv stamp
	heading    bool
	hyphJoin   bool
	dropCap    *dropCap // the line starts with a drop cap
	// pieces are the texts of the fragments the line was joined from, left
	// to right: set apart by more than fragBreakEm (author names set with
	// wide spaces, table cells).
	pieces []string
}

// pageLayout is the laid-out text of one page.
type pageLayout struct {
	lines     []line
	rotated   []string // text drawn in other directions (axis labels, sideways table heads)
	furniture []string // text in other directions that is furniture: the arXiv side stamp, sideways running heads
	sizes     map[int]int
	warnings  []string
	glyphs    int
	invisible int
	unmapped  int
	// images drawn, content streams, those missing and those damaged
	images, contentStreams, brokenContent, damagedContent int
	cut                                                   bool // content was skipped past syntax.MaxStreamBytes
}

// frame rotates p into the coordinates of text direction dir.
func frame(dir uint8, x, y float64) (float64, float64) {
	switch dir {
	case 1:
		return y, -x
	case 2:
		return -x, -y
	case 3:
		return -y, x
	}
	return x, y
}

// layout turns the glyphs of a page into lines in reading order.
func layout(glyphs []glyph) pageLayout {
	var pl pageLayout
	pl.sizes = map[int]int{}
	var count [5]int
	for i := range glyphs {
		if !glyphs[i].space && glyphs[i].text != "" {
			count[glyphs[i].dir]++
		}
	}
	dom := uint8(0)
	for d := 1; d < 4; d++ {
		if count[d] > count[dom] {
			dom = uint8(d)
		}
	}
	frags := buildFrags(glyphs, func(g *glyph) bool { return g.dir == dom }, dom)
	for d := uint8(0); d < 5; d++ {
		if d == dom || count[d] == 0 {
			continue
		}
		fd := d
		if d == 4 {
			fd = 0
		}
		other := buildFrags(glyphs, func(g *glyph) bool { return g.dir == d }, fd)
		for _, f := range other {
			if s := strings.TrimSpace(f.text.String()); s != "" {
				pl.rotated = append(pl.rotated, s)
			}
		}
	}
	for _, g := range glyphs {
		if g.dir == dom && !g.space && g.text != "" {
			pl.sizes[int(math.Round(g.size*2))]++
		}
	}
	frags = dropLineNumbers(frags)
	pl.lines = order(frags)
	return pl
}

func buildFrags(glyphs []glyph, keep func(*glyph) bool, dir uint8) []*frag {
	var out []*frag
	var cur *frag
	for i := range glyphs {
		g := &glyphs[i]
		if !keep(g) {
			continue
		}
		x, y := frame(dir, g.x, g.y)
		if g.space {
			if cur != nil && math.Abs(y-cur.base) < sameLineEm*cur.size {
				cur.pending = true
				cur.x1 = x + g.w
			}
			continue
		}
		if g.text == "" && g.w == 0 {
			continue
		}
		size := g.size
		if size <= 0.1 {
			size = 0.1
		}
		text := g.text
		if mark, ok := combining[text]; ok && cur != nil {
			// A spacing accent drawn over a neighbour (TeX's \" and \' in
			// OT1 fonts): combine it with the letter it sits on.
			if x < cur.x1-0.25*g.w && math.Abs(y-cur.lastY) < sameLineEm*size && cur.text.Len() > 0 {
				cur.text.WriteRune(mark)
				continue
			}
			if i+1 < len(glyphs) && glyphs[i+1].dir == g.dir && !glyphs[i+1].space {
				nx, _ := frame(dir, glyphs[i+1].x, glyphs[i+1].y)
				if nx < x+0.75*g.w && nx+glyphs[i+1].w > x+0.25*g.w {
					cur.accent = mark
					continue
				}
			}
		}
		if cur != nil && cur.nchar == 1 && cur.size > 1.6*size && y-cur.base > sameLineEm*size && y-cur.base < cur.size &&
			x-cur.x1 > -0.2*size && x-cur.x1 < size && unicode.IsUpper(firstRune(cur.text.String())) {
			// A drop cap (an initial two or three lines tall, IEEE's "R" of
			// "REMOTE"): the line beside its top is the line it starts, and
			// the lines below are lines of their own.
			cur.dropCap = &dropCap{base: cur.base, x1: cur.x1}
			cur.base, cur.size, cur.lastY, cur.lastSize = y, size, y, size
			cur.capGap = true
		}
		insert := -1 // where this glyph's text goes, if not at the end
		if cur != nil {
			sz := math.Max(cur.size, size)
			dy := y - cur.base
			gap := x - cur.x1
			if math.Abs(dy) > sameLineEm*sz || gap < -backMoveEm*sz && !cur.underSup(x, y, size) || gap > fragBreakEm*sz {
				cur = nil
			} else if insert = cur.script(x, y, size, text); insert >= 0 {
				// a subscript under a superscript: placed before it
			} else {
				// A superscript before a word is a marker of its own
				// ("1Institute" is affiliation 1, then "Institute").
				afterSup := cur.lastSize < 0.85*size && cur.lastY-y > 0.2*size && unicode.IsLetter(firstRune(text))
				brk := breakGap(cur.lastSize, size, lastRune(&cur.text), firstRune(text))
				if cur.capGap {
					// The rest of the word a drop cap starts ("R" and
					// "EMOTE") follows the cap's advance at a small
					// distance; a word of its own follows at a space.
					// A cap followed by small capitals ("H" then "Ow" in
					// IEEE TPAMI, the O at 0.8 of the body size): the
					// gap is measured in the body's em, the next glyph's.
					brk = capGapEm * math.Max(size, nextSize(glyphs, i, dir, y))
					cur.capGap = false
				}
				at, wrote := cur.text.Len(), false
				if cur.pending || afterSup || gap > brk {
					wrote = !cur.pending && !afterSup
					writeSpace(&cur.text)
				}
				if cur.supAt == -2 { // this glyph starts a superscript run
					cur.supAt, cur.supWrote = at, wrote && cur.text.Len() > at
				}
				if gap > cutEm*sz && len(cur.cuts) < 64 {
					cur.cuts = append(cur.cuts, cut{x0: cur.x1, x1: x, at: cur.text.Len(), nchar: cur.nchar})
				}
				cur.pending = false
				if size > cur.size*1.1 { // a superscript started the fragment
					cur.base, cur.size = y, size
				}
			}
		}
		if cur == nil {
			cur = &frag{x0: x, base: y, size: size, supAt: -1, subAt: -1}
			out = append(out, cur)
		}
		if insert >= 0 {
			cur.insertText(insert, text)
			cur.subAt = insert + len(text)
			cur.subX1 = x + g.w
			cur.lastY, cur.lastSize = y, size
			cur.x1 = math.Max(cur.x1, x+g.w)
			if g.text != "" {
				cur.nchar++
				cur.style.add(g)
			}
			continue
		}
		cur.text.WriteString(text)
		if cur.accent != 0 {
			cur.text.WriteRune(cur.accent)
			cur.accent = 0
		}
		cur.lastY = y
		cur.lastSize = size
		cur.x1 = x + g.w
		if cur.x1 > cur.xmax {
			cur.xmax = cur.x1
		}
		if x < cur.x0 {
			cur.x0 = x
		}
		if g.text != "" {
			cur.nchar++
			cur.style.add(g)
		}
	}
	// Drop fragments that hold no text (unmapped glyphs only).
	n := 0
	for _, f := range out {
		if strings.TrimSpace(f.text.String()) != "" {
			out[n] = f
			n++
		}
	}
	return out[:n]
}

// script tracks superscripts and the subscripts set under them, for the
// glyph at x, y of the given size and text about to join the fragment
// (which goes on). It returns where in the fragment's text the glyph goes
// when it is (part of) a subscript under a superscript, or -1. The stream
// draws the superscript first; pdftotext orders the two by where they
// start, and the superscript of an italic letter starts after its italic
// correction, so the subscript, which touches the letter, comes first
// ("W_i^Q" is "WiQ", "σ_x^2" "σx2", "F_1^t" "F1t"); where both start at
// the same place ("c_i^1") the superscript stays first ("c1i").
func (f *frag) script(x, y, size float64, text string) int {
	small := size < 0.85*f.size
	raised := small && y-f.base > 0.2*f.size
	lowered := small && f.base-y > 0.1*f.size
	lastRaised := f.lastY-f.base > 0.2*f.size
	switch {
	case lowered && f.subAt >= 0 && x-f.subX1 > -0.1*size && x-f.subX1 < 0.3*size && f.text.Len() < maxScriptLine:
		return f.subAt // the subscript goes on
	case f.underSup(x, y, size):
		at := f.supAt
		if f.supWrote && x-f.supX < 0.1*f.size {
			// the space before the superscript was its distance from
			// the glyph it sits on: the subscript touches that glyph
			s := f.text.String()
			f.text.Reset()
			f.text.WriteString(s[:at] + s[at+1:])
			f.shiftCuts(at, -1)
			f.supWrote = false
		}
		return at
	case raised && !lastRaised && math.Abs(f.lastY-f.base) < 0.1*f.size && text != "":
		f.supAt, f.supX, f.supX0, f.subAt = -2, f.x1, x, -1 // supAt is set once the space is written
	case !raised:
		f.supAt, f.subAt = -1, -1
	}
	return -1
}

// maxScriptLine bounds the fragments whose scripts are reordered: each
// glyph put before a superscript copies the fragment's text, and a line
// of text is far shorter (a crafted one-line page is not).
const maxScriptLine = 1024

// underSup says whether a glyph at x, y of the given size starts a
// subscript under the superscript the fragment ends with: set small and
// low, at the end of the glyph the superscript sits on and left of where
// the superscript starts (a wide superscript, "W^Q", ends further right
// than the usual move back of a new fragment).
func (f *frag) underSup(x, y, size float64) bool {
	return f.text.Len() < maxScriptLine && size < 0.85*f.size && f.base-y > 0.1*f.size && f.supAt >= 0 && f.lastY-f.base > 0.2*f.size &&
		x < f.supX0-0.02*size && math.Abs(x-f.supX) < 0.15*f.size
}

// insertText puts s into the fragment's text at byte offset at.
func (f *frag) insertText(at int, s string) {
	t := f.text.String()
	f.text.Reset()
	f.text.WriteString(t[:at] + s + t[at:])
	f.shiftCuts(at, len(s))
}

// shiftCuts moves the cuts after byte offset at by n bytes.
func (f *frag) shiftCuts(at, n int) {
	for i := range f.cuts {
		if f.cuts[i].at > at {
			f.cuts[i].at += n
		}
	}
}

// breakGap is the gap between two glyphs (of sizes a and b, the letters
// ra and rb) over which a word breaks: 0.1em of the smaller size, except
// where small capitals meet capitals ("G" and "ROBID" of GROBID, "S", "CI",
// "BERT" of SciBERT, set in two sizes): there the fonts' own spacing and
// kerning leave small gaps, and only a gap of a space's width (TeX's
// interword space shrinks to about 0.22em) breaks the word. Other letters
// and digits of two sizes are two words at any gap over 0.03em, as
// pdftotext reads a change of size: the symbols of a product "q_i k_i"
// (TeX sets the second right after the first's subscript), a subscript set
// off its letter ("E_a" after an italic E) or a marker after a word; a
// script that touches or overlaps its letter (x_i, W_i^Q) stays joined, and
// punctuation after a script ("s_1,") takes no space.
// nextSize is the size of the glyph after glyphs[i] if it is drawn on the
// same baseline (y in the frame of dir), else 0.
func nextSize(glyphs []glyph, i int, dir uint8, y float64) float64 {
	for j := i + 1; j < len(glyphs) && j < i+4; j++ {
		g := &glyphs[j]
		if g.space || g.text == "" || g.dir != glyphs[i].dir {
			continue
		}
		if _, gy := frame(dir, g.x, g.y); math.Abs(gy-y) < sameLineEm*g.size {
			return g.size
		}
		return 0
	}
	return 0
}

func breakGap(a, b float64, ra, rb rune) float64 {
	lo, hi := math.Min(a, b), math.Max(a, b)
	if lo < 0.95*hi && lo > 0.6*hi && unicode.IsUpper(ra) && unicode.IsUpper(rb) {
		return 0.18 * hi
	}
	if lo < 0.95*hi && (unicode.IsLetter(rb) || unicode.IsDigit(rb)) && (unicode.IsLetter(ra) || unicode.IsDigit(ra)) {
		return 0.03 * hi
	}
	return wordGapEm * lo
}

func lastRune(b *strings.Builder) rune {
	r, _ := utf8.DecodeLastRuneInString(b.String())
	return r
}

func writeSpace(b *strings.Builder) {
	s := b.String()
	if len(s) > 0 && s[len(s)-1] != ' ' {
		b.WriteByte(' ')
	}
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// dropLineNumbers removes the line numbers of review copies (ACL, ICML): a
// run of at least 15 numeric fragments aligned on one edge whose values
// mostly go up by one from top to bottom, set in a margin beside lines of
// prose (see inMargin). A column of numbers in a table is kept.
func dropLineNumbers(frags []*frag) []*frag {
	type cand struct {
		f *frag
		v int
	}
	groups := map[int][]cand{}
	for _, f := range frags {
		s := strings.TrimSpace(f.text.String())
		if len(s) > 4 || !isDigits(s) {
			continue
		}
		v := 0
		for _, r := range s {
			v = v*10 + int(r-'0')
		}
		k := int(math.Round(f.xmax / 4))
		groups[k] = append(groups[k], cand{f, v})
	}
	drop := map[*frag]bool{}
	for _, g := range groups {
		if len(g) < 15 {
			continue
		}
		sort.Slice(g, func(i, j int) bool { return g[i].f.base > g[j].f.base })
		inc := 0
		for i := 1; i < len(g); i++ {
			if g[i].v == g[i-1].v+1 {
				inc++
			}
		}
		if float64(inc) < 0.8*float64(len(g)-1) {
			continue
		}
		fs := make([]*frag, len(g))
		for i, c := range g {
			fs[i] = c.f
		}
		if !inMargin(fs, frags) {
			continue
		}
		for _, c := range g {
			drop[c.f] = true
		}
	}
	if len(drop) == 0 {
		return frags
	}
	out := frags[:0]
	for _, f := range frags {
		if !drop[f] {
			out = append(out, f)
		}
	}
	return out
}

// inMargin says whether a column of numbers (col) stands in a page margin
// beside the text, as line numbers do: next to nothing on its outer side,
// and, for most of its numbers, with words (not more numbers) as the
// nearest text on the same baseline on its inner side.
func inMargin(col, frags []*frag) bool {
	x0, x1 := math.Inf(1), math.Inf(-1)
	in := make(map[*frag]bool, len(col))
	for _, f := range col {
		x0, x1 = math.Min(x0, f.x0), math.Max(x1, f.xmax)
		in[f] = true
	}
	var left, right, total int
	for _, f := range frags {
		if in[f] {
			continue
		}
		total += f.nchar
		if f.xmax <= x0 {
			left += f.nchar
		}
		if f.x0 >= x1 {
			right += f.nchar
		}
	}
	outerLeft := left <= total/50
	outerRight := right <= total/50
	if !outerLeft && !outerRight {
		return false
	}
	// the nearest fragment on the inner side of each number, on its line
	beside := 0
	for _, n := range col {
		var near *frag
		dist := math.Inf(1)
		for _, f := range frags {
			if in[f] || math.Abs(f.base-n.base) > lineGroupEm*n.size {
				continue
			}
			if d := f.x0 - x1; outerLeft && d >= 0 && d < dist {
				near, dist = f, d
			}
			if d := x0 - f.xmax; outerRight && d >= 0 && d < dist {
				near, dist = f, d
			}
		}
		if near != nil && hasLetters(near.text.String()) {
			beside++
		}
	}
	return beside*2 >= len(col)
}

func hasLetters(s string) bool {
	n := 0
	for _, r := range s {
		if unicode.IsLetter(r) {
			n++
			if n >= 3 {
				return true
			}
		}
	}
	return false
}

// order puts fragments in reading order: it finds the column gutters of
// the page, then reads it top to bottom in bands separated by lines that
// span the columns, each band column by column, left to right.
//
// Gutters are found for each slab of the page between lines that span
// most of its width (a title, a full-width abstract, a figure's caption):
// the columns under a full-width figure or table, whose labels and cells
// fill the strip between the columns above, and the three columns of
// another part of the page are found where they are. A slab too short to
// show its own gutter takes the page's.
func order(frags []*frag) []line {
	if len(frags) == 0 {
		return nil
	}
	minX, maxX := math.Inf(1), math.Inf(-1)
	for _, f := range frags {
		minX, maxX = math.Min(minX, f.x0), math.Max(maxX, f.xmax)
	}
	pageGutter, pageOK := findGutter(frags, 0)
	sorted := append([]*frag(nil), frags...)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].base > sorted[j].base })
	// colOf[f] is f's column in its slab, 1 from the left; 0 spans columns.
	// colX[c] is the left edge of column c of the fragment's slab.
	colOf := make(map[*frag]int, len(frags))
	bounds := make(map[*frag][]float64, len(frags))
	var split []*frag
	var slab func(fs []*frag, depth int)
	slab = func(fs []*frag, depth int) {
		gs := findGutters(fs, 0)
		if len(gs) == 0 && depth < 3 {
			// Columns above a full-width table or figure that no line
			// spanning the page sets apart: look again on each side of
			// the widest blank strip across the slab.
			if a, b, ok := splitAtGap(fs); ok {
				slab(a, depth+1)
				slab(b, depth+1)
				return
			}
		}
		if len(gs) == 0 && pageOK {
			gs = []float64{pageGutter}
		}
		for _, g := range gs {
			fs = splitAt(fs, g)
		}
		b := make([]float64, 0, len(gs)+2)
		b = append(append(append(b, minX), gs...), maxX)
		for _, f := range fs {
			if len(gs) > 0 {
				colOf[f] = columnOf(f, gs)
			}
			bounds[f] = b
		}
		split = append(split, fs...)
	}
	width := maxX - minX
	var cur []*frag
	for _, f := range sorted {
		if spansPage(f, width) {
			if len(cur) > 0 {
				slab(cur, 0)
				cur = nil
			}
			colOf[f] = 0
			split = append(split, f)
			continue
		}
		cur = append(cur, f)
	}
	if len(cur) > 0 {
		slab(cur, 0)
	}
	sort.SliceStable(split, func(i, j int) bool { return split[i].base > split[j].base })
	var out []line
	var cols [][]*frag // by column, 1 from the left (index 0 unused)
	flush := func() {
		for c := 1; c < len(cols); c++ {
			out = append(out, groupLines(cols[c], c)...)
		}
		cols = cols[:0]
	}
	var full []*frag
	flushFull := func() {
		out = append(out, groupLines(full, 0)...)
		full = nil
	}
	add := func(f *frag, c int) {
		for len(cols) <= c {
			cols = append(cols, nil)
		}
		cols[c] = append(cols[c], f)
	}
	var prose []int // lines of running text in the band, by column
	var prevBounds []float64
	var prev *frag
	for _, f := range split {
		p := prev
		prev = f
		c := colOf[f]
		b := bounds[f]
		if c > 0 && prevBounds != nil && !sameBounds(b, prevBounds) {
			// another slab's columns
			flush()
			prose = prose[:0]
		}
		if c > 0 {
			prevBounds = b
		}
		switch {
		case c > 0:
			flushFull()
			// Blocks side by side over the columns (IEEE's author blocks,
			// one per column, above an abstract in the left one; the
			// labels of a figure or table that spans the page) are read
			// each whole, then the columns: a band that is short, or holds
			// no running text, ends at a blank strip across the page as
			// tall as a few lines. Inside running columns both sides
			// rarely leave such a strip at one height.
			if p != nil && filled(cols) >= 2 && (shortCols(cols) || maxProse(prose) <= 1) &&
				p.base-f.base > headGapEm*math.Max(p.size, f.size) {
				flush()
				prose = prose[:0]
			}
			for len(prose) <= c {
				prose = append(prose, 0)
			}
			// Lines of running text fill their column: over 0.9 of its width.
			if f.xmax-f.x0 > 0.9*(b[c]-b[c-1]) {
				prose[c]++
			}
			add(f, c)
		default:
			// A full-width fragment on the same baseline as column text
			// (a superscript, an equation number) does not end the band.
			if filled(cols) > 0 && sameBaseAsAny(f, cols) {
				add(f, columnOf(&frag{x0: f.x0, xmax: f.x0}, prevBounds[1:len(prevBounds)-1]))
				continue
			}
			flush()
			prose = prose[:0]
			full = append(full, f)
		}
	}
	flushFull()
	flush()
	return out
}

// splitAtGap cuts a slab of fragments (sorted top to bottom) where a
// caption across its middle starts a table or figure below text ("Table 1:
// ...", "表 1"), else at its widest blank strip across the page, if that
// is over twice the slab's usual line pitch and 1.5 lines tall. Each part
// holds at least four fragments.
func splitAtGap(fs []*frag) (above, below []*frag, ok bool) {
	if len(fs) < 8 {
		return nil, nil, false
	}
	minX, maxX := math.Inf(1), math.Inf(-1)
	for _, f := range fs {
		minX, maxX = math.Min(minX, f.x0), math.Max(maxX, f.xmax)
	}
	// a caption across the middle, or centred: its label may be a
	// fragment of its own left of the middle ("表 1", then the title)
	mid := (minX + maxX) / 2
	for i := 4; i+4 <= len(fs); i++ {
		f := fs[i]
		across := f.x0 < mid && f.xmax > mid || f.x0 > minX+0.15*(maxX-minX) && f.x0 < mid
		if across && captionStart.MatchString(strings.TrimSpace(f.text.String())) {
			return fs[:i], fs[i:], true
		}
	}
	var pitches []float64
	best, at := 0.0, -1
	for i := 1; i < len(fs); i++ {
		d := fs[i-1].base - fs[i].base
		if d > 0.2*fs[i].size {
			pitches = append(pitches, d)
		}
		if i >= 4 && len(fs)-i >= 4 && d > best {
			best, at = d, i
		}
	}
	if at < 0 || len(pitches) < 4 {
		return nil, nil, false
	}
	sort.Float64s(pitches)
	pitch := pitches[len(pitches)/2]
	if best < 2*pitch || best < 1.5*math.Max(fs[at].size, fs[at-1].size) {
		return nil, nil, false
	}
	return fs[:at], fs[at:], true
}

// spansPage says whether one of f's pieces spans most of the page's text
// width: such a line crosses every gutter.
func spansPage(f *frag, width float64) bool {
	for _, p := range pieces(f) {
		if p.x1-p.x0 > 0.6*width {
			return true
		}
	}
	return false
}

// columnOf is the column (1 from the left) of a fragment between gutters
// gs (ascending), or 0 when it crosses one.
func columnOf(f *frag, gs []float64) int {
	c := 1
	for _, g := range gs {
		switch {
		case f.xmax <= g:
			return c
		case f.x0 < g:
			return 0
		}
		c++
	}
	return c
}

func sameBounds(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// filled counts the columns that hold fragments.
func filled(cols [][]*frag) int {
	n := 0
	for _, c := range cols {
		if len(c) > 0 {
			n++
		}
	}
	return n
}

// shortCols says whether every column holds at most headFrags fragments.
func shortCols(cols [][]*frag) bool {
	for _, c := range cols {
		if len(c) > headFrags {
			return false
		}
	}
	return true
}

func maxProse(p []int) int {
	m := 0
	for _, n := range p {
		m = max(m, n)
	}
	return m
}

// slabProse is how many lines of running text each side of a gutter found
// in a slab of the page must hold (see proseLine): the columns of a table
// are no columns of text, and pdftotext reads a table's rows set wide apart
// row by row.
const slabProse = 3

// proseLine says whether a fragment reads as a line of running text: 25
// letters or more in five words or more, or (Chinese, Japanese: no spaces
// between words) 15 characters or more, half of them of those scripts.
func proseLine(f *frag) bool {
	t := strings.TrimSpace(f.text.String())
	if f.nchar >= 25 && strings.Count(t, " ") >= 4 {
		return true
	}
	if f.nchar < 15 {
		return false
	}
	return cjkRunes(t)*2 >= f.nchar
}

// findGutters finds the gutters of a slab of the page, left to right: one
// (see findGutter), then any inside a side that is over half the slab's
// width (three columns, or two beside a sidebar).
func findGutters(frags []*frag, depth int) []float64 {
	g, ok := findGutter(frags, slabProse)
	if !ok {
		return nil
	}
	if depth >= 2 {
		return []float64{g}
	}
	minX, maxX := math.Inf(1), math.Inf(-1)
	for _, f := range frags {
		minX, maxX = math.Min(minX, f.x0), math.Max(maxX, f.xmax)
	}
	var left, right []*frag
	for _, f := range splitAt(frags, g) {
		switch {
		case f.xmax <= g:
			left = append(left, f)
		case f.x0 >= g:
			right = append(right, f)
		}
	}
	var out []float64
	if g-minX > 0.55*(maxX-minX) {
		out = append(out, findGutters(left, depth+1)...)
	}
	out = append(out, g)
	if maxX-g > 0.55*(maxX-minX) {
		out = append(out, findGutters(right, depth+1)...)
	}
	return out
}

func sameBaseAsAny(f *frag, cols [][]*frag) bool {
	for _, l := range cols {
		for i := len(l) - 1; i >= 0 && i >= len(l)-3; i-- {
			if math.Abs(l[i].base-f.base) < lineGroupEm*f.size {
				return true
			}
		}
	}
	return false
}

type piece struct {
	x0, x1 float64
	nchar  int
}

// pieces are a fragment's runs between its cuts.
func pieces(f *frag) []piece {
	if len(f.cuts) == 0 {
		return []piece{{f.x0, f.xmax, f.nchar}}
	}
	out := make([]piece, 0, len(f.cuts)+1)
	x, n := f.x0, 0
	for _, c := range f.cuts {
		out = append(out, piece{x, c.x0, c.nchar - n})
		x, n = c.x1, c.nchar
	}
	return append(out, piece{x, f.xmax, f.nchar - n})
}

// cutAt returns the index of the cut of f that a gutter at g runs through,
// or -1.
func cutAt(f *frag, g float64) int {
	for i, c := range f.cuts {
		if c.x0 <= g && g <= c.x1 {
			return i
		}
	}
	return -1
}

// splitAt splits the fragments a gutter at g runs through (two columns'
// lines drawn as one run) into their left and right parts.
func splitAt(frags []*frag, g float64) []*frag {
	var out []*frag
	for _, f := range frags {
		i := -1
		if f.x0 < g && f.xmax > g {
			i = cutAt(f, g)
		}
		if i < 0 {
			out = append(out, f)
			continue
		}
		c := f.cuts[i]
		text := f.text.String()
		left := &frag{x0: f.x0, x1: c.x0, xmax: c.x0, base: f.base, size: f.size, lastSize: f.size, lastY: f.base,
			nchar: c.nchar, cuts: f.cuts[:i]}
		left.text.WriteString(strings.TrimRight(text[:c.at], " "))
		right := &frag{x0: c.x1, x1: f.x1, xmax: f.xmax, base: f.base, size: f.size, lastSize: f.lastSize, lastY: f.lastY,
			nchar: f.nchar - c.nchar, pending: f.pending}
		right.text.WriteString(text[c.at:])
		for _, k := range f.cuts[i+1:] {
			right.cuts = append(right.cuts, cut{k.x0, k.x1, k.at - c.at, k.nchar - c.nchar})
		}
		left.style, right.style = f.style.part(left.nchar, f.nchar), f.style.part(right.nchar, f.nchar)
		out = append(out, left, right)
	}
	return out
}

// findGutter looks for a vertical strip in the middle of the page that few
// fragments cross, with enough text on each side to be two columns.
func findGutter(frags []*frag, minProse int) (float64, bool) {
	minX, maxX := math.Inf(1), math.Inf(-1)
	total := 0
	for _, f := range frags {
		minX = math.Min(minX, f.x0)
		maxX = math.Max(maxX, f.xmax)
		total += f.nchar
	}
	width := maxX - minX
	if width < 100 || width > 5000 || total < 200 {
		return 0, false
	}
	// Lines that span most of the page (a title, a full-width abstract,
	// figure or table above or below the columns) cross any gutter; they
	// are read as bands of their own, so only the others say where it is.
	wide := func(f *frag) bool {
		for _, p := range pieces(f) {
			if p.x1-p.x0 > 0.6*width {
				return true
			}
		}
		return false
	}
	n := int(width) + 1
	cover := make([]int, n+1)
	for _, f := range frags {
		if wide(f) {
			continue
		}
		for _, p := range pieces(f) {
			a := int(p.x0 - minX)
			b := int(p.x1 - minX)
			if a < 0 {
				a = 0
			}
			if b > n {
				b = n
			}
			if b > a {
				cover[a] += p.nchar
				cover[b] -= p.nchar
			}
		}
	}
	for i := 1; i <= n; i++ {
		cover[i] += cover[i-1]
	}
	best, bestX := math.MaxInt, -1
	for x := int(0.3 * width); x <= int(0.7*width); x++ {
		// prefer the middle of the emptiest strip
		if cover[x] < best {
			best, bestX = cover[x], x
		}
	}
	if bestX < 0 {
		return 0, false
	}
	// centre on the run of nearly as empty positions around it
	tol := best + total/50
	lo, hi := bestX, bestX
	for hi+1 < n && cover[hi+1] <= tol {
		hi++
	}
	for lo-1 >= 0 && cover[lo-1] <= tol {
		lo--
	}
	if hi-lo < 4 {
		return 0, false
	}
	// Inside that strip, stand where the fewest of the lines that start
	// or end in it cross it, in the middle of such a run, the run nearest
	// the strip's centre: the strip may hold the ends of a few lines, such
	// as the reference labels ("[13]") that hang out of a right column,
	// and a gutter through them makes each of those lines full width,
	// which cuts the columns into bands of a line or two read in turn.
	// (Lines that run through the whole strip cross it anywhere, or have a
	// gap there that splitAt cuts.)
	crossing := make([]int, hi-lo+2) // over positions lo..hi
	sLo, sHi := minX+float64(lo), minX+float64(hi)
	for _, f := range frags {
		if wide(f) || !(f.x0 > sLo && f.x0 < sHi || f.xmax > sLo && f.xmax < sHi) {
			continue
		}
		for _, p := range pieces(f) {
			// the positions strictly inside the piece
			a := max(int(math.Floor(p.x0-minX))+1, lo) - lo
			b := min(int(math.Ceil(p.x1-minX)), hi+1) - lo
			if b > a {
				crossing[a]++
				crossing[b]--
			}
		}
	}
	for i := 1; i < len(crossing); i++ {
		crossing[i] += crossing[i-1]
	}
	low := crossing[0]
	for x := lo; x <= hi; x++ {
		low = min(low, crossing[x-lo])
	}
	mid := (lo + hi) / 2
	runLo, runHi, dist := lo, hi, math.MaxInt
	for x := lo; x <= hi; {
		if crossing[x-lo] != low {
			x++
			continue
		}
		y := x
		for y+1 <= hi && crossing[y+1-lo] == low {
			y++
		}
		d := 0
		if mid < x {
			d = x - mid
		} else if mid > y {
			d = mid - y
		}
		if d < dist {
			runLo, runHi, dist = x, y, d
		}
		x = y + 1
	}
	g := minX + float64(runLo+runHi)/2
	var l, r, cross, ll, rl, lp, rp int
	for _, f := range frags {
		switch {
		case f.xmax <= g:
			l += f.nchar
			if f.nchar >= 20 {
				ll++
			}
			if proseLine(f) {
				lp++
			}
		case f.x0 >= g:
			r += f.nchar
			if f.nchar >= 20 {
				rl++
			}
			if proseLine(f) {
				rp++
			}
		case wide(f):
		case cutAt(f, g) >= 0:
			c := f.cuts[cutAt(f, g)]
			l += c.nchar
			r += f.nchar - c.nchar
		default:
			cross += f.nchar
		}
	}
	// Each side holds a fair share of the text, or (a column that ends
	// early, beside a figure) at least a few lines of prose: equation
	// numbers or a margin note do not make a column.
	enough := func(chars, lines int) bool {
		return float64(chars) >= minColumnGap*float64(total) || float64(chars) >= 0.05*float64(total) && lines >= 4
	}
	if !enough(l, ll) || !enough(r, rl) || lp < minProse || rp < minProse {
		return 0, false
	}
	if float64(cross) > 0.4*float64(total) {
		return 0, false
	}
	return g, true
}

// groupLines merges fragments (sorted top to bottom) whose baselines match
// into lines, left to right.
func groupLines(frags []*frag, col int) []line {
	var rows [][]*frag
	for i := 0; i < len(frags); {
		j := i + 1
		base, size := frags[i].base, frags[i].size
		for j < len(frags) && math.Abs(frags[j].base-base) < lineGroupEm*math.Max(size, frags[j].size) {
			j++
		}
		grp := append([]*frag(nil), frags[i:j]...)
		sort.SliceStable(grp, func(a, b int) bool { return grp[a].x0 < grp[b].x0 })
		rows = append(rows, grp)
		i = j
	}
	rows, cells := tableColumns(rows)
	var out []line
	for _, grp := range rows {
		base := grp[0].base
		var b strings.Builder
		var prev *frag
		l := line{x0: grp[0].x0, base: base, col: col}
		nchar := 0
		for _, f := range grp {
			if prev != nil {
				gap := f.x0 - prev.x1
				if gap > breakGap(prev.lastSize, f.size, lastRune(&prev.text), firstRune(f.text.String())) || prev.pending {
					writeSpace(&b)
				}
			}
			b.WriteString(f.text.String())
			l.pieces = append(l.pieces, strings.TrimSpace(f.text.String()))
			if f.size > l.size {
				l.size = f.size
			}
			if f.xmax > l.x1 {
				l.x1 = f.xmax
			}
			nchar += f.nchar
			l.style = l.style.plus(f.style)
			if f.dropCap != nil {
				l.dropCap = f.dropCap
			}
			prev = f
		}
		l.text = logicalOrder(strings.TrimSpace(b.String()))
		l.nchar = nchar
		l.cells = cells[grp[0]]
		l.bold = nchar > 0 && l.style.bold == nchar
		if len(out) > 0 {
			p := out[len(out)-1]
			if p.base-l.base > paraGapEm*math.Max(p.size, l.size)*1.2 || math.Abs(p.size-l.size) > 0.15*math.Max(p.size, l.size) {
				l.paraGap = true
			}
		}
		out = append(out, l)
	}
	if len(out) > 0 {
		out[0].groupStart = !out[0].paraGap
		out[0].paraGap = true
	}
	markIndents(out)
	return out
}

// tableColumns reads a table column by column, as pdftotext does: a run of
// at least three rows of three or more cells (fragments over fragBreakEm
// apart) set at about line spacing becomes one row per cell, each column's
// cells top to bottom, columns left to right (columns are the cells'
// overlapping x ranges). That holds for tables of words as of numbers, and
// for any grid of short blocks side by side (authors, boxes of a figure,
// a third column), but not for a display equation (see cellsOfText).
// Other rows are returned as they are. cells holds the fragments read so.
func tableColumns(rows [][]*frag) (out [][]*frag, cells map[*frag]bool) {
	for i := 0; i < len(rows); {
		j := i
		for j < len(rows) && len(rows[j]) >= 3 {
			j++
		}
		if j-i < 3 || !tightRows(rows[i:j]) || !cellsOfText(rows[i:j]) {
			if j == i {
				j++
			}
			out = append(out, rows[i:j]...)
			i = j
			continue
		}
		var run []*frag
		for _, r := range rows[i:j] {
			run = append(run, r...)
		}
		sort.SliceStable(run, func(a, b int) bool { return run[a].x0 < run[b].x0 })
		// merge overlapping x ranges into columns, keeping stream order
		// (top to bottom) inside each
		var cols [][]*frag
		end := math.Inf(-1)
		for _, c := range run {
			if len(cols) == 0 || c.x0 > end {
				cols = append(cols, nil)
				end = c.xmax
			}
			cols[len(cols)-1] = append(cols[len(cols)-1], c)
			end = math.Max(end, c.xmax)
		}
		if len(cols) < 2 {
			out = append(out, rows[i:j]...)
			i = j
			continue
		}
		// The rows right above and below the run, where they sit between
		// it and more rows of the table (a section row such as "Landmark
		// Works" under the header or between two runs).
		var near [][]*frag
		if i > 1 && len(rows[i-2]) >= 3 {
			near = append(near, rows[i-1])
		}
		if j+1 < len(rows) && len(rows[j+1]) >= 3 {
			near = append(near, rows[j])
		}
		if cells == nil {
			cells = map[*frag]bool{}
		}
		for _, f := range run {
			cells[f] = true
		}
		for _, c := range joinSpanned(cols, near, rows[i:j]) {
			if len(c) == 1 {
				sort.SliceStable(c[0], func(a, b int) bool { return c[0][a].base > c[0][b].base })
				for _, f := range c[0] {
					out = append(out, []*frag{f})
				}
				continue
			}
			// columns under one spanning heading: row by row
			in := map[*frag]bool{}
			for _, col := range c {
				for _, f := range col {
					in[f] = true
				}
			}
			for _, r := range rows[i:j] {
				for _, f := range r {
					if in[f] {
						out = append(out, []*frag{f})
					}
				}
			}
		}
		i = j
	}
	return out, cells
}

// joinSpanned groups a table's adjacent columns under a section row that
// spans them, set right above or below the table's run of rows and between
// it and more of the table ("Landmark Works" over "Discrete | Diffusion"
// under the header, or between two runs): pdftotext reads such columns as
// one block, row by row, and so does a reader. (A column heading over
// sub-columns, "GROBIDCRF" over "P R F1", with nothing of the table above
// it, it reads column by column like the rest.) A row of three or more cells, a line over
// every column (a caption, the text around the table) or a fragment with
// wide gaps of its own (values set close together) joins nothing.
// Each group is one or more columns, left to right.
func joinSpanned(cols [][]*frag, near [][]*frag, rows [][]*frag) [][][]*frag {
	lo, hi := make([]float64, len(cols)), make([]float64, len(cols))
	for k, c := range cols {
		lo[k], hi[k] = math.Inf(1), math.Inf(-1)
		for _, f := range c {
			lo[k], hi[k] = math.Min(lo[k], f.x0), math.Max(hi[k], f.xmax)
		}
	}
	join := make([]bool, len(cols)) // join[k]: column k goes with column k-1
	top, bottom := rows[0][0], rows[len(rows)-1][0]
	for _, r := range near {
		if len(r) >= 3 {
			continue
		}
		// at about line spacing from the table
		gap := math.Min(math.Abs(r[0].base-top.base), math.Abs(r[0].base-bottom.base)) / math.Max(top.size, 1)
		if gap > 1.5 {
			continue
		}
		for _, f := range r {
			if len(f.cuts) > 0 {
				continue // a row of values set close ("40.6 38.3 39.1"), not a heading
			}
			first, last := -1, -1
			for k := range cols {
				if lo[k] < f.xmax && hi[k] > f.x0 {
					if first < 0 {
						first = k
					}
					last = k
				}
			}
			if first < 0 || last == first || first == 0 && last == len(cols)-1 {
				continue
			}
			for k := first + 1; k <= last; k++ {
				join[k] = true
			}
		}
	}
	var out [][][]*frag
	for k, c := range cols {
		if k > 0 && join[k] {
			out[len(out)-1] = append(out[len(out)-1], c)
			continue
		}
		out = append(out, [][]*frag{c})
	}
	return out
}

var numericCell = lazyre.New(`^[-–−+±~<>≈]?\(?[\d.,]+\)?\s*[%*†‡]?$|^[-–—]$`)

// cellsOfText says whether most cells (two in three) hold a number, a dash
// or a word of two letters or more: the pieces of a display equation
// (single letters, signs and brackets) are no table.
func cellsOfText(rows [][]*frag) bool {
	n, ok := 0, 0
	for _, r := range rows {
		for _, f := range r {
			n++
			if s := strings.TrimSpace(f.text.String()); letters(s) >= 2 || numericCell.MatchString(s) {
				ok++
			}
		}
	}
	return 3*ok >= 2*n
}

// tightRows says whether a table's rows are set at about the body's line
// spacing (under 1.5 em apart), where pdftotext reads its columns as
// blocks; rows set further apart it reads row by row.
func tightRows(rows [][]*frag) bool {
	var pitch []float64
	for k := 1; k < len(rows); k++ {
		pitch = append(pitch, (rows[k-1][0].base-rows[k][0].base)/math.Max(rows[k][0].size, 1))
	}
	sort.Float64s(pitch)
	return pitch[len(pitch)/2] < 1.5
}

// markIndents starts a paragraph at a first-line indent, or after a short
// line that ends a sentence: TeX separates paragraphs that way, not with
// vertical space.
func markIndents(ls []line) {
	if len(ls) < 3 {
		return
	}
	left, right := math.Inf(1), math.Inf(-1)
	for _, l := range ls {
		if len(l.text) >= 30 {
			left = math.Min(left, l.x0)
			right = math.Max(right, l.x1)
		}
	}
	if math.IsInf(left, 0) {
		return
	}
	indented := func(l *line) bool {
		em := math.Max(l.size, 1)
		return l.x0-left > 0.7*em && l.x0-left < 4*em
	}
	// A hanging indent (a reference list: each entry's first line at the
	// left, the rest indented) is no run of first-line indents: the group
	// has more indented lines than lines at the left, or the indented
	// line is followed by another at its indent.
	var nLeft, nIndent int
	for i := range ls {
		if len(ls[i].text) >= 30 {
			switch {
			case math.Abs(ls[i].x0-left) < 0.3*math.Max(ls[i].size, 1):
				nLeft++
			case indented(&ls[i]):
				nIndent++
			}
		}
	}
	hanging := nIndent > nLeft
	var cap *dropCap
	for i := 1; i < len(ls); i++ {
		l, p := &ls[i], &ls[i-1]
		if p.dropCap != nil {
			cap = p.dropCap
		}
		em := math.Max(l.size, 1)
		besideCap := cap != nil && l.base > cap.base-0.5*em && l.x0 > cap.x1-0.5*em && l.x0 < cap.x1+2*em
		// a line centred under the one above (an affiliation) is no indent
		centred := math.Abs(l.x0+l.x1-p.x0-p.x1) < 2*em && p.x1-l.x1 > 0.7*em
		if indented(l) && len(l.text) >= 30 && math.Abs(p.x0-left) < 0.3*em && !besideCap && !centred {
			cont := hanging || i+1 < len(ls) && indented(&ls[i+1]) && math.Abs(ls[i+1].x0-l.x0) < 0.3*em
			if !cont {
				l.paraGap = true
			}
		}
		if p.x1 < right-4*em && strings.ContainsAny(lastByte(p.text), ".:!?") && len(p.text) > 0 {
			l.paraGap = true
		}
	}
}

func lastByte(s string) string {
	if s == "" {
		return ""
	}
	return s[len(s)-1:]
}

// letters counts letters and digits in s.
func letters(s string) int {
	n := 0
	for _, r := range s {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			n++
		}
	}
	return n
}

func firstRune(s string) rune {
	r, _ := utf8.DecodeRuneInString(s)
	return r
}
