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

// Roles: what each line of a paper's text is there for. The layout has
// put the lines in reading order and found the headings; here the rest is
// told apart by the shape of the lines and their neighbours, as a reader
// skimming the page does:
//
//   - a caption starts with "Figure 3:", "Fig. 2.", "Table 1", "TABLE IV",
//     "Algorithm 1" at the start of a paragraph and runs to the paragraph's
//     end;
//   - a figure's text (labels, axes, boxes) and a table's cells stand
//     between a caption and the running text around it: the lines next to
//     the caption that are not running text of the body's size;
//   - table rows elsewhere are lines of three or more cells, lines of
//     numbers, and the runs the layout read column by column;
//   - a display equation is a line set mostly in math fonts or symbols, or
//     a short line with an equation number "(3)";
//   - footnotes are the lines in a smaller size at the foot of a column,
//     the first one starting with a mark ("1", "*", "†");
//   - the reference list runs from its heading ("References",
//     "Bibliography") to the next heading;
//   - running heads and feet, page numbers and the arXiv stamp are
//     furniture (dropFurniture, findStamp; margin line numbers are left
//     out before the layout);
//   - the rest is body text.

// captionStart matches the label that opens a caption: "Figure 3:", "Fig.
// 2.", "Table 1", "TABLE IV" (IEEE sets the label on a line of its own),
// "Algorithm 1", "Supplementary Figure S2 |", "表 1 数据集" (Chinese
// captions need no colon).
var captionStart = lazyre.New(`^(?:(?:Supplementary|Extended Data|Suppl\.)\s+)?(?:` +
	`(Figure|Fig\.?|FIGURE|FIG\.?|Table|TABLE|Tab\.|Algorithm|ALGORITHM|Listing|Scheme|Chart|Plate|Exhibit)\s*` +
	`(?:[A-Z]?\d+|[IVXLC]+)[a-z]?(?:[.-]\d+)*\s*(?:[:.|—–]|$)|(图|表)\s*\d+(?:[.-]\d+)*(?:\s|[:.：]|$))`)

// captionLabelOnly is a caption label on a line of its own ("TABLE II"),
// with the title on the lines below.
var captionLabelOnly = lazyre.New(`^(?:TABLE|Table|FIGURE|Figure|FIG\.?|Fig\.?)\s+(?:[A-Z]?\d+|[IVXLC]+)\.?$`)

// refsHeading is the heading of a reference list.
var refsHeading = lazyre.New(`^(?i)(?:[0-9]{1,2}\.?\s*|[IVX]{1,4}\.\s*)?(references?|bibliography|literature cited|works cited|references and notes|cited literature|参考文献|références|literatur(?:verzeichnis)?)\.?$`)

// contentsHeading is the heading of a table of contents, whose lines are
// read as a table.
var contentsHeading = lazyre.New(`^(?i)(?:table of )?contents$`)

// footnoteMark opens a footnote: a number, a symbol or a letter set as a
// mark, then text.
var footnoteMark = lazyre.New(`^(?:\d{1,2}\s*[^\d\s.,:;%)\]]|[*∗†‡§¶#]+\s*\S)|^[a-z]\s*[A-Z]|^https?://`)

// eqNumber ends a display equation: "(3)", "(2.4)", "(A1)".
var eqNumber = lazyre.New(`\(\s*[A-Z]?\d{1,3}(?:\.\d{1,3})?[a-z]?\s*\)$`)

// assignRoles labels every kept line of the document, pages in order, with
// its role. body is the body text's size.
func assignRoles(pages [][]*line, body float64) {
	inRefs, inContents := false, false
	for p, ls := range pages {
		frontMatter(ls, p)
		for _, l := range ls {
			switch {
			case l.drop:
				l.role = role.Furniture
			case l.heading:
				l.role = role.Heading
				inRefs = refsHeading.MatchString(l.text)
				inContents = contentsHeading.MatchString(l.text)
			case inRefs:
				l.role = role.Reference
			case inContents:
				l.role = role.Table
			default:
				l.role = role.Body
			}
		}
		widths, lefts := groupWidths(ls)
		footnotes(ls, body)
		equations(ls, widths, lefts)
		captions(ls, body, widths)
		tables(ls, widths)
		grow(ls, widths)
		tableHeads(ls, body)
	}
}

