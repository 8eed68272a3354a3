package pdf

import (
	"bytes"
	"math"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf16"

	"github.com/papers-cli/papers/ingest/pdf/syntax"
	"github.com/papers-cli/papers/internal/lazyre"
)

// font is what the walker needs of a PDF font: how to split a shown string
// into character codes, the text of each code and its advance width in text
// space units (glyph units / 1000 for most fonts).
type font struct {
	name       string
	bold       bool
	italic     bool
	math       bool              // a TeX or other mathematics font (CMMI, CMSY, CMEX, Symbol, ...)
	composite  bool              // Type0: multi-byte codes, widths by CID
	space      [4][]codeRange    // codespace ranges by code length - 1 (composite or ToUnicode)
	toUni      map[uint32]string // from /ToUnicode
	enc        [256]string       // simple fonts: code -> text from the encoding
	widths     [256]float64      // simple fonts, text space units
	hasWidth   [256]bool
	cidW       map[uint32]float64
	dw         float64     // default width (text space units)
	vscale     float64     // glyph-space height of 1 em in text space (Type3 FontMatrix)
	unknown    bool        // no way to map codes to text (Identity-H without ToUnicode)
	collect    []string    // text by CID of the font's Adobe character collection (Identity encodings)
	legacy     *legacyCMap // a predefined CJK CMap read as its character set (no ToUnicode)
	vertical   bool        // writing mode 1: glyphs advance down the page
	w1         float64     // vertical mode: the advance of each glyph (text space units, negative: down)
	builtin    object      // embedded Type 1 or CFF program whose encoding is not read yet
	builtinCFF bool        // builtin is a bare CFF program (FontFile3 /Type1C)
	base       [256]string // glyph names of the base encoding
	fromDiff   [256]bool   // the code's name comes from /Differences
	numeric    [256]bool   // the code's text was guessed from a numeric or unknown glyph name
}

type codeRange struct{ lo, hi uint32 }

var subsetPrefix = lazyre.New(`^[A-Z]{6}\+`)

