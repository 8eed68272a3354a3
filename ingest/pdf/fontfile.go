package pdf

import (
	"encoding/binary"
	"strings"

	"github.com/papers-cli/papers/ingest/pdf/syntax"
)

// Reading text back out of embedded font programs, for composite fonts
// with no ToUnicode (Identity-H CID fonts as some Word and Quartz versions
// write them): a TrueType or OpenType font's cmap maps characters to
// glyphs, so reversed it says which character each glyph draws; its post
// table, or a CFF font's charset, names the glyphs, and names map to text.
// pdftotext reads these files the same way.

const (
	maxFontFile = 16 << 20
	// maxCmapEntries caps the characters read from one cmap subtable: a
	// crafted table can claim billions.
	maxCmapEntries = 1 << 18
)

// embeddedUnicode returns the text of each CID of a CIDFont whose
// descriptor embeds its program, or nil.
func embeddedUnicode(cidFont object) map[uint32]string {
	desc := cidFont.Key("FontDescriptor")
	var byGID func(gid int) string
	var numGlyphs int
	switch {
	case desc.Key("FontFile2").Kind() == syntax.Stream:
		tt := readFontFile(desc.Key("FontFile2"))
		byGID, numGlyphs = sfntGlyphText(tt)
	case desc.Key("FontFile3").Kind() == syntax.Stream:
		ff := desc.Key("FontFile3")
		data := readFontFile(ff)
		if ff.Key("Subtype").Name() == "OpenType" || len(data) >= 4 && (string(data[:4]) == "OTTO" || beU32(data, 0) == 0x10000) {
			byGID, numGlyphs = sfntGlyphText(data)
		} else {
			byGID, numGlyphs = cffGlyphText(data)
		}
	}
	if byGID == nil {
		return nil
	}
	cidToGID := func(cid int) int { return cid }
	if m := cidFont.Key("CIDToGIDMap"); m.Kind() == syntax.Stream {
		data := readFontFile(m)
		cidToGID = func(cid int) int {
			if 2*cid+1 < len(data) {
				return int(data[2*cid])<<8 | int(data[2*cid+1])
			}
			return 0
		}
		numGlyphs = len(data) / 2
	}
	out := map[uint32]string{}
	for cid := 0; cid < numGlyphs && cid < 1<<16; cid++ {
		if t := byGID(cidToGID(cid)); t != "" {
			out[uint32(cid)] = t
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// readFontFile reads a font program or map stream, at most maxFontFile
// bytes of it; a stream that cannot be decoded reads as nothing, and the
// font stays without a Unicode map rather than losing the page.
func readFontFile(v object) []byte {
	b, _ := v.Bytes(maxFontFile)
	return b
}

func beU16(b []byte, off int) int {
	if off < 0 || off+2 > len(b) {
		return 0
	}
	return int(binary.BigEndian.Uint16(b[off:]))
}

func beU32(b []byte, off int) uint32 {
	if off < 0 || off+4 > len(b) {
		return 0
	}
	return binary.BigEndian.Uint32(b[off:])
}

// sfntTables returns the tables of a TrueType/OpenType font by tag.
func sfntTables(b []byte) map[string][]byte {
	n := beU16(b, 4)
	if n == 0 || n > 200 {
		return nil
	}
	t := map[string][]byte{}
	for i := 0; i < n; i++ {
		rec := 12 + 16*i
		if rec+16 > len(b) {
			break
		}
		off, length := int(beU32(b, rec+8)), int(beU32(b, rec+12))
		if off < 0 || length < 0 || off+length > len(b) || off+length < off {
			continue
		}
		t[string(b[rec:rec+4])] = b[off : off+length]
	}
	return t
}

// sfntGlyphText maps glyph ids of a TrueType/OpenType font to text: its
// Unicode cmap reversed, else its post table's glyph names, else (an
// OpenType font with CFF outlines) the CFF charset's names.
func sfntGlyphText(b []byte) (func(int) string, int) {
	t := sfntTables(b)
	if t == nil {
		return nil, 0
	}
	numGlyphs := beU16(t["maxp"], 4)
	if rev := reverseCmap(t["cmap"]); len(rev) > 0 {
		if numGlyphs == 0 {
			for g := range rev {
				numGlyphs = max(numGlyphs, g+1)
			}
		}
		return func(g int) string {
			if r, ok := rev[g]; ok {
				return string(r)
			}
			return ""
		}, numGlyphs
	}
	if names := postNames(t["post"]); len(names) > 0 {
		return func(g int) string {
			if g < len(names) {
				return glyphText(names[g])
			}
			return ""
		}, max(numGlyphs, len(names))
	}
	if c, ok := t["CFF "]; ok {
		return cffGlyphText(c)
	}
	return nil, 0
}

// reverseCmap reads the best Unicode subtable of a cmap table (Windows
// Unicode full or BMP, Unicode platform, else Windows symbol with its
// U+F0xx codes read as Latin-1) and returns, for each glyph, the lowest
// character that maps to it, except that an ideograph wins over the radical
// or compatibility form that shares its glyph (see variantForm).
func reverseCmap(c []byte) map[int]rune {
	n := beU16(c, 2)
	best, bestRank := -1, 0
	symbol := false
	for i := 0; i < n && i < 64; i++ {
		rec := 4 + 8*i
		plat, enc, off := beU16(c, rec), beU16(c, rec+2), int(beU32(c, rec+4))
		rank := 0
		switch {
		case plat == 3 && enc == 10:
			rank = 5
		case plat == 3 && enc == 1:
			rank = 4
		case plat == 0:
			rank = 3
		case plat == 3 && enc == 0:
			rank = 2
		}
		if rank > bestRank && off < len(c) {
			best, bestRank, symbol = off, rank, plat == 3 && enc == 0
		}
	}
	if best < 0 {
		return nil
	}
	rev := map[int]rune{}
	budget := maxCmapEntries
	add := func(r rune, g int) {
		budget--
		if g == 0 {
			return
		}
		if symbol {
			if r >= 0xf020 && r <= 0xf0ff {
				r -= 0xf000
			} else if r > 0xff {
				return
			}
		}
		if r < 0x20 || r >= 0xd800 && r < 0xe000 || r > 0x10ffff {
			return
		}
		if old, ok := rev[g]; !ok || variantForm(old) && !variantForm(r) ||
			r < old && variantForm(r) == variantForm(old) && !(old >= 0x20 && old < 0x7f && r >= 0x7f) {
			rev[g] = r
		}
	}
	s := c[best:]
	switch beU16(s, 0) {
	case 4:
		segX2 := beU16(s, 6)
		if 16+4*segX2 > len(s) {
			return nil
		}
		ends, starts, deltas, ranges := 14, 16+segX2, 16+2*segX2, 16+3*segX2
		for i := 0; i < segX2/2; i++ {
			end, start := beU16(s, ends+2*i), beU16(s, starts+2*i)
			delta, ro := beU16(s, deltas+2*i), beU16(s, ranges+2*i)
			if start > end || end == 0xffff && start == 0xffff {
				continue
			}
			for cp := start; cp <= end && budget > 0; cp++ {
				g := 0
				if ro == 0 {
					g = (cp + delta) & 0xffff
				} else if gi := beU16(s, ranges+2*i+ro+2*(cp-start)); gi != 0 {
					g = (gi + delta) & 0xffff
				}
				add(rune(cp), g)
			}
		}
	case 12:
		groups := int(beU32(s, 12))
		for i := 0; i < groups && 16+12*i+12 <= len(s); i++ {
			start, end, g := beU32(s, 16+12*i), beU32(s, 20+12*i), beU32(s, 24+12*i)
			if end < start || end-start > 1<<16 {
				continue
			}
			for cp := start; cp <= end && budget > 0; cp++ {
				add(rune(cp), int(g+cp-start))
			}
		}
	case 6:
		first, count := beU16(s, 6), beU16(s, 8)
		for i := 0; i < count; i++ {
			add(rune(first+i), beU16(s, 10+2*i))
		}
	case 0:
		for i := 0; i < 256 && 6+i < len(s); i++ {
			if i < 0x7f { // Mac Roman agrees with ASCII only
				add(rune(i), int(s[6+i]))
			}
		}
	}
	return rev
}

// variantForm reports a CJK radical (Kangxi or supplement) or compatibility
// ideograph: CJK fonts such as Source Han map these to the glyph of the
// unified ideograph they stand for ("⻓" U+2ED3 and "长" U+957F), where text
// means the ideograph, as pdftotext reads it.
func variantForm(r rune) bool {
	return r >= 0x2e80 && r <= 0x2fdf || r >= 0xf900 && r <= 0xfaff || r >= 0x2f800 && r <= 0x2fa1f
}

// postNames returns the glyph names of a post table in format 2.
func postNames(p []byte) []string {
	if beU32(p, 0) != 0x20000 {
		return nil
	}
	n := beU16(p, 32)
	idx := 34
	strs := idx + 2*n
	var extra []string
	for o := strs; o < len(p); {
		l := int(p[o])
		if o+1+l > len(p) {
			break
		}
		extra = append(extra, string(p[o+1:o+1+l]))
		o += 1 + l
	}
	names := make([]string, n)
	for g := 0; g < n; g++ {
		k := beU16(p, idx+2*g)
		switch {
		case k < len(macGlyphNames):
			names[g] = macGlyphNames[k]
		case k-len(macGlyphNames) < len(extra):
			names[g] = extra[k-len(macGlyphNames)]
		}
	}
	return names
}

// cffGlyphText maps the glyph ids of a bare CFF font (FontFile3 /Type1C or
// /CIDFontType0C) to the text of their charset names. A CID-keyed CFF
// names no glyphs: nil.
func cffGlyphText(b []byte) (func(int) string, int) {
	c, ok := readCFF(b)
	if !ok {
		return nil, 0
	}
	return func(g int) string {
		if g >= 0 && g < len(c.names) {
			return glyphText(c.names[g])
		}
		return ""
	}, len(c.names)
}

// cffFont is what is read of a bare CFF font: the glyph names of its
// charset by glyph id, its top DICT and the whole program.
type cffFont struct {
	b     []byte
	names []string
	top   map[int][]float64
	sid   func(int) string // the name of a string id
}

// readCFF reads the charset of a name-keyed CFF font (false for a
// CID-keyed one, which names no glyphs, or a damaged one).
func readCFF(b []byte) (c cffFont, ok bool) {
	if len(b) < 4 || b[0] != 1 {
		return c, false
	}
	pos := int(b[2])              // header size
	_, pos, ok = cffIndex(b, pos) // Name INDEX
	if !ok {
		return c, false
	}
	top, pos, ok := cffIndex(b, pos)
	if !ok || len(top) == 0 {
		return c, false
	}
	strs, _, ok := cffIndex(b, pos)
	if !ok {
		return c, false
	}
	dict := cffDict(top[0])
	if _, cid := dict[0x0c1e]; cid { // ROS: CID-keyed
		return c, false
	}
	cs, ok := dict[17] // CharStrings
	if !ok || len(cs) == 0 {
		return c, false
	}
	glyphs, _, ok := cffIndex(b, int(cs[0]))
	if !ok {
		return c, false
	}
	n := len(glyphs)
	sid := func(s int) string {
		switch {
		case s < len(cffStandardStrings):
			return cffStandardStrings[s]
		case s < cffStandardCount:
			return "" // expert-set names: none is body text
		case s-cffStandardCount < len(strs):
			return string(strs[s-cffStandardCount])
		}
		return ""
	}
	names := make([]string, n)
	off := 0
	if c, ok := dict[15]; ok && len(c) > 0 {
		off = int(c[0])
	}
	switch {
	case off == 0: // ISOAdobe: glyph i is SID i
		for g := 1; g < n; g++ {
			names[g] = sid(g)
		}
	case off > 2 && off < len(b):
		format := b[off]
		p := off + 1
		for g := 1; g < n && p < len(b); {
			switch format {
			case 0:
				names[g] = sid(beU16(b, p))
				g, p = g+1, p+2
			case 1, 2:
				first := beU16(b, p)
				var left int
				if format == 1 {
					if p+2 >= len(b) {
						return c, false
					}
					left, p = int(b[p+2]), p+3
				} else {
					left, p = beU16(b, p+2), p+4
				}
				for k := 0; k <= left && g < n; k++ {
					names[g] = sid(first + k)
					g++
				}
			default:
				return c, false
			}
		}
	default:
		return c, false
	}
	c.b, c.names, c.top = b, names, dict
	c.sid = sid
	return c, true
}

// cffEncoding reads the built-in encoding of a bare CFF font (FontFile3
// /Type1C): the glyph name of each code. Fonts subset by Acrobat Distiller
// and Ghostscript put the ligatures ("fi", "fl", "ff", "ffi", "ffl") and
// other glyphs of their own at codes of their own choosing, which the
// Standard encoding a reader would otherwise assume does not have.
func cffEncoding(b []byte) (names [256]string, ok bool) {
	c, ok := readCFF(b)
	if !ok {
		return names, false
	}
	off := 0
	if e, has := c.top[16]; has && len(e) > 0 {
		off = int(e[0])
	}
	switch {
	case off == 0:
		return standardNames(), true
	case off == 1:
		return names, false // the Expert encoding: small capitals and figures
	case off >= len(b):
		return names, false
	}
	format := b[off]
	p := off + 1
	g := 1
	switch format & 0x7f {
	case 0:
		if p >= len(b) {
			return names, false
		}
		n := int(b[p])
		p++
		for k := 0; k < n && p < len(b); k++ {
			if g < len(c.names) {
				names[b[p]] = c.names[g]
			}
			g, p = g+1, p+1
		}
	case 1:
		if p >= len(b) {
			return names, false
		}
		n := int(b[p])
		p++
		for k := 0; k < n && p+1 < len(b); k++ {
			first, left := int(b[p]), int(b[p+1])
			p += 2
			for code := first; code <= first+left && code < 256; code++ {
				if g < len(c.names) {
					names[code] = c.names[g]
				}
				g++
			}
		}
	default:
		return names, false
	}
	if format&0x80 != 0 && p < len(b) {
		// supplements: more codes for glyphs already encoded
		n := int(b[p])
		p++
		for k := 0; k < n && p+2 < len(b); k++ {
			names[b[p]] = c.sid(beU16(b, p+1))
			p += 3
		}
	}
	return names, true
}

// cffIndex reads a CFF INDEX at pos and returns its items and the offset
// after it.
func cffIndex(b []byte, pos int) ([][]byte, int, bool) {
	count := beU16(b, pos)
	if pos+2 > len(b) {
		return nil, pos, false
	}
	if count == 0 {
		return nil, pos + 2, true
	}
	if pos+3 > len(b) {
		return nil, pos, false
	}
	offSize := int(b[pos+2])
	if offSize < 1 || offSize > 4 {
		return nil, pos, false
	}
	offs := pos + 3
	data := offs + (count+1)*offSize - 1
	read := func(i int) int {
		v := 0
		for k := 0; k < offSize; k++ {
			p := offs + i*offSize + k
			if p >= len(b) {
				return -1
			}
			v = v<<8 | int(b[p])
		}
		return v
	}
	items := make([][]byte, 0, count)
	for i := 0; i < count; i++ {
		a, z := read(i), read(i+1)
		if a < 1 || z < a || data+z > len(b) {
			return nil, pos, false
		}
		items = append(items, b[data+a:data+z])
	}
	return items, data + read(count), true
}

// cffDict reads a CFF DICT into operator -> operands (two-byte operators
// as 0x0cXX).
func cffDict(d []byte) map[int][]float64 {
	out := map[int][]float64{}
	var ops []float64
	for i := 0; i < len(d); {
		c := int(d[i])
		switch {
		case c <= 21:
			op := c
			i++
			if c == 12 && i < len(d) {
				op = 0x0c00 | int(d[i])
				i++
			}
			out[op] = ops
			ops = nil
		case c == 28:
			ops = append(ops, float64(int16(beU16(d, i+1))))
			i += 3
		case c == 29:
			ops = append(ops, float64(int32(beU32(d, i+1))))
			i += 5
		case c == 30: // real: skip its nibbles
			i++
			for i < len(d) && d[i]&0x0f != 0x0f && d[i]&0xf0 != 0xf0 {
				i++
			}
			i++
			ops = append(ops, 0)
		case c >= 32 && c <= 246:
			ops = append(ops, float64(c-139))
			i++
		case c >= 247 && c <= 250 && i+1 < len(d):
			ops = append(ops, float64((c-247)*256+int(d[i+1])+108))
			i += 2
		case c >= 251 && c <= 254 && i+1 < len(d):
			ops = append(ops, float64(-(c-251)*256-int(d[i+1])-108))
			i += 2
		default:
			i++
		}
	}
	return out
}

// cffStandardCount is the number of CFF standard strings (SIDs below it
// are predefined).
const cffStandardCount = 391

// cffStandardStrings are the first 229 CFF standard strings (Adobe TN 5176
// appendix A), the ISOAdobe character set; the rest are expert-set names.
var cffStandardStrings = strings.Fields(`.notdef space exclam quotedbl numbersign dollar percent ampersand
quoteright parenleft parenright asterisk plus comma hyphen period slash zero one two three four five six
seven eight nine colon semicolon less equal greater question at A B C D E F G H I J K L M N O P Q R S T U
V W X Y Z bracketleft backslash bracketright asciicircum underscore quoteleft a b c d e f g h i j k l m n
o p q r s t u v w x y z braceleft bar braceright asciitilde exclamdown cent sterling fraction yen florin
section currency quotesingle quotedblleft guillemotleft guilsinglleft guilsinglright fi fl endash dagger
daggerdbl periodcentered paragraph bullet quotesinglbase quotedblbase quotedblright guillemotright
ellipsis perthousand questiondown grave acute circumflex tilde macron breve dotaccent dieresis ring
cedilla hungarumlaut ogonek caron emdash AE ordfeminine Lslash Oslash OE ordmasculine ae dotlessi lslash
oslash oe germandbls onesuperior logicalnot mu trademark Eth onehalf plusminus Thorn onequarter divide
brokenbar degree thorn threequarters twosuperior registered minus eth multiply threesuperior copyright
Aacute Acircumflex Adieresis Agrave Aring Atilde Ccedilla Eacute Ecircumflex Edieresis Egrave Iacute
Icircumflex Idieresis Igrave Ntilde Oacute Ocircumflex Odieresis Ograve Otilde Scaron Uacute Ucircumflex
Udieresis Ugrave Yacute Ydieresis Zcaron aacute acircumflex adieresis agrave aring atilde ccedilla eacute
ecircumflex edieresis egrave iacute icircumflex idieresis igrave ntilde oacute ocircumflex odieresis
ograve otilde scaron uacute ucircumflex udieresis ugrave yacute ydieresis zcaron`)

// macGlyphNames are the 258 standard Macintosh glyph names a post table in
// format 2 refers to by index.
var macGlyphNames = strings.Fields(`.notdef .null nonmarkingreturn space exclam quotedbl numbersign dollar
percent ampersand quotesingle parenleft parenright asterisk plus comma hyphen period slash zero one two
three four five six seven eight nine colon semicolon less equal greater question at A B C D E F G H I J K
L M N O P Q R S T U V W X Y Z bracketleft backslash bracketright asciicircum underscore grave a b c d e f
g h i j k l m n o p q r s t u v w x y z braceleft bar braceright asciitilde Adieresis Aring Ccedilla
Eacute Ntilde Odieresis Udieresis aacute agrave acircumflex adieresis atilde aring ccedilla eacute egrave
ecircumflex edieresis iacute igrave icircumflex idieresis ntilde oacute ograve ocircumflex odieresis
otilde uacute ugrave ucircumflex udieresis dagger degree cent sterling section bullet paragraph
germandbls registered copyright trademark acute dieresis notequal AE Oslash infinity plusminus lessequal
greaterequal yen mu partialdiff summation product pi integral ordfeminine ordmasculine Omega ae oslash
questiondown exclamdown logicalnot radical florin approxequal Delta guillemotleft guillemotright
ellipsis nonbreakingspace Agrave Atilde Otilde OE oe endash emdash quotedblleft quotedblright quoteleft
quoteright divide lozenge ydieresis Ydieresis fraction currency guilsinglleft guilsinglright fi fl
daggerdbl periodcentered quotesinglbase quotedblbase perthousand Acircumflex Ecircumflex Aacute
Edieresis Egrave Iacute Icircumflex Idieresis Igrave Oacute Ocircumflex apple Ograve Uacute Ucircumflex
Ugrave dotlessi circumflex tilde macron breve dotaccent ring cedilla hungarumlaut ogonek caron Lslash
lslash Scaron scaron Zcaron zcaron brokenbar Eth eth Yacute yacute Thorn thorn minus multiply
onesuperior twosuperior threesuperior onehalf onequarter threequarters franc Gbreve gbreve Idotaccent
Scedilla scedilla Cacute cacute Ccaron ccaron dcroat`)
