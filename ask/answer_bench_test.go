package ask

import (
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
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
	pieces := chunks(text, 4)
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
	f := newFake(b, func(w http.ResponseWriter, r *http.Request, n int, body chatBody) {
		streamReply(w, chunks(reply, 4)...)
	})
	o, err := NewOpenAI(LLMConfig{Spec: "openai:test-model", APIKey: testKey, BaseURL: f.URL})
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