// frontMatter keeps the lines of the first page above its "Abstract"
// heading from being headings: affiliations numbered with marks ("1
// ByteDance Research") and author blocks are no sections.
func frontMatter(ls []*line, page int) {
	if page != 0 {
		return
	}
	abstract := -1
	for i, l := range ls {
		if l.heading && strings.EqualFold(strings.Trim(l.text, ".:— "), "abstract") {
			abstract = i
			break
		}
	}
	for i := 0; i < abstract; i++ {
		ls[i].heading = false
	}
}

// groupWidths is, for each line, the width of the text column it stands in:
// from the median left to the median right end of the lines of 30
// characters or more of its group (lines read in one column: running text
// fills it, a wider caption or table does not widen it), or the line's own
// width.
func groupWidths(ls []*line) (out, lefts []float64) {
	out, lefts = make([]float64, len(ls)), make([]float64, len(ls))
	for i := 0; i < len(ls); {
		j := i + 1
		for j < len(ls) && !ls[j].groupStart && !(ls[j].paraGap && ls[j].col != ls[i].col) {
			j++
		}
		var x0s, x1s []float64
		for _, l := range ls[i:j] {
			if len(l.text) >= 30 {
				x0s, x1s = append(x0s, l.x0), append(x1s, l.x1)
			}
		}
		w, left := 0.0, math.Inf(1)
		if len(x0s) > 0 {
			sort.Float64s(x0s)
			sort.Float64s(x1s)
			w, left = x1s[len(x1s)/2]-x0s[len(x0s)/2], x0s[len(x0s)/2]
		}
		for k := i; k < j; k++ {
			out[k], lefts[k] = math.Max(w, 0), math.Min(left, ls[k].x0)
			if out[k] == 0 {
				out[k] = ls[k].x1 - ls[k].x0
			}
		}
		i = j
	}
	return out, lefts
}

// letterWords counts the words of s with two letters or more.
func letterWords(s string) int {
	n, _ := words(s)
	return n
}

// words counts the words of s (two letters or more, nothing but letters,
// hyphens and apostrophes once the punctuation around them is trimmed:
// "model", "state-of-the-art", "don't") and its tokens.
func words(s string) (n, tokens int) {
	for _, w := range strings.Fields(s) {
		tokens++
		w = strings.TrimFunc(w, func(r rune) bool { return unicode.IsPunct(r) && r != '-' || unicode.IsSymbol(r) })
		k, ok := 0, true
		for _, r := range w {
			switch {
			case unicode.IsLetter(r) || unicode.Is(unicode.Mn, r):
				k++
			case r == '-' || r == '\'' || r == '’':
			default:
				ok = false
			}
		}
		if ok && k >= 2 {
			n++
		}
	}
	return n, tokens
}

// mathShare is the share of a line's glyphs set in math fonts or drawing
// math symbols.
func (l *line) mathShare() float64 {
	if l.nchar == 0 {
		return 0
	}
	return float64(l.style.math) / float64(l.nchar)
}

// prose says whether a line reads as running text: five words or more,
// little math, and filling its column or ending a sentence.
func (l *line) prose(width float64) bool {
	n, tokens := words(l.text)
	if c := cjkRunes(l.text); c >= 12 {
		n, tokens = n+c/2, tokens+c/2 // Chinese, Japanese: no spaces between words
	}
	if n < 5 || n*5 < tokens*3 || l.mathShare() > 0.35 || len(l.pieces) > 2 || l.cells {
		return false
	}
	if l.x1-l.x0 >= 0.6*width {
		return true
	}
	last, _ := utf8.DecodeLastRuneInString(l.text)
	return last == '.' || last == ',' || last == ';' || last == ':' || last == '?' || last == '!'
}

// cjkRunes counts the characters of Chinese, Japanese and Korean scripts.
func cjkRunes(s string) int {
	n := 0
	for _, r := range s {
		if r >= 0x1100 && (unicode.Is(unicode.Han, r) || unicode.Is(unicode.Hiragana, r) || unicode.Is(unicode.Katakana, r) || unicode.Is(unicode.Hangul, r)) {
			n++
		}
	}
	return n
}

// bodyProse says whether a line is running text in the body's size: the
// end of a figure's or table's neighbourhood.
func (l *line) bodyProse(body, width float64) bool {
	return (body <= 0 || l.size >= 0.93*body) && l.prose(width)
}

