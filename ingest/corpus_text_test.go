package ingest

import (
	"bufio"
	"compress/gzip"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/papers-cli/papers/embed"
	"github.com/papers-cli/papers/ingest/chunk"
	"github.com/papers-cli/papers/internal/shareddata"
	"github.com/papers-cli/papers/store"
)

func TestCorpusTextHeadingsStartSections(t *testing.T) {
	text := "Abstract\nWe study things. It works.\n\n" +
		"Introduction\nClinical text structuring is hard. We fix it.\n\n" +
		"A second paragraph of the introduction, with no heading.\n\n" +
		"Experiments ::: Datasets\nTo enrich the data we add more.\n\n" +
		"where INLINEFORM0 is a symbol\nand more of the formula.\n\n" +
		"$$\\begin{split}\nJ &= 1\n\\end{split}$$"
	ct := parseCorpusText(text)
	if ct.Abstract != "We study things. It works." {
		t.Errorf("abstract = %q", ct.Abstract)
	}
	if strings.Contains(ct.Body.Text, "We study things") {
		t.Errorf("the body repeats the abstract: %q", ct.Body.Text)
	}
	var names []string
	for _, h := range ct.Body.Headings {
		names = append(names, h.Text)
		if !strings.HasPrefix(ct.Body.Text[h.Offset:], h.Text) {
			t.Errorf("heading %q is not at its offset %d", h.Text, h.Offset)
		}
	}
	if got, want := strings.Join(names, "|"), "Introduction|Experiments ::: Datasets"; got != want {
		t.Errorf("headings = %q, want %q", got, want)
	}
	chunks := chunk.Body("x", []chunk.Page{ct.Body}, 1, chunk.Options{Size: 20, Overlap: 0})
	var sawDatasets bool
	for _, c := range chunks {
		if strings.Contains(c.Text, "Datasets To enrich") {
			t.Errorf("heading glued to the next sentence: %q", c.Text)
		}
		if strings.Contains(c.Text, "To enrich") {
			sawDatasets = true
			if c.Section != "Experiments ::: Datasets" {
				t.Errorf("chunk %q in section %q", c.Text, c.Section)
			}
		}
	}
	if !sawDatasets {
		t.Errorf("no chunk holds the Datasets paragraph: %+v", chunks)
	}
}

func TestCorpusTextNoHeadings(t *testing.T) {
	text := "Just a paragraph of text. Another sentence.\n\nA second paragraph."
	ct := parseCorpusText(text)
	if ct.Abstract != "" || ct.Body.Text != text || len(ct.Body.Headings) != 0 {
		t.Errorf("plain text changed: %+v", ct)
	}
}

// TestCorpusTextQASPER reads the real QASPER train corpus: every paper's
// abstract is found, and the body's sections are its headings.
func TestCorpusTextQASPER(t *testing.T) {
	path := shareddata.Path(t, "qasper", "train", "corpus.jsonl.gz")
	f, err := os.Open(path)
	if err != nil {
		t.Fatalf("QASPER corpus missing (see shared/data/qasper/README.md): %v", err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(zr)
	sc.Buffer(nil, 16<<20)
	papers, withAbstract, heads, intro := 0, 0, 0, 0
	for sc.Scan() && papers < 200 {
		var rc struct{ Text string }
		if err := json.Unmarshal(sc.Bytes(), &rc); err != nil {
			t.Fatal(err)
		}
		papers++
		ct := parseCorpusText(rc.Text)
		if ct.Abstract != "" {
			withAbstract++
		}
		heads += len(ct.Body.Headings)
		if len(ct.Body.Headings) > 0 && strings.HasPrefix(ct.Body.Headings[0].Text, "Intro") {
			intro++
		}
	}
	if withAbstract != papers {
		t.Errorf("abstract found in %d of %d papers", withAbstract, papers)
	}
	if intro < papers*85/100 {
		t.Errorf("first section is the introduction in %d of %d papers", intro, papers)
	}
	if heads < papers*5 {
		t.Errorf("%d headings in %d papers", heads, papers)
	}
	t.Logf("%d papers: %d with an abstract, %d headings, %d open with the introduction", papers, withAbstract, heads, intro)
}

// TestCorpusGzipQASPER ingests QASPER's gzipped dev corpus as it is
// shipped: every paper is added, its abstract is QASPER's, and its chunks
// carry the sections of its headings.
func TestCorpusGzipQASPER(t *testing.T) {
	src := shareddata.Path(t, "qasper", "dev", "corpus.jsonl.gz")
	// a slice of the corpus, still gzipped, keeps the test short
	in, err := os.Open(src)
	if err != nil {
		t.Fatalf("QASPER corpus missing (see shared/data/qasper/README.md): %v", err)
	}
	defer in.Close()
	zr, err := gzip.NewReader(in)
	if err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(zr)
	sc.Buffer(nil, 16<<20)
	path := filepath.Join(t.TempDir(), "corpus.jsonl.gz")
	out, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	zw := gzip.NewWriter(out)
	var first struct {
		ID   string `json:"_id"`
		Text string `json:"text"`
	}
	for n := 0; n < 12 && sc.Scan(); n++ {
		if n == 0 {
			json.Unmarshal(sc.Bytes(), &first)
		}
		zw.Write(append(sc.Bytes(), '\n'))
	}
	zw.Close()
	out.Close()

	ctx := context.Background()
	lib, err := store.Open(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer lib.Close()
	e := embed.NewLocal()
	if err := lib.EnsureEmbedder(ctx, e.Name(), e.Dimensions()); err != nil {
		t.Fatal(err)
	}
	ing := &Ingester{Lib: lib, Embedder: e, CacheDir: filepath.Join(lib.Dir(), "cache")}
	rep, err := ing.JSONL(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Added) != 12 || len(rep.Failed) != 0 {
		t.Fatalf("added %d, failed %+v; want the 12 records", len(rep.Added), rep.Failed)
	}
	rec, err := lib.Identifier(ctx, store.IDAlias, first.ID)
	if err != nil {
		t.Fatalf("%s: %v", first.ID, err)
	}
	p, err := lib.Get(ctx, rec.PaperID)
	if err != nil {
		t.Fatal(err)
	}
	if want := parseCorpusText(first.Text).Abstract; p.Abstract != want || want == "" {
		t.Errorf("abstract %q, want QASPER's %q", p.Abstract, want)
	}
	chunks, err := lib.Chunks(ctx, p.ID)
	if err != nil {
		t.Fatal(err)
	}
	sections := map[string]bool{}
	for _, c := range chunks[1:] {
		sections[c.Section] = true
		if strings.Contains(c.Text, p.Abstract[:min(80, len(p.Abstract))]) {
			t.Errorf("chunk %d repeats the abstract", c.Seq)
		}
	}
	if !sections["Introduction"] || len(sections) < 4 {
		t.Errorf("sections of %s: %v", p.ID, sections)
	}
}
