package library_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/papers-cli/papers/embed"
	"github.com/papers-cli/papers/embed/embedtest"
	"github.com/papers-cli/papers/ingest"
	"github.com/papers-cli/papers/library"
	"github.com/papers-cli/papers/llm"
	"github.com/papers-cli/papers/llm/llmtest"
)

// corpus is the repository's small corpus: eight short papers, one chunk
// each.
var corpus = ingest.Sources{Corpora: []string{"../testdata/corpus.jsonl"}}

// countingTransport counts the requests it sends, by host.
type countingTransport struct {
	mu    sync.Mutex
	hosts map[string]int
}

func (c *countingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	c.mu.Lock()
	c.hosts[r.URL.Host]++
	c.mu.Unlock()
	return http.DefaultTransport.RoundTrip(r)
}

func (c *countingTransport) count(host string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.hosts[host]
}

// embeddings is a fake OpenAI-compatible embeddings server giving every
// text its Hash4 vector; fail, while it is set, makes requests fail as a
// revoked key does (HTTP 401, not retried). requests counts them.
func embeddings(t *testing.T) (srv *httptest.Server, fail *atomic.Bool, requests *atomic.Int32) {
	fail, requests = new(atomic.Bool), new(atomic.Int32)
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		in, err := embedtest.Inputs(r)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		if fail.Load() {
			http.Error(w, `{"error":{"message":"Incorrect API key provided.","type":"invalid_request_error","code":"invalid_api_key"}}`, http.StatusUnauthorized)
			return
		}
		vecs := make([][]float32, len(in))
		for i, s := range in {
			vecs[i] = embedtest.Hash4(s)
		}
		embedtest.Reply(w, "hash4", vecs)
	}))
	t.Cleanup(srv.Close)
	return srv, fail, requests
}

// TestOneHTTPClient: the embedding and model requests of a session all go
// through the HTTP client its Config gives, the one place a transport
// (a ledger, an offline mode) is plugged in.
func TestOneHTTPClient(t *testing.T) {
	ctx := context.Background()
	emb, _, embedded := embeddings(t)
	chat := llmtest.NewServer(t, llmtest.Options{Reply: "Reward shaping doubles the success rate [1]."})
	tr := &countingTransport{hosts: map[string]int{}}
	s := library.New(library.Config{
		Dir:        t.TempDir(),
		Embed:      embedOptions(emb.URL),
		LLM:        llm.LLMConfig{Spec: "fake-model", BaseURL: chat.BaseURL(), NoStream: true},
		HTTPClient: &http.Client{Transport: tr},
	})
	defer s.Close()
	e, err := s.ParseEmbedder("openai:hash4", library.Tuning{})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := s.Ingest(ctx, corpus, library.IngestOptions{WriteOptions: library.WriteOptions{Embedder: e}})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Added) != 8 {
		t.Fatalf("ingested %d papers of the corpus, want 8 (failed: %v)", len(rep.Added), rep.Failed)
	}
	res, err := s.Ask(ctx, "What does reward shaping do for tool-using agents?", library.AskOptions{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(res.Answer, "doubles") {
		t.Errorf("the answer is %q, want the model's", res.Answer)
	}
	for _, c := range []struct {
		name   string
		url    string
		served int
	}{
		{"embeddings", emb.URL, int(embedded.Load())},
		{"chat", chat.URL, chat.Requests()},
	} {
		host := strings.TrimPrefix(c.url, "http://")
		if c.served == 0 || tr.count(host) != c.served {
			t.Errorf("%s server: %d requests went through the session's client, the server got %d", c.name, tr.count(host), c.served)
		}
	}
}

// embedOptions reach the fake embeddings server at url.
func embedOptions(url string) embed.Options {
	return embed.Options{BaseURL: url + "/v1", APIKey: "sk-test"}
}

// TestReindex: a reindex that fails halfway leaves the library as it was
// (its embedder, its vectors: searches still run), and one that succeeds
// records the new embedder, which searches then use with no spec given.
func TestReindex(t *testing.T) {
	ctx := context.Background()
	emb, fail, _ := embeddings(t)
	dir := t.TempDir()
	s := library.New(library.Config{Dir: dir, Embed: embedOptions(emb.URL)})
	defer s.Close()
	if _, err := s.Ingest(ctx, corpus, library.IngestOptions{}); err != nil {
		t.Fatal(err)
	}
	e, err := s.ParseEmbedder("openai:hash4", library.Tuning{})
	if err != nil {
		t.Fatal(err)
	}
	const query = "reward shaping for tool-using agents"
	before, err := s.Embedder(ctx)
	if err != nil {
		t.Fatal(err)
	}

	var calls atomic.Int32
	fail.Store(false)
	_, err = s.Reindex(ctx, e, library.ReindexOptions{Batch: 3, Progress: func(done, total int) {
		if calls.Add(1) == 1 {
			fail.Store(true) // the batches after the first fail
		}
	}})
	if err == nil || !strings.Contains(err.Error(), "keeps its previous vectors") {
		t.Fatalf("a reindex whose server fails halfway: err %v, want one saying the library keeps its vectors", err)
	}
	if got, err := s.Embedder(ctx); err != nil || got.Name() != before.Name() {
		t.Fatalf("after the failed reindex the library's embedder is %v (%v), want %s", got, err, before.Name())
	}
	if ps, used, err := s.Search(ctx, query, library.SearchOptions{}); err != nil || len(ps) == 0 || used.Name() != before.Name() {
		t.Fatalf("search after the failed reindex: %d passages with %v, %v", len(ps), used, err)
	}

	fail.Store(false)
	r, err := s.Reindex(ctx, e, library.ReindexOptions{Batch: 3})
	if err != nil {
		t.Fatal(err)
	}
	if r.Chunks != 8 || r.Dimensions != 4 || r.Embedder != e.Name() {
		t.Errorf("reindex report %+v, want 8 chunks of 4 dimensions with %s", r, e.Name())
	}
	ps, used, err := s.Search(ctx, query, library.SearchOptions{})
	if err != nil || len(ps) == 0 {
		t.Fatalf("search after the reindex: %d passages, %v", len(ps), err)
	}
	if used.Name() != e.Name() {
		t.Errorf("the search after the reindex used %s, want the recorded %s", used.Name(), e.Name())
	}
}