// footnotes labels the lines at the foot of each column that are set
// smaller than the body and smaller than the text above them, from one
// that starts with a mark ("1", "*", "†") or as a first page's notes do
// ("Manuscript received ...", "The authors are with ...").
func footnotes(ls []*line, body float64) {
	if body <= 0 {
		return
	}
	for end := len(ls); end > 0; {
		start := end - 1
		for start > 0 && !ls[start].groupStart {
			start--
		}
		next := start
		for end > start && ls[end-1].role == role.Furniture {
			end-- // a page number under the footnotes
		}
		if end <= start {
			end = next
			continue
		}
		// the run of lines in the last line's small size that ends the
		// group, under larger text (an abstract in 9 points over notes in
		// 8 is larger text too); notes in 9 points may stand over a
		// copyright line in 8
		for end > start {
			sz := ls[end-1].size
			k := end
			for k > start && ls[k-1].role == role.Body && !ls[k-1].cells && ls[k-1].size < 0.93*body && math.Abs(ls[k-1].size-sz) < 0.4 && end-k < 45 {
				k--
			}
			if !(k > start && k < end && ls[k-1].size >= sz+0.5 && (footnoteMark.MatchString(ls[k].text) || noteOpening.MatchString(ls[k].text)) && atFoot(ls, ls[k:end])) {
				break
			}
			r := role.Footnote
			if endnotes(ls[k:end]) {
				r = role.Reference
			}
			for _, l := range ls[k:end] {
				l.role = r
			}
			end = k
		}
		end = next
	}
}

// atFoot says no larger text lies under the run of lines but furniture
// and page numbers: notes end their column (an abstract in small type
// over the columns does not; a first page's stamp in the notes' size may
// be under them).
func atFoot(ls, run []*line) bool {
	x0, x1, bot, sz := math.Inf(1), math.Inf(-1), math.Inf(1), 0.0
	for _, l := range run {
		x0, x1, bot, sz = math.Min(x0, l.x0), math.Max(x1, l.x1), math.Min(bot, l.base), math.Max(sz, l.size)
	}
	for _, l := range ls {
		if l.role != role.Furniture && l.size > sz+0.3 && l.base < bot-0.5*l.size && l.x1 > x0 && l.x0 < x1 && !pageNumRe.MatchString(l.text) {
			return false
		}
	}
	return true
}

// endnotes says notes are the citations of a paper without a references
// heading (revtex sets them as notes, "1 D. C. Johnston, Adv. Phys. 59,
// 803 (2010)."): most of at least three notes cite a year.
func endnotes(run []*line) bool {
	notes, cites := 0, 0
	for i, l := range run {
		if !noteNumber.MatchString(l.text) {
			continue
		}
		notes++
		// the year may end the note's second line
		t := l.text
		if i+1 < len(run) && !noteNumber.MatchString(run[i+1].text) {
			t += " " + run[i+1].text
		}
		if citedYear.MatchString(webAddress.ReplaceAllString(t, "")) {
			cites++
		}
	}
	return notes >= 3 && 2*cites > notes
}

// noteNumber opens a numbered note.
var noteNumber = lazyre.New(`^\d{1,3}\s*[^\d\s.,:;)\]]`)

// webAddress is a URL in text.
var webAddress = lazyre.New(`(?i)\S*(://|www\.)\S*`)

// citedYear is a year as citations give it.
var citedYear = lazyre.New(`\b(1[89]|20)\d\d[a-z]?\b`)

// noteOpening opens the notes at the foot of a paper's first page.
var noteOpening = lazyre.New(`^(?i)(manuscript (received|submitted)|the authors? (is|are) with|digital object identifier|corresponding author|e-?mail( address(es)?)?:|this (work|research|study|paper) (was|is|has been) (partly |partially |in part )?(supported|funded)|received:? \d|preprint submitted|.*\bcopyright\b|.*©)`)

