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
	}{
		{"pdfjs/issue918.pdf", "Type 3 fonts with glyphs named /a65", 0.95, "greengrocer displays a sign"},
		{"pymupdf/test_3186.pdf", "glyphs named /65 (and a Type 3 font)", 0.98, "Assicurazione sulla vita"},
		{"pdfjs/simpletype3font.pdf", "Type 3 glyphs with names of their own: the code", 1, "ababab"},
		{"pdfcpu/pageLevelOutputIntent.pdf", "pages that are alike are not all running heads", 1, ""},
		{"pdfjs/annotation-text-widget.pdf", "form field appearances", 0.99, ""},
		{"pdfjs/issue18036.pdf", "FreeText appearances", 0.99, ""},
		{"pdfjs/issue7454.pdf", "text outside the MediaBox", 0.95, "Garanties couvertes"},
		{"unstructured/reliance.pdf", "half of a spread on each page", 0.98, ""},
		{"pdfjs/issue17904.pdf", "Helvetica without /Widths", 1, "Creating PDFs in JavaScript is awesome!"},
		{"pdfjs/calrgb.pdf", "standard fonts without /Widths", 0.93, ""},
		{"pdfminer/issue-625-identity-cmap.pdf", "Identity-H without ToUnicode", 0.95, "Łódź"},
		{"pdfjs/javauninstall-7r.pdf", "Identity-H with a CIDToGIDMap", 0.99, "プログラムのアンインストール"},
		{"pdfjs/issue13201.pdf", "research paper", 0.99, "Peer-to-Peer Electronic Cash"},
		{"unstructured/copy-protected.pdf", "research paper", 0.98, "LayoutParser"},
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
			if c.want != "" && !strings.Contains(strings.Join(strings.Fields(text), " "), c.want) {
				t.Errorf("%s: text lacks %q", c.cause, c.want)
			}
		})
	}
}
