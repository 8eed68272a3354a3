package pdf

import (
	"errors"
	"fmt"
	"math"

	"github.com/papers-cli/papers/ingest/pdf/syntax"
)

// glyph is one character code as drawn on the page, in device space (points,
// y up), rotated into the page's dominant text direction by the layout step.
type glyph struct {
	x, y  float64 // start of the glyph on its baseline
	w     float64 // advance along the baseline
	size  float64 // font size in device space
	text  string
	font  *font
	dir   uint8 // 0 horizontal, 1 rotated 90° (bottom to top), 2 upside down, 3 rotated 270°
	space bool  // the code decodes to a space: a word break, not a glyph
}

type matrix [6]float64 // a b c d e f, row-vector convention as in the PDF spec

var identity = matrix{1, 0, 0, 1, 0, 0}

func (m matrix) mul(n matrix) matrix {
	return matrix{
		m[0]*n[0] + m[1]*n[2], m[0]*n[1] + m[1]*n[3],
		m[2]*n[0] + m[3]*n[2], m[2]*n[1] + m[3]*n[3],
		m[4]*n[0] + m[5]*n[2] + n[4], m[4]*n[1] + m[5]*n[3] + n[5],
	}
}

type gstate struct {
	ctm                       matrix
	tc, tw, th, tl, tfs, rise float64
	f                         *font
	mode                      int // text rendering mode; 3 and 7 are invisible (OCR layers)
}

// resources is a resource dictionary with its fonts resolved once.
type resources struct {
	v            object
	fonts        map[string]*font
	fontDict     object // /Font, resolved once
	fontDictRead bool
}

type objKey struct {
	id   uint64
	name string
}

// walker interprets content streams and collects glyphs.
type walker struct {
	doc       *extraction
	glyphs    []glyph
	depth     int
	forms     map[uint64]bool // Form XObjects on the current Do chain (cycles)
	warnings  []string
	invisible int // glyphs drawn invisibly
	unmapped  int // glyphs with no Unicode mapping
	formCalls int // Form XObjects drawn on this page
	images    int // images drawn (XObjects and inline)
	// the page's content streams, those missing or not streams, and
	// those (forms' too) that could not be decoded in full
	contentStreams, brokenContent, damagedContent int
	cut                                           bool // content past syntax.MaxStreamBytes was skipped
	// page is the MediaBox in default user space; glyphs wholly outside it
	// are not on the page (clip says whether there is one to apply).
	page    rect
	clip    bool
	offPage int // glyphs dropped as outside the page
	// lineMaxX is the rightmost glyph start drawn on each baseline so far,
	// by 2-point band of y (see overprint).
	lineMaxX map[int]float64
}

// overprint says whether the same text was drawn at nearly the same place
// among the page's last glyphs: producers fake bold type by drawing a word
// two or three times with a slight offset, and pdftotext reads it once.
func (w *walker) overprint(x, y, size, adv float64, text string) bool {
	// well under a glyph's width: a double letter ("ll") is not a copy,
	// but a narrow letter of a copy drawn 1pt over is (i, l, t)
	tol := 0.15 * size
	if adv > 0 {
		tol = math.Min(tol, 0.6*adv)
	}
	// Text running on to the right of everything drawn on its baseline
	// so far copies nothing (the usual case: no look back). The bands
	// beside this one count too, for a baseline near a band's edge; a
	// line drawn again after other lines is caught (a footer drawn five
	// times over, each copy after the page number).
	if w.lineMaxX == nil {
		w.lineMaxX = map[int]float64{}
	}
	band := int(math.Floor(y / 2))
	maxX, seen := 0.0, false
	for b := band - 1; b <= band+1; b++ {
		if m, ok := w.lineMaxX[b]; ok && (!seen || m > maxX) {
			maxX, seen = m, true
		}
	}
	if m, ok := w.lineMaxX[band]; !ok || x > m {
		w.lineMaxX[band] = x
	}
	if !seen || x > maxX+tol {
		return false
	}
	for i := len(w.glyphs) - 1; i >= 0 && i >= len(w.glyphs)-overprintWindow; i-- {
		g := &w.glyphs[i]
		if dx, dy := g.x-x, g.y-y; dx < tol && dx > -tol && dy < tol && dy > -tol && g.text == text {
			return true
		}
	}
	return false
}

// rect is an axis-aligned box: x0 <= x1, y0 <= y1.
type rect struct{ x0, y0, x1, y1 float64 }

