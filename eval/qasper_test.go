package eval

import (
	"strings"
	"testing"

	"github.com/papers-cli/papers/internal/shareddata"
)

func TestTokenF1(t *testing.T) {
	for _, tc := range []struct {
		pred, ref string
		want      float64
	}{
		{"the cat sat", "A cat sat down.", 2 * (1.0 * 2.0 / 3.0) / (1.0 + 2.0/3.0)}, // articles and punctuation go
		{"Yes", "yes", 1},
		{"", "Unanswerable", 0},
		{"BERT, ELMo", "ELMo and BERT", 2 * 1 * (2.0 / 3.0) / (1 + 2.0/3.0)},
		{"the", "the", 0},           // nothing left of either
		{"an–apple", "an apple", 0}, // as score.py: "an" goes, "–apple" is not "apple"
	} {
		if got := TokenF1(tc.pred, tc.ref); got < tc.want-1e-9 || got > tc.want+1e-9 {
			t.Errorf("TokenF1(%q, %q) = %v, want %v", tc.pred, tc.ref, got, tc.want)
		}
	}
}

// The scorer agrees with shared/data/qasper/score.py: two prediction sets
// on the dev split, scored by score.py when this test was written (its
// figures below), are scored the same here.
func TestScoreQASPERAgreesWithScorePy(t *testing.T) {
	dir := shareddata.Path(t, "qasper", "dev")
	corpus, questions, err := QASPERFiles(dir)
	if err != nil {
		t.Fatalf("QASPER dev missing (see shared/data/qasper/README.md): %v", err)
	}
	qs, err := ReadQASPERQuestions(questions)
	if err != nil {
		t.Fatal(err)
	}
	papers, err := QASPERPapers(corpus)
	if err != nil {
		t.Fatal(err)
	}
	// "Unanswerable" to everything, no evidence
	all := map[string]QASPERPrediction{}
	for _, q := range qs {
		all[q.ID] = QASPERPrediction{ID: q.ID, Answer: "Unanswerable", Evidence: []string{}}
	}
	s := ScoreQASPER(qs, all)
	near(t, "Unanswerable: Answer-F1", s.AnswerF1, 13.49917081260365)
	near(t, "Unanswerable: extractive", s.AnswerF1ByType["extractive"], 0.12894906511927787)
	if s.QuestionsBy["extractive"] != 517 || s.QuestionsBy["none"] != 135 {
		t.Errorf("questions by type %v", s.QuestionsBy)
	}
	// every seventh question unanswered; the question's first five words
	// and "Yes the"; the paper's first paragraph, and for every third
	// question the first annotator's first evidence paragraph too
	some := map[string]QASPERPrediction{}
	for i, q := range qs {
		if i%7 == 0 {
			continue
		}
		ev := append([]string{}, papers[q.Paper][1:2]...)
		if i%3 == 0 && len(q.Answers[0].Evidence) > 0 {
			ev = append(ev, q.Answers[0].Evidence[0])
		}
		w := strings.Fields(q.Q)
		some[q.ID] = QASPERPrediction{ID: q.ID, Answer: strings.Join(w[:min(5, len(w))], " ") + " Yes the", Evidence: ev}
	}
	s = ScoreQASPER(qs, some)
	near(t, "some: Answer-F1", s.AnswerF1, 6.186533143535905)
	near(t, "some: boolean", s.AnswerF1ByType["boolean"], 18.042813455657495)
	near(t, "some: Evidence-F1", s.EvidenceF1, 14.733944330959266)
	if s.Missing != 144 || s.Questions != 1005 {
		t.Errorf("missing %d of %d, want 144 of 1005", s.Missing, s.Questions)
	}
}

func near(t *testing.T, what string, got, want float64) {
	t.Helper()
	if got < want-1e-6 || got > want+1e-6 {
		t.Errorf("%s = %v, score.py says %v", what, got, want)
	}
}

func TestEvidenceParagraphs(t *testing.T) {
	paras := []string{"Intro line one.", "We use  BERT. It is big.", "Results are good."}
	got := EvidenceParagraphs(paras, []string{"It is big.", "We use BERT.", "Nowhere.", "Results are good."})
	if strings.Join(got, "|") != "We use  BERT. It is big.|Results are good." {
		t.Errorf("got %q: want each paragraph once, verbatim, in the quotes' order", got)
	}
}

func TestDebrisAndFirstSentences(t *testing.T) {
	for text, want := range map[string]string{
		"BM25 [1].\n  “We use BM25 over KILT.” [1]":                     "",
		"Table 3: Results on SQuAD.":                                    "caption",
		"  “Figure 2. The model.” [2]":                                  "caption",
		"Smith, J. and Doe, A. 2020. A paper title. In Proc. of ACL.":   "reference",
		"Scores 1.2 3.4 5.6 7.8 9.0 1.1 2.2 appear here":                "numbers",
		"We train for 3 epochs with a learning rate of 2e-5 on 8 GPUs.": "",
	} {
		got := Debris(text)
		if !strings.HasPrefix(got, want) || (want == "") != (got == "") {
			t.Errorf("Debris(%q) = %q, want %q", text, got, want)
		}
	}
	a := "Yes [1].\n  “We use BM25. It indexes KILT.” [1]\n  “More.” [2]"
	if got := FirstSentences(a, 2); got != "Yes [1]. “We use BM25." {
		t.Errorf("first two sentences %q", got)
	}
}
