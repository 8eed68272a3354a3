package ingest

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/papers-cli/papers/export"
	"github.com/papers-cli/papers/export/exporttest"
	"github.com/papers-cli/papers/ingest/arxiv/arxivtest"
	"github.com/papers-cli/papers/ingest/chunk"
	"github.com/papers-cli/papers/ingest/crossref"
	"github.com/papers-cli/papers/ingest/crossref/crossreftest"
	"github.com/papers-cli/papers/ingest/zotero"
	"github.com/papers-cli/papers/internal/testmain"
	"github.com/papers-cli/papers/store"
)

// listedAuthors are first pages whose Info or XMP author list is one
// string with four people.
var listedAuthors = []crossreftest.Page{
	{Title: "Security Smells in Ansible and Chef Scripts", InfoAuthor: "Kayla Thomason, Md Ali Babar, Akond Rahman, Ruth Brand", Abstract: "Infrastructure as code scripts carry security smells."},
	{Title: "Security Smells in Ansible and Chef Scripts", XMPCreators: []string{"Kayla Thomason, Md Ali Babar, Akond Rahman and Ruth Brand"}, Abstract: "Infrastructure as code scripts carry security smells."},
	{Title: "Security Smells in Ansible and Chef Scripts", XMPCreators: []string{"Thomason, Kayla; Ali Babar, Md; Rahman, Akond; Brand, Ruth"}, Abstract: "Infrastructure as code scripts carry security smells."},
	{Title: "Security Smells in Ansible and Chef Scripts", InfoAuthor: "K. Thomason; M. A. Babar; A. Rahman; R. Brand", Abstract: "Infrastructure as code scripts carry security smells."},
}

// mixedLibrary is every paper of the shared data as the sources make it:
// each PDF of shared/data/pdfs (papers, awkward files, the peer set: what
// the file says of itself), every item of the Zotero library, every
// recorded Crossref work and every record of the topic corpus. Under the
// race detector, where extracting a PDF costs some tenfold, it takes every
// tenth peer PDF and leaves out the 619-page file (22 s alone); all with
// PAPERS_FULL_TESTS=1.
func mixedLibrary(t *testing.T, data string) (ps []store.Paper, pdfs int) {
	t.Helper()
	ctx := context.Background()
	var files []string
	for _, dir := range []string{"papers", "awkward", "peer"} {
		err := filepath.WalkDir(filepath.Join(data, "pdfs", dir), func(path string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.EqualFold(filepath.Ext(path), ".pdf") {
				files = append(files, path)
			}
			return err
		})
		if err != nil {
			t.Fatalf("the shared PDFs are needed (see shared/data/README.md): %v", err)
		}
	}
	for i, f := range files {
		if testmain.Race && !testmain.Full && (strings.Contains(f, "/peer/") && i%10 != 0 || strings.HasSuffix(f, "DA-619p_large_pagecount.pdf")) {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		doc, err := sharedExtract(ctx, b)
		if err != nil {
			continue // encrypted, no text: not a paper ingest keeps a record of
		}
		h := sha256.Sum256(b)
		ps = append(ps, pdfCandidate(doc, f, hex.EncodeToString(h[:]), chunk.Defaults).paper)
		pdfs++
	}
	// PDFs whose metadata holds the whole author list in one string, as
	// the files the issue saw (none of the shared PDFs does)
	for i, page := range listedAuthors {
		b := crossreftest.PDF(page)
		doc, err := sharedExtract(ctx, b)
		if err != nil {
			t.Fatal(err)
		}
		h := sha256.Sum256(b)
		p := pdfCandidate(doc, fmt.Sprintf("listed-%d.pdf", i), hex.EncodeToString(h[:]), chunk.Defaults).paper
		if len(p.Authors) != 4 {
			t.Errorf("%q read as %q", page.InfoAuthor+strings.Join(page.XMPCreators, "|"), p.Authors)
		}
		ps = append(ps, p)
	}
	lib, err := zotero.Read(ctx, filepath.Join(data, "zotero", "yi1699-zotero7"))
	if err != nil {
		t.Fatalf("the shared Zotero library is needed: %v", err)
	}
	for _, it := range lib.Items {
		ps = append(ps, zoteroPaper(it))
	}
	s := crossreftest.NewServer(t, crossreftest.Options{DataDir: data})
	c := &crossref.Client{HTTPClient: s.Client(), BaseURL: s.URL, Delay: -1}
	for _, d := range s.DOIs() {
		w, err := c.Work(ctx, d)
		if err != nil {
			t.Fatal(err)
		}
		ps = append(ps, paperFromWork(w))
	}
	f, err := os.Open(filepath.Join(data, "topic", "rl-for-llm-agents.jsonl"))
	if err != nil {
		t.Fatalf("the topic corpus is needed: %v", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		p, _, err := parseRecord(sc.Bytes())
		if err != nil {
			t.Fatal(err)
		}
		ps = append(ps, p)
	}
	return ps, pdfs
}

// What export writes of a mixed library compiles: bibtex (plain style,
// every entry) and biber (tool mode, datamodel validated) report no error
// and no warning about a name; every author a source gave as a list is a
// person of their own. The other warnings (an @article without a journal,
// a PDF that does not say its year) are logged.
func TestExportOfEverySourceCompiles(t *testing.T) {
	exporttest.Need(t)
	data := arxivtest.DataDir(t)
	ps, pdfs := mixedLibrary(t, data)
	var bib bytes.Buffer
	if err := export.BibTeX(&bib, ps, nil); err != nil {
		t.Fatal(err)
	}
	r := exporttest.Check(t, bib.Bytes())
	if len(r.BibTeXErrors) > 0 || len(r.BiberErrors) > 0 || len(r.NameWarnings()) > 0 {
		t.Errorf("bibtex errors %q\nbiber errors %q\nname warnings %q", r.BibTeXErrors, r.BiberErrors, r.NameWarnings())
	}
	if r.Entries != len(ps) {
		t.Errorf("bibtex wrote %d entries of %d", r.Entries, len(ps))
	}
	t.Logf("%d papers (%d PDFs): bibtex %d warnings, biber %d warnings", len(ps), pdfs, len(r.BibTeXWarnings), len(r.BiberWarnings))
	for _, w := range append(r.BibTeXWarnings, r.BiberWarnings...) {
		t.Log(w)
	}
	var ris bytes.Buffer
	if err := export.RIS(&ris, ps, nil); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(ris.String(), "\r\nER  - \r\n"); n != len(ps) || strings.Count(ris.String(), "TY  - ") != len(ps) {
		t.Errorf("RIS has %d records for %d papers", n, len(ps))
	}
}