// loadFont reads a font dictionary. It never returns nil; malformed parts
// fall back to defaults (the caller recovers panics from the library).
func loadFont(v object) *font {
	f := &font{dw: 0.5, vscale: 1}
	base := v.Key("BaseFont").Name()
	f.name = subsetPrefix.ReplaceAllString(base, "")
	lname := strings.ToLower(f.name)
	for _, s := range []string{"bold", "black", "heavy", "semibold", "demi", "medi", "cmbx", "-bd", "cmb10"} {
		if strings.Contains(lname, s) {
			f.bold = true
		}
	}
	for _, s := range []string{"italic", "oblique", "-it", "ital", "cmti", "cmsl", "slanted"} {
		if strings.Contains(lname, s) {
			f.italic = true
		}
	}
	// (STIX Two Text is a text face; its Math, Size and Integrals fonts are math)
	for _, s := range []string{"cmmi", "cmsy", "cmex", "cmbsy", "msam", "msbm", "math", "symbol", "stixsize", "stixintegrals", "stixvariants", "stixnonuni", "eufm", "rsfs",
		"txsy", "txmi", "txex", "pxsy", "pxmi", "mtmi", "mtsy", "esint", "lmmi", "lmsy", "lmex", "ntxmi", "ntxsy"} {
		if strings.Contains(lname, s) {
			f.math = true
		}
	}
	subtype := v.Key("Subtype").Name()
	desc := v.Key("FontDescriptor")
	if subtype == "Type0" {
		f.composite = true
		d := v.Key("DescendantFonts").Index(0)
		if desc.IsNull() {
			desc = d.Key("FontDescriptor")
		}
		if dw := d.Key("DW"); dw.Kind() == syntax.Integer || dw.Kind() == syntax.Real {
			f.dw = dw.Float64() / 1000
		} else {
			f.dw = 1
		}
		f.cidW = parseCIDWidths(d.Key("W"))
		f.vertical, f.w1 = verticalMode(v.Key("Encoding"), d.Key("DW2"))
		f.flags(desc.Key("Flags").Int64())
	} else {
		f.flags(desc.Key("Flags").Int64())
		scale := 0.001
		if subtype == "Type3" {
			fm := v.Key("FontMatrix")
			if a := fm.Index(0).Float64(); a != 0 {
				scale = a
			}
			// Type 3 glyph units have no fixed em: see type3Em.
			d := math.Abs(fm.Index(3).Float64())
			bb := v.Key("FontBBox")
			h := math.Abs(bb.Index(3).Float64() - bb.Index(1).Float64())
			defer func() { f.vscale = type3Em(h*d, f.widths[:], f.hasWidth[:]) }()
		}
		missing := desc.Key("MissingWidth").Float64() * scale
		if missing > 0 {
			f.dw = missing
		}
		first := int(v.Key("FirstChar").Int64())
		ws := v.Key("Widths")
		n := ws.Len()
		for i := 0; i < n && first+i < 256; i++ {
			if first+i < 0 {
				continue
			}
			f.widths[first+i] = ws.Index(i).Float64() * scale
			f.hasWidth[first+i] = true
		}
		names := f.buildSimpleEncoding(v, subtype, desc)
		if n == 0 && subtype != "Type3" {
			f.standardWidths(names)
		}
	}
	if tu := v.Key("ToUnicode"); tu.Kind() == syntax.Stream {
		f.readToUnicode(tu)
		if !f.composite {
			f.distrustToUnicode()
		}
	}
	if f.composite && len(f.toUni) == 0 {
		enc := v.Key("Encoding").Name()
		switch {
		case strings.HasPrefix(enc, "Uni") && strings.Contains(enc, "UCS2"):
			f.toUni = nil // decoded as UTF-16 below
		case enc == "Identity-H" || enc == "Identity-V":
			// codes are CIDs: the embedded program may say what they draw
			// (then, as pdftotext does, what its Adobe collection's CIDs are).
			d := v.Key("DescendantFonts").Index(0)
			info := d.Key("CIDSystemInfo")
			if m := embeddedUnicode(d); m != nil {
				f.toUni = m
			} else if c := collectionText(info.Key("Registry").Text(), info.Key("Ordering").Text()); c != nil {
				f.collect = c
			} else {
				f.unknown = true
			}
		default:
			if f.legacy = predefinedCMap(enc); f.legacy == nil {
				f.unknown = true
			}
		}
	}
	if f.composite && f.space[1] == nil && f.space[0] == nil && f.space[2] == nil && f.space[3] == nil {
		f.space[1] = []codeRange{{0, 0xffff}}
	}
	return f
}

// type3Em is the em of a Type 3 font in text space units, which its
// glyph units do not fix (a font with an identity FontMatrix is drawn at
// sizes like 0.24; Ghostscript's bitmap fonts count 600 dpi pixels): the
// height of its FontBBox mapped to text space (bbox), unless that is
// missing or far from what its widths say: text glyphs advance about half
// an em, so the em is taken as twice their median width. A bounding box of
// zeros, or one stretched by a single tall glyph, would make every gap a
// word break, or no gap one and every line one.
func type3Em(bbox float64, widths []float64, has []bool) float64 {
	var ws []float64
	for c, w := range widths {
		if has[c] && w > 0 {
			ws = append(ws, w)
		}
	}
	byWidth := 0.0
	if len(ws) > 0 {
		sort.Float64s(ws)
		byWidth = 2 * ws[len(ws)/2]
	}
	bboxOK := bbox > 0.05 && bbox < 10000
	switch {
	case bboxOK && (byWidth == 0 || bbox > 0.6*byWidth && bbox < 2.5*byWidth):
		return bbox
	case byWidth > 0.05 && byWidth < 10000:
		return byWidth
	case bboxOK:
		return bbox
	}
	return 1
}

// flags reads a font descriptor's /Flags: ForceBold and Italic.
func (f *font) flags(fl int64) {
	if fl&(1<<18) != 0 {
		f.bold = true
	}
	if fl&(1<<6) != 0 {
		f.italic = true
	}
}

