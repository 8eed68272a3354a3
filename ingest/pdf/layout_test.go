package pdf

import (
	"strings"
	"testing"

	"github.com/papers-cli/papers/role"
)

// glyphsOf lays out words as glyphs of a 10pt font, 5pt per character,
// starting at x on baseline y.
func glyphsOf(x, y float64, text string) []glyph {
	var gs []glyph
	for _, w := range strings.Fields(text) {
		for _, r := range w {
			gs = append(gs, glyph{x: x, y: y, w: 5, size: 10, text: string(r)})
			x += 5
		}
		x += 3.3 // a TeX interword space, 0.33em
	}
	return gs
}

func pageText(t *testing.T, gs []glyph) string {
	t.Helper()
	var out []string
	for _, l := range layout(gs).lines {
		out = append(out, l.text)
	}
	return strings.Join(out, "\n")
}

func TestLayoutTwoColumns(t *testing.T) {
	// Left and right lines interleaved in the stream, as Word writes them.
	var gs []glyph
	for i := 0; i < 30; i++ {
		y := 700 - 12*float64(i)
		gs = append(gs, glyphsOf(72, y, "left column text line here ok")...)
		gs = append(gs, glyphsOf(320, y, "right column text line here ok")...)
	}
	got := strings.Split(pageText(t, gs), "\n")
	if len(got) != 60 || !strings.HasPrefix(got[29], "left") || !strings.HasPrefix(got[30], "right") {
		t.Fatalf("want 30 left lines then 30 right lines, got %d lines: %q ... %q", len(got), got[0], got[len(got)-1])
	}
}

func TestLayoutLineNumbers(t *testing.T) {
	var gs []glyph
	for i := 0; i < 40; i++ {
		y := 700 - 12*float64(i)
		gs = append(gs, glyphsOf(40, y, strings.Repeat("0", 3-len(itoa(i)))+itoa(i))...)
		gs = append(gs, glyphsOf(72, y, "body text of the paper")...)
	}
	text := pageText(t, gs)
	if strings.ContainsAny(text, "0123456789") {
		t.Errorf("line numbers left in the text: %.120q", text)
	}
	if strings.Count(text, "body text of the paper") != 40 {
		t.Errorf("body lines lost: %.120q", text)
	}
}

func itoa(i int) string {
	if i < 10 {
		return string(rune('0' + i))
	}
	return itoa(i/10) + string(rune('0'+i%10))
}

func TestLayoutWordsAndSuperscripts(t *testing.T) {
	gs := glyphsOf(72, 700, "models")
	// a citation superscript right after the word, 7pt, raised 3.5pt
	gs = append(gs, glyph{x: 102, y: 703.5, w: 3.5, size: 7, text: "1"})
	gs = append(gs, glyphsOf(109, 700, "excel")...)
	if got := pageText(t, gs); got != "models1 excel" {
		t.Errorf("got %q", got)
	}
	// an affiliation marker before a word is not part of it
	gs = []glyph{{x: 72, y: 703.5, w: 3.5, size: 7, text: "1"}}
	gs = append(gs, glyphsOf(75.5, 700, "Institute")...)
	if got := pageText(t, gs); got != "1 Institute" {
		t.Errorf("got %q, want %q", got, "1 Institute")
	}
}

func TestFurniture(t *testing.T) {
	var pls []pageLayout
	for p := 1; p <= 6; p++ {
		pls = append(pls, pageLayout{lines: []line{
			{text: "Published as a conference paper at ICLR 2024", base: 760, size: 9},
			{text: "Body text that differs on page " + itoa(p), base: 700, size: 10},
			{text: "More body text, as a page of a paper has much more of it than of its head", base: 688, size: 10},
			{text: itoa(p), base: 40, size: 10},
		}})
	}
	dropFurniture(pls)
	for i, p := range pls {
		if !p.lines[0].drop || !p.lines[3].drop || p.lines[1].drop || p.lines[2].drop {
			t.Errorf("page %d: drops = %v %v %v %v", i+1, p.lines[0].drop, p.lines[1].drop, p.lines[2].drop, p.lines[3].drop)
		}
	}
}

