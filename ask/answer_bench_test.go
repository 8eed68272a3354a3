package ask

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/papers-cli/papers/embed"
	"github.com/papers-cli/papers/ingest"
	"github.com/papers-cli/papers/internal/shareddata"
	"github.com/papers-cli/papers/llm"
	"github.com/papers-cli/papers/llm/llmtest"
	"github.com/papers-cli/papers/retrieve"
	"github.com/papers-cli/papers/store"
	"github.com/papers-cli/papers/store/storetest"
)

// benchPassages returns the 8 passages BM25 ranks first for a question of
// the topic corpus, each repeated to about words words (abstracts are ~250
// words; body chunks ~180).
func benchPassages(b *testing.B, words int) ([]evidence, string) {
	q := "How much does ReBel improve task success over GRPO?"
	ev := newBM25(loadTopic(b)).search(q, 8)
	for i := range ev {
		t := ev[i].Text
		for len(strings.Fields(ev[i].Text)) < words {
			ev[i].Text += " " + t
		}
	}
	return ev, q
}

// BenchmarkExtractive is ask's own work in extractive mode after retrieval:
// sentence scoring, selection, citation check and rendering.
func BenchmarkExtractive(b *testing.B) {
	for _, words := range []int{250, 1000} {
		b.Run(fmt.Sprintf("8x%dwords", words), func(b *testing.B) {
			ev, q := benchPassages(b, words)
			b.ReportAllocs()
			for b.Loop() {
				if _, err := answerEvidence(b.Context(), ev, q, nil, Options{}, io.Discard); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkCiteWriter checks and renumbers the citations of a 400-word
// answer with 40 citations streamed in 4-byte pieces.
func BenchmarkCiteWriter(b *testing.B) {
	var sb strings.Builder
	for i := 0; i < 40; i++ {
		fmt.Fprintf(&sb, "Sentence %d says something about reinforcement learning agents [%d][%d]. ", i, i%8+1, (i*3)%9+1)
	}
	text := sb.String()
	pieces := llmtest.Pieces(text, 4)
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		cw := newCiteWriter(io.Discard, func(n int) bool { return n >= 1 && n <= 8 })
		for _, p := range pieces {
			cw.Write([]byte(p))
		}
		cw.Close()
		citingSentences(cw.Text())
	}
}

// BenchmarkLLMAnswer is the whole LLM-mode Answer against a local server that
// replies at once: prompt rendering, the HTTP round trip, SSE parsing,
// citation checks and the Sources list; everything but the model's time.
func BenchmarkLLMAnswer(b *testing.B) {
	ev, q := benchPassages(b, 250)
	reply := strings.Repeat("ReBel improves task success by up to 20.4 percentage points over GRPO [1]. ", 10)
	f := llmtest.NewFake(b, func(w http.ResponseWriter, r *http.Request, n int, body llmtest.ChatBody) {
		llmtest.StreamReply(w, llmtest.Pieces(reply, 4)...)
	})
	o, err := llm.NewOpenAI(llm.LLMConfig{Spec: "openai:test-model", APIKey: testKey, BaseURL: f.URL})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := answerEvidence(b.Context(), ev, q, o, Options{}, io.Discard); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkAskOffline is papers ask without a model on the 100k-chunk
// synthetic library (2,000 papers x 50 chunks, 384 dimensions; see
// retrieve_bench_test.go): "search" is the retrieval ask does (Evidence:
// 12 passages, up to 8 per paper), "ask" is that and the extractive answer
// with its Sources. Their difference is the answer's cost beyond its
// search. The library's text is Zipf-drawn words, not sentences: the
// answer's own cost on real passages is BenchmarkExtractive's.
func BenchmarkAskOffline(b *testing.B) {
	lib := storetest.BenchLibrary(b, "RETRIEVE_BENCH_DIR", 2000, 384)
	r := &retrieve.Retriever{Index: lib, Embedder: storetest.QueryEmbedder{Dims: 384}}
	ctx := b.Context()
	q := "How much does the reinforcement learning agent improve reward planning?"
	if _, _, err := Evidence(ctx, r, q, nil, AskOptions{}); err != nil {
		b.Fatal(err)
	}
	opts := AskOptions{Answer: Options{MinSupport: -1}}
	// the search ask does offline; what the offline answer reads beyond it
	// (the chunks after the best passages, the passage introducing a name
	// of the question) is counted in ask
	b.Run("search", func(b *testing.B) {
		b.ReportAllocs()
		c0 := cpuTime()
		for b.Loop() {
			ps, err := r.Retrieve(ctx, q, retrieve.Options{K: DefaultExtractiveK, PerPaper: extractivePerPaper})
			if err != nil || len(ps) != DefaultExtractiveK {
				b.Fatalf("%d passages, %v", len(ps), err)
			}
			if err := (retriever{r}).complete(ctx, ps); err != nil {
				b.Fatal(err)
			}
		}
		reportCPU(b, c0)
	})
	// "Reward" is a name to the question (a capital inside it): ask also
	// searches for the passage introducing it
	for name, q := range map[string]string{"ask": q, "ask-name": "How much does the reinforcement learning agent improve Reward planning?"} {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			c0 := cpuTime()
			for b.Loop() {
				if _, err := Ask(ctx, r, q, nil, opts, io.Discard); err != nil && !errors.Is(err, ErrNoEvidence) {
					b.Fatal(err)
				}
			}
			reportCPU(b, c0)
		})
	}
}

// BenchmarkExtractiveFullText is the extractive answer alone on 12
// passages of real full text: the 12 chunks of the shared PDFs that BM25
// ranks first for a question about them.
func BenchmarkExtractiveFullText(b *testing.B) {
	ev := fullTextPassages(b)
	q := "What sampling temperature and top-p value are used when generating the k responses for the pass@1 estimate?"
	b.ReportAllocs()
	c0 := cpuTime()
	for b.Loop() {
		if _, err := answerEvidence(b.Context(), ev, q, nil, Options{}, io.Discard); err != nil {
			b.Fatal(err)
		}
	}
	reportCPU(b, c0)
}

// reportCPU reports the process's CPU time per op since c0: on a shared
// machine it says more than the wall time.
func reportCPU(b *testing.B, c0 time.Duration) {
	b.ReportMetric(float64(cpuTime()-c0)/float64(b.N)/1e6, "cpu-ms/op")
}

// fullTextPassages are the passages ask retrieves from a library of the 8
// shared PDFs for the benchmark's question.
func fullTextPassages(b *testing.B) []evidence {
	dir := b.TempDir()
	pdfs := shareddata.Path(b, "pdfs", "papers")
	e := embed.NewLocal()
	if _, err := ingest.Build(b.Context(), dir, e, ingest.Sources{PDFs: []string{pdfs}}); err != nil {
		b.Fatal(err)
	}
	lib, err := store.Open(b.Context(), dir)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { lib.Close() })
	r := &retrieve.Retriever{Index: lib, Embedder: e}
	ps, _, err := Evidence(b.Context(), r, "What sampling temperature and top-p value are used when generating the k responses for the pass@1 estimate?", nil, AskOptions{})
	retrieved := slices.DeleteFunc(slices.Clone(ps), func(p retrieve.Passage) bool { return p.Neighbour })
	if err != nil || len(retrieved) != DefaultExtractiveK {
		b.Fatalf("%d passages retrieved, %v", len(retrieved), err)
	}
	return fromPassages(ps)
}
