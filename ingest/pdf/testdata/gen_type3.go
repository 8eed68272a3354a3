//go:build ignore

// gen_type3 writes type3-flipped.pdf: a page of text set in Type 3 bitmap
// fonts as Ghostscript's ps2pdf writes a dvips job with PK fonts (old arXiv
// papers): glyph names /a<code>, /FontMatrix [1 0 0 -1 0 0] (glyph space
// is the bitmap's, y down), glyph units of 600 dpi pixels, each glyph an
// image mask drawn after d1, each word placed on its own (dvips moves to
// every word), text shown through an upside-down text matrix, the content
// stream LZW-compressed. The text font's FontBBox is the fixed box
// [0 -1000 1000 1000] (12 em), not its glyphs' extent; a second font draws
// the ligatures fi and fl at OT1 codes 12 and 13 and has a FontBBox of
// zeros; a third has glyphs at control codes named by an index with no
// meaning (/g1): its text cannot be mapped to Unicode.
//
//	go run gen_type3.go    (in ingest/pdf/testdata)
package main

import (
	"bytes"
	"fmt"
	"os"
	"strings"
)

// scale maps 600 dpi pixels to points.
const scale = 72.0 / 600

// the paragraphs of the page, as lines
var lines = []string{
	"Spin glasses are magnetic systems in which the interactions",
	"between the magnetic moments are in conflict with each other,",
	"owing to some frozen-in structural disorder. The field has",
	"grown over the years into a general theory of disordered systems.",
	"",
	"We study the efficient flow of the model, and find that the first",
	"phase transition is of the finite kind, as the figures show.",
	"",
	"Unmapped glyphs follow here on their own line of text.",
	"Unmapped",
}

// width of each character in pixels (a 10pt Roman font at 600 dpi: an em
// of 83 pixels)
func width(c byte) int {
	switch {
	case c == ' ':
		return 28
	case c == 'i' || c == 'l' || c == '.' || c == ',' || c == '-' || c == 'j' || c == 't' || c == 'f':
		return 23
	case c == 'm' || c == 'w' || c == 'M' || c == 'W':
		return 69
	case c >= 'A' && c <= 'Z':
		return 62
	}
	return 42
}

func main() {
	var objs []string
	add := func(s string) int { objs = append(objs, s); return len(objs) }

	used := map[byte]bool{}
	for _, l := range lines {
		for i := 0; i < len(l); i++ {
			used[l[i]] = true
		}
	}
	// font 1: the letters, at their ASCII codes, named /a<code>
	var procs, diffs, widths strings.Builder
	var charProcs []int
	var names []string
	for c := 32; c < 127; c++ {
		if !used[byte(c)] || c == ' ' {
			continue
		}
		w := width(byte(c))
		// a bitmap glyph: d1 with its box (y down), then a 1x1 image mask
		// scaled over it
		proc := fmt.Sprintf("%d 0 2 -60 %d 18 d1\nq %d 0 0 -78 2 18 cm\nBI /IM true /W 1 /H 1 /BPC 1 /D [1 0] ID \x80 EI Q", w, w-2, w-4)
		charProcs = append(charProcs, add(stream("", proc)))
		names = append(names, fmt.Sprintf("a%d", c))
		fmt.Fprintf(&diffs, " %d/a%d", c, c)
	}
	for i, n := range names {
		fmt.Fprintf(&procs, "/%s %d 0 R ", n, charProcs[i])
	}
	for c := 32; c <= 126; c++ {
		fmt.Fprintf(&widths, "%d ", width(byte(c)))
	}
	font1 := add(fmt.Sprintf("<< /Type /Font /Subtype /Type3 /Name /R6 /FontMatrix [1 0 0 -1 0 0] /FontBBox [0 -1000 1000 1000]"+
		" /Resources << /ProcSet [/PDF /ImageB] >> /CharProcs << %s>> /Encoding << /Type /Encoding /Differences [%s] >>"+
		" /FirstChar 32 /LastChar 126 /Widths [%s] >>", procs.String(), diffs.String(), widths.String()))
	// font 2: the ligatures at OT1's codes, named by code
	lig := add(stream("", "46 0 2 -60 44 18 d1\nq 42 0 0 -78 2 18 cm\nBI /IM true /W 1 /H 1 /BPC 1 /D [1 0] ID \x80 EI Q"))
	font2 := add(fmt.Sprintf("<< /Type /Font /Subtype /Type3 /Name /R7 /FontMatrix [1 0 0 -1 0 0] /FontBBox [0 0 0 0]"+
		" /Resources << /ProcSet [/PDF /ImageB] >> /CharProcs << /fi %d 0 R /fl %d 0 R >>"+
		" /Encoding << /Type /Encoding /Differences [12/fi/fl] >> /FirstChar 12 /LastChar 13 /Widths [46 46] >>", lig, lig))
	// font 3: glyphs named by an index with no meaning
	font3 := add(fmt.Sprintf("<< /Type /Font /Subtype /Type3 /Name /R8 /FontMatrix [1 0 0 -1 0 0] /FontBBox [0 -62 75 20]"+
		" /Resources << /ProcSet [/PDF /ImageB] >> /CharProcs << /g1 %d 0 R >>"+
		" /Encoding << /Type /Encoding /Differences [1/g1/g1/g1/g1] >> /FirstChar 1 /LastChar 4 /Widths [46 46 46 46] >>", lig))

	// the content: every word moved to on its own, in pixels under a
	// y-down user space, as dvips does; "fi" and "fl" from the ligature font
	var c strings.Builder
	fmt.Fprintf(&c, "q %.6f 0 0 %.6f 0 792 cm\n", scale, -scale) // y down, origin top left, 600 dpi
	c.WriteString("BT\n")
	y := 600
	for _, l := range lines {
		if l == "" {
			y += 60 // a paragraph's space
			continue
		}
		x := 600
		words := strings.Fields(l)
		if l == "Unmapped" { // a line of twelve words no font maps
			words = strings.Fields(strings.Repeat("Unmapped ", 12))
		}
		for _, word := range words {
			fmt.Fprintf(&c, "1 0 0 -1 %d %d Tm\n", x, y)
			for _, part := range splitLigatures(word) {
				switch part {
				case "fi", "fl":
					code := map[string]string{"fi": `\014`, "fl": `\015`}[part]
					fmt.Fprintf(&c, "/R7 1 Tf (%s) Tj\n", code)
					x += 46
				default:
					font := "/R6"
					if word == "Unmapped" {
						font, part = "/R8", "\x01\x02\x03\x04\x01\x02\x03\x04"
					}
					fmt.Fprintf(&c, "%s 1 Tf (%s) Tj\n", font, pdfEscape(part))
					for i := 0; i < len(part); i++ {
						x += width(part[i])
					}
				}
			}
			x += width(' ')
		}
		y += 100 // 12pt leading at 600 dpi
	}
	c.WriteString("ET\nQ\n")
	content := add(stream("/Filter /LZWDecode", string(lzw([]byte(c.String())))))
	page := add(fmt.Sprintf("<< /Type /Page /Parent %d 0 R /MediaBox [0 0 612 792] /Contents %d 0 R"+
		" /Resources << /Font << /R6 %d 0 R /R7 %d 0 R /R8 %d 0 R >> /ProcSet [/PDF /Text /ImageB] >> >>",
		len(objs)+2, content, font1, font2, font3))
	pages := add(fmt.Sprintf("<< /Type /Pages /Kids [%d 0 R] /Count 1 >>", page))
	cat := add(fmt.Sprintf("<< /Type /Catalog /Pages %d 0 R >>", pages))
	if page+1 != pages || cat != pages+1 {
		panic("object numbering")
	}

	var b bytes.Buffer
	b.WriteString("%PDF-1.2\n%\xe2\xe3\xcf\xd3\n")
	offs := make([]int, len(objs))
	for i, o := range objs {
		offs[i] = b.Len()
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", i+1, o)
	}
	xref := b.Len()
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", len(objs)+1)
	for _, off := range offs {
		fmt.Fprintf(&b, "%010d 00000 n \n", off)
	}
	fmt.Fprintf(&b, "trailer\n<< /Size %d /Root %d 0 R >>\nstartxref\n%d\n%%%%EOF\n", len(objs)+1, cat, xref)
	if err := os.WriteFile("type3-flipped.pdf", b.Bytes(), 0o644); err != nil {
		panic(err)
	}
}

