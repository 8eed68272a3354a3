package embed

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

const testKey = "sk-test-0123456789abcdef"

// embReq is the JSON body of POST /v1/embeddings.
type embReq struct {
	Model      string   `json:"model"`
	Input      []string `json:"input"`
	Dimensions int      `json:"dimensions"`
}

// fakeVector is a deterministic, deliberately unnormalised vector for text.
func fakeVector(text string, dim int) []float32 {
	v := make([]float32, dim)
	for i := range v {
		v[i] = float32(len(text)%7+1) * float32(i+1)
	}
	return v
}

// openAIServer answers like OpenAI's embeddings endpoint after checking the
// request; reply may override the answer (return false to fall through).
type openAIServer struct {
	t        *testing.T
	dim      int
	wantAuth string // Authorization expected; "" means "Bearer "+testKey, "-" none
	calls    atomic.Int32
	inFlight atomic.Int32
	maxIn    atomic.Int32
	mu       sync.Mutex
	bodies   []embReq
	reply    func(w http.ResponseWriter, r *http.Request, n int32) bool
}

func (s *openAIServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	n := s.calls.Add(1)
	in := s.inFlight.Add(1)
	defer s.inFlight.Add(-1)
	for {
		m := s.maxIn.Load()
		if in <= m || s.maxIn.CompareAndSwap(m, in) {
			break
		}
	}
	if r.Method != http.MethodPost || r.URL.Path != "/v1/embeddings" {
		s.t.Errorf("request %s %s, want POST /v1/embeddings", r.Method, r.URL.Path)
	}
	want := "Bearer " + testKey
	if s.wantAuth == "-" {
		want = ""
	}
	if got := r.Header.Get("Authorization"); got != want {
		s.t.Errorf("Authorization = %q, want %q", got, want)
	}
	if ct := r.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		s.t.Errorf("Content-Type = %q", ct)
	}
	body, _ := io.ReadAll(r.Body)
	var req embReq
	if err := json.Unmarshal(body, &req); err != nil {
		s.t.Errorf("body %s: %v", body, err)
	}
	s.mu.Lock()
	s.bodies = append(s.bodies, req)
	s.mu.Unlock()
	if s.reply != nil && s.reply(w, r, n) {
		return
	}
	type item struct {
		Object    string    `json:"object"`
		Index     int       `json:"index"`
		Embedding []float32 `json:"embedding"`
	}
	resp := struct {
		Object string `json:"object"`
		Data   []item `json:"data"`
		Model  string `json:"model"`
		Usage  any    `json:"usage"`
	}{Object: "list", Model: req.Model, Usage: map[string]int{"prompt_tokens": 1, "total_tokens": 1}}
	dim := s.dim
	if req.Dimensions > 0 {
		dim = req.Dimensions
	}
	// Answer in reverse order: clients must use "index".
	for i := len(req.Input) - 1; i >= 0; i-- {
		resp.Data = append(resp.Data, item{"embedding", i, fakeVector(req.Input[i], dim)})
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(resp)
}

func newServer(t *testing.T, s *openAIServer) *httptest.Server {
	s.t = t
	if s.dim == 0 {
		s.dim = 8
	}
	ts := httptest.NewServer(s)
	t.Cleanup(ts.Close)
	return ts
}

