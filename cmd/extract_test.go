package cmd

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/papers-cli/papers/internal/shareddata"
)

func extractData(t *testing.T, name string) string {
	t.Helper()
	return shareddata.Path(t, append([]string{"pdfs"}, strings.Split(name, "/")...)...)
}

func TestExtractText(t *testing.T) {
	var out, errb bytes.Buffer
	code := Run(t.Context(), []string{"extract", extractData(t, "papers/toolformer_2302.04761v1.pdf")}, &out, &errb)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	text := out.String()
	if n := strings.Count(text, "\f"); n != 16 {
		t.Errorf("%d form feeds, want 16 (17 pages)", n)
	}
	// the arXiv stamp is furniture: a paragraph of its own
	if !strings.Contains(text, "Toolformer") || !strings.Contains(text, "\narXiv:2302.04761v1 [cs.CL] 9 Feb 2023\n") {
		t.Errorf("unexpected text: %.200q", text)
	}
	out.Reset()
	if code := Run(t.Context(), []string{"extract", "--roles", extractData(t, "papers/toolformer_2302.04761v1.pdf")}, &out, &errb); code != 0 {
		t.Fatalf("--roles: exit %d: %s", code, errb.String())
	}
	for _, want := range []string{"furniture\tarXiv:2302.04761v1 [cs.CL] 9 Feb 2023\n", "heading\t3 Tools\n", "caption\tTable 1: Examples of inputs and outputs for all APIs used.\n"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("--roles lacks %q", want)
		}
	}
}

func TestExtractJSON(t *testing.T) {
	var out, errb bytes.Buffer
	code := Run(t.Context(), []string{"extract", "--json", extractData(t, "papers/toolformer_2302.04761v1.pdf")}, &out, &errb)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	var rec struct {
		Pages []struct {
			N    int    `json:"n"`
			Text string `json:"text"`
		} `json:"pages"`
		Title    string   `json:"title"`
		ArxivID  string   `json:"arxiv_id"`
		Warnings []string `json:"warnings"`
	}
	if err := json.Unmarshal(out.Bytes(), &rec); err != nil {
		t.Fatal(err)
	}
	if len(rec.Pages) != 17 || rec.Pages[0].N != 1 || rec.ArxivID != "2302.04761v1" || rec.Warnings == nil {
		t.Errorf("pages=%d first=%d arxiv=%q warnings=%v", len(rec.Pages), rec.Pages[0].N, rec.ArxivID, rec.Warnings)
	}
	if !strings.Contains(rec.Title, "Toolformer") {
		t.Errorf("title = %q", rec.Title)
	}
}

func TestExtractErrors(t *testing.T) {
	notPDF := filepath.Join(t.TempDir(), "x.pdf")
	if err := os.WriteFile(notPDF, []byte("<html>Too many requests</html>"), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name  string
		args  []string
		code  int
		want  string
		lines int // of stderr, when not 0
	}{
		{"encrypted", []string{"extract", extractData(t, "awkward/user_password_is_password.pdf")}, 1, "hint: decrypt it first", 2},
		{"scanned", []string{"extract", extractData(t, "awkward/scanned_chinese_book_image_only.pdf")}, 1, "hint: run OCR", 2},
		{"fonts without Unicode", []string{"extract", extractData(t, "peer/pdfs/pymupdf/test_3072.pdf")}, 1, "hint: only the glyphs' shapes can be read: run OCR", 2},
		{"not a pdf", []string{"extract", notPDF}, 1, "not a PDF file", 2},
		{"no file", []string{"extract"}, 2, "accepts 1 arg", 0},
		// causes no tool fixes get no hint: no OCR hint for a file with
		// no pages or no images
		{"page tree loop", []string{"extract", extractData(t, "hostile/page_tree_selfkid.pdf")}, 1, "malformed PDF: the page tree loops back on itself", 1},
		{"object stream in itself", []string{"extract", extractData(t, "hostile/objstm_self.pdf")}, 1, "content streams are missing or damaged", 1},
		{"no text, no image", []string{"extract", extractData(t, "peer/pdfs/pdfjs/GHOSTSCRIPT-698804-1-fuzzed.pdf")}, 1, "no text layer", 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			code := Run(t.Context(), c.args, &out, &errb)
			if code != c.code || !strings.Contains(errb.String(), c.want) {
				t.Errorf("exit %d, stderr %q; want exit %d and %q", code, errb.String(), c.code, c.want)
			}
			if n := strings.Count(errb.String(), "\n"); c.lines > 0 && n != c.lines {
				t.Errorf("stderr %q: %d lines, want %d", errb.String(), n, c.lines)
			}
		})
	}
}
