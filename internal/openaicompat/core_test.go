package openaicompat

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"
)

const testKey = "sk-test-SECRET-0123456789"

// One classification for both the embedder and the chat adapter, from the
// bodies real servers send.
func TestClassifyAtTheWire(t *testing.T) {
	for _, tc := range []struct {
		name   string
		status int
		body   string
		kind   Kind
		msg    string
	}{
		{"openai 401", 401, `{"error":{"message":"Incorrect API key provided: ` + testKey + `.","type":"invalid_request_error","param":null,"code":"invalid_api_key"}}`, Auth, "Incorrect API key"},
		{"403 about the key", 403, `{"error":"invalid key"}`, Auth, "invalid key"},
		{"ollama model not found", 404, `{"error":"model \"m\" not found, try pulling it first"}`, ModelNotFound, "try pulling"},
		{"openai model not found", 404, `{"error":{"message":"The model m does not exist","type":"invalid_request_error","code":"model_not_found"}}`, ModelNotFound, "does not exist"},
		{"context too long", 400, `{"error":{"message":"This model's maximum context length is 8192 tokens.","type":"invalid_request_error","code":"context_length_exceeded"}}`, ContextTooLong, "8192"},
		{"quota", 429, `{"error":{"message":"You exceeded your current quota.","type":"insufficient_quota","code":"insufficient_quota"}}`, Quota, "quota"},
		{"rate limit", 429, `{"error":{"message":"Rate limit reached","type":"requests","code":"rate_limit_exceeded"}}`, RateLimited, "Rate limit"},
		{"plain 502", 502, "<html><body>502 Bad Gateway</body></html>", Server, "502 Bad Gateway"},
		{"408", 408, "request timeout", Server, "request timeout"},
		{"fastapi detail list", 422, `{"detail":[{"loc":["body","input"],"msg":"field required"}]}`, BadRequest, "field required"},
		{"escape sequences in the message", 400, "{\"error\":\"bad \\u001b]0;pwned\\u0007\\u001b[2J input \\u202e\"}", BadRequest, "bad ]0;pwned [2J input"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if strings.HasPrefix(tc.body, "{") {
					w.Header().Set("Content-Type", "application/json")
				}
				w.WriteHeader(tc.status)
				io.WriteString(w, tc.body)
			}))
			defer srv.Close()
			c, err := New(Config{BaseURL: srv.URL, APIKey: testKey, Service: Chat})
			if err != nil {
				t.Fatal(err)
			}
			_, err = c.API.CreateEmbeddings(t.Context(), openai.EmbeddingRequestStrings{Input: []string{"x"}, Model: "m"})
			e := c.Classify(err)
			if e.Kind != tc.kind || e.Status != tc.status {
				t.Errorf("kind %v status %d, want %v %d (%v)", e.Kind, e.Status, tc.kind, tc.status, err)
			}
			if !strings.Contains(e.Message, tc.msg) {
				t.Errorf("message %q, want it to hold %q", e.Message, tc.msg)
			}
			if strings.Contains(e.Message, testKey) || strings.ContainsAny(e.Message, "\x1b\x07\u202e\n") {
				t.Errorf("message not made safe: %q", e.Message)
			}
		})
	}
}

func TestClassifyTransport(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"object":"list","data":[{"index":0,"embedding":[NaN, 1]}]}`)
	}))
	c, _ := New(Config{BaseURL: srv.URL, Service: Chat})
	_, err := c.API.CreateEmbeddings(t.Context(), openai.EmbeddingRequestStrings{Input: []string{"x"}, Model: "m"})
	if k := c.Classify(err).Kind; k != BadReply {
		t.Errorf("NaN in the JSON: kind %v (%v), want BadReply", k, err)
	}
	url := srv.URL
	srv.Close()
	c, _ = New(Config{BaseURL: url, Service: Chat})
	_, err = c.API.CreateEmbeddings(t.Context(), openai.EmbeddingRequestStrings{Input: []string{"x"}, Model: "m"})
	if k := c.Classify(err).Kind; k != Unreachable {
		t.Errorf("closed server: kind %v (%v), want Unreachable", k, err)
	}
	if _, err := New(Config{BaseURL: "https://api.openai.com/v1"}); !errors.Is(err, NoAPIKey) {
		t.Errorf("api.openai.com without a key: %v", err)
	}
}

// A reply longer than MaxBody is refused once the cap is read, whatever
// the server goes on sending.
func TestMaxBody(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"object":"list","data":[{"index":0,"embedding":[`)
		for i := 0; i < 1<<20 && r.Context().Err() == nil; i++ {
			io.WriteString(w, "0.125,")
		}
	}))
	defer srv.Close()
	c, _ := New(Config{BaseURL: srv.URL, Service: Chat, MaxBody: 64 << 10})
	_, err := c.API.CreateEmbeddings(t.Context(), openai.EmbeddingRequestStrings{Input: []string{"x"}, Model: "m"})
	var tl *TooLargeError
	if !errors.As(err, &tl) || tl.Limit != 64<<10 || c.Classify(err).Kind != TooLarge {
		t.Fatalf("error %v, want a TooLargeError at 64 KiB", err)
	}
}

