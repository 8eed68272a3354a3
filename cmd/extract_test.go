package cmd

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func extractData(t *testing.T, name string) string {
	t.Helper()
	p := filepath.Join("..", "..", "shared", "data", "pdfs", name)
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("test PDF missing (see ../shared/data/README.md): %v", err)
	}
	return p
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
	if !strings.Contains(text, "Toolformer") || strings.Contains(text, "arXiv:2302.04761v1") {
		t.Errorf("unexpected text: %.200q", text)
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
		name string
		args []string
		code int
		want string
	}{
		{"encrypted", []string{"extract", extractData(t, "awkward/user_password_is_password.pdf")}, 1, "hint: decrypt it first"},
		{"scanned", []string{"extract", extractData(t, "awkward/scanned_chinese_book_image_only.pdf")}, 1, "hint: run OCR"},
		{"not a pdf", []string{"extract", notPDF}, 1, "not a PDF file"},
		{"no file", []string{"extract"}, 2, "accepts 1 arg"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			code := Run(t.Context(), c.args, &out, &errb)
			if code != c.code || !strings.Contains(errb.String(), c.want) {
				t.Errorf("exit %d, stderr %q; want exit %d and %q", code, errb.String(), c.code, c.want)
			}
		})
	}
}