// distrustToUnicode drops ToUnicode entries that map a glyph the encoding
// names as a letter or ligature ("ff") to a symbol: macOS Quartz writes
// such CMaps (ff as U+21B5), and the glyph name is the better evidence.
func (f *font) distrustToUnicode() {
	for code, t := range f.toUni {
		if code > 255 || !f.fromDiff[code] || f.numeric[code] {
			continue
		}
		name := f.enc[code]
		r := firstRune(name)
		if name == "" || !unicode.IsLetter(r) {
			continue
		}
		if tr := firstRune(t); t == "" || !unicode.IsLetter(tr) && !unicode.IsDigit(tr) && !unicode.IsSpace(tr) {
			delete(f.toUni, code)
		}
	}
}

// verticalMode reads a composite font's writing mode from its /Encoding (a
// predefined CMap whose name ends in -V, or an embedded one with /WMode 1)
// and, for vertical fonts, the glyph advance from the descendant's /DW2
// (default [880 -1000]: one em down). Per-CID /W2 metrics are not read: the
// default advance places glyphs close enough for the layout to read them
// as one column.
func verticalMode(enc, dw2 object) (vertical bool, w1 float64) {
	switch enc.Kind() {
	case syntax.Name:
		vertical = strings.HasSuffix(enc.Name(), "-V")
	case syntax.Stream:
		vertical = enc.Key("WMode").Int64() == 1
	}
	if !vertical {
		return false, 0
	}
	w1 = -1
	if a := dw2.Index(1); a.Kind() == syntax.Integer || a.Kind() == syntax.Real {
		if v := a.Float64() / 1000; v < -0.05 && v > -10 {
			w1 = v
		}
	}
	return true, w1
}

func parseCIDWidths(w object) map[uint32]float64 {
	m := map[uint32]float64{}
	n := w.Len()
	for i := 0; i < n && len(m) < 1<<17; {
		c := w.Index(i)
		if c.Kind() != syntax.Integer {
			break
		}
		next := w.Index(i + 1)
		if next.Kind() == syntax.Array {
			start := uint32(c.Int64())
			for j := 0; j < next.Len() && j < 1<<16; j++ {
				m[start+uint32(j)] = next.Index(j).Float64() / 1000
			}
			i += 2
			continue
		}
		lo, hi := c.Int64(), next.Int64()
		wv := w.Index(i+2).Float64() / 1000
		if hi-lo > 1<<16 || hi < lo {
			i += 3
			continue
		}
		for cid := lo; cid <= hi; cid++ {
			m[uint32(cid)] = wv
		}
		i += 3
	}
	return m
}

// buildSimpleEncoding fills f.enc from /Encoding (base encoding plus
// /Differences), or the embedded Type 1 program's built-in encoding.
// It returns the glyph name of each code.
func (f *font) buildSimpleEncoding(v object, subtype string, desc object) [256]string {
	enc := v.Key("Encoding")
	var baseName string
	diffs := null
	switch enc.Kind() {
	case syntax.Name:
		baseName = enc.Name()
	case syntax.Dict:
		baseName = enc.Key("BaseEncoding").Name()
		diffs = enc.Key("Differences")
	}
	var names [256]string
	switch baseName {
	case "WinAnsiEncoding":
		names = winAnsiNames()
	case "MacRomanEncoding":
		names = macRomanNames()
	case "StandardEncoding":
		names = standardNames()
	default:
		// Built-in encoding: read it from an embedded Type 1 program when
		// there is one (pdfTeX's math fonts), else assume Standard.
		if subtype == "TrueType" && enc.IsNull() {
			names = winAnsiNames()
		} else {
			names = standardNames()
		}
		if ff := desc.Key("FontFile"); ff.Kind() == syntax.Stream {
			// Read lazily: /Differences usually name every glyph used.
			f.builtin = ff
		} else if ff := desc.Key("FontFile3"); ff.Kind() == syntax.Stream && ff.Key("Subtype").Name() == "Type1C" {
			f.builtin, f.builtinCFF = ff, true
		}
	}
	f.base = names
	if diffs.Kind() == syntax.Array {
		code := -1
		for i := 0; i < diffs.Len() && i < 1024; i++ {
			x := diffs.Index(i)
			switch x.Kind() {
			case syntax.Integer:
				code = int(x.Int64())
			case syntax.Name:
				if code >= 0 && code < 256 {
					names[code] = x.Name()
				}
				code++
			}
		}
	}
	numeric := numericNames(names, f.name)
	for c := 0; c < 256; c++ {
		if names[c] == "" {
			continue
		}
		f.enc[c] = glyphText(names[c])
		if f.enc[c] == "" && numeric != 0 {
			f.enc[c] = numericGlyphText(names[c], numeric)
			f.numeric[c] = true
		}
		if f.enc[c] == "" && subtype == "Type3" && names[c] != ".notdef" && (c > 32 && c < 127 || c >= 0xa1) {
			// A Type 3 glyph with a name of its own ("/square"): the code
			// itself, as pdftotext reads it.
			f.enc[c] = string(rune(c))
			f.numeric[c] = true
		}
		f.fromDiff[c] = names[c] != f.base[c]
	}
	return names
}

