package review

import (
	"bufio"
	"bytes"
	"regexp"
	"strings"
	"testing"

	"github.com/papers-cli/papers/eval"
	"github.com/papers-cli/papers/ingest"
	"github.com/papers-cli/papers/ingest/chunk"
	"github.com/papers-cli/papers/internal/shareddata"
	"github.com/papers-cli/papers/store"
)

func TestIntentOf(t *testing.T) {
	for q, want := range map[string]intent{
		"What problem does it address?":          problemIntent,
		"What method does it propose?":           methodIntent,
		"How much better is it?":                 gainIntent,
		"Which datasets or benchmarks are used?": dataIntent,
		"What are the limitations?":              limitIntent,
		"Is code or data released?":              codeIntent,
		"What are the datasets?":                 dataIntent, // a bare "Datasets" column
		// particular questions are searched for, whatever words they share with generic ones
		"What retrieval method sits behind Toolformer's Wikipedia search tool, and which Wikipedia dump does it index?": noIntent,
		"Which method does PaSa use?":       noIntent,
		"How many parameters does it have?": noIntent,
	} {
		if got := intentOf(q); got != want {
			t.Errorf("intentOf(%q) = %d, want %d", q, got, want)
		}
	}
}

// The generic questions on two real papers, checked against what their
// text says (shared/data/pdfs/reference-text): Toolformer proposes
// Toolformer in its introduction (page 1), names its limitations in
// section 7 (page 11) and releases no code (its one GitHub link is a
// reference's); PaSa introduces PaSa in its abstract, reports its gains
// over Google as percentages and releases model, datasets and code on
// GitHub (page 1).
func TestGenericCells(t *testing.T) {
	lib := testLibrary(t)
	text := func(file string) *paperText {
		h, err := store.HashFile(file)
		if err != nil {
			t.Fatal(err)
		}
		p, err := lib.FindByHash(t.Context(), h)
		if err != nil {
			t.Fatal(err)
		}
		return textOf(t, lib, p.ID)
	}
	tf, ps := text(toolformer), text(pasa)
	for _, c := range []struct {
		name  string
		pt    *paperText
		k     intent
		quote string // a pattern the quote matches; "" when not stated
		page  int
	}{
		{"toolformer method", tf, methodIntent, `we propose Toolformer`, 1},
		{"toolformer limitations", tf, limitIntent, `limitations`, 11},
		{"toolformer code", tf, codeIntent, "", 0},
		{"pasa method", ps, methodIntent, `We introduce PaSa`, 1},
		{"pasa gain", ps, gainIntent, `\d+(\.\d+)?% improvement|improvement of \d+(\.\d+)?%`, 0},
		{"pasa code", ps, codeIntent, `github\.com/bytedance/pasa`, 1},
	} {
		cell, ok := c.pt.generic(c.k)
		if c.quote == "" {
			if ok || cell.Stated {
				t.Errorf("%s: stated %q (p. %d), want not stated", c.name, cell.Quote, cell.Page)
			}
			continue
		}
		if !ok || !cell.Stated || !regexp.MustCompile(c.quote).MatchString(cell.Quote) {
			t.Errorf("%s: quote %q, want one matching %q", c.name, cell.Quote, c.quote)
		}
		if c.page > 0 && cell.Page != c.page {
			t.Errorf("%s: page %d, want %d", c.name, cell.Page, c.page)
		}
		if cell.Page > 0 {
			if _, found := c.pt.locate(cell.Quote); !found {
				t.Errorf("%s: quote %q is not verbatim in the paper", c.name, cell.Quote)
			}
		}
		if n := len(strings.Fields(cell.Answer)); n > maxAnswerWords+1 {
			t.Errorf("%s: answer of %d words, want at most %d", c.name, n, maxAnswerWords)
		}
	}
}

// A datasets cell on a real QASPER dev paper (1908.08717, on French
// broadcast speech corpora), whose annotators answer "ESTER1, ESTER2,
// ETAPE, REPERE": the ranker leads the cell to the sentence that names
// all four (the cue rules alone pick one that does not), quoted verbatim.
func TestGenericDatasetsRanked(t *testing.T) {
	path := shareddata.Path(t, "qasper", "dev", "corpus.jsonl.gz")
	rc, err := eval.OpenMaybeGzip(path)
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	sc := bufio.NewScanner(rc)
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		if !bytes.Contains(sc.Bytes(), []byte(`"qasper:1908.08717"`)) {
			continue
		}
		p, chunks, err := ingest.CorpusRecord(sc.Bytes(), chunk.Defaults)
		if err != nil {
			t.Fatal(err)
		}
		pt := newPaperText(p, chunks)
		cell, ok := pt.generic(dataIntent)
		if !ok || !cell.Stated {
			t.Fatalf("not stated, want the corpora")
		}
		if m := eval.Missing(cell.Quote, []string{"ESTER1", "ESTER2", "ETAPE", "REPERE"}); len(m) > 0 {
			t.Errorf("quote %q misses %v", cell.Quote, m)
		}
		if _, found := pt.locate(cell.Quote); !found {
			t.Errorf("quote %q is not verbatim in the paper", cell.Quote)
		}
		return
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	t.Fatalf("%s holds no paper qasper:1908.08717", path)
}