// under is the axis-aligned box around r mapped through m.
func (r rect) under(m matrix) rect {
	out := rect{math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)}
	for _, p := range [4][2]float64{{r.x0, r.y0}, {r.x1, r.y0}, {r.x0, r.y1}, {r.x1, r.y1}} {
		x, y := p[0]*m[0]+p[1]*m[2]+m[4], p[0]*m[1]+p[1]*m[3]+m[5]
		out.x0, out.x1 = math.Min(out.x0, x), math.Max(out.x1, x)
		out.y0, out.y1 = math.Min(out.y0, y), math.Max(out.y1, y)
	}
	return out
}

// intersect is the part of r inside o (x0 > x1 or y0 > y1 when none is).
func (r rect) intersect(o rect) rect {
	return rect{math.Max(r.x0, o.x0), math.Max(r.y0, o.y0), math.Min(r.x1, o.x1), math.Min(r.y1, o.y1)}
}

// pageBox reads a /MediaBox. pdftotext lays text out on the MediaBox (not
// the CropBox) and drops every character wholly outside it: a page that
// shows one half of a two-page spread, or a small crop of a big drawing,
// prints only what is on it.
func pageBox(v object) (rect, bool) {
	if v.Len() != 4 {
		return rect{}, false
	}
	a, b, c, d := v.Index(0).Float64(), v.Index(1).Float64(), v.Index(2).Float64(), v.Index(3).Float64()
	r := rect{math.Min(a, c), math.Min(b, d), math.Max(a, c), math.Max(b, d)}
	if r.x1-r.x0 < 1 || r.y1-r.y0 < 1 {
		return rect{}, false
	}
	return r, true
}

// outside says whether a glyph drawn from (x, y) with advance adv in
// direction dir and height size lies wholly outside the page.
func (w *walker) outside(x, y, adv, size float64, dir uint8) bool {
	if !w.clip {
		return false
	}
	x0, y0, x1, y1 := x, y, x+adv, y+size
	switch dir {
	case 1:
		x0, y0, x1, y1 = x-size, y, x, y+adv
	case 2:
		x0, y0, x1, y1 = x-adv, y-size, x, y
	case 3:
		x0, y0, x1, y1 = x, y-adv, x+size, y
	}
	return x1 < w.page.x0 || x0 > w.page.x1 || y1 < w.page.y0 || y0 > w.page.y1
}

func (w *walker) font(res *resources, name string) *font {
	if f, ok := res.fonts[name]; ok {
		return f
	}
	if !res.fontDictRead {
		res.fontDict, res.fontDictRead = res.v.Key("Font"), true
	}
	dict := res.fontDict
	// Fonts are shared by many pages: look the reference up before
	// resolving it, which costs a parse (and for object streams a
	// decompression) each time.
	if id := dict.RefID(name); id != 0 {
		if c, ok := w.doc.fonts[objKey{id: id}]; ok {
			res.fonts[name] = c
			return c
		}
	}
	fv := dict.Key(name)
	var f *font
	if fv.Kind() == syntax.Dict {
		key := objKey{dict.ID(), name} // a direct font of a shared dictionary
		if id := dict.RefID(name); id != 0 {
			key = objKey{id: id}
		}
		if c, ok := w.doc.fonts[key]; ok {
			f = c
		} else {
			f = w.loadFont(fv, name)
			w.doc.fonts[key] = f
		}
	} else {
		f = &font{dw: 0.5, vscale: 1, unknown: true}
	}
	res.fonts[name] = f
	return f
}

// loadFont reads a font, recovering from a panic in the library (a font
// stream it cannot decode) so that the page keeps its other text: the font
// then has no Unicode mapping.
func (w *walker) loadFont(fv object, name string) (f *font) {
	defer func() {
		if r := recover(); r != nil {
			if a, ok := r.(syntax.Abort); ok {
				panic(a)
			}
			w.warnings = append(w.warnings, fmt.Sprintf("font %s: %v", name, r))
			f = &font{dw: 0.5, vscale: 1, unknown: true}
		}
	}()
	return loadFont(fv)
}