// base14.go is written by gen_base14.go (see there for the command).

// standardWidths gives a font without /Widths the widths of the standard
// font it names (Helvetica, Arial, Times, Courier, Symbol, ZapfDingbats and
// their styles), as viewers draw it: without them every glyph gets the
// default width and words run together or apart.
func (f *font) standardWidths(names [256]string) {
	std := standardFont(f.name)
	if std == "" {
		return
	}
	set := func(c int, w uint16) {
		if w > 0 {
			f.widths[c], f.hasWidth[c] = float64(w)/1000, true
		}
	}
	if sym, ok := base14Symbols[std]; ok {
		for c, w := range sym {
			set(c, w)
		}
		return
	}
	for c, name := range names {
		switch {
		case name == "":
		case std == "Courier":
			set(c, 600)
		default:
			if i, ok := base14Index[name]; ok {
				set(c, base14Widths[std][i])
			}
		}
	}
	if std == "Courier" {
		f.dw = 0.6
	}
}

var base14Index = func() map[string]int {
	m := make(map[string]int, len(base14Names))
	for i, n := range base14Names {
		m[n] = i
	}
	return m
}()

// standardFont maps a /BaseFont to the standard font whose metrics it has:
// "Helvetica-Bold", "Times-Italic", "Courier", "Symbol", ...; "" if none.
func standardFont(base string) string {
	n := strings.ToLower(strings.NewReplacer(" ", "", "-", "", ",", "", "_", "").Replace(base))
	var family string
	switch {
	case strings.HasPrefix(n, "zapfdingbats"), strings.HasPrefix(n, "dingbats"):
		return "ZapfDingbats"
	case strings.HasPrefix(n, "symbol"):
		return "Symbol"
	case strings.HasPrefix(n, "courier"):
		return "Courier"
	case strings.HasPrefix(n, "helvetica"), strings.HasPrefix(n, "arial"), n == "helv":
		family = "Helvetica"
	case strings.HasPrefix(n, "times"):
		family = "Times"
	default:
		return ""
	}
	bold := strings.Contains(n, "bold") || strings.Contains(n, "black") || strings.Contains(n, "heavy")
	italic := strings.Contains(n, "italic") || strings.Contains(n, "oblique")
	switch {
	case family == "Helvetica" && bold && italic:
		return "Helvetica-BoldOblique"
	case family == "Helvetica" && bold:
		return "Helvetica-Bold"
	case family == "Helvetica" && italic:
		return "Helvetica-Oblique"
	case family == "Helvetica":
		return "Helvetica"
	case bold && italic:
		return "Times-BoldItalic"
	case bold:
		return "Times-Bold"
	case italic:
		return "Times-Italic"
	}
	return "Times-Roman"
}

