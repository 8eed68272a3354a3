package pdf

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/papers-cli/papers/ingest/pdf/score"
)

// TestPeerCauses extracts a few PDFs from other tools' test suites, one or
// two per cause of lost or wrong text, and scores each against
// pdftotext's text of it. The whole set is swept by
// bench/extract/sweep (see BENCHMARKS.md).
func TestPeerCauses(t *testing.T) {
	pdfs := needData(t, "pdfs/peer/pdfs")
	refs := needData(t, "pdfs/peer/reference-text")
	cases := []struct {
		file  string
		cause string
		minF1 float64 // word F1 against pdftotext
		want  string  // a phrase the text must contain
		not   string  // one it must not
		// ligatures: the words of pdftotext's text with fi, fl or ff
		// are in ours (of files whose running heads hold none)
		ligatures bool
	}{
		{"pdfjs/issue918.pdf", "Type 3 fonts with glyphs named /a65", 0.95, "greengrocer displays a sign", "", false},
		{"pymupdf/test_3186.pdf", "glyphs named /65 (and a Type 3 font)", 0.98, "Assicurazione sulla vita", "", false},
		{"pdfjs/simpletype3font.pdf", "Type 3 glyphs with names of their own: the code", 1, "ababab", "", false},
		{"pdfcpu/pageLevelOutputIntent.pdf", "pages that are alike are not all running heads", 1, "", "", false},
		{"pdfjs/annotation-text-widget.pdf", "form field appearances", 0.99, "", "", false},
		{"pdfjs/issue18036.pdf", "FreeText appearances", 0.99, "", "", false},
		{"pdfjs/issue7454.pdf", "text outside the MediaBox", 0.95, "Garanties couvertes", "", false},
		{"unstructured/reliance.pdf", "half of a spread on each page", 0.98, "", "", false},
		{"pdfjs/issue17904.pdf", "Helvetica without /Widths", 1, "Creating PDFs in JavaScript is awesome!", "", false},
		{"pdfjs/calrgb.pdf", "standard fonts without /Widths", 0.93, "", "", false},
		{"pdfminer/issue-625-identity-cmap.pdf", "Identity-H without ToUnicode", 0.95, "Łódź", "", false},
		{"pdfjs/javauninstall-7r.pdf", "Identity-H with a CIDToGIDMap", 0.99, "プログラムのアンインストール", "", false},
		{"pdfjs/issue16538.pdf", "Adobe-Japan1 CIDs, font not embedded, no ToUnicode", 0.99, "取引できない商品", "", false},
		{"pdfminer/jo.pdf", "vertical writing (Identity-V), Adobe-Japan1 without a Unicode map", 0.99, "わたくしといふ現象は 假定された有機交流電燈の", "", false},
		{"pdfjs/noembed-eucjp.pdf", "the predefined CMap EUC-H, font not embedded", 1, "あいうえお", "", false},
		{"pdfminer/issue-1008-inline-ascii85.pdf", "titles drawn twice 1pt apart (fake bold), narrow letters too", 0.99, "Municipalité de Morin-Heights", "", false},
		{"pymupdf/test-E+A.pdf", "Arabic drawn in visual order inside English text", 0.99, "وكان الرئيس االمريكى بيل كلينتون", "", false},
		{"tabula/mednine.pdf", "an Arabic table", 0.98, "ورقة كشف نتائج دائرة مدنين", "", false},
		{"pdfjs/issue13201.pdf", "research paper", 0.99, "Peer-to-Peer Electronic Cash", "", false},
		// a figure spanning both columns at the top of the page, its labels
		// over the strip between them: the columns below read each whole
		{"papermage/2023.eacl-main.121.pdf", "two columns under a full-width figure", 0.98,
			"RQ2: Can we reduce annotator workload by partially annotating a long summary while maintaining accurate faithfulness scores?", "sigbe", false},
		// fi and fl sit at codes of the fonts' own choosing, not Standard's
		{"cermine/cermine-web__src__test__resources__pdf__test1.pdf", "Type 1C fonts with their built-in encoding", 0.98, "provided a flexible, high-performance solution", "Simplied", true},
		{"unstructured/copy-protected.pdf", "research paper", 0.98, "LayoutParser", "", false},
		{"pymupdf/test_2861.pdf", "every hyphen mapped to a soft hyphen (U+00AD), mid-line and at line ends", 0.98, "du pseudo-Avicenne by Sébastien Moureau", "impossibil ity", false},
		// pdftotext prints the p that poppler's renderer clips
		{"pdfjs/knockout_groups_test.pdf", "a Form XObject's /BBox clips its text", 0.95, "sees transparent backdro", "backdrop", false},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			t.Parallel()
			doc, err := ExtractFile(context.Background(), filepath.Join(pdfs, c.file))
			if err != nil {
				t.Fatalf("%s: %v", c.cause, err)
			}
			ref, err := os.ReadFile(filepath.Join(refs, strings.TrimSuffix(c.file, ".pdf")+".txt"))
			if err != nil {
				t.Fatal(err)
			}
			text := doc.Text()
			r := score.Compare(text, string(ref))
			t.Logf("%s: word F1 %.3f, bigram F1 %.3f", c.cause, r.WordF1, r.BigramF1)
			if r.WordF1 < c.minF1 {
				t.Errorf("%s: word F1 %.3f < %.2f", c.cause, r.WordF1, c.minF1)
			}
			// The words with the letters of ligature glyphs, as pdftotext
			// reads them, but for one: pdftotext splits the small capitals
			// of "GOBIOFF" into "G OBIOFF" (score.LigatureMisses).
			if found, total := score.Ligatures(text, string(ref)); c.ligatures && found+1 < total {
				t.Errorf("%s: %d of %d words with fi, fl or ff", c.cause, found, total)
			}
			flat := strings.Join(strings.Fields(text), " ")
			if c.want != "" && !strings.Contains(flat, c.want) {
				t.Errorf("%s: text lacks %q", c.cause, c.want)
			}
			if c.not != "" && strings.Contains(flat, c.not) {
				t.Errorf("%s: text has %q", c.cause, c.not)
			}
		})
	}
}