func newClient(t *testing.T, base string, mod func(*OpenAIOptions)) *OpenAI {
	t.Helper()
	o := OpenAIOptions{BaseURL: base, APIKey: testKey, Model: "test-embed", MaxRetryWait: 3 * time.Second}
	if mod != nil {
		mod(&o)
	}
	e, err := NewOpenAI(o)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func unitLength(t *testing.T, v []float32) {
	t.Helper()
	var n float64
	for _, x := range v {
		n += float64(x) * float64(x)
	}
	if math.Abs(n-1) > 1e-4 {
		t.Errorf("|v|^2 = %f, want 1", n)
	}
}

func TestOpenAIEmbedsInBatchesWithBoundedConcurrency(t *testing.T) {
	s := &openAIServer{reply: func(w http.ResponseWriter, r *http.Request, n int32) bool {
		time.Sleep(20 * time.Millisecond) // let requests overlap
		return false
	}}
	ts := newServer(t, s)
	// The base URL without /v1 is normalised.
	e := newClient(t, ts.URL, func(o *OpenAIOptions) { o.BatchSize = 3; o.Concurrency = 2; o.Dimensions = 5 })
	texts := make([]string, 10)
	for i := range texts {
		texts[i] = strings.Repeat("x", i+1)
	}
	vecs, err := e.EmbedDocuments(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	if got := s.calls.Load(); got != 4 {
		t.Errorf("%d requests, want 4 (10 texts in batches of 3)", got)
	}
	if m := s.maxIn.Load(); m > 2 {
		t.Errorf("%d requests in flight, want <= 2", m)
	}
	for i, v := range vecs {
		if len(v) != 5 {
			t.Fatalf("vector %d has %d dims, want 5", i, len(v))
		}
		unitLength(t, v)
		want := normalise(toF64(fakeVector(texts[i], 5)))
		if math.Abs(float64(v[0]-want[0])) > 1e-6 {
			t.Errorf("vector %d is not the one for its text (index order ignored?)", i)
		}
	}
	for _, b := range s.bodies {
		if b.Model != "test-embed" || b.Dimensions != 5 {
			t.Errorf("body model=%q dimensions=%d", b.Model, b.Dimensions)
		}
	}
	if e.Dimensions() != 5 || e.Name() != "openai/test-embed@5" {
		t.Errorf("Dimensions %d Name %q", e.Dimensions(), e.Name())
	}
}

func toF64(v []float32) []float64 {
	out := make([]float64, len(v))
	for i, x := range v {
		out[i] = float64(x)
	}
	return out
}

func TestOpenAIErrors(t *testing.T) {
	openAIErr := func(status int, typ, code, msg string) func(http.ResponseWriter, *http.Request, int32) bool {
		return func(w http.ResponseWriter, r *http.Request, n int32) bool {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(status)
			fmt.Fprintf(w, `{"error":{"message":%q,"type":%q,"param":null,"code":%q}}`, msg, typ, code)
			return true
		}
	}
	tests := []struct {
		name     string
		reply    func(http.ResponseWriter, *http.Request, int32) bool
		kind     error
		calls    int32
		msg      string
		retryMin time.Duration
	}{
		{
			name:  "openai wrong key",
			reply: openAIErr(401, "invalid_request_error", "invalid_api_key", "Incorrect API key provided: sk-test-0123456789abcdef. You can find your API key at https://platform.openai.com/account/api-keys."),
			kind:  ErrAuth, calls: 1, msg: "Incorrect API key provided",
		},
		{
			name:  "openai insufficient quota is not retried",
			reply: openAIErr(429, "insufficient_quota", "insufficient_quota", "You exceeded your current quota"),
			kind:  ErrQuota, calls: 1, msg: "exceeded your current quota",
		},
		{
			name: "ollama model not found",
			reply: func(w http.ResponseWriter, r *http.Request, n int32) bool {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(404)
				io.WriteString(w, `{"error":"model \"nomic-embed-text\" not found, try pulling it first"}`)
				return true
			},
			kind: ErrModelNotFound, calls: 1, msg: `model "nomic-embed-text" not found`,
		},
		{
			name: "500 every time gives up after the retries",
			reply: func(w http.ResponseWriter, r *http.Request, n int32) bool {
				w.WriteHeader(500)
				io.WriteString(w, "upstream exploded")
				return true
			},
			kind: ErrServer, calls: 3, msg: "upstream exploded",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := &openAIServer{reply: tc.reply}
			ts := newServer(t, s)
			e := newClient(t, ts.URL+"/v1/", func(o *OpenAIOptions) { o.MaxRetries = 2; o.MaxRetryWait = 10 * time.Millisecond })
			_, err := e.EmbedQuery(context.Background(), "q")
			if !errors.Is(err, tc.kind) {
				t.Fatalf("err = %v, want %v", err, tc.kind)
			}
			if !strings.Contains(err.Error(), tc.msg) {
				t.Errorf("err = %q, want it to contain %q", err, tc.msg)
			}
			if strings.Contains(err.Error(), testKey) {
				t.Errorf("the API key leaked into the error: %q", err)
			}
			if got := s.calls.Load(); got != tc.calls {
				t.Errorf("%d requests, want %d", got, tc.calls)
			}
		})
	}
}

func TestOpenAIRetries(t *testing.T) {
	tests := []struct {
		name    string
		status  int
		header  string
		body    string
		minWait time.Duration
	}{
		{"429 with Retry-After", 429, "1", `{"error":{"message":"Rate limit reached for text-embedding-3-small","type":"requests","code":"rate_limit_exceeded"}}`, 900 * time.Millisecond},
		{"500 then ok", 500, "", `{"error":{"message":"The server had an error","type":"server_error","code":null}}`, 0},
		{"503 from a proxy (not JSON)", 503, "0", `<html>Service Unavailable</html>`, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := &openAIServer{reply: func(w http.ResponseWriter, r *http.Request, n int32) bool {
				if n > 1 {
					return false
				}
				if tc.header != "" {
					w.Header().Set("Retry-After", tc.header)
				}
				w.WriteHeader(tc.status)
				io.WriteString(w, tc.body)
				return true
			}}
			ts := newServer(t, s)
			e := newClient(t, ts.URL+"/v1", nil)
			start := time.Now()
			v, err := e.EmbedQuery(context.Background(), "q")
			if err != nil {
				t.Fatal(err)
			}
			unitLength(t, v)
			if took := time.Since(start); took < tc.minWait {
				t.Errorf("retried after %v, want >= %v (Retry-After)", took, tc.minWait)
			}
			if s.calls.Load() != 2 {
				t.Errorf("%d requests, want 2", s.calls.Load())
			}
		})
	}
}