// run interprets one content stream (page or form) with the given resources.
func (w *walker) run(strm object, res *resources, g gstate) {
	var stack []gstate
	var tm, tlm matrix = identity, identity
	show := func(s string) {
		f := g.f
		if f == nil {
			return
		}
		trmBase := matrix{g.tfs * g.th, 0, 0, g.tfs, 0, g.rise}
		f.each(s, func(code uint32, n int, text string, wd float64) {
			m := tm.mul(g.ctm)
			trm := trmBase.mul(m)
			size := math.Hypot(trm[2], trm[3]) * f.vscale
			tx := wd*g.tfs + g.tc
			isSpace := n == 1 && code == 32
			if isSpace {
				tx += g.tw
			}
			tx *= g.th
			// The glyph's own extent leaves out Tc and Tw: they are gaps
			// after it, and word breaks are read from gaps.
			ext := wd * g.tfs * g.th
			adv := math.Hypot(ext*m[0], ext*m[1])
			var ty float64
			if f.vertical {
				// Writing mode 1: the glyph advances down its column by
				// w1 (horizontal scaling does not apply; Tc and Tw add to
				// the gap, as pdf.js reads them).
				ty = f.w1 * g.tfs
				if ty < 0 {
					ty -= g.tc
					if n == 1 && code == 32 {
						ty -= g.tw
					}
				}
				ext = -f.w1 * g.tfs
				adv = math.Hypot(ext*m[2], ext*m[3])
				tx = 0
			}
			var dir uint8
			a, b := trm[0], trm[1]
			switch {
			case math.Abs(b) <= math.Abs(a)*0.1 && a > 0:
				dir = 0
			case math.Abs(a) <= math.Abs(b)*0.1 && b > 0:
				dir = 1
			case math.Abs(b) <= math.Abs(a)*0.1 && a < 0:
				dir = 2
			case math.Abs(a) <= math.Abs(b)*0.1 && b < 0:
				dir = 3
			default:
				dir = 4 // skewed: kept out of the body
			}
			if f.vertical && dir < 4 {
				dir = (dir + 3) % 4 // down the column: upright text is rotated 270°
			}
			// Tw applies to code 32 whatever it draws, but only a glyph
			// that decodes to a space is a word break (subset fonts reuse 32).
			isSpace = text == " " || text == "\u00a0" || (text == "" && isSpace)
			if g.mode == 3 || g.mode == 7 {
				w.invisible++
			}
			if text == "" {
				w.unmapped++
			}
			switch {
			case w.outside(trm[4], trm[5], adv, size, dir):
				w.offPage++
			case !isSpace && text != "" && w.overprint(trm[4], trm[5], size, adv, text):
				// drawn again over itself: fake bold, or a shadow
			case len(w.glyphs) < maxGlyphsPerPage:
				w.glyphs = append(w.glyphs, glyph{x: trm[4], y: trm[5], w: adv, size: size, text: text, font: f, dir: dir, space: isSpace})
			}
			tm = matrix{1, 0, 0, 1, tx, ty}.mul(tm)
		})
	}
	data := w.content(strm)
	lx := syntax.NewContentLexer(data)
	var args []syntax.Operand
	for {
		o, op, ok := lx.Next()
		if !ok {
			break
		}
		if op == "" {
			if len(args) < 64 {
				args = append(args, o)
			}
			continue
		}
		w.doc.tick()
		w.do(op, args, &g, &stack, &tm, &tlm, res, show)
		args = args[:0]
	}
}

// content returns the decoded bytes of a content stream or an array of
// them, at most syntax.MaxStreamBytes together. A stream that fails to
// decode part way keeps what was read.
func (w *walker) content(strm object) []byte {
	if strm.Kind() != syntax.Array {
		return w.readStream(strm, syntax.MaxStreamBytes) // no copy
	}
	var out []byte
	for i := 0; i < strm.Len() && i < 4096; i++ {
		// A page's parts together get no more than one stream may.
		left := syntax.MaxStreamBytes - len(out)
		if left <= 0 {
			w.cutContent()
			break
		}
		out = append(out, w.readStream(strm.Index(i), left)...)
		out = append(out, '\n')
	}
	return out
}

// cutContent notes that the page's content went on past what is read.
func (w *walker) cutContent() {
	if !w.cut {
		w.cut = true
		w.warnings = append(w.warnings, fmt.Sprintf("content over %d MB: the rest is skipped", syntax.MaxStreamBytes>>20))
	}
}

// readStream decodes one content stream, counting what is missing or
// damaged (a page whose content is all missing has no text for a reason).
func (w *walker) readStream(v object, limit int) []byte {
	if w.depth == 0 {
		w.contentStreams++
	}
	if v.Kind() != syntax.Stream {
		if w.depth == 0 {
			w.brokenContent++
		}
		return nil
	}
	data, err := v.Bytes(limit)
	switch {
	case err == nil:
	case errors.Is(err, syntax.ErrStreamTooLarge):
		w.cutContent()
	default:
		w.damagedContent++
		if data == nil && w.depth == 0 {
			w.brokenContent++
		}
	}
	w.doc.bytes += int64(len(data))
	return data
}