// TestCollectionText: the embedded CID tables of Adobe's CJK collections
// give the characters Adobe's CMaps give (spot checks from
// Adobe-*-UCS2), without variation selectors, and nothing for others.
func TestCollectionText(t *testing.T) {
	cases := []struct {
		ordering string
		cid      int
		want     string
	}{
		{"Japan1", 1, " "},
		{"Japan1", 0x22, "A"},   // in the bfrange <0001> <003c> <0020>
		{"Japan1", 0x00e6, "0"}, // <0030fe00>: the selector dropped
		{"Japan1", 0x020e, "あ"},
		{"Japan1", 0x0465, "亜"}, // the first kanji of JIS level 1
		{"Japan1", 0x04b0, "一"},
		{"GB1", 0x60, "\u3000"},    // <0060> <0062> <3000>
		{"CNS1", 0x65, "\u3001"},   // <0065> <0066> <3001>
		{"Korea1", 0x65, "\u3000"}, // <0065> <0067> <3000>
	}
	for _, c := range cases {
		tab := collectionText("Adobe", c.ordering)
		if len(tab) < 10000 {
			t.Fatalf("Adobe-%s: %d CIDs", c.ordering, len(tab))
		}
		if got := tab[c.cid]; got != c.want {
			t.Errorf("Adobe-%s CID %d = %q, want %q", c.ordering, c.cid, got, c.want)
		}
	}
	if collectionText("Adobe", "Identity") != nil || collectionText("Other", "Japan1") != nil {
		t.Error("a table for a collection that has none")
	}
}

// TestPredefinedCMaps: codes of the predefined CJK CMaps in national
// character sets read as their characters, one-byte codes among them too.
func TestPredefinedCMaps(t *testing.T) {
	cases := []struct{ cmap, codes, want string }{
		{"EUC-H", "\xa4\xa2\xa4\xa4A\xa4\xa6", "あいAう"},
		{"90ms-RKSJ-H", "\x93\xfa\x96\x7b1", "日本1"},
		{"H", "\x24\x22\x46\x7c", "あ日"},
		{"GBK-EUC-H", "\xd6\xd0\xce\xc4x", "中文x"},
		{"GBK2K-H", "\xd6\xd0\x81\x30\x81\x30", "中\u0080"},
		{"ETen-B5-H", "\xa4\xa4\xa4\xe5", "中文"},
		{"KSCms-UHC-H", "\xc7\xd1\xb1\xb9", "한국"},
		{"UniJIS-UTF16-H", "\xd8\x40\xdc\x0b\x30\x42", "\U0002000bあ"},
		{"UniGB-UTF8-H", "中a", "中a"},
	}
	for _, c := range cases {
		m := predefinedCMap(c.cmap)
		if m == nil {
			t.Errorf("%s: not known", c.cmap)
			continue
		}
		f := &font{composite: true, legacy: m, dw: 1}
		var got strings.Builder
		f.each(c.codes, func(_ uint32, _ int, text string, _ float64) { got.WriteString(text) })
		if got.String() != c.want {
			t.Errorf("%s: %q, want %q", c.cmap, got.String(), c.want)
		}
	}
	for _, name := range []string{"Identity-H", "UniJIS-UCS2-H", "WinAnsiEncoding"} {
		if predefinedCMap(name) != nil {
			t.Errorf("%s taken for a national character set", name)
		}
	}
}

// TestLogicalOrder: lines drawn in visual order read in logical order
// where they hold right-to-left script; others are left alone.
func TestLogicalOrder(t *testing.T) {
	cases := []struct{ visual, want string }{
		{"plain English (1997: 67-74)", "plain English (1997: 67-74)"},
		{"ةمئاق", "قائمة"},
		{"2014 ةيعيشرتلا تبااختنالا", "الانتخاابت الترشيعية 2014"},
		{"نوتنيلك ليب Bill Clinton دكا", "اكد Bill Clinton بيل كلينتون"},
		{"the phrase “....و اذھ” or", "the phrase “....ھذا و” or"},
		{"(3,001 ةنس)", "(سنة 3,001)"},
		{"םולש", "שלום"},
		{"\u0651\u0628ر", "ربّ"}, // a mark stays after its letter
	}
	for _, c := range cases {
		if got := logicalOrder(c.visual); got != c.want {
			t.Errorf("logicalOrder(%q) = %q, want %q", c.visual, got, c.want)
		}
	}
}