// numericNames says how to read glyph names that are numbers ("/65",
// "/a65", "/g65", "/C41"), as old pdfTeX and dvips bitmap fonts and many
// Type 3 fonts name their glyphs: 10 for decimal character codes, 16 when
// the names are two hex digits after a letter and some use a-f ("/C2c"), 0
// when the font has none or is a symbol font (ZapfDingbats' "a65" is not
// "A"). The number is the character's Unicode code point, as pdftotext
// reads it.
func numericNames(names [256]string, font string) int {
	if strings.Contains(strings.ToLower(font), "dingbat") {
		return 0
	}
	n, hexLetter, twoHex := 0, false, true
	for _, name := range names {
		if name == "" || glyphText(name) != "" {
			continue
		}
		d := name[len(numericPrefix(name)):]
		if d == "" || !isHex(d[0]) {
			continue
		}
		n++
		letter := strings.ContainsAny(d, "abcdefABCDEF")
		hexLetter = hexLetter || letter
		if len(d) != 2 || len(name) > 3 || !isHex(d[0]) || !isHex(d[1]) {
			twoHex = false
		}
	}
	switch {
	case n == 0:
		return 0
	case twoHex && hexLetter:
		return 16
	case hexLetter:
		// "/g1B", "/g118": glyph indices in hex, not character codes.
		return 0
	}
	return 10
}

func isHex(c byte) bool { return syntax.Unhex(c) >= 0 }

// numericPrefix returns the up to two leading letters of a numeric glyph
// name.
func numericPrefix(name string) string {
	i := 0
	for i < len(name) && i < 2 && (name[i]|0x20 >= 'a' && name[i]|0x20 <= 'z') {
		i++
	}
	return name[:i]
}

// numericGlyphText reads a numeric glyph name (see numericNames) in base 10
// or 16; names that are not numbers, or name control characters, give "".
func numericGlyphText(name string, base int) string {
	d := name[len(numericPrefix(name)):]
	end := 0
	for end < len(d) && syntax.Unhex(d[end]) >= 0 && (base == 16 || d[end] <= '9') {
		end++
	}
	// trailing junk that is not a letter or digit is allowed ("65.alt" is not)
	for _, c := range []byte(d[end:]) {
		if unicode.IsLetter(rune(c)) || unicode.IsDigit(rune(c)) {
			return ""
		}
	}
	if end == 0 || end > 6 {
		return ""
	}
	v, err := strconv.ParseUint(d[:end], base, 32)
	if err != nil || v < 32 || v >= 0x110000 || v >= 0xd800 && v < 0xe000 || v == 0x7f {
		return ""
	}
	return string(rune(v))
}

// loadBuiltin replaces the assumed Standard encoding with the embedded
// Type 1 program's own, keeping the /Differences entries.
func (f *font) loadBuiltin() {
	ff := f.builtin
	f.builtin = nil
	var b [256]string
	var ok bool
	if f.builtinCFF {
		b, ok = cffEncoding(readFontFile(ff))
	} else {
		b, ok = type1Encoding(ff)
	}
	if !ok {
		return
	}
	for c := 0; c < 256; c++ {
		if !f.fromDiff[c] && b[c] != "" {
			f.enc[c] = glyphText(b[c])
		}
	}
}

var type1EncRe = lazyre.New(`dup\s+(\d+)\s*/([^\s/\[\]{}()<>]+)\s+put`)

// type1Encoding reads the built-in encoding from the clear-text part of an
// embedded Type 1 font program.
func type1Encoding(ff object) (names [256]string, ok bool) {
	n := ff.Key("Length1").Int64()
	if n <= 0 || n > 1<<20 {
		n = 1 << 16
	}
	buf, err := ff.Bytes(int(n))
	if err != nil && len(buf) == 0 {
		return names, false
	}
	i := bytes.Index(buf, []byte("/Encoding"))
	if i < 0 {
		return names, false
	}
	rest := buf[i:]
	if bytes.HasPrefix(rest, []byte("/Encoding StandardEncoding")) {
		return standardNames(), true
	}
	if j := bytes.Index(rest, []byte("readonly def")); j > 0 {
		rest = rest[:j]
	}
	for _, m := range type1EncRe.FindAllSubmatch(rest, -1) {
		c, err := strconv.Atoi(string(m[1]))
		if err == nil && c >= 0 && c < 256 {
			names[c] = string(m[2])
			ok = true
		}
	}
	return names, ok
}