// TestFurnitureKeepsAlikePages: pages whose lines all repeat (a form
// printed once per record, one-line slides) keep their text; removing
// running heads once emptied such files, which were then called scanned.
func TestFurnitureKeepsAlikePages(t *testing.T) {
	var pls []pageLayout
	for p := 1; p <= 6; p++ {
		pls = append(pls, pageLayout{lines: []line{
			{text: "Quarterly statement of account", base: 760, size: 12},
			{text: "Customer copy, keep for your records", base: 44, size: 10},
			{text: itoa(p), base: 40, size: 10},
		}})
	}
	dropFurniture(pls)
	for i, p := range pls {
		if p.lines[0].drop || p.lines[1].drop || !p.lines[2].drop {
			t.Errorf("page %d: drops = %v %v %v, want the page number only", i+1, p.lines[0].drop, p.lines[1].drop, p.lines[2].drop)
		}
	}
}

// TestLayoutKeepsNumberColumns: a table's column of increasing integers
// is data, not line numbers (only numbers in a margin beside prose are).
func TestLayoutKeepsNumberColumns(t *testing.T) {
	var gs []glyph
	for i := 0; i < 30; i++ {
		y := 700 - 12*float64(i)
		gs = append(gs, glyphsOf(40, y, "see row")...)
		gs = append(gs, glyphsOf(100, y, itoa(i+1))...)
		gs = append(gs, glyphsOf(160, y, itoa(100+i))...)
	}
	words := map[string]bool{}
	for _, w := range strings.Fields(pageText(t, gs)) {
		words[w] = true
	}
	for i := 0; i < 30; i++ {
		if !words[itoa(i+1)] || !words[itoa(100+i)] {
			t.Fatalf("table column removed: row %d lacks %d or %d", i+1, i+1, 100+i)
		}
	}
}

// TestLayoutColumnsUnderWideBlock: a full-width abstract above two columns
// holds half the page's text; the columns are still read one after the
// other, not line by line across the gutter.
func TestLayoutColumnsUnderWideBlock(t *testing.T) {
	var gs []glyph
	y := 760.0
	for i := 0; i < 24; i++ {
		gs = append(gs, glyphsOf(72, y, "a full width abstract line that runs right across the page body")...)
		y -= 12
	}
	for i := 0; i < 20; i++ {
		gs = append(gs, glyphsOf(72, y, "left column text here")...)
		gs = append(gs, glyphsOf(320, y, "right column text here")...)
		y -= 12
	}
	got := strings.Split(pageText(t, gs), "\n")
	if len(got) != 64 || !strings.HasPrefix(got[43], "left") || !strings.HasPrefix(got[44], "right") {
		t.Fatalf("want 24 abstract lines, 20 left, 20 right; got %d lines: %q", len(got), got[24:min(len(got), 27)])
	}
}

// TestLayoutSmallCaps: a word in small capitals set as capitals of two
// sizes stays one word, with the fonts' own small gaps inside it; the
// spaces between small-caps words still break.
func TestLayoutSmallCaps(t *testing.T) {
	var gs []glyph
	x := 72.0
	put := func(s string, size, w float64) {
		for _, r := range s {
			gs = append(gs, glyph{x: x, y: 700, w: w, size: size, text: string(r)})
			x += w
		}
	}
	put("G", 10, 7.2)
	x += 1.1 // kerning and side bearings between the sizes
	put("ROBID", 8, 5.8)
	x += 3.3 // a word space
	put("S", 10, 5.6)
	x += 0.9
	put("CI", 8, 5.4)
	x += 0.9
	put("BERT", 10, 6.5)
	if got := pageText(t, gs); got != "GROBID SCIBERT" {
		t.Errorf("got %q, want %q", got, "GROBID SCIBERT")
	}
}

