package ask

import (
	"slices"
	"strings"
	"testing"

	"github.com/papers-cli/papers/embed"
	"github.com/papers-cli/papers/ingest"
	"github.com/papers-cli/papers/internal/shareddata"
	"github.com/papers-cli/papers/retrieve"
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
	r := &retrieve.Retriever{Index: lib, Embedder: e}
	ps, _, err := Evidence(ctx, r, "Why does DeepSeek-R1 trail DeepSeek-V3 on Chinese SimpleQA?", nil, AskOptions{})
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
	res, err := Ask(ctx, r, "What accuracy could DeepSeek-R1 reach on Chinese SimpleQA without safety RL?", nil, AskOptions{}, nil)
	if err != nil || !strings.Contains(res.Answer, "70%") {
		t.Errorf("answer %q, %v", res.Answer, err)
	}
}

// sharedLibrary is a library of the 8 shared PDFs, ingested as papers
// ingest and papers eval do, with the local embedder.
func sharedLibrary(t *testing.T) (*store.Library, embed.Embedder) {
	t.Helper()
	dir := t.TempDir()
	pdfs := shareddata.Path(t, "pdfs", "papers")
	e := embed.NewLocal()
	if _, err := ingest.Build(t.Context(), dir, e, ingest.Sources{PDFs: []string{pdfs}}); err != nil {
		t.Fatal(err)
	}
	lib, err := store.Open(t.Context(), dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { lib.Close() })
	return lib, e
}

// The offline answer reads a list on into the chunk after its lead's when
// retrieval did not bring that chunk (Toolformer's limitations run over
// two chunks; the question shares its words with the first only): Evidence
// adds it, marked, and the answer's list goes on there, in order, though
// the answer never opens with it.
func TestEvidenceReadsTheListOnIntoTheNextChunk(t *testing.T) {
	ctx := t.Context()
	lib, e := sharedLibrary(t)
	r := &retrieve.Retriever{Index: lib, Embedder: e}
	q := "Which shortcomings of the current Toolformer approach do the authors acknowledge in their limitations discussion?"
	opts := AskOptions{}
	ps, _, err := Evidence(ctx, r, q, nil, opts)
	if err != nil {
		t.Fatal(err)
	}
	retrieved := map[string]bool{}
	var lead, next *retrieve.Passage
	for i := range ps {
		p := &ps[i]
		if !p.Neighbour {
			retrieved[p.ChunkID] = true
			if lead == nil && strings.Contains(p.Text, "clear limitations") {
				lead = p
			}
		} else if lead != nil && p.Seq == lead.Seq+1 {
			next = p
		}
	}
	if lead == nil {
		t.Fatal("the chunk announcing the limitations is not retrieved: retrieval changed, pick another case")
	}
	if retrieved[store.ChunkID(lead.PaperID, lead.Seq+1)] {
		// Retrieval brought the next chunk too (it depends on the
		// library's statistics): read on from the lead alone.
		alone, err := retriever{r}.neighbours(ctx, []retrieve.Passage{*lead})
		if err != nil {
			t.Fatal(err)
		}
		retrieved = map[string]bool{lead.ChunkID: true}
		if len(alone) == 2 && alone[1].Neighbour {
			next = &alone[1]
		}
	}
	if next == nil || retrieved[next.ChunkID] || !strings.Contains(next.Text, "wording") {
		t.Fatalf("the chunk after the lead's is not added as its neighbour (retrieved: %v)", retrieved[store.ChunkID("2302.04761", lead.Seq+1)])
	}
	res, err := Ask(ctx, r, q, nil, opts, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"in a chain", "wording", "computational cost"} {
		if !strings.Contains(res.Answer, want) {
			t.Errorf("the answer lacks the limitation %q:\n%s", want, res.Answer)
		}
	}
	if i, j := strings.Index(res.Answer, "in a chain"), strings.Index(res.Answer, "computational cost"); i > j {
		t.Errorf("the list is not read in order:\n%s", res.Answer)
	}
	if n := len(ps) - countNeighbours(ps); res.Passages != n {
		t.Errorf("Passages = %d, want the %d retrieved", res.Passages, n)
	}
	if len(res.Citations) == 0 || res.Citations[0].Passage != lead.Text {
		t.Errorf("the answer does not open with the retrieved lead")
	}
}

// A question about a system ("Which open LLM serves as the backbone for
// both agents of PaSa-7b?") shares its words with the passages that report
// the system's results, not with the one that introduces it ("..., both
// based on the Qwen2.5-7b, ..., referred to as PaSa-7b"): Evidence brings
// that one in place of the weakest passage, and the answer opens with it.
func TestEvidenceBringsThePassageIntroducingAName(t *testing.T) {
	ctx := t.Context()
	lib, e := sharedLibrary(t)
	r := &retrieve.Retriever{Index: lib, Embedder: e}
	q := "Which open LLM serves as the backbone for both agents of PaSa-7b?"
	ps, _, err := Evidence(ctx, r, q, nil, AskOptions{})
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(ps, func(p retrieve.Passage) bool { return strings.Contains(p.Text, "referred to as PaSa-7b") })
	if i < 0 || ps[i].Neighbour {
		t.Fatal("the passage introducing PaSa-7b is not among the passages")
	}
	if n := len(ps) - countNeighbours(ps); n != DefaultExtractiveK {
		t.Errorf("%d passages retrieved, want %d: the introduction takes the weakest one's place", n, DefaultExtractiveK)
	}
	res, err := Ask(ctx, r, q, nil, AskOptions{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if first, _, _ := strings.Cut(res.Answer, " [1]"); !strings.Contains(first, "Qwen2.5-7b") {
		t.Errorf("the answer does not open with the backbone:\n%s", res.Answer)
	}
}

func countNeighbours(ps []retrieve.Passage) int {
	n := 0
	for _, p := range ps {
		if p.Neighbour {
			n++
		}
	}
	return n
}

func TestIntroducesName(t *testing.T) {
	pasa := entity{text: "PaSa-7b", norm: "pasa7b"}
	bethe := entity{text: "Bethe", norm: "bethe"}
	for _, c := range []struct {
		text string
		e    entity
		want bool
	}{
		{"We sequentially trained the Selector and Crawler, both based on the Qwen2.5-7b, to develop the final agent, referred to as PaSa-7b. Selector The Selector was fine-tuned.", pasa, true},
		{"We call this agent PaSa-7b.", pasa, true},
		{"PaSa-7b outperforms all baselines.", pasa, false},
		{"It is necessary to eliminate the zero mode, also known as the uniform Perron-Frobenius mode, which is a general spectral feature of the Bethe lattice.", bethe, false},
	} {
		if got := introducesName(c.text, c.e); got != c.want {
			t.Errorf("introducesName(%q, %s) = %v, want %v", c.text, c.e.text, got, c.want)
		}
	}
}
