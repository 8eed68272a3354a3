package ingest

import (
	"bufio"
	"compress/gzip"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/papers-cli/papers/ingest/arxiv/arxivtest"
	"github.com/papers-cli/papers/ingest/chunk"
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
	path := filepath.Join(arxivtest.DataDir(t), "qasper", "train", "corpus.jsonl.gz")
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
