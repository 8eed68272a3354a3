package ask

import (
	"errors"
	"fmt"
	"io"
	"net/http"
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
// replies at once: ranking, prompt rendering, the HTTP round trip, SSE
// parsing, citation checks and the Sources list; everything but the
// model's time.
func BenchmarkLLMAnswer(b *testing.B) {
	q := "How much does SDAR improve over GRPO on ALFWorld?"
	reply := strings.Repeat("SDAR improves by 9.4% on ALFWorld over GRPO [1]. ", 10)
	f := llmtest.NewFake(b, func(w http.ResponseWriter, r *http.Request, n int, body llmtest.ChatBody) {
		llmtest.StreamReply(w, llmtest.Pieces(reply, 4)...)
	})
	o, err := llm.NewOpenAI(llm.LLMConfig{Spec: "openai:test-model", APIKey: testKey, BaseURL: f.URL})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Answer(b.Context(), testPassages, q, o, Options{}, io.Discard); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkAskOffline is papers ask without a model on the 100k-chunk
// synthetic library (2,000 papers x 50 chunks, 384 dimensions; see
// retrieve_bench_test.go): "search" is the retrieval ask does, "ask" is
// that, reading the papers it answers from and the offline answer with its
// Sources. Their difference is the answer's cost beyond its search. The
// library's text is Zipf-drawn words, not sentences: the answer's cost on
// real papers is BenchmarkAskFullText's.
func BenchmarkAskOffline(b *testing.B) {
	lib := storetest.BenchLibrary(b, "RETRIEVE_BENCH_DIR", 2000, 384)
	r := &retrieve.Retriever{Index: lib, Embedder: storetest.QueryEmbedder{Dims: 384}}
	ctx := b.Context()
	q := "How much does the reinforcement learning agent improve reward planning?"
	b.Run("search", func(b *testing.B) {
		b.ReportAllocs()
		c0 := cpuTime()
		for b.Loop() {
			ps, err := r.Retrieve(ctx, q, retrieve.Options{K: retrieveK})
			if err != nil || len(ps) != retrieveK {
				b.Fatalf("%d passages, %v", len(ps), err)
			}
		}
		reportCPU(b, c0)
	})
	b.Run("ask", func(b *testing.B) {
		b.ReportAllocs()
		c0 := cpuTime()
		for b.Loop() {
			if _, err := Ask(ctx, r, q, nil, AskOptions{}, io.Discard); err != nil && !errors.Is(err, ErrNoEvidence) {
				b.Fatal(err)
			}
		}
		reportCPU(b, c0)
	})
}

// BenchmarkAskFullText is papers ask without a model on a library of the
// 8 shared PDFs: a question naming its paper (answered from it) and a
// topic question (answered from several).
func BenchmarkAskFullText(b *testing.B) {
	r := fullTextLibrary(b)
	for name, q := range map[string]string{
		"named": "What sampling temperature and top-p value does DeepSeek-R1 use for the pass@1 estimate?",
		"topic": "Which papers train language models with reinforcement learning?",
	} {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			c0 := cpuTime()
			for b.Loop() {
				if _, err := Ask(b.Context(), r, q, nil, AskOptions{}, io.Discard); err != nil && !errors.Is(err, ErrNoEvidence) {
					b.Fatal(err)
				}
			}
			reportCPU(b, c0)
		})
	}
}

// reportCPU reports the process's CPU time per op since c0: on a shared
// machine it says more than the wall time.
func reportCPU(b *testing.B, c0 time.Duration) {
	b.ReportMetric(float64(cpuTime()-c0)/float64(b.N)/1e6, "cpu-ms/op")
}

// fullTextLibrary is a library of the 8 shared PDFs, searched with the
// local embedder.
func fullTextLibrary(tb testing.TB) *retrieve.Retriever {
	dir := tb.TempDir()
	pdfs := shareddata.Path(tb, "pdfs", "papers")
	e := embed.NewLocal()
	if _, err := ingest.Build(tb.Context(), dir, e, ingest.Sources{PDFs: []string{pdfs}}); err != nil {
		tb.Fatal(err)
	}
	lib, err := store.Open(tb.Context(), dir)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { lib.Close() })
	return &retrieve.Retriever{Index: lib, Embedder: e}
}
