package llmtest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// Key is the API key tests give the client; Fake checks requests carry it.
const Key = "sk-test-SECRET-0123456789"

// Fake is an OpenAI-compatible chat completions server whose replies the
// test writes: each request is checked (POST /v1/chat/completions with
// Key), decoded and handed to the test's handler. URL (from httptest) is
// the base URL the client is given.
type Fake struct {
	*httptest.Server
	requests atomic.Int32
	mu       sync.Mutex
	bodies   []ChatBody
	times    []time.Time
}

// ChatBody is a chat completion request as the server received it.
type ChatBody struct {
	Model         string  `json:"model"`
	Stream        bool    `json:"stream"`
	Temperature   float64 `json:"temperature"`
	StreamOptions *struct {
		IncludeUsage bool `json:"include_usage"`
	} `json:"stream_options"`
	Messages []struct {
		Role    string `json:"role"`
		Content string `json:"content"`
	} `json:"messages"`
	// Raw is the whole body, to test which fields were sent at all.
	Raw map[string]any `json:"-"`
}

// User returns the content of the first user message.
func (b ChatBody) User() string {
	for _, m := range b.Messages {
		if m.Role == "user" {
			return m.Content
		}
	}
	return ""
}

// NewFake starts a server that answers request n (from 1) with handle; it is
// closed when the test ends. handle runs on the server's goroutine: report
// with t.Errorf, never t.Fatal.
func NewFake(t testing.TB, handle func(w http.ResponseWriter, r *http.Request, n int, body ChatBody)) *Fake {
	t.Helper()
	f := &Fake{}
	f.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := int(f.requests.Add(1))
		if r.Method != http.MethodPost || r.URL.Path != "/v1/chat/completions" {
			t.Errorf("request %d: %s %s, want POST /v1/chat/completions", n, r.Method, r.URL.Path)
		}
		if got := r.Header.Get("Authorization"); got != "Bearer "+Key {
			t.Errorf("request %d: Authorization %q", n, got)
		}
		data, _ := io.ReadAll(r.Body)
		var body ChatBody
		if err := json.Unmarshal(data, &body); err != nil {
			t.Errorf("request %d: body is not JSON: %v", n, err)
		}
		json.Unmarshal(data, &body.Raw)
		f.mu.Lock()
		f.bodies = append(f.bodies, body)
		f.times = append(f.times, time.Now())
		f.mu.Unlock()
		handle(w, r, n, body)
	}))
	t.Cleanup(f.Close)
	return f
}

// Requests is the number of requests received.
func (f *Fake) Requests() int { return int(f.requests.Load()) }

// Body returns request i's body (from 0).
func (f *Fake) Body(i int) ChatBody {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.bodies[i]
}

// Time returns when request i (from 0) arrived.
func (f *Fake) Time(i int) time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.times[i]
}

// SSE writes one server-sent event (a string as is, anything else as JSON)
// and flushes it.
func SSE(w http.ResponseWriter, v any) {
	if s, ok := v.(string); ok {
		fmt.Fprintf(w, "data: %s\n\n", s)
	} else {
		b, _ := json.Marshal(v)
		fmt.Fprintf(w, "data: %s\n\n", b)
	}
	w.(http.Flusher).Flush()
}

// Delta is a stream chunk carrying the text s.
func Delta(s string) map[string]any {
	return map[string]any{"id": "c1", "object": "chat.completion.chunk", "created": 1, "model": "test-model",
		"choices": []any{map[string]any{"index": 0, "delta": map[string]any{"role": "assistant", "content": s}, "finish_reason": nil}}}
}

// Finish is the stream chunk that ends the choice with reason.
func Finish(reason string) map[string]any {
	return map[string]any{"id": "c1", "object": "chat.completion.chunk", "created": 1, "model": "test-model",
		"choices": []any{map[string]any{"index": 0, "delta": map[string]any{}, "finish_reason": reason}}}
}

// UsageChunk is the final chunk of stream_options.include_usage: no choices.
func UsageChunk(p, c int) map[string]any {
	return map[string]any{"id": "c1", "object": "chat.completion.chunk", "created": 1, "model": "test-model",
		"choices": []any{}, "usage": map[string]any{"prompt_tokens": p, "completion_tokens": c, "total_tokens": p + c}}
}

// StreamReply streams tokens as OpenAI does: one delta each, the finish,
// the usage chunk (42 prompt tokens, one per token) and [DONE].
func StreamReply(w http.ResponseWriter, tokens ...string) {
	w.Header().Set("Content-Type", "text/event-stream")
	for _, tok := range tokens {
		SSE(w, Delta(tok))
	}
	SSE(w, Finish("stop"))
	SSE(w, UsageChunk(42, len(tokens)))
	SSE(w, "[DONE]")
}

// JSONError answers with status and the JSON error body.
func JSONError(w http.ResponseWriter, status int, body string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	io.WriteString(w, body)
}

// Pieces splits s into pieces of n bytes, as a server might stream it.
func Pieces(s string, n int) []string {
	var out []string
	for len(s) > n {
		out = append(out, s[:n])
		s = s[n:]
	}
	return append(out, s)
}