// glyphText maps an Adobe glyph name to text: the glyph list, uniXXXX,
// uXXXX[XX], and suffixed variants such as "a.sc" or "f_i".
func glyphText(name string) string {
	if r, ok := glyphNames()[name]; ok {
		return string(r)
	}
	if i := strings.IndexByte(name, '.'); i > 0 {
		return glyphText(name[:i])
	}
	if strings.Contains(name, "_") {
		var b strings.Builder
		for _, p := range strings.Split(name, "_") {
			b.WriteString(glyphText(p))
		}
		return b.String()
	}
	if strings.HasPrefix(name, "uni") && len(name) >= 7 && (len(name)-3)%4 == 0 {
		var u []uint16
		for i := 3; i+4 <= len(name); i += 4 {
			x, err := strconv.ParseUint(name[i:i+4], 16, 16)
			if err != nil {
				return ""
			}
			u = append(u, uint16(x))
		}
		return string(utf16.Decode(u))
	}
	if strings.HasPrefix(name, "u") && len(name) >= 5 && len(name) <= 7 {
		if x, err := strconv.ParseUint(name[1:], 16, 32); err == nil && x < 0x110000 {
			return string(rune(x))
		}
	}
	if len(name) == 1 {
		return name
	}
	return ""
}

// readToUnicode parses a /ToUnicode CMap: codespace ranges, bfchar, bfrange.
func (f *font) readToUnicode(s object) {
	data, err := s.Bytes(4 << 20)
	if err != nil && len(data) == 0 {
		return
	}
	f.toUni = map[uint32]string{}
	toks := cmapTokens(data)
	var codespace [4][]codeRange
	for i := 0; i < len(toks); i++ {
		switch toks[i].kw {
		case "begincodespacerange":
			for i++; i+1 < len(toks) && toks[i].kw == ""; i += 2 {
				lo, hi := toks[i].hex, toks[i+1].hex
				if len(lo) == 0 || len(lo) > 4 || len(lo) != len(hi) {
					continue
				}
				codespace[len(lo)-1] = append(codespace[len(lo)-1], codeRange{beUint(lo), beUint(hi)})
			}
			i--
		case "beginbfchar":
			for i++; i+1 < len(toks) && toks[i].kw == ""; i += 2 {
				src := toks[i].hex
				if len(src) == 0 || len(src) > 4 {
					continue
				}
				f.toUni[beUint(src)] = utf16BE(toks[i+1].hex)
			}
			i--
		case "beginbfrange":
			for i++; i+2 < len(toks) && toks[i].kw == ""; i += 3 {
				lo, hi := toks[i].hex, toks[i+1].hex
				if len(lo) == 0 || len(lo) > 4 {
					continue
				}
				a, b := beUint(lo), beUint(hi)
				if b < a || b-a > 1<<16 {
					continue
				}
				dst := toks[i+2]
				if dst.arr != nil {
					for j, d := range dst.arr {
						if a+uint32(j) > b {
							break
						}
						f.toUni[a+uint32(j)] = utf16BE(d)
					}
					continue
				}
				d := []byte(dst.hex)
				for c := a; c <= b && len(d) > 0; c++ {
					f.toUni[c] = utf16BE(string(d))
					// increment the last byte (ranges do not cross 256 boundaries).
					d = append([]byte(nil), d...)
					d[len(d)-1]++
				}
			}
			i--
		}
	}
	hasSpace := false
	for _, r := range codespace {
		if len(r) > 0 {
			hasSpace = true
		}
	}
	if hasSpace && f.composite {
		f.space = codespace
	}
}

type cmapTok struct {
	kw  string   // keyword; "" for operands
	hex string   // decoded hex or literal string
	arr []string // array of strings
}

// cmapTokens reads the PostScript of a CMap with the content lexer: hex
// and literal strings, arrays of strings, keywords. Names, numbers and
// dictionaries are kept as the keyword "_", which the parser ignores.
func cmapTokens(b []byte) []cmapTok {
	var out []cmapTok
	lx := syntax.NewContentLexer(b)
	for {
		o, op, ok := lx.Next()
		switch {
		case !ok:
			return out
		case op != "":
			out = append(out, cmapTok{kw: op})
		case o.Kind == syntax.KStr:
			out = append(out, cmapTok{hex: o.S})
		case o.Kind == syntax.KArr:
			arr := []string{}
			for _, e := range o.Arr {
				if e.Kind == syntax.KStr {
					arr = append(arr, e.S)
				}
			}
			out = append(out, cmapTok{arr: arr})
		default:
			out = append(out, cmapTok{kw: "_"})
		}
	}
}