func (w *walker) do(op string, args []syntax.Operand, g *gstate, stack *[]gstate, tm, tlm *matrix, res *resources, show func(string)) {
	num := func(i int) float64 {
		if i < 0 || i >= len(args) {
			return 0
		}
		return args[i].Num
	}
	// operands are taken from the end: producers sometimes leave junk before.
	last := func(n int) []syntax.Operand {
		if len(args) < n {
			return nil
		}
		return args[len(args)-n:]
	}
	mat := func() (matrix, bool) {
		a := last(6)
		if a == nil {
			return matrix{}, false
		}
		var m matrix
		for i := range m {
			m[i] = a[i].Num
		}
		return m, true
	}
	switch op {
	case "q":
		if len(*stack) < 256 {
			*stack = append(*stack, *g)
		}
	case "Q":
		if n := len(*stack); n > 0 {
			*g = (*stack)[n-1]
			*stack = (*stack)[:n-1]
		}
	case "cm":
		if m, ok := mat(); ok {
			g.ctm = m.mul(g.ctm)
		}
	case "BT":
		*tm, *tlm = identity, identity
	case "Tr":
		if a := last(1); a != nil {
			g.mode = int(a[0].Num)
		}
	case "Tc", "Tw", "Tz", "TL", "Ts":
		a := last(1)
		if a == nil {
			return
		}
		v := a[0].Num
		switch op {
		case "Tc":
			g.tc = v
		case "Tw":
			g.tw = v
		case "Tz":
			g.th = v / 100
		case "TL":
			g.tl = v
		case "Ts":
			g.rise = v
		}
	case "Tf":
		if a := last(2); a != nil {
			g.f = w.font(res, a[0].S)
			g.tfs = a[1].Num
		}
	case "Td", "TD":
		a := last(2)
		if a == nil {
			return
		}
		tx, ty := a[0].Num, a[1].Num
		if op == "TD" {
			g.tl = -ty
		}
		*tlm = matrix{1, 0, 0, 1, tx, ty}.mul(*tlm)
		*tm = *tlm
	case "Tm":
		if m, ok := mat(); ok {
			*tm, *tlm = m, m
		}
	case "T*":
		*tlm = matrix{1, 0, 0, 1, 0, -g.tl}.mul(*tlm)
		*tm = *tlm
	case "Tj":
		if a := last(1); a != nil {
			show(a[0].S)
		}
	case "'", "\"":
		if op == "\"" && len(args) >= 3 {
			g.tw, g.tc = num(len(args)-3), num(len(args)-2)
		}
		*tlm = matrix{1, 0, 0, 1, 0, -g.tl}.mul(*tlm)
		*tm = *tlm
		if a := last(1); a != nil {
			show(a[0].S)
		}
	case "TJ":
		a := last(1)
		if a == nil {
			return
		}
		for _, x := range a[0].Arr {
			switch x.Kind {
			case syntax.KStr:
				show(x.S)
			case syntax.KNum:
				if g.f != nil && g.f.vertical {
					*tm = matrix{1, 0, 0, 1, 0, -x.Num / 1000 * g.tfs}.mul(*tm)
					continue
				}
				tx := -x.Num / 1000 * g.tfs * g.th
				*tm = matrix{1, 0, 0, 1, tx, 0}.mul(*tm)
			}
		}
	case "Do":
		if a := last(1); a != nil && a[0].Kind == syntax.KName {
			w.form(res, a[0].S, *g)
		}
	case "BI":
		w.images++
	}
}

// form follows a Do into a Form XObject: whole pages of some ACL Anthology
// PDFs live in one.
func (w *walker) form(res *resources, name string, g gstate) {
	if w.depth >= maxFormDepth {
		return
	}
	x := res.v.Key("XObject").Key(name)
	if x.Kind() != syntax.Stream || x.Key("Subtype").Name() != "Form" {
		if x.Key("Subtype").Name() == "Image" {
			w.images++
		}
		return
	}
	// The form's /BBox clips what it draws (PDF 32000-1 8.10.1): a figure
	// made from a whole page of another PDF shows only its own part, and
	// that page's text around it is not on this one (pdftotext prints it
	// all). Annotations are not clipped: a text field's value that runs
	// past its box is still the field's value.
	if bb, ok := pageBox(x.Key("BBox")); ok {
		box := bb.under(formMatrix(x).mul(g.ctm))
		if w.clip {
			box = box.intersect(w.page)
		}
		page, clip := w.page, w.clip
		w.page, w.clip = box, true
		defer func() { w.page, w.clip = page, clip }()
	}
	w.runForm(x, "form "+name, res, g)
}