func splitLigatures(w string) []string {
	var out []string
	for len(w) > 0 {
		i := strings.Index(w, "fi")
		j := strings.Index(w, "fl")
		if i < 0 || j >= 0 && j < i {
			i = j
		}
		if i < 0 {
			out = append(out, w)
			break
		}
		if i > 0 {
			out = append(out, w[:i])
		}
		out = append(out, w[i:i+2])
		w = w[i+2:]
	}
	return out
}

func pdfEscape(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '\\' || c == '(' || c == ')':
			b.WriteByte('\\')
			b.WriteByte(c)
		case c < 32:
			fmt.Fprintf(&b, "\\%03o", c)
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

func stream(dict, data string) string {
	return fmt.Sprintf("<< %s /Length %d >>\nstream\n%s\nendstream", dict, len(data), data)
}

// lzw compresses data as PDF's LZWDecode reads it by default (EarlyChange
// 1: the code width grows one code early).
func lzw(data []byte) []byte {
	var out bytes.Buffer
	var acc uint32
	var nacc uint
	put := func(code, width int) {
		acc = acc<<uint(width) | uint32(code)
		nacc += uint(width)
		for nacc >= 8 {
			out.WriteByte(byte(acc >> (nacc - 8)))
			nacc -= 8
		}
	}
	dict := map[string]int{}
	reset := func() {
		clear(dict)
		for i := 0; i < 256; i++ {
			dict[string([]byte{byte(i)})] = i
		}
	}
	reset()
	next, width := 258, 9
	put(256, width)
	w := ""
	for _, c := range data {
		wc := w + string([]byte{c})
		if _, ok := dict[wc]; ok {
			w = wc
			continue
		}
		put(dict[w], width)
		dict[wc] = next
		next++
		// the reader's table is one entry behind; with early change it
		// widens its codes once its next entry would need the width
		if next >= 1<<width {
			if width == 12 {
				put(256, width)
				reset()
				next, width = 258, 9
			} else {
				width++
			}
		}
		w = string([]byte{c})
	}
	if w != "" {
		put(dict[w], width)
		if next+1 >= 1<<width && width < 12 {
			width++
		}
	}
	put(257, width)
	if nacc > 0 {
		out.WriteByte(byte(acc << (8 - nacc)))
	}
	return out.Bytes()
}
