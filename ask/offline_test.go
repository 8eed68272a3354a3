package ask

import (
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/papers-cli/papers/embed"
	"github.com/papers-cli/papers/ingest"
	"github.com/papers-cli/papers/internal/shareddata"
	"github.com/papers-cli/papers/retrieve"
	"github.com/papers-cli/papers/store"
)

// buildTopic is a library of the topic corpus (30 abstracts of a research
// feed's topic page).
func buildTopic(t *testing.T) (*retrieve.Retriever, *store.Library) {
	t.Helper()
	dir := t.TempDir()
	corpus := shareddata.Path(t, "topic", "rl-for-llm-agents.jsonl")
	e := embed.NewLocal()
	if _, err := ingest.Build(t.Context(), dir, e, ingest.Sources{Corpora: []string{corpus}}); err != nil {
		t.Fatal(err)
	}
	lib, err := store.Open(t.Context(), dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { lib.Close() })
	return &retrieve.Retriever{Index: lib, Embedder: e}, lib
}

// Generic questions about one paper are answered for (nearly) every paper
// that has an abstract; a main-result answer carries the paper's numbers
// when its abstract gives them.
func TestGenericQuestionsOfEachPaper(t *testing.T) {
	r, lib := buildTopic(t)
	papers, err := lib.List(t.Context(), store.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	questions := []string{"What method does this paper propose?", "What is the main result?", "Which datasets are used?"}
	answered, asked, numbers, withNumbers := 0, 0, 0, 0
	for _, p := range papers {
		for _, q := range questions {
			asked++
			res, err := Ask(t.Context(), r, q, nil, AskOptions{Retrieve: retrieve.Options{Filter: store.Filter{IDs: []string{p.ID}}}}, nil)
			if errors.Is(err, ErrNoEvidence) {
				t.Logf("%s %q: %v", p.ID, q, err)
				continue
			}
			if err != nil {
				t.Fatal(err)
			}
			answered++
			if res.ShortAnswer == "" || len(res.Evidence) == 0 || res.Citations[0].ID != p.ID {
				t.Errorf("%s %q: short %q, evidence %v, citations %v", p.ID, q, res.ShortAnswer, res.Evidence, res.Citations)
			}
			if q == questions[1] && strings.ContainsAny(p.Abstract, "0123456789") {
				withNumbers++
				if strings.ContainsAny(res.Answer, "0123456789") {
					numbers++
				}
			}
		}
	}
	t.Logf("answered %d of %d; main results with numbers %d of %d", answered, asked, numbers, withNumbers)
	if answered*10 < asked*9 {
		t.Errorf("answered %d of %d generic questions, want at least 90%%", answered, asked)
	}
	if numbers*10 < withNumbers*7 {
		t.Errorf("%d of %d main-result answers carry numbers their abstracts give", numbers, withNumbers)
	}
}

// A question about a topic is answered from several papers, a line each,
// each citing its own paper.
func TestTopicQuestionCitesSeveralPapers(t *testing.T) {
	r, _ := buildTopic(t)
	var out strings.Builder
	res, err := Ask(t.Context(), r, "What are the main approaches to credit assignment?", nil, AskOptions{}, &out)
	if err != nil {
		t.Fatal(err)
	}
	ids := map[string]bool{}
	for _, c := range res.Citations {
		ids[c.ID] = true
	}
	if len(ids) < 3 {
		t.Errorf("cites %d papers, want at least 3:\n%s", len(ids), out.String())
	}
	lines := 0
	for _, l := range strings.Split(res.Answer, "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), "- ") {
			lines++
		}
	}
	if lines != len(res.Evidence) || lines < 3 {
		t.Errorf("%d lines for %d evidence sentences:\n%s", lines, len(res.Evidence), res.Answer)
	}
}