func beUint(s string) uint32 {
	var x uint32
	for i := 0; i < len(s); i++ {
		x = x<<8 | uint32(s[i])
	}
	return x
}

func utf16BE(s string) string {
	if len(s)%2 == 1 {
		// Not UTF-16BE: a few producers write single bytes.
		return s
	}
	u := make([]uint16, len(s)/2)
	for i := range u {
		u[i] = uint16(s[2*i])<<8 | uint16(s[2*i+1])
	}
	return string(utf16.Decode(u))
}

// each calls fn for every character code in the shown string raw with the
// code, its byte length, its text and its width in text space units.
func (f *font) each(raw string, fn func(code uint32, n int, text string, w float64)) {
	if !f.composite {
		for i := 0; i < len(raw); i++ {
			c := raw[i]
			t, ok := f.toUni[uint32(c)]
			if !ok {
				if !f.fromDiff[c] && f.builtin != nil {
					f.loadBuiltin()
				}
				t = f.enc[c]
			}
			w := f.dw
			if f.hasWidth[c] {
				w = f.widths[c]
			}
			fn(uint32(c), 1, t, w)
		}
		return
	}
	if f.legacy != nil && f.toUni == nil {
		for len(raw) > 0 {
			n := min(f.legacy.split(raw), len(raw))
			code := raw[:n]
			raw = raw[n:]
			w := f.dw
			if cid, ok := f.legacy.cid(code); ok {
				if cw, ok := f.cidW[cid]; ok {
					w = cw
				}
			}
			fn(beUint(code), n, f.legacy.text(code), w)
		}
		return
	}
	for len(raw) > 0 {
		n := f.codeLen(raw)
		code := beUint(raw[:n])
		raw = raw[n:]
		var t string
		switch {
		case f.toUni != nil:
			t = f.toUni[code]
		case f.collect != nil:
			if int64(code) < int64(len(f.collect)) {
				t = f.collect[code]
			}
		case !f.unknown && n == 2:
			t = string(utf16.Decode([]uint16{uint16(code)}))
		}
		w, ok := f.cidW[code]
		if !ok {
			w = f.dw
		}
		fn(code, n, t, w)
	}
}

func (f *font) codeLen(raw string) int {
	for n := 1; n <= 4 && n <= len(raw); n++ {
		c := beUint(raw[:n])
		for _, r := range f.space[n-1] {
			if c >= r.lo && c <= r.hi {
				return n
			}
		}
	}
	if len(raw) >= 2 {
		return 2
	}
	return 1
}

func standardNames() [256]string {
	var t [256]string
	for c := 32; c < 127; c++ {
		t[c] = asciiNames[c-32]
	}
	t[39] = "quoteright"
	t[96] = "quoteleft"
	for c, n := range standardHigh {
		t[c] = n
	}
	return t
}

func winAnsiNames() [256]string {
	var t [256]string
	for c := 32; c < 127; c++ {
		t[c] = asciiNames[c-32]
	}
	for c, n := range winAnsiHigh {
		t[c] = n
	}
	for c := 0xa1; c < 256; c++ {
		if t[c] == "" {
			t[c] = "uni00" + strings.ToUpper(strconv.FormatInt(int64(c), 16))
		}
	}
	t[0xad] = "hyphen"
	return t
}

func macRomanNames() [256]string {
	var t [256]string
	for c := 32; c < 127; c++ {
		t[c] = asciiNames[c-32]
	}
	for c, n := range macRomanHigh {
		t[c] = n
	}
	return t
}

var asciiNames = strings.Fields(`space exclam quotedbl numbersign dollar percent ampersand quotesingle
parenleft parenright asterisk plus comma hyphen period slash zero one two three four five six seven
eight nine colon semicolon less equal greater question at A B C D E F G H I J K L M N O P Q R S T U V
W X Y Z bracketleft backslash bracketright asciicircum underscore grave a b c d e f g h i j k l m n o
p q r s t u v w x y z braceleft bar braceright asciitilde`)

