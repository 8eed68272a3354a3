package pdf

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/papers-cli/papers/ingest/pdf/syntax"
)

// peerFont returns the font resource name of the first page of a peer PDF.
func peerFont(t *testing.T, file, name string) object {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(needData(t, "pdfs/peer/pdfs"), file))
	if err != nil {
		t.Fatal(err)
	}
	file0, err := syntax.Open(context.Background(), data)
	if err != nil {
		t.Fatal(err)
	}
	f := own{file0.Page(0).Key("Resources").Key("Font").Key(name)}
	if f.Kind() != syntax.Dict {
		t.Fatalf("%s: no font %s on page 1", file, name)
	}
	return f
}

// TestEmbeddedUnicode: Identity-H CID fonts with no ToUnicode read their
// text back through the embedded TrueType font's cmap.
func TestEmbeddedUnicode(t *testing.T) {
	cases := []struct {
		file, font string
		want       string // characters the map must produce
	}{
		// CIDFontType2 with a CIDToGIDMap stream (Japanese, Word)
		{"pdfjs/javauninstall-7r.pdf", "F1", "プログラムのアンインストール"},
		// CIDFontType2, Identity CID to GID (Polish invoice)
		{"pdfminer/issue-625-identity-cmap.pdf", "F2", "Łódź"},
		// pdftotext prints this one as garbage ("3HQČåQtSURVWĜHGN\QD~þWHFK"):
		// the text is Czech, checked by reading the rendered page.
		{"pdfminer/issue-791-non-unicode-cmap.pdf", "F3", "Peněžní prostředky na účtech"},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			t.Parallel()
			f := peerFont(t, c.file, c.font)
			m := embeddedUnicode(f.Key("DescendantFonts").Index(0))
			if len(m) == 0 {
				t.Fatal("no map from the embedded font")
			}
			have := map[rune]bool{}
			for _, s := range m {
				for _, r := range s {
					have[r] = true
				}
			}
			for _, r := range c.want {
				if r != ' ' && !have[r] {
					t.Errorf("no glyph maps to %q", r)
				}
			}
		})
	}
}

// TestCFFCharset: a bare CFF font program (FontFile3 /Type1C) names its
// glyphs through its charset; the names cover the glyphs its /Differences
// use.
func TestCFFCharset(t *testing.T) {
	f := peerFont(t, "camelot/anticlockwise_table_1.pdf", "F6")
	data := readFontFile(f.Key("FontDescriptor").Key("FontFile3"))
	byGID, n := cffGlyphText(data)
	if byGID == nil || n < 50 {
		t.Fatalf("charset not read: %d glyphs", n)
	}
	var got strings.Builder
	for g := 0; g < n; g++ {
		got.WriteString(byGID(g))
	}
	for _, r := range "ABCDEFGHIJKLMNOPRSTUVWXYabcdefghijklmnopqrstuvwxyz0123456789%&()*+,-./:;<=>…’–" {
		if !strings.ContainsRune(got.String(), r) {
			t.Errorf("charset lacks %q (has %q)", r, got.String())
		}
	}
}

func TestNumericGlyphNames(t *testing.T) {
	var dec, hexNames, glyphIDs, dingbats [256]string
	for c := 32; c < 127; c++ {
		dec[c] = "a" + itoa(c)
		hexNames[c] = "C" + strings.ToLower(string("0123456789ABCDEF"[c>>4])+string("0123456789ABCDEF"[c&15]))
		glyphIDs[c] = "g" + string("0123456789ABCDEF"[c>>4]) + string("0123456789ABCDEF"[c&15]) + "0"
		dingbats[c] = "a" + itoa(c)
	}
	if b := numericNames(dec, "CMR10"); b != 10 || numericGlyphText("a65", b) != "A" || numericGlyphText("65", b) != "A" {
		t.Errorf("decimal names: base %d, a65 = %q", b, numericGlyphText("a65", b))
	}
	if b := numericNames(hexNames, "F1"); b != 16 || numericGlyphText("C41", b) != "A" || numericGlyphText("C2c", b) != "," {
		t.Errorf("hex names: base %d, C41 = %q", b, numericGlyphText("C41", b))
	}
	if b := numericNames(glyphIDs, "F2"); b != 0 {
		t.Errorf("glyph ids in hex (g4A0) read as character codes, base %d", b)
	}
	if b := numericNames(dingbats, "ZapfDingbats"); b != 0 {
		t.Errorf("ZapfDingbats' a65 read as a character code, base %d", b)
	}
	if got := numericGlyphText("g3", 10); got != "" {
		t.Errorf("g3 = %q, want nothing (a control character)", got)
	}
}

func TestStandardWidths(t *testing.T) {
	cases := map[string]string{
		"Helvetica": "Helvetica", "Arial,BoldItalic": "Helvetica-BoldOblique", "ArialMT": "Helvetica",
		"Times-Roman": "Times-Roman", "TimesNewRomanPS-BoldMT": "Times-Bold", "Courier-Oblique": "Courier",
		"Symbol": "Symbol", "ZapfDingbats": "ZapfDingbats", "CMR10": "",
	}
	for in, want := range cases {
		if got := standardFont(in); got != want {
			t.Errorf("standardFont(%q) = %q, want %q", in, got, want)
		}
	}
	f := &font{name: "Helvetica", dw: 0.5}
	f.standardWidths(winAnsiNames())
	if f.widths['i'] != 0.222 || f.widths['W'] != 0.944 || f.widths[' '] != 0.278 {
		t.Errorf("Helvetica widths i=%v W=%v space=%v, want 0.222 0.944 0.278", f.widths['i'], f.widths['W'], f.widths[' '])
	}
}

// FuzzFontPrograms: no font program makes the cmap, post or CFF readers
// panic or run long. Seeds: the embedded fonts the tests above read.
func FuzzFontPrograms(f *testing.F) {
	for _, c := range []struct{ file, font, key string }{
		{"pdfjs/javauninstall-7r.pdf", "F1", "FontFile2"},
		{"pdfminer/issue-625-identity-cmap.pdf", "F2", "FontFile2"},
		{"camelot/anticlockwise_table_1.pdf", "F6", "FontFile3"},
	} {
		data, err := os.ReadFile(filepath.Join(needData(f, "pdfs/peer/pdfs"), c.file))
		if err != nil {
			f.Fatal(err)
		}
		file0, err := syntax.Open(context.Background(), data)
		if err != nil {
			f.Fatal(err)
		}
		fv := object(own{file0.Page(0).Key("Resources").Key("Font").Key(c.font)})
		desc := fv.Key("FontDescriptor")
		if d := fv.Key("DescendantFonts").Index(0); d.Kind() == syntax.Dict {
			desc = d.Key("FontDescriptor")
		}
		f.Add(readFontFile(desc.Key(c.key)))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, read := range []func([]byte) (func(int) string, int){sfntGlyphText, cffGlyphText} {
			byGID, n := read(data)
			for g := 0; byGID != nil && g < n && g < 1<<16; g++ {
				byGID(g)
			}
		}
	})
}