// The offline answer opens with the short answer, cited, then quotes its
// evidence verbatim; --json carries both.
func TestOfflineAnswerOpensWithTheAnswer(t *testing.T) {
	r, _ := buildTopic(t)
	var out strings.Builder
	res, err := Ask(t.Context(), r, "What pass@1 does ECHO reach with Qwen3-8B on TerminalBench-2.0?", nil, AskOptions{}, &out)
	if err != nil {
		t.Fatal(err)
	}
	first := strings.SplitN(res.Answer, "\n", 2)[0]
	if !strings.HasSuffix(first, "[1]") || !strings.Contains(first, res.ShortAnswer) {
		t.Errorf("first line %q: want the short answer %q, cited", first, res.ShortAnswer)
	}
	if n := len(strings.Fields(res.ShortAnswer)); n == 0 || n > maxShortWords {
		t.Errorf("short answer %q", res.ShortAnswer)
	}
	if len(res.Evidence) == 0 || res.Evidence[0].ID != "topic-001" || !strings.Contains(res.Citations[0].Passage, res.Evidence[0].Quote) {
		t.Errorf("evidence %+v is not a verbatim sentence of its cited passage", res.Evidence)
	}
	b, _ := json.Marshal(res)
	for _, k := range []string{`"short_answer":`, `"evidence":[{`, `"quote":`, `"page":`, `"section":`} {
		if !strings.Contains(string(b), k) {
			t.Errorf("JSON lacks %s: %s", k, b)
		}
	}
	if !strings.Contains(out.String(), "Sources:") {
		t.Errorf("no Sources:\n%s", out.String())
	}
}

// A question no paper answers is refused in a sentence that says what is
// missing, and nothing is written.
func TestRefusalSaysWhatIsMissing(t *testing.T) {
	r, _ := buildTopic(t)
	var out strings.Builder
	res, err := Ask(t.Context(), r, "What is the capital of France?", nil, AskOptions{}, &out)
	if !errors.Is(err, ErrNoEvidence) || res == nil || !res.Abstained || out.Len() != 0 {
		t.Fatalf("err %v, output %q; want an abstention", err, out.String())
	}
	if want := "None of the library's papers mentions France."; err.Error() != want {
		t.Errorf("refusal %q, want %q", err, want)
	}
	// an experimental detail the paper never writes of is not stated in it
	for q, want := range map[string]string{
		"What learning rate does ECHO use for fine-tuning?":        "ECHO (topic-001) does not mention a learning rate.",
		"Which optimizer is used to train GAGPO?":                  "GAGPO (topic-027) does not mention an optimizer.",
		"How many GPUs were used to train Maestro's orchestrator?": "Maestro (topic-008) does not mention GPUs.",
	} {
		_, err = Ask(t.Context(), r, q, nil, AskOptions{}, io.Discard)
		if !errors.Is(err, ErrNoEvidence) || err.Error() != want {
			t.Errorf("%s: refusal %v, want %q", q, err, want)
		}
	}
	// a refusal names only what the paper does not write: topic-005
	// writes "single-GPU" and "training"
	_, err = Ask(t.Context(), r, "How many GPUs are the memory agents trained on?", nil, AskOptions{Retrieve: retrieve.Options{Filter: store.Filter{IDs: []string{"topic-005"}}}}, io.Discard)
	if err != nil && strings.Contains(err.Error(), "mention") {
		t.Errorf("refusal %q names words the paper writes", err)
	}
}

// A yes/no question asked of one paper is answered, not refused for words
// the paper lacks: what the paper never mentions it answers No, saying it
// does not say so, and quotes its nearest sentences without holding them
// for evidence. Asked of the library, a question whose words no paper
// holds is still refused.
func TestYesNoQuestionOfAPaper(t *testing.T) {
	r, _ := buildTopic(t)
	var out strings.Builder
	res, err := Ask(t.Context(), r, "Does ECHO use a crowdsourcing platform?", nil, AskOptions{}, &out)
	if err != nil {
		t.Fatal(err)
	}
	if first := strings.SplitN(res.Answer, "\n", 2)[0]; res.ShortAnswer != "No" || first != "No: ECHO (topic-001) does not say so." {
		t.Errorf("short answer %q, first line %q: want No, what ECHO does not say", res.ShortAnswer, first)
	}
	if len(res.Evidence) == 0 {
		t.Error("no sentence quoted")
	}
	for _, e := range res.Evidence {
		if e.Primary || e.ID != "topic-001" {
			t.Errorf("quote %+v: want ECHO's, not held for evidence", e)
		}
	}
	_, err = Ask(t.Context(), r, "Is the capital of Australia Canberra?", nil, AskOptions{}, io.Discard)
	if !errors.Is(err, ErrNoEvidence) {
		t.Errorf("asked of the library: %v, want a refusal", err)
	}
}