// TestLayoutNarrowGutter: two columns whose lines are drawn as one run
// each, with a gutter narrower than the gap that ends a run, are still
// read column by column.
func TestLayoutNarrowGutter(t *testing.T) {
	var gs []glyph
	for i := 0; i < 30; i++ {
		y := 700 - 12*float64(i)
		left := glyphsOf(72, y, "left column words here")
		gs = append(gs, left...)
		last := left[len(left)-1]
		gs = append(gs, glyphsOf(last.x+last.w+8, y, "right column words")...)
	}
	got := strings.Split(pageText(t, gs), "\n")
	if len(got) != 60 || !strings.HasPrefix(got[29], "left") || !strings.HasPrefix(got[30], "right") {
		t.Fatalf("want 30 left lines then 30 right lines, got %d: %q ... %q", len(got), got[0], got[len(got)-1])
	}
}

// TestLayoutShortColumn: a right column that ends after a few lines (a
// figure fills the rest) is still a column; its lines are not merged with
// the left column's lines on the same baselines.
func TestLayoutShortColumn(t *testing.T) {
	var gs []glyph
	for i := 0; i < 40; i++ {
		y := 700 - 12*float64(i)
		gs = append(gs, glyphsOf(72, y, "left column text line here ok")...)
		if i < 5 {
			gs = append(gs, glyphsOf(320, y, "right column text line here ok")...)
		}
	}
	got := strings.Split(pageText(t, gs), "\n")
	if len(got) != 45 || !strings.HasPrefix(got[39], "left") || !strings.HasPrefix(got[40], "right") {
		t.Fatalf("want 40 left lines then 5 right lines, got %d: %q", len(got), got[:min(3, len(got))])
	}
}

// TestLayoutTableColumns: a table set at line spacing is read column by
// column, as pdftotext reads it, whether its cells are numbers or words
// (YIHBNPGU's table of constellations); one whose rows are set wide apart
// row by row, as pdftotext reads that.
func TestLayoutTableColumns(t *testing.T) {
	// grid lays out rows of cells 80pt apart, rows pitch points apart, and
	// returns the page's lines joined by " | ".
	grid := func(pitch float64, rows [][]string) string {
		var gs []glyph
		for i, row := range rows {
			for j, cell := range row {
				gs = append(gs, glyphsOf(72+80*float64(j), 700-pitch*float64(i), cell)...)
			}
		}
		return strings.ReplaceAll(pageText(t, gs), "\n", " | ")
	}
	words := [][]string{{"Company", "Class", "Orbit"}, {"Kineis", "nano", "LEO"}, {"Planet Labs", "micro", "LEO"}, {"Telesat", "mini", "MEO"}}
	if got, want := grid(12, words), "Company | Kineis | Planet Labs | Telesat | Class | nano | micro | mini | Orbit | LEO | LEO | MEO"; got != want {
		t.Errorf("tight rows of words: got %q, want %q", got, want)
	}
	// one-digit numbers are cells too (TraceMonkey's table of loops and
	// aborts), where an equation's one-letter pieces are not
	digits := [][]string{{"", "Loops", "Aborts"}, {"3d-cube", "25", "3"}, {"access", "0", "5"}, {"crypto", "4", "0"}}
	if got, want := grid(12, digits), "Loops Aborts | 3d-cube | access | crypto | 25 | 0 | 4 | 3 | 5 | 0"; got != want {
		t.Errorf("tight rows of one-digit numbers: got %q, want %q", got, want)
	}
	numbers := [][]string{{"Model", "P", "R"}, {"base", "40.6", "38.3"}, {"big", "75.9", "80.0"}, {"ours", "92.0", "94.1"}}
	if got, want := grid(12, numbers), "Model | base | big | ours | P | 40.6 | 75.9 | 92.0 | R | 38.3 | 80.0 | 94.1"; got != want {
		t.Errorf("tight rows: got %q, want %q", got, want)
	}
	if got, want := grid(20, numbers), "Model P R | base 40.6 38.3 | big 75.9 80.0 | ours 92.0 94.1"; got != want {
		t.Errorf("loose rows: got %q, want %q", got, want)
	}
}

