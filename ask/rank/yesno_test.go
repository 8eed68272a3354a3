package rank

import (
	"testing"

	"github.com/papers-cli/papers/eval"
	"github.com/papers-cli/papers/ingest"
	"github.com/papers-cli/papers/ingest/chunk"
	"github.com/papers-cli/papers/internal/shareddata"
	"github.com/papers-cli/papers/store"
)

// qasperDevYesNo reads QASPER dev's yes/no questions (by their form) with
// their papers, cut into paragraphs as ask/train reads them.
func qasperDevYesNo(t *testing.T) []Labeled {
	t.Helper()
	corpus, qs, err := eval.ReadQASPER(shareddata.Path(t, "qasper", "dev"))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{}
	var asked []eval.QASPERQuestion
	for _, q := range qs {
		if ParseQuestion(q.Q).YesNo() {
			asked = append(asked, q)
			want[q.Paper] = true
		}
	}
	papers := map[string][]Paragraph{}
	err = ingest.CorpusRecords(corpus, chunk.Defaults, func(id string) bool { return want[id] }, func(p store.Paper, chunks []store.Chunk) error {
		papers[p.ID] = Paragraphs(chunks)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var out []Labeled
	for _, q := range asked {
		l := Labeled{ID: q.ID, Question: q.Q, Paper: papers[q.Paper]}
		for _, a := range q.Answers {
			l.Answers = append(l.Answers, LabeledAnswer{Type: a.Type, Text: a.Text, Spans: a.Spans, Evidence: a.Evidence})
		}
		out = append(out, l)
	}
	return out
}

// Yes/no questions of QASPER dev (which the model was never fit on) are
// answered Yes or No, not refused for lacking the words of the question
// (a paper that never mentions what is asked about answers No), and the
// answers beat answering Yes to all (dev, the embedded model: 136 of 138
// answered, boolean Answer-F1 64.4, Answer-F1 of these questions 56.5;
// Yes to all: 59.0 and 50.0; eval --qasper's boolean Answer-F1 was 43.4
// before the yes/no model of four answers, 61.8 with it).
func TestYesNoQuestionsOfQASPERDev(t *testing.T) {
	ls := qasperDevYesNo(t)
	m := Default()
	var qs []eval.QASPERQuestion
	preds, yes := map[string]eval.QASPERPrediction{}, map[string]eval.QASPERPrediction{}
	answered := 0
	for _, l := range ls {
		qs = append(qs, l.qasperQuestion())
		ans, ev := m.Predict(ParseQuestion(l.Question), l.Paper)
		if ans == "Yes" || ans == "No" {
			answered++
		}
		preds[l.ID], yes[l.ID] = l.prediction(ans, ev), l.prediction("Yes", nil)
	}
	got, all := eval.ScoreQASPER(qs, preds), eval.ScoreQASPER(qs, yes)
	t.Logf("%d of %d answered Yes or No; boolean Answer-F1 %.1f, Answer-F1 %.1f (Yes to all: %.1f, %.1f)",
		answered, len(ls), got.AnswerF1ByType["boolean"], got.AnswerF1, all.AnswerF1ByType["boolean"], all.AnswerF1)
	if answered*10 < len(ls)*9 {
		t.Errorf("%d of %d yes/no questions answered Yes or No, want at least 90%%", answered, len(ls))
	}
	if got.AnswerF1 < all.AnswerF1+3 {
		t.Errorf("Answer-F1 %.1f of the yes/no questions, Yes to all %.1f: want 3 points more", got.AnswerF1, all.AnswerF1)
	}
}
