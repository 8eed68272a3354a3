package pdf

import (
	"math"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"
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
	lineGroupEm  = 0.35 // fragments whose baselines differ less are one line
	paraGapEm    = 1.6  // baseline distance (in line heights) that starts a new paragraph
	minColumnGap = 0.15 // each column holds at least this share of the page's characters
)

// frag is a run of glyphs drawn left to right on one baseline, in stream
// order: a line, or a piece of one.
type frag struct {
	x0, x1, xmax float64
	base, size   float64
	lastSize     float64
	text         strings.Builder
	nchar, nbold int
	pending      bool // a space glyph was seen
	lastY        float64
	accent       rune // combining mark waiting for the next glyph
}

// combining maps spacing accents to the combining marks NFKC composes.
var combining = map[string]rune{
	"\u00a8": 0x308, "\u00b4": 0x301, "`": 0x300, "\u02c6": 0x302, "^": 0x302, "\u02dc": 0x303,
	"~": 0x303, "\u00af": 0x304, "\u02d8": 0x306, "\u02d9": 0x307, "\u02da": 0x30a, "\u02dd": 0x30b,
	"\u02c7": 0x30c, "\u00b8": 0x327, "\u02db": 0x328,
}

// line is a line of text in reading order, before document-level cleanup.
type line struct {
	text     string
	x0, x1   float64
	base     float64
	size     float64
	bold     bool // every character is in a bold font
	paraGap  bool // a paragraph starts here
	col      int  // 0 full width or single column, 1 left, 2 right
	drop     bool // running head, page number, line number or arXiv stamp
	heading  bool
	hyphJoin bool
	// pieces are the texts of the fragments the line was joined from, left
	// to right: set apart by more than fragBreakEm (author names set with
	// wide spaces, table cells).
	pieces []string
}

// pageLayout is the laid-out text of one page.
type pageLayout struct {
	lines     []line
	rotated   []string // text drawn in other directions (e.g. the arXiv side stamp)
	sizes     map[int]int
	warnings  []string
	glyphs    int
	invisible int
	unmapped  int
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
		if cur != nil {
			sz := math.Max(cur.size, size)
			dy := y - cur.base
			gap := x - cur.x1
			if math.Abs(dy) > sameLineEm*sz || gap < -backMoveEm*sz || gap > fragBreakEm*sz {
				cur = nil
			} else {
				if cur.pending || gap > wordGapEm*math.Min(cur.lastSize, size) {
					writeSpace(&cur.text)
				}
				cur.pending = false
				if size > cur.size*1.1 { // a superscript started the fragment
					cur.base, cur.size = y, size
				}
			}
		}
		if cur == nil {
			cur = &frag{x0: x, base: y, size: size}
			out = append(out, cur)
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
			if g.font != nil && g.font.bold {
				cur.nbold++
			}
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
// mostly go up by one from top to bottom.
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
		if float64(inc) >= 0.8*float64(len(g)-1) {
			for _, c := range g {
				drop[c.f] = true
			}
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

// order puts fragments in reading order: it finds a column gutter if there
// is one, then reads the page top to bottom in bands separated by
// full-width lines, each band left column first.
func order(frags []*frag) []line {
	if len(frags) == 0 {
		return nil
	}
	gutter, ok := findGutter(frags)
	col := make(map[*frag]int, len(frags))
	if ok {
		for _, f := range frags {
			switch {
			case f.xmax <= gutter:
				col[f] = 1
			case f.x0 >= gutter:
				col[f] = 2
			default:
				col[f] = 0
			}
		}
	}
	sorted := append([]*frag(nil), frags...)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].base > sorted[j].base })
	var out []line
	var left, right []*frag
	flush := func() {
		out = append(out, groupLines(left, 1)...)
		out = append(out, groupLines(right, 2)...)
		left, right = nil, nil
	}
	var full []*frag
	flushFull := func() {
		out = append(out, groupLines(full, 0)...)
		full = nil
	}
	for _, f := range sorted {
		switch col[f] {
		case 1:
			flushFull()
			left = append(left, f)
		case 2:
			flushFull()
			right = append(right, f)
		default:
			// A full-width fragment on the same baseline as column text
			// (a superscript, an equation number) does not end the band.
			if len(left)+len(right) > 0 && ok && sameBaseAsAny(f, left, right) {
				if f.x0 < gutter {
					left = append(left, f)
				} else {
					right = append(right, f)
				}
				continue
			}
			flush()
			full = append(full, f)
		}
	}
	flushFull()
	flush()
	return out
}

func sameBaseAsAny(f *frag, a, b []*frag) bool {
	for _, l := range [][]*frag{a, b} {
		for i := len(l) - 1; i >= 0 && i >= len(l)-3; i-- {
			if math.Abs(l[i].base-f.base) < lineGroupEm*f.size {
				return true
			}
		}
	}
	return false
}

// findGutter looks for a vertical strip in the middle of the page that few
// fragments cross, with enough text on each side to be two columns.
func findGutter(frags []*frag) (float64, bool) {
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
	n := int(width) + 1
	cover := make([]int, n+1)
	for _, f := range frags {
		a := int(f.x0 - minX)
		b := int(f.xmax - minX)
		if a < 0 {
			a = 0
		}
		if b > n {
			b = n
		}
		if b > a {
			cover[a] += f.nchar
			cover[b] -= f.nchar
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
	g := minX + float64(lo+hi)/2
	var l, r, cross int
	for _, f := range frags {
		switch {
		case f.xmax <= g:
			l += f.nchar
		case f.x0 >= g:
			r += f.nchar
		default:
			cross += f.nchar
		}
	}
	if float64(l) < minColumnGap*float64(total) || float64(r) < minColumnGap*float64(total) {
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
	var out []line
	for i := 0; i < len(frags); {
		j := i + 1
		base, size := frags[i].base, frags[i].size
		for j < len(frags) && math.Abs(frags[j].base-base) < lineGroupEm*math.Max(size, frags[j].size) {
			j++
		}
		grp := append([]*frag(nil), frags[i:j]...)
		sort.SliceStable(grp, func(a, b int) bool { return grp[a].x0 < grp[b].x0 })
		var b strings.Builder
		var prev *frag
		l := line{x0: grp[0].x0, base: base, col: col}
		nchar, nbold := 0, 0
		for _, f := range grp {
			if prev != nil {
				gap := f.x0 - prev.x1
				if gap > wordGapEm*math.Min(prev.lastSize, f.size) || prev.pending {
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
			nbold += f.nbold
			prev = f
		}
		l.text = strings.TrimSpace(b.String())
		l.bold = nchar > 0 && nbold == nchar
		if len(out) > 0 {
			p := out[len(out)-1]
			if p.base-l.base > paraGapEm*math.Max(p.size, l.size)*1.2 || math.Abs(p.size-l.size) > 0.15*math.Max(p.size, l.size) {
				l.paraGap = true
			}
		}
		out = append(out, l)
		i = j
	}
	if len(out) > 0 {
		out[0].paraGap = true
	}
	markIndents(out)
	return out
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
	for i := 1; i < len(ls); i++ {
		l, p := &ls[i], &ls[i-1]
		em := math.Max(l.size, 1)
		indent := l.x0 - left
		if indent > 0.7*em && indent < 4*em && len(l.text) >= 30 && math.Abs(p.x0-left) < 0.3*em {
			l.paraGap = true
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
