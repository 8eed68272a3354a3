package ask

import (
	"strings"
	"testing"

	"github.com/papers-cli/papers/embed"
	"github.com/papers-cli/papers/store"
)

// A sentence that runs onto the next page is cut between two chunks (the
// DeepSeek-R1 paper's pages 13-14 as the chunker stores them): the passage
// an answer reads ends with the rest of it, and keeps its own page.
func TestEvidenceCompletesCutSentences(t *testing.T) {
	ctx := t.Context()
	e := embed.NewLocal()
	lib, err := store.Open(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer lib.Close()
	if err := lib.EnsureEmbedder(ctx, e.Name(), e.Dimensions()); err != nil {
		t.Fatal(err)
	}
	texts := []string{
		"DeepSeek-R1: Incentivizing Reasoning Capability in LLMs via Reinforcement Learning\n\nWe introduce DeepSeek-R1.",
		"However, DeepSeek-R1 performs worse than DeepSeek-V3 on the Chinese SimpleQA benchmark, primarily due to its tendency to refuse answering certain queries after safety RL. Without safety RL, DeepSeek-R1 could achieve an",
		"Without safety RL, DeepSeek-R1 could achieve an\naccuracy of over 70%.\nDeepSeek-R1 also delivers impressive results on IF-Eval, a benchmark designed to assess a model's ability to follow format instructions.",
		"Furthermore, remarkable performance is observed on AlpacaEval2.0 and ArenaHard",
	}
	vecs, _ := e.EmbedDocuments(ctx, texts)
	var cs []store.Chunk
	for i, text := range texts {
		cs = append(cs, store.Chunk{PaperID: "d", Seq: i, PageStart: 13 + i/3, PageEnd: 13 + i/3, Text: text, Vector: vecs[i]})
	}
	cs[0].PageStart, cs[0].PageEnd = 0, 0
	if _, err := lib.Put(ctx, store.Paper{ID: "d", Title: "DeepSeek-R1: Incentivizing Reasoning Capability in LLMs via Reinforcement Learning", Source: "pdf"}, cs); err != nil {
		t.Fatal(err)
	}
	r := &Retriever{Index: lib, Embedder: e}
	ps, _, err := r.Evidence(ctx, "Why does DeepSeek-R1 trail DeepSeek-V3 on Chinese SimpleQA?", nil, AskOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range ps {
		switch p.Seq {
		case 1:
			if !strings.HasSuffix(p.Text, "could achieve an accuracy of over 70%.") || p.PageStart != 13 {
				t.Errorf("the cut passage reads %q (p. %d)", p.Text, p.PageStart)
			}
		case 3:
			if p.Text != texts[3] {
				t.Errorf("the last chunk, with no next one, became %q", p.Text)
			}
		case 2:
			if p.Text != texts[2] {
				t.Errorf("a passage ending a sentence became %q", p.Text)
			}
		}
	}
	if len(ps) < 3 {
		t.Errorf("%d passages", len(ps))
	}
	res, err := r.Ask(ctx, "What accuracy could DeepSeek-R1 reach on Chinese SimpleQA without safety RL?", nil, AskOptions{}, nil)
	if err != nil || !strings.Contains(res.Answer, "70%") {
		t.Errorf("answer %q, %v", res.Answer, err)
	}
}
