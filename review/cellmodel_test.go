package review

import (
	"strings"
	"testing"

	"github.com/papers-cli/papers/eval"
	"github.com/papers-cli/papers/ingest"
	"github.com/papers-cli/papers/ingest/chunk"
	"github.com/papers-cli/papers/internal/shareddata"
	"github.com/papers-cli/papers/review/qasperkind"
	"github.com/papers-cli/papers/store"
	"github.com/papers-cli/papers/textseg"
)

// The datasets cell's sentence, chosen by the cell model (fit on QASPER
// train), on QASPER dev's questions asking which datasets a paper uses,
// which nothing was fit on: the cell quotes a sentence of an annotator's
// evidence more often than the cue rules' best sentence does, and for
// more than half of them.
func TestCellModelDatasetsOnQASPERDev(t *testing.T) {
	corpus, qs, err := eval.ReadQASPER(shareddata.Path(t, "qasper", "dev"))
	if err != nil {
		t.Fatal(err)
	}
	var asked []eval.QASPERQuestion
	want := map[string]bool{}
	for _, q := range qs {
		if qasperkind.Of(q.Q) == "datasets" {
			asked = append(asked, q)
			want[q.Paper] = true
		}
	}
	papers := map[string]*paperText{}
	err = ingest.CorpusRecords(corpus, chunk.Defaults, func(id string) bool { return want[id] }, func(p store.Paper, chunks []store.Chunk) error {
		papers[p.ID] = newPaperText(p, chunks)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var n, model, rules int
	for _, q := range asked {
		pt := papers[q.Paper]
		var evidence []string
		for _, a := range q.Answers {
			for _, e := range a.Evidence {
				evidence = append(evidence, strings.Join(strings.Fields(e), " "))
			}
		}
		inEvidence := func(s string) bool {
			for _, e := range evidence {
				if strings.Contains(e, tail(s)) {
					return true
				}
			}
			return false
		}
		cands, _ := pt.candidates(dataIntent)
		held := false
		best := -1
		for i, c := range cands {
			held = held || inEvidence(c.text)
			if c.score > 0 && (best < 0 || c.score > cands[best].score) {
				best = i
			}
		}
		if !held {
			continue // the evidence is a table or a heading, no sentence of the text
		}
		n++
		if best >= 0 && inEvidence(cands[best].text) {
			rules++
		}
		cell, ok := pt.generic(dataIntent)
		if ok && inEvidence(firstSentence(cell.Quote)) {
			model++
			if _, found := pt.locate(cell.Quote); !found {
				t.Errorf("%s: quote %q is not verbatim in the paper", q.Paper, cell.Quote)
			}
		}
	}
	t.Logf("QASPER dev datasets questions with evidence in the text: %d; the cell quotes evidence in %d, the rules' best sentence in %d", n, model, rules)
	if n < 60 {
		t.Fatalf("only %d datasets questions with evidence in the text, want the 70-odd of QASPER dev", n)
	}
	if model <= rules || 2*model <= n {
		t.Errorf("the cell quotes evidence in %d of %d, the rules' best sentence in %d: want more than the rules and than half", model, n, rules)
	}
}

// firstSentence is a quote's first sentence (a list cell may quote two).
func firstSentence(q string) string {
	if ss := textseg.Sentences(q); len(ss) > 0 {
		return strings.Join(strings.Fields(ss[0]), " ")
	}
	return q
}
