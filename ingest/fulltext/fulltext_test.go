package fulltext

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/papers-cli/papers/ingest/arxiv/arxivtest"
)

func TestCitationPDF(t *testing.T) {
	base, _ := url.Parse("https://journals.example.org/article/10.1371/x")
	for _, c := range []struct{ page, want string }{
		{`<meta name="citation_pdf_url" content="https://journals.example.org/x.pdf">`, "https://journals.example.org/x.pdf"},
		{`<META CONTENT='/article/file?id=10.1371/x&amp;type=printable' NAME='citation_pdf_url' />`, "https://journals.example.org/article/file?id=10.1371/x&type=printable"},
		{"<meta\n  name=citation_pdf_url\n  content=x.pdf>", "https://journals.example.org/article/10.1371/x.pdf"},
		{`<meta name="citation_title" content="A title"><meta name="citation_pdf_url" content="javascript:alert(1)">`, ""},
		{`<html><body>no meta</body></html>`, ""},
	} {
		if got := citationPDF([]byte(c.page), base); got != c.want {
			t.Errorf("citationPDF(%q) = %q, want %q", c.page, got, c.want)
		}
	}
}

// A landing page names the PDF; the download is checked and kept whole;
// HTML or a cut file is refused and nothing is left behind.
func TestFindAndDownload(t *testing.T) {
	pdf, err := os.ReadFile(filepath.Join(arxivtest.DataDir(t), "pdfs", "papers", "toolformer_2302.04761v1.pdf"))
	if err != nil {
		t.Fatalf("the shared PDFs are needed (see shared/data/README.md): %v", err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/10.1000/ok", func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte(`<html><head><meta name="citation_pdf_url" content="/files/ok.pdf"></head></html>`))
	})
	mux.HandleFunc("/10.1000/none", func(w http.ResponseWriter, r *http.Request) { w.Write([]byte(`<html></html>`)) })
	mux.HandleFunc("/files/ok.pdf", func(w http.ResponseWriter, r *http.Request) { w.Write(pdf) })
	mux.HandleFunc("/files/login.pdf", func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("<!DOCTYPE html><html>sign in</html>")) })
	mux.HandleFunc("/files/cut.pdf", func(w http.ResponseWriter, r *http.Request) { w.Write(pdf[:len(pdf)/2]) })
	srv := httptest.NewServer(mux)
	defer srv.Close()
	c := &Client{HTTPClient: srv.Client(), Resolver: srv.URL}
	ctx := context.Background()
	u, err := c.FindPDF(ctx, "10.1000/ok", nil)
	if err != nil || u != srv.URL+"/files/ok.pdf" {
		t.Fatalf("FindPDF = %q, %v", u, err)
	}
	if u, err := c.FindPDF(ctx, "10.1000/none", []string{"https://publisher.example/deposited.pdf"}); err != nil || u != "https://publisher.example/deposited.pdf" {
		t.Errorf("a deposited link comes first: %q, %v", u, err)
	}
	if _, err := c.FindPDF(ctx, "10.1000/none", nil); !errors.Is(err, ErrNoPDF) {
		t.Errorf("no PDF named: %v", err)
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "ok.pdf")
	if n, err := c.Download(ctx, u, path); err != nil || n != int64(len(pdf)) {
		t.Fatalf("Download = %d, %v", n, err)
	}
	for name, why := range map[string]string{"login": "HTML page", "cut": "cut short"} {
		p := filepath.Join(dir, name+".pdf")
		_, err := c.Download(ctx, srv.URL+"/files/"+name+".pdf", p)
		if !errors.Is(err, ErrNotPDF) || !strings.Contains(err.Error(), why) {
			t.Errorf("%s: %v", name, err)
		}
		if _, err := os.Stat(p); err == nil {
			t.Errorf("%s: kept", name)
		}
	}
	if left, _ := filepath.Glob(filepath.Join(dir, ".download-*")); len(left) > 0 {
		t.Errorf("temporary files left: %v", left)
	}
}