// A watchdog that is not fed stops the request with its cause; feeding it
// keeps the request alive past the first deadline.
func TestWatchdog(t *testing.T) {
	// Fed every 10 ms for longer than the first deadline: it fires only on
	// a stall of 300 ms before the first feed or of 1 s between feeds,
	// which a loaded machine's scheduler does not make.
	const first = 300 * time.Millisecond
	start := time.Now()
	ctx, wd := Watch(t.Context(), first, &TimeoutError{What: "test server", URL: "http://x/v1", Phase: "first token"})
	for time.Since(start) < first+100*time.Millisecond {
		time.Sleep(10 * time.Millisecond)
		wd.Feed(time.Second, &TimeoutError{What: "test server", URL: "http://x/v1", Phase: "next token"})
	}
	if ctx.Err() != nil {
		t.Fatal("a fed watchdog fired")
	}
	<-ctx.Done() // must fire: the test's own timeout would say it never did
	err := wd.Err(ctx.Err())
	var te *TimeoutError
	if !errors.As(err, &te) || te.Phase != "next token" || te.After != time.Second {
		t.Fatalf("error %v, want the next-token TimeoutError", err)
	}
	if !strings.Contains(err.Error(), "test server at http://x/v1 sent no next token for 1s") {
		t.Errorf("message %q", err)
	}
	wd.Stop()
	ctx2, wd2 := Watch(context.Background(), 0, &TimeoutError{})
	wd2.Stop()
	if !errors.Is(wd2.Err(ctx2.Err()), context.Canceled) {
		t.Errorf("a stopped watchdog without a limit: %v", wd2.Err(ctx2.Err()))
	}
}

// The key is scrubbed however a stream cuts it.
func TestScrubber(t *testing.T) {
	in := "your key is " + testKey + ", again: " + testKey + " and sk-test-SECRET but not all"
	want := "your key is [redacted], again: [redacted] and sk-test-SECRET but not all"
	for size := 1; size <= len(in); size++ {
		var b strings.Builder
		s := &Scrubber{W: &b, Key: testKey}
		for i := 0; i < len(in); i += size {
			s.Write([]byte(in[i:min(i+size, len(in))]))
		}
		s.Flush()
		if b.String() != want {
			t.Fatalf("writes of %d: %q", size, b.String())
		}
	}
	if got := ScrubKey("run ollama serve", "ollama"); got != "run ollama serve" {
		t.Errorf("a placeholder key was scrubbed: %q", got)
	}
}

func TestOllamaURL(t *testing.T) {
	for in, want := range map[string]string{"": DefaultOllamaURL, "10.0.0.2:11434": "http://10.0.0.2:11434", "https://gpu.lan:443": "https://gpu.lan:443"} {
		if got := OllamaURL(in); got != want {
			t.Errorf("OllamaURL(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestKindsHaveNames: every kind prints as a name and a sentence naming the
// server, never as a number; the model's errors name their fix; an error
// matches its kind (the sentinel llm and embed share) and no other.
func TestKindsHaveNames(t *testing.T) {
	for k := NoAPIKey; k <= EmptyReply; k++ {
		if name := k.String(); name == "" || name == "unknown failure" || strings.ContainsAny(name, "0123456789") {
			t.Errorf("kind %d is named %q", int(k), name)
		}
		for _, s := range []Service{Chat, Embeddings} {
			e := &Error{Kind: k, Service: s, URL: "http://x/v1", Model: "m"}
			if msg := e.Error(); strings.Contains(msg, "kind") || msg == "" {
				t.Errorf("%v of the %s: message %q", k, s.Server(), msg)
			}
			if !errors.Is(e, k) || errors.Is(e, k%EmptyReply+1) {
				t.Errorf("%v of the %s: errors.Is does not match its kind alone", k, s.Server())
			}
		}
		if k != BadRequest && (&Error{Kind: k, Service: Chat}).Hint() == "" {
			t.Errorf("%v of the model server has no hint", k)
		}
	}
}