// captions labels captions and the figures and tables beside them.
func captions(ls []*line, body float64, widths []float64) {
	for i := 0; i < len(ls); i++ {
		l := ls[i]
		m := captionStart.FindStringSubmatch(l.text)
		// at a paragraph's start (or after a stray mark of another size)
		start := i == 0 || l.paraGap || math.Abs(ls[i-1].size-l.size) > 0.5 && len(ls[i-1].text) <= 3
		if m == nil || !start || l.heading || l.role == role.Footnote {
			continue
		}
		kind := role.Figure
		switch m[1] + m[2] {
		case "Table", "TABLE", "Tab.", "表":
			kind = role.Table
		}
		l.role = role.Caption
		// the caption runs to its paragraph's end; a label on a line of
		// its own ("TABLE II") takes the title lines below it
		e := i + 1
		labelOnly := captionLabelOnly.MatchString(l.text)
		for e < len(ls) && e-i < 20 && !ls[e].heading && ls[e].role == role.Body && !rowLike(ls[e]) &&
			(!ls[e].paraGap || labelOnly && e-i <= 3 && upperShare(ls[e].text) > 0.7 || runsOn(ls[e-1], ls[e], body)) {
			ls[e].role = role.Caption
			e++
		}
		// what the caption is about: the lines before it that are not
		// running text of the body, else those after it (tables look both
		// ways: captions stand above tables as often as below)
		back := 0
		for j := i - 1; j >= 0 && i-j <= 80; j-- {
			if !content(ls[j], body, widths[j]) || tail(ls, j, body, widths) {
				break
			}
			ls[j].role = kind
			ls[j].heading = ls[j].heading && strongHeading(ls[j].text)
			back++
		}
		if back == 0 || kind == role.Table {
			for j := e; j < len(ls) && j-e < 80; j++ {
				if !content(ls[j], body, widths[j]) || captionStart.MatchString(ls[j].text) && ls[j].paraGap || tail(ls, j, body, widths) {
					break
				}
				ls[j].role = kind
				ls[j].heading = false
			}
		}
		i = e - 1
	}
}

// runsOn says whether line b goes on with a caption whose last line is a,
// across a paragraph break the layout saw (a page number drawn between
// them): set in the caption's size, smaller than the body, after a line
// that ends no sentence.
func runsOn(a, b *line, body float64) bool {
	last, _ := utf8.DecodeLastRuneInString(a.text)
	return math.Abs(a.size-b.size) < 0.3 && b.size < 0.93*body && last != '.' && !captionStart.MatchString(b.text)
}

// content says whether a line next to a caption belongs to the figure or
// table: a line of body text, a strong heading, another caption, a
// footnote or a reference ends the figure; math in it is part of it.
func content(l *line, body, width float64) bool {
	switch {
	case l.heading && strongHeading(l.text):
		return false
	case l.role != role.Body && l.role != role.Heading && l.role != role.Equation:
		return false
	case l.cells:
		return true
	}
	return !l.bodyProse(body, width)
}

// tail says whether line j ends a paragraph of body text: it goes on from
// running text above it in the same size ("et al., 2022)." under a full
// line).
func tail(ls []*line, j int, body float64, widths []float64) bool {
	return j > 0 && !ls[j].paraGap && ls[j-1].bodyProse(body, widths[j-1]) && math.Abs(ls[j].size-ls[j-1].size) < 0.5 && ls[j-1].role == role.Body
}

// strongHeading says whether a heading is numbered or a usual section name:
// a short bold line inside a table ("Method") is not one.
func strongHeading(t string) bool {
	return numberedHeading.MatchString(t) || namedHeading.MatchString(t) || romanHeading.MatchString(t)
}

func upperShare(s string) float64 {
	var up, n int
	for _, r := range s {
		if unicode.IsLetter(r) {
			n++
			if unicode.IsUpper(r) {
				up++
			}
		}
	}
	if n == 0 {
		return 0
	}
	return float64(up) / float64(n)
}

// numberToken says whether a token is a table's number: "41.2", "(3)",
// "-0.5", "±1.2", "$30", "12%", "7*", or a dash standing for none.
func numberToken(t string) bool {
	switch t {
	case "-", "–", "—":
		return true
	}
	t = strings.TrimLeft(t, "-–−+±~<>≈(")
	t = strings.TrimLeft(t, "$€£")
	t = strings.TrimRight(t, "%)*†‡")
	if t == "" || t[0] < '0' || t[0] > '9' {
		return false
	}
	for i := 0; i < len(t); i++ {
		if c := t[i]; (c < '0' || c > '9') && c != '.' && c != ',' {
			return false
		}
	}
	return true
}

// rowLike says whether a line looks like a table row: three or more cells
// of a few words each, or mostly numbers.
func rowLike(l *line) bool {
	if l.cells {
		return true
	}
	if len(l.pieces) >= 3 {
		short := 0
		for _, p := range l.pieces {
			if len(strings.Fields(p)) <= 4 {
				short++
			}
		}
		if short*4 >= len(l.pieces)*3 {
			return true
		}
	}
	toks := strings.Fields(l.text)
	if len(toks) < 3 {
		return false
	}
	nums := 0
	for _, t := range toks {
		if numberToken(t) {
			nums++
		}
	}
	return nums*2 >= len(toks)
}