// TestOverprint: a word drawn again half a point to the right (fake bold)
// is read once; a double letter is not taken for a copy; a line drawn
// again after another line is read once too.
func TestOverprint(t *testing.T) {
	w := &walker{}
	draw := func(gs []glyph) (copies string) {
		for _, g := range gs {
			if w.overprint(g.x, g.y, g.size, g.w, g.text) {
				copies += g.text
				continue
			}
			w.glyphs = append(w.glyphs, g)
		}
		return copies
	}
	if c := draw(glyphsOf(72, 700, "al")); c != "" {
		t.Errorf("%q of a first drawing taken for copies", c)
	}
	if !w.overprint(72.4, 700, 10, 5, "a") {
		t.Error("a copy of 'a' 0.4pt to the right was kept")
	}
	if w.overprint(82, 700, 10, 5, "l") {
		t.Error("the second 'l' of 'all' (next to the first) was taken for a copy")
	}
	footer := "2010 International Conference on Pattern Recognition"
	draw(glyphsOf(200, 740, footer))
	draw(glyphsOf(50, 45, "1051-4651/10 $26.00 2010 IEEE"))
	if c, want := draw(glyphsOf(200, 740, footer)), strings.ReplaceAll(footer, " ", ""); c != want {
		t.Errorf("the footer drawn again after another line: copies %q, want %q", c, want)
	}
}

// TestLayoutDropCap: an initial two lines tall (IEEE's) starts the first
// line beside it; the second line is a line of its own, not glued to the
// first ("thathelps").
func TestLayoutDropCap(t *testing.T) {
	// IEEE's drop cap: "R" two lines tall, "EMOTE" 0.12em after its
	// advance (ZWX7T4QC), the second line indented beside the cap.
	gs := []glyph{{x: 50, y: 688, w: 15, size: 24, text: "R"}}
	gs = append(gs, glyphsOf(66.2, 700, "EMOTE sensing data provide essential information that")...)
	gs = append(gs, glyphsOf(66.2, 688, "helps in various applications, such as meteorology,")...)
	gs = append(gs, glyphsOf(50, 676, "hydrology and agriculture, and the other things.")...)
	ls := layout(gs).lines
	var got []string
	for _, l := range ls {
		got = append(got, l.text)
	}
	if len(got) != 3 || !strings.HasPrefix(got[0], "REMOTE sensing") || !strings.HasSuffix(got[0], "information that") || !strings.HasPrefix(got[1], "helps in") {
		t.Fatalf("lines %q: want the drop cap's word whole, its two lines apart, then the third", got)
	}
	if ls[1].paraGap || ls[2].paraGap {
		t.Errorf("the lines beside and below the drop cap start paragraphs (%v, %v): want one paragraph", ls[1].paraGap, ls[2].paraGap)
	}
}

func TestLayoutGutterBesideHangingLabels(t *testing.T) {
	// A references column whose labels ("[13]") hang into the gutter, up
	// to past its middle: a gutter through them made each labelled line
	// full width, and the columns were read a band of a few lines at a
	// time (4LLXMVZB's conclusion beside its references).
	var gs []glyph
	for i := 0; i < 30; i++ {
		y := 700 - 12*float64(i)
		gs = append(gs, glyphsOf(72, y, "left column text line here ok")...)
		if i%6 == 0 {
			gs = append(gs, glyphsOf(228, y, "["+itoa(10+i)+"]")...)
		}
		gs = append(gs, glyphsOf(262, y, "right column text line here ok")...)
	}
	got := strings.Split(pageText(t, gs), "\n")
	if len(got) != 60 || !strings.HasPrefix(got[29], "left") || got[30] != "[10] right column text line here ok" {
		t.Fatalf("want 30 left lines then 30 right lines, the first labelled, got %d lines: %q", len(got), got)
	}
}