func TestOpenAISlowResponseCancelledByContext(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	s := &openAIServer{reply: func(w http.ResponseWriter, r *http.Request, n int32) bool {
		select {
		case <-r.Context().Done():
		case <-release:
		}
		return true
	}}
	ts := newServer(t, s)
	e := newClient(t, ts.URL, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 150*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := e.EmbedDocuments(ctx, []string{"a", "b"})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want context.DeadlineExceeded", err)
	}
	if took := time.Since(start); took > 2*time.Second {
		t.Errorf("cancelled after %v", took)
	}
}

func TestOllamaPrefixesAndLongInputs(t *testing.T) {
	s := &openAIServer{dim: 768, wantAuth: "-"} // nomic-embed-text's size; no key for Ollama
	ts := newServer(t, s)
	var warned []string
	e, err := Parse("ollama:nomic-embed-text", Options{OllamaURL: ts.URL, APIKey: testKey, MaxInputChars: 60, Warn: func(m string) { warned = append(warned, m) }})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := e.EmbedQuery(ctx, "what is GRPO?"); err != nil {
		t.Fatal(err)
	}
	long := strings.Repeat("word ", 30) // 150 chars: split into pieces
	vs, err := e.EmbedDocuments(ctx, []string{"short", long})
	if err != nil {
		t.Fatal(err)
	}
	if len(vs) != 2 {
		t.Fatalf("%d vectors for 2 texts", len(vs))
	}
	unitLength(t, vs[1])
	if got := s.bodies[0].Input[0]; got != "search_query: what is GRPO?" {
		t.Errorf("query sent as %q", got)
	}
	docs := s.bodies[1].Input
	if len(docs) < 4 || docs[0] != "search_document: short" {
		t.Errorf("documents sent as %q", docs)
	}
	for _, d := range docs {
		if len(d) > 60 {
			t.Errorf("input of %d chars sent, max 60", len(d))
		}
	}
	if len(warned) != 1 || !strings.Contains(warned[0], "split") {
		t.Errorf("warnings %q", warned)
	}
	if e.Name() != "ollama/nomic-embed-text" || e.Dimensions() != 768 {
		t.Errorf("name %q dims %d", e.Name(), e.Dimensions())
	}
}