// tables labels runs of two or more table rows (and the short lines
// between them) that no caption claimed.
func tables(ls []*line, widths []float64) {
	for i := 0; i < len(ls); {
		if ls[i].role != role.Body || !rowLike(ls[i]) {
			i++
			continue
		}
		j, rows := i+1, 1
		for j < len(ls) && ls[j].role == role.Body && (rowLike(ls[j]) || !ls[j].prose(widths[j]) && j+1 < len(ls) && rowLike(ls[j+1])) {
			if rowLike(ls[j]) {
				rows++
			}
			j++
		}
		if rows >= 2 {
			for _, l := range ls[i:j] {
				l.role = role.Table
			}
		}
		i = j
	}
}

// grow gives the short lines of no sentence next to a table or figure its
// role: a table's row labels read as a column of their own, a figure's
// labels the caption walk stopped short of. A line that ends a sentence,
// a heading, or prose stays.
func grow(ls []*line, widths []float64) {
	fragment := func(i int) bool {
		l := ls[i]
		if l.role != role.Body || l.heading || l.prose(widths[i]) || len(strings.Fields(l.text)) > 6 {
			return false
		}
		last, _ := utf8.DecodeLastRuneInString(l.text)
		return last != '.' && last != '?' && last != '!'
	}
	grown := func(r role.Role) bool { return r == role.Table || r == role.Figure }
	for pass := 0; pass < 40; pass++ {
		changed := false
		for i := range ls {
			if !fragment(i) {
				continue
			}
			switch {
			case i > 0 && grown(ls[i-1].role):
				ls[i].role = ls[i-1].role
				changed = true
			case i+1 < len(ls) && grown(ls[i+1].role):
				ls[i].role = ls[i+1].role
				changed = true
			}
		}
		if !changed {
			break
		}
	}
}

// tableHeads demotes a heading that is a table's or figure's own: an
// unnumbered line ("Method", bold in a table's header row) with the table
// or figure after it, and a caption or more of it before or a size smaller
// than the body's (a section heading is not).
func tableHeads(ls []*line, body float64) {
	inside := func(r role.Role) bool { return r == role.Table || r == role.Figure }
	for i := 0; i+1 < len(ls); i++ {
		l := ls[i]
		if l.role != role.Heading || numberedHeading.MatchString(l.text) || romanHeading.MatchString(l.text) {
			continue
		}
		p := role.Caption // the page's first line: what is before it is not known
		if i > 0 {
			p = ls[i-1].role
		}
		if n := ls[i+1].role; inside(n) && (inside(p) || p == role.Caption || l.size < 0.95*body) {
			l.role, l.heading = n, false
		}
	}
}

// equations labels display equations: lines mostly in math, or short lines
// that end in an equation number, and the scripts set on lines of their
// own above or below them ("n" over a sum, "j=i" under it).
func equations(ls []*line, widths, lefts []float64) {
	eq := func(l *line, w, left float64) bool {
		// a line that fills its column from its left edge is a line of a
		// paragraph, however much math it holds (a display equation is set
		// off: centred, or indented)
		if l.role != role.Body || l.heading || l.x1-l.x0 >= 0.9*w && l.x0-left < 0.5*math.Max(l.size, 1) {
			return false
		}
		share := l.mathShare()
		if share >= 0.8 || share >= 0.5 && letterWords(l.text) <= 6 {
			return true
		}
		return eqNumber.MatchString(l.text) && (share >= 0.15 || strings.ContainsAny(l.text, "=≤≥<>∑∫")) && !l.prose(w*1.5)
	}
	is := make([]bool, len(ls))
	for i, l := range ls {
		is[i] = eq(l, widths[i], lefts[i])
	}
	// A display equation set on several baselines (a fraction, a sum
	// with its limits, a matrix) comes as a run of short pieces, some
	// mostly math, the rest numbers, brackets and the equation number:
	// the run is the equation when half its lines are.
	for i := 0; i < len(ls); {
		piece := func(k int) bool {
			l := ls[k]
			return l.role == role.Body && !l.heading && !l.prose(widths[k]) && len(l.text) <= 40 && !tail(ls, k, 0, widths)
		}
		j, n := i, 0
		for j < len(ls) && (is[j] || piece(j)) {
			if is[j] {
				n++
			}
			j++
		}
		if j == i {
			i++
			continue
		}
		for k := i; k < j; k++ {
			if is[k] || n*2 >= j-i && n > 0 {
				ls[k].role = role.Equation
			}
		}
		i = j
	}
}