// runForm interprets a form's content stream with its /Matrix applied on top
// of g's CTM and its own resources (else res).
func (w *walker) runForm(x object, what string, res *resources, g gstate) {
	if w.depth >= maxFormDepth {
		return
	}
	id := x.ID()
	if w.forms[id] {
		return
	}
	// Forms that each draw the next one many times grow exponentially
	// with depth (ten deep and ten wide is 10^10 calls): cap them.
	if w.formCalls++; w.formCalls > maxFormCalls {
		if w.formCalls == maxFormCalls+1 {
			w.warnings = append(w.warnings, fmt.Sprintf("more than %d Form XObjects drawn: the rest is skipped", maxFormCalls))
		}
		return
	}
	w.forms[id] = true
	defer delete(w.forms, id)
	g.ctm = formMatrix(x).mul(g.ctm)
	sub := res
	if r := x.Key("Resources"); r.Kind() == syntax.Dict {
		sub = &resources{v: r, fonts: map[string]*font{}}
	}
	w.depth++
	defer func() { w.depth-- }()
	// A malformed form (often a figure) loses only itself, not the page.
	defer func() {
		if r := recover(); r != nil {
			if _, ok := r.(syntax.Abort); ok {
				panic(r)
			}
			w.warnings = append(w.warnings, fmt.Sprintf("%s: %v", what, r))
		}
	}()
	w.run(x, sub, g)
}

const (
	overprintWindow  = 256 // glyphs looked back at for fake bold (a footer drawn 5 times over: 60 glyphs a copy)
	maxAnnots        = 2000
	maxLinkRun       = 24 // links in a row after which annotations are not read
	maxFormDepth     = 12
	maxFormCalls     = 10_000  // per page
	maxGlyphsPerPage = 1 << 18 // 20x a dense page; bounds memory on crafted files
	maxStreamBytes   = 64 << 20
)

func formMatrix(x object) matrix {
	m := x.Key("Matrix")
	if m.Len() != 6 {
		return identity
	}
	var fm matrix
	for i := range fm {
		fm[i] = m.Index(i).Float64()
	}
	return fm
}

// Annotation flags that keep an annotation off the screen.
const (
	annotHidden = 1 << 1
	annotNoView = 1 << 5
)

// annotations draws the normal appearance streams of a page's visible
// annotations (form fields' values, FreeText boxes, stamps), as viewers
// and pdftotext do: a filled-in form's answers live only there.
func (w *walker) annotations(page object, res *resources) {
	annots := page.Key("Annots")
	for i := 0; i < annots.Len() && i < maxAnnots; i++ {
		// Reading an annotation costs a pass over its object stream in
		// the library; a paper's thousand citation links would double
		// the time taken. Past a run of links, with no form in the
		// document, the rest are taken to be links too.
		if !w.doc.acroForm && w.doc.links >= maxLinkRun {
			return
		}
		a := annots.Index(i)
		switch a.Key("Subtype").Name() {
		case "Link":
			w.doc.links++
			continue
		case "Popup":
			continue
		}
		w.doc.links = 0
		if a.Key("F").Int64()&(annotHidden|annotNoView) != 0 {
			continue
		}
		ap := a.Key("AP").Key("N")
		if ap.Kind() == syntax.Dict {
			// one appearance per state (check boxes): the current one
			ap = ap.Key(a.Key("AS").Name())
		}
		if ap.Kind() != syntax.Stream {
			continue
		}
		rect, ok := pageBox(a.Key("Rect"))
		if !ok {
			continue
		}
		w.runForm(ap, "annotation", res, gstate{ctm: annotMatrix(ap, rect), th: 1})
	}
}

// annotMatrix maps an appearance stream's /BBox, after its /Matrix, onto the
// annotation's /Rect (PDF 32000-1 12.5.5); the form's /Matrix itself is
// applied by runForm.
func annotMatrix(ap object, r rect) matrix {
	bb, ok := pageBox(ap.Key("BBox"))
	if !ok {
		return matrix{1, 0, 0, 1, r.x0, r.y0}
	}
	t := bb.under(formMatrix(ap))
	x0, y0, x1, y1 := t.x0, t.y0, t.x1, t.y1
	sx, sy := 1.0, 1.0
	if x1-x0 > 1e-6 {
		sx = (r.x1 - r.x0) / (x1 - x0)
	}
	if y1-y0 > 1e-6 {
		sy = (r.y1 - r.y0) / (y1 - y0)
	}
	return matrix{sx, 0, 0, sy, r.x0 - x0*sx, r.y0 - y0*sy}
}
