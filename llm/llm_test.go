package llm

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/papers-cli/papers/internal/openaicompat"
	"github.com/papers-cli/papers/llm/llmtest"
)

const testKey = llmtest.Key

func newTestLLM(t *testing.T, url string, mod func(*LLMConfig)) *OpenAI {
	t.Helper()
	cfg := LLMConfig{Spec: "openai:test-model", APIKey: testKey, BaseURL: url, MaxRetryWait: 20 * time.Millisecond}
	if mod != nil {
		mod(&cfg)
	}
	o, err := NewOpenAI(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return o
}

var hello = Request{Messages: []Message{{"system", "be brief"}, {"user", "hi"}}}

func TestStreamWithUsageChunk(t *testing.T) {
	f := llmtest.NewFake(t, func(w http.ResponseWriter, r *http.Request, n int, b llmtest.ChatBody) {
		if !b.Stream || b.StreamOptions == nil || !b.StreamOptions.IncludeUsage {
			t.Errorf("stream %v, stream_options %+v: want streaming with include_usage", b.Stream, b.StreamOptions)
		}
		if b.Model != "test-model" {
			t.Errorf("model %q", b.Model)
		}
		if b.Temperature <= 0 || b.Temperature > 1e-3 {
			t.Errorf("temperature %v: want a tiny positive value standing for 0", b.Temperature)
		}
		llmtest.StreamReply(w, "Hello", ", ", "world")
	})
	var out strings.Builder
	c, err := newTestLLM(t, f.URL, nil).Complete(t.Context(), hello, &out)
	if err != nil {
		t.Fatal(err)
	}
	if c.Text != "Hello, world" || out.String() != "Hello, world" {
		t.Errorf("text %q, written %q", c.Text, out.String())
	}
	if c.Usage != (Usage{PromptTokens: 42, CompletionTokens: 3}) || c.FinishReason != "stop" {
		t.Errorf("usage %+v finish %q", c.Usage, c.FinishReason)
	}
}

// signalWriter reports its first write on a channel.
type signalWriter struct {
	mu    sync.Mutex
	b     strings.Builder
	first chan struct{}
	once  sync.Once
}

func (s *signalWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	s.b.Write(p)
	s.mu.Unlock()
	s.once.Do(func() { close(s.first) })
	return len(p), nil
}

// The first token must reach the writer while the server still holds the
// last one back: the server waits for the test to see the first token.
func TestSlowTokensStreamAsTheyArrive(t *testing.T) {
	release := make(chan struct{})
	f := llmtest.NewFake(t, func(w http.ResponseWriter, r *http.Request, n int, b llmtest.ChatBody) {
		w.Header().Set("Content-Type", "text/event-stream")
		llmtest.SSE(w, llmtest.Delta("first"))
		select {
		case <-release:
		case <-r.Context().Done():
			return
		}
		llmtest.SSE(w, llmtest.Delta(" last"))
		llmtest.SSE(w, llmtest.Finish("stop"))
		llmtest.SSE(w, llmtest.UsageChunk(5, 2))
		llmtest.SSE(w, "[DONE]")
	})
	sw := &signalWriter{first: make(chan struct{})}
	done := make(chan error, 1)
	var c *Completion
	go func() {
		var err error
		c, err = newTestLLM(t, f.URL, nil).Complete(t.Context(), hello, sw)
		done <- err
	}()
	select {
	case <-sw.first:
		sw.mu.Lock()
		got := sw.b.String()
		sw.mu.Unlock()
		if got != "first" {
			t.Errorf("before the last token the writer holds %q", got)
		}
	case err := <-done:
		t.Fatalf("Complete returned (%v) before the server sent its last token", err)
	case <-time.After(30 * time.Second):
		t.Fatal("the first token never reached the writer")
	}
	close(release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if c.Text != "first last" {
		t.Errorf("text %q", c.Text)
	}
}

func TestErrors(t *testing.T) {
	for _, tc := range []struct {
		name     string
		status   int
		body     string
		want     error
		requests int    // requests made (retries included); MaxRetries is 2
		msg      string // in the error's text
	}{
		{"openai 401", 401, `{"error":{"message":"Incorrect API key provided: sk-test-*****6789.","type":"invalid_request_error","param":null,"code":"invalid_api_key"}}`, ErrUnauthorized, 1, "Incorrect API key"},
		{"a server echoing the key", 401, `{"error":"Incorrect API key provided: Bearer ` + testKey + `"}`, ErrUnauthorized, 1, "Incorrect API key"},
		{"openai model not found", 404, `{"error":{"message":"The model ` + "`test-model`" + ` does not exist or you do not have access to it.","type":"invalid_request_error","param":null,"code":"model_not_found"}}`, ErrModelNotFound, 1, `"test-model"`},
		{"ollama model not found", 404, `{"error":"model \"test-model\" not found, try pulling it first"}`, ErrModelNotFound, 1, "try pulling"},
		{"openai context too long", 400, `{"error":{"message":"This model's maximum context length is 128000 tokens. However, your messages resulted in 130000 tokens.","type":"invalid_request_error","param":"messages","code":"context_length_exceeded"}}`, ErrContextTooLong, 1, "128000"},
		{"llama.cpp context too long", 400, `{"error":{"code":400,"message":"the request exceeds the available context size, try increasing it","type":"exceed_context_size_error"}}`, ErrContextTooLong, 1, "context size"},
		{"ollama error 500", 500, `{"error":"llama runner process has terminated"}`, ErrServer, 3, "llama runner"},
		{"plain-text 502", 502, "<html><body>502 Bad Gateway</body></html>", ErrServer, 3, "502 Bad Gateway"},
		{"insufficient quota is not retried", 429, `{"error":{"message":"You exceeded your current quota.","type":"insufficient_quota","param":null,"code":"insufficient_quota"}}`, ErrQuota, 1, "quota"},
		{"429 after every retry", 429, `{"error":{"message":"Rate limit reached","type":"requests","code":"rate_limit_exceeded"}}`, ErrRateLimited, 3, "Rate limit"},
		{"other 400", 400, `{"error":{"message":"messages: bad role","type":"invalid_request_error"}}`, ErrBadRequest, 1, "bad role"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := llmtest.NewFake(t, func(w http.ResponseWriter, r *http.Request, n int, b llmtest.ChatBody) {
				llmtest.JSONError(w, tc.status, tc.body)
			})
			o := newTestLLM(t, f.URL, func(c *LLMConfig) { c.MaxRetries = 2 })
			var out strings.Builder
			_, err := o.Complete(t.Context(), hello, &out)
			if !errors.Is(err, tc.want) {
				t.Fatalf("error %v, want %v", err, tc.want)
			}
			var le *openaicompat.Error
			if !errors.As(err, &le) || le.Status != tc.status {
				t.Errorf("error %#v: want *openaicompat.Error with status %d", err, tc.status)
			}
			if !strings.Contains(err.Error(), tc.msg) {
				t.Errorf("error %q does not contain %q", err, tc.msg)
			}
			if strings.Contains(err.Error(), testKey) || strings.Contains(fmt.Sprintf("%+v %#v", err, le), testKey) {
				t.Errorf("error reveals the API key: %v", err)
			}
			if got := int(f.Requests()); got != tc.requests {
				t.Errorf("%d requests, want %d", got, tc.requests)
			}
			if out.Len() != 0 {
				t.Errorf("wrote %q on error", out.String())
			}
		})
	}
}

func TestRetryAfterThenSuccess(t *testing.T) {
	f := llmtest.NewFake(t, func(w http.ResponseWriter, r *http.Request, n int, b llmtest.ChatBody) {
		if n == 1 {
			w.Header().Set("Retry-After", "1")
			llmtest.JSONError(w, 429, `{"error":{"message":"Rate limit reached for requests","type":"requests","code":"rate_limit_exceeded"}}`)
			return
		}
		llmtest.StreamReply(w, "ok")
	})
	// MaxRetryWait is above Retry-After here, so the wait is the server's.
	o := newTestLLM(t, f.URL, func(c *LLMConfig) { c.MaxRetryWait = 5 * time.Second })
	var out strings.Builder
	c, err := o.Complete(t.Context(), hello, &out)
	if err != nil {
		t.Fatal(err)
	}
	if c.Text != "ok" || out.String() != "ok" || f.Requests() != 2 {
		t.Errorf("text %q, written %q, %d requests", c.Text, out.String(), f.Requests())
	}
	if gap := f.Time(1).Sub(f.Time(0)); gap < 900*time.Millisecond {
		t.Errorf("retried after %v; Retry-After said 1s", gap)
	}
}

func TestServerErrorThenSuccess(t *testing.T) {
	f := llmtest.NewFake(t, func(w http.ResponseWriter, r *http.Request, n int, b llmtest.ChatBody) {
		if n == 1 {
			w.WriteHeader(503)
			io.WriteString(w, "upstream overloaded")
			return
		}
		llmtest.StreamReply(w, "fine")
	})
	c, err := newTestLLM(t, f.URL, nil).Complete(t.Context(), hello, io.Discard)
	if err != nil || c.Text != "fine" {
		t.Fatalf("%v %+v", err, c)
	}
}

// A connection that breaks after text was shown is an error and is never
// retried: the reader has seen half an answer.
func TestMidStreamDisconnect(t *testing.T) {
	f := llmtest.NewFake(t, func(w http.ResponseWriter, r *http.Request, n int, b llmtest.ChatBody) {
		w.Header().Set("Content-Type", "text/event-stream")
		llmtest.SSE(w, llmtest.Delta("The answer"))
		llmtest.SSE(w, llmtest.Delta(" is"))
		panic(http.ErrAbortHandler) // drop the connection mid-stream
	})
	var out strings.Builder
	c, err := newTestLLM(t, f.URL, nil).Complete(t.Context(), hello, &out)
	if !errors.Is(err, ErrStreamBroken) {
		t.Fatalf("error %v, want ErrStreamBroken", err)
	}
	if f.Requests() != 1 {
		t.Errorf("%d requests: a broken stream must not be retried after text was shown", f.Requests())
	}
	if out.String() != "The answer is" || c == nil || c.Text != "The answer is" {
		t.Errorf("written %q, completion %+v", out.String(), c)
	}
}

// A stream that ends without a finish reason or [DONE] was cut short.
func TestTruncatedStream(t *testing.T) {
	f := llmtest.NewFake(t, func(w http.ResponseWriter, r *http.Request, n int, b llmtest.ChatBody) {
		w.Header().Set("Content-Type", "text/event-stream")
		llmtest.SSE(w, llmtest.Delta("partial"))
	})
	_, err := newTestLLM(t, f.URL, nil).Complete(t.Context(), hello, io.Discard)
	if !errors.Is(err, ErrStreamBroken) {
		t.Fatalf("error %v, want ErrStreamBroken", err)
	}
}

func TestNoStream(t *testing.T) {
	f := llmtest.NewFake(t, func(w http.ResponseWriter, r *http.Request, n int, b llmtest.ChatBody) {
		if b.Stream {
			t.Errorf("--no-stream sent stream: true")
		}
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"id":"c1","object":"chat.completion","created":1,"model":"test-model","choices":[{"index":0,"message":{"role":"assistant","content":"All at once."},"finish_reason":"stop"}],"usage":{"prompt_tokens":7,"completion_tokens":4,"total_tokens":11}}`)
	})
	var out strings.Builder
	c, err := newTestLLM(t, f.URL, func(c *LLMConfig) { c.NoStream = true }).Complete(t.Context(), hello, &out)
	if err != nil {
		t.Fatal(err)
	}
	if out.String() != "All at once." || c.Usage != (Usage{7, 4}) {
		t.Errorf("written %q usage %+v", out.String(), c.Usage)
	}
}

// Models that accept only their default temperature are asked again without one.
func TestTemperatureRefused(t *testing.T) {
	f := llmtest.NewFake(t, func(w http.ResponseWriter, r *http.Request, n int, b llmtest.ChatBody) {
		if _, ok := b.Raw["temperature"]; ok {
			llmtest.JSONError(w, 400, `{"error":{"message":"Unsupported value: 'temperature' does not support 1e-06 with this model. Only the default (1) value is supported.","type":"invalid_request_error","param":"temperature","code":"unsupported_value"}}`)
			return
		}
		llmtest.StreamReply(w, "ok")
	})
	o := newTestLLM(t, f.URL, nil)
	for i := 0; i < 2; i++ {
		if _, err := o.Complete(t.Context(), hello, io.Discard); err != nil {
			t.Fatal(err)
		}
	}
	if n := f.Requests(); n != 3 {
		t.Errorf("%d requests, want 3 (refused, retried, then no temperature at once)", n)
	}
}

func TestUnreachable(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close()
	_, err := newTestLLM(t, url, func(c *LLMConfig) { c.MaxRetries = -1 }).Complete(t.Context(), hello, io.Discard)
	var le *openaicompat.Error
	if !errors.Is(err, ErrUnreachable) || !errors.As(err, &le) || le.URL != url+"/v1" {
		t.Fatalf("error %v (%#v), want ErrUnreachable naming %s/v1", err, le, url)
	}
	if !strings.Contains(err.Error(), url) {
		t.Errorf("error %q does not name the URL", err)
	}
}

func TestCancelled(t *testing.T) {
	f := llmtest.NewFake(t, func(w http.ResponseWriter, r *http.Request, n int, b llmtest.ChatBody) {
		w.Header().Set("Content-Type", "text/event-stream")
		llmtest.SSE(w, llmtest.Delta("wait"))
		<-r.Context().Done()
	})
	ctx, cancel := context.WithCancel(t.Context())
	sw := &signalWriter{first: make(chan struct{})}
	go func() { <-sw.first; cancel() }()
	_, err := newTestLLM(t, f.URL, nil).Complete(ctx, hello, sw)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("error %v, want context.Canceled", err)
	}
}

func TestNewOpenAI(t *testing.T) {
	for _, tc := range []struct {
		name       string
		cfg        LLMConfig
		model, url string
		err        error
	}{
		{"default model with a key", LLMConfig{APIKey: "k"}, DefaultOpenAIModel, "https://api.openai.com/v1", nil},
		{"openai without a key", LLMConfig{Spec: "openai:gpt-4o"}, "", "", ErrNoAPIKey},
		{"ollama shorthand", LLMConfig{Spec: "ollama:llama3.1:8b"}, "llama3.1:8b", "http://localhost:11434/v1", nil},
		{"ollama host", LLMConfig{Spec: "ollama:qwen3", OllamaHost: "10.0.0.2:11434"}, "qwen3", "http://10.0.0.2:11434/v1", nil},
		{"bare model on a local server", LLMConfig{Spec: "llama3.1:8b", BaseURL: "http://localhost:8080/"}, "llama3.1:8b", "http://localhost:8080/v1", nil},
		{"base URL with version kept", LLMConfig{Spec: "openai:m", BaseURL: "https://openrouter.ai/api/v1/"}, "m", "https://openrouter.ai/api/v1", nil},
		{"credentials never shown", LLMConfig{Spec: "openai:m", BaseURL: "https://user:pw@proxy.example/v1"}, "m", "https://proxy.example/v1", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o, err := NewOpenAI(tc.cfg)
			if !errors.Is(err, tc.err) {
				t.Fatalf("error %v, want %v", err, tc.err)
			}
			if err != nil {
				return
			}
			if o.Model() != tc.model || o.BaseURL() != tc.url {
				t.Errorf("model %q url %q, want %q %q", o.Model(), o.BaseURL(), tc.model, tc.url)
			}
		})
	}
	if l, err := ResolveLLM(LLMConfig{}); l != nil || err != nil {
		t.Errorf("ResolveLLM with nothing configured = %v, %v; want nil, nil (extractive)", l, err)
	}
	if _, err := NewOpenAI(LLMConfig{Spec: "openai:m", BaseURL: "localhost:1234"}); err == nil {
		t.Errorf("a base URL without scheme was accepted")
	}
}

// The OpenAI key is never sent to Ollama, which may be another machine.
func TestOllamaGetsNoOpenAIKey(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if got := r.Header.Get("Authorization"); strings.Contains(got, testKey) {
			t.Errorf("Ollama was sent the OpenAI key")
		}
		llmtest.StreamReply(w, "ok")
	}))
	defer srv.Close()
	o, err := NewOpenAI(LLMConfig{Spec: "ollama:llama3.1", APIKey: testKey, OllamaHost: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := o.Complete(t.Context(), hello, io.Discard); err != nil {
		t.Fatal(err)
	}
}

// A server that accepts the connection but never answers times out with
// ErrTimeout, and is not retried.
func TestNoResponseTimesOut(t *testing.T) {
	var n atomic.Int32
	block := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		select {
		case <-block:
		case <-r.Context().Done():
		}
	}))
	defer srv.Close()
	defer close(block)
	tr := &http.Transport{ResponseHeaderTimeout: 50 * time.Millisecond}
	o := newTestLLM(t, srv.URL, func(c *LLMConfig) { c.HTTPClient = &http.Client{Transport: tr} })
	_, err := o.Complete(t.Context(), hello, io.Discard)
	if !errors.Is(err, ErrTimeout) || n.Load() != 1 {
		t.Errorf("error %v after %d requests; want ErrTimeout after 1", err, n.Load())
	}
}

// TestStreamOfNoEvents: a 200 that is a web page, not an event stream, is
// an error naming the address, not an empty answer.
func TestStreamOfNoEvents(t *testing.T) {
	f := llmtest.NewFake(t, func(w http.ResponseWriter, r *http.Request, n int, b llmtest.ChatBody) {
		w.Header().Set("Content-Type", "text/html")
		io.WriteString(w, "<html><body>Welcome to nginx!</body></html>\n")
	})
	o := newTestLLM(t, f.URL, nil)
	var out strings.Builder
	_, err := o.Complete(t.Context(), hello, &out)
	if !errors.Is(err, ErrBadReply) || !strings.Contains(err.Error(), "event stream") {
		t.Fatalf("error %v, want ErrBadReply about the event stream", err)
	}
	if got := int(f.Requests()); got != 1 {
		t.Errorf("%d requests, want 1 (not retried)", got)
	}
}