var standardHigh = map[int]string{161: "exclamdown", 162: "cent", 163: "sterling", 164: "fraction",
	165: "yen", 166: "florin", 167: "section", 168: "currency", 169: "quotesingle", 170: "quotedblleft",
	171: "guillemotleft", 172: "guilsinglleft", 173: "guilsinglright", 174: "fi", 175: "fl", 177: "endash",
	178: "dagger", 179: "daggerdbl", 180: "periodcentered", 182: "paragraph", 183: "bullet",
	184: "quotesinglbase", 185: "quotedblbase", 186: "quotedblright", 187: "guillemotright",
	188: "ellipsis", 189: "perthousand", 191: "questiondown", 193: "grave", 194: "acute",
	195: "circumflex", 196: "tilde", 197: "macron", 198: "breve", 199: "dotaccent", 200: "dieresis",
	202: "ring", 203: "cedilla", 205: "hungarumlaut", 206: "ogonek", 207: "caron", 208: "emdash",
	225: "AE", 227: "ordfeminine", 232: "Lslash", 233: "Oslash", 234: "OE", 235: "ordmasculine",
	241: "ae", 245: "dotlessi", 248: "lslash", 249: "oslash", 250: "oe", 251: "germandbls"}

var winAnsiHigh = map[int]string{0x80: "Euro", 0x82: "quotesinglbase", 0x83: "florin",
	0x84: "quotedblbase", 0x85: "ellipsis", 0x86: "dagger", 0x87: "daggerdbl", 0x88: "circumflex",
	0x89: "perthousand", 0x8a: "Scaron", 0x8b: "guilsinglleft", 0x8c: "OE", 0x8e: "Zcaron",
	0x91: "quoteleft", 0x92: "quoteright", 0x93: "quotedblleft", 0x94: "quotedblright", 0x95: "bullet",
	0x96: "endash", 0x97: "emdash", 0x98: "tilde", 0x99: "trademark", 0x9a: "scaron",
	0x9b: "guilsinglright", 0x9c: "oe", 0x9e: "zcaron", 0x9f: "Ydieresis", 0xa0: "space"}

// macRomanHigh is the upper half of MacRomanEncoding (PDF 32000-1 annex
// D.2), with the Mac OS Roman characters the annex leaves out (notequal,
// infinity, ...) as poppler reads them: IEEE's Times-Roman sets "ı", "ş"
// and the spacing accents TeX draws over letters through these codes.
var macRomanHigh = func() map[int]string {
	names := strings.Fields(`Adieresis Aring Ccedilla Eacute Ntilde Odieresis Udieresis aacute
	agrave acircumflex adieresis atilde aring ccedilla eacute egrave ecircumflex edieresis iacute
	igrave icircumflex idieresis ntilde oacute ograve ocircumflex odieresis otilde uacute ugrave
	ucircumflex udieresis dagger degree cent sterling section bullet paragraph germandbls registered
	copyright trademark acute dieresis notequal AE Oslash infinity plusminus lessequal greaterequal
	yen mu partialdiff summation product pi integral ordfeminine ordmasculine Omega ae oslash
	questiondown exclamdown logicalnot radical florin approxequal Delta guillemotleft guillemotright
	ellipsis space Agrave Atilde Otilde OE oe endash emdash quotedblleft quotedblright quoteleft
	quoteright divide lozenge ydieresis Ydieresis fraction currency guilsinglleft guilsinglright fi
	fl daggerdbl periodcentered quotesinglbase quotedblbase perthousand Acircumflex Ecircumflex
	Aacute Edieresis Egrave Iacute Icircumflex Idieresis Igrave Oacute Ocircumflex apple Ograve
	Uacute Ucircumflex Ugrave dotlessi circumflex tilde macron breve dotaccent ring cedilla
	hungarumlaut ogonek caron`)
	m := make(map[int]string, len(names))
	for i, n := range names {
		m[0x80+i] = n
	}
	return m
}()