// TestColumnsUnderFullWidthFigure: a figure spans both columns at the top
// of the page, its labels scattered over the strip between the columns;
// the two columns below it are read each whole, not line by line in turn.
func TestColumnsUnderFullWidthFigure(t *testing.T) {
	var gs []glyph
	// figure labels, some across the middle of the page
	for i := 0; i < 12; i++ {
		y := 760 - 10*float64(i)
		gs = append(gs, glyphsOf(100+float64(i%4)*60, y, "label of box")...)
		gs = append(gs, glyphsOf(260+float64(i%3)*20, y-4, "axis tick text")...)
	}
	gs = append(gs, glyphsOf(72, 620, "Figure 1: Overview of the research questions considered in this paper with an example of a summary taken from the data set.")...)
	for i := 0; i < 25; i++ {
		y := 590 - 12*float64(i)
		gs = append(gs, glyphsOf(72, y, "left column running text line "+itoa(i))...)
		gs = append(gs, glyphsOf(320, y, "right column running text line "+itoa(i))...)
	}
	lines := strings.Split(pageText(t, gs), "\n")
	var order []string
	for _, l := range lines {
		if strings.HasPrefix(l, "left") || strings.HasPrefix(l, "right") {
			order = append(order, l)
		}
	}
	if len(order) != 50 || order[24] != "left column running text line 24" || order[25] != "right column running text line 0" {
		t.Fatalf("columns under the figure read out of order (%d lines): %q", len(order), order)
	}
}

// TestThreeColumns: a page of three columns is read column by column.
func TestThreeColumns(t *testing.T) {
	var gs []glyph
	for i := 0; i < 30; i++ {
		y := 700 - 12*float64(i)
		gs = append(gs, glyphsOf(40, y, "first column running words "+itoa(i))...)
		gs = append(gs, glyphsOf(220, y, "second column running words "+itoa(i))...)
		gs = append(gs, glyphsOf(400, y, "third column running words "+itoa(i))...)
	}
	got := strings.Split(pageText(t, gs), "\n")
	if len(got) != 90 || got[0] != "first column running words 0" || got[29] != "first column running words 29" ||
		got[30] != "second column running words 0" || got[60] != "third column running words 0" {
		t.Fatalf("three columns read out of order: %q", got)
	}
}

// TestFooterAboveItsPageNumber: a conference footer ("IJCAI-07") with the
// page number on a line of its own below it is a running foot on every
// page (furniture, after the body), not a line of the columns' text; the
// body's last lines, which do not repeat, stay body.
func TestFooterAboveItsPageNumber(t *testing.T) {
	var pls []pageLayout
	for p := 0; p < 5; p++ {
		var gs []glyph
		for i := 0; i < 30; i++ {
			gs = append(gs, glyphsOf(72, 700-12*float64(i), "page "+itoa(p)+" body line "+itoa(i)+" of running text here")...)
		}
		gs = append(gs, glyphsOf(280, 320, "IJCAI-07")...)
		gs = append(gs, glyphsOf(290, 306, itoa(1200+p))...)
		pls = append(pls, layout(gs))
	}
	doc := &Document{}
	finish(doc, pls)
	roles := lineRoles(doc)
	if roles["IJCAI-07"] != role.Furniture || roles["1200"] != role.Furniture || roles["page 0 body line 29 of running text here"] != role.Body {
		t.Errorf("footer %s, page number %s, last body line %s", roles["IJCAI-07"], roles["1200"], roles["page 0 body line 29 of running text here"])
	}
	for _, pg := range doc.Pages {
		if !strings.HasSuffix(pg.Text, "running text here\n\nIJCAI-07\n"+itoa(1199+pg.N)+"\n") {
			t.Errorf("page %d does not end with its footer: %q", pg.N, pg.Text[len(pg.Text)-60:])
		}
	}
}