func TestParse(t *testing.T) {
	tests := []struct {
		spec, name, err string
	}{
		{"local", "local/hash-768-v1", ""},
		{"", "local/hash-768-v1", ""},
		{"openai:text-embedding-3-small", "openai/text-embedding-3-small", ""},
		{"ollama:nomic-embed-text", "ollama/nomic-embed-text", ""},
		{"openai:", "", "unknown embedder"},
		{"bert", "", "unknown embedder"},
		{"cohere:embed-v3", "", "unknown embedder provider"},
	}
	for _, tc := range tests {
		t.Run(tc.spec, func(t *testing.T) {
			e, err := Parse(tc.spec, Options{APIKey: "sk-test"})
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if e.Name() != tc.name {
				t.Errorf("Name = %q, want %q", e.Name(), tc.name)
			}
		})
	}
}

func TestSpecOfRoundTrips(t *testing.T) {
	for _, tc := range []struct {
		spec string
		dims int
	}{{"local", 0}, {"openai:text-embedding-3-small", 0}, {"openai:text-embedding-3-small", 256}, {"ollama:nomic-embed-text", 0}} {
		e, err := Parse(tc.spec, Options{Dimensions: tc.dims, APIKey: "sk-test"})
		if err != nil {
			t.Fatal(err)
		}
		spec, dims, err := SpecOf(e.Name())
		if err != nil || spec != tc.spec || dims != tc.dims {
			t.Errorf("SpecOf(%q) = %q, %d, %v; want %q, %d", e.Name(), spec, dims, err, tc.spec, tc.dims)
		}
	}
	if _, _, err := SpecOf("local/hash-384-v0"); err == nil {
		t.Error("an unknown local embedder was accepted")
	}
}

func TestOpenAIEmptyTexts(t *testing.T) {
	s := &openAIServer{dim: 3}
	ts := newServer(t, s)
	e := newClient(t, ts.URL, nil)
	ctx := context.Background()
	vs, err := e.EmbedDocuments(ctx, nil)
	if err != nil || len(vs) != 0 || s.calls.Load() != 0 {
		t.Fatalf("no texts: %v, %v, %d requests", vs, err, s.calls.Load())
	}
	vs, err = e.EmbedDocuments(ctx, []string{"a", " ", "b"})
	if err != nil {
		t.Fatal(err)
	}
	for _, in := range s.bodies[0].Input {
		if strings.TrimSpace(in) == "" {
			t.Errorf("an empty input was sent: %q", s.bodies[0].Input)
		}
	}
	if len(vs) != 3 || len(vs[1]) != 3 || vs[1][0] != 0 || vs[1][2] != 0 {
		t.Errorf("vectors %v: want a zero vector for the blank text", vs)
	}
	unitLength(t, vs[0])
	vs, err = e.EmbedDocuments(ctx, []string{""})
	if err != nil || len(vs) != 1 || len(vs[0]) != 3 {
		t.Errorf("only a blank text: %v, %v", vs, err)
	}
}

// TestNoKeyForOpenAI: api.openai.com without OPENAI_API_KEY fails at once,
// before any request and retry, naming the variable.
func TestNoKeyForOpenAI(t *testing.T) {
	_, err := NewOpenAI(OpenAIOptions{Model: "text-embedding-3-small"})
	if !errors.Is(err, ErrNoAPIKey) || !strings.Contains(err.Error(), "OPENAI_API_KEY") {
		t.Errorf("NewOpenAI without a key = %v, want ErrNoAPIKey", err)
	}
	if _, err := NewOpenAI(OpenAIOptions{Model: "nomic-embed-text", BaseURL: "http://127.0.0.1:11434/v1"}); err != nil {
		t.Errorf("a local server needs no key: %v", err)
	}
}
