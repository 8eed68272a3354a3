package llm

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/papers-cli/papers/llm/llmtest"
)

// Hostile model servers: every bound of a reply is asserted as a limit
// that cannot pass by accident. A stall must end in ErrTimeout from the
// configured (small) timeout, never in the test's own timeout; an endless
// reply must stop being read well before the server's own cap.

func limited(c *LLMConfig) {
	c.FirstTokenTimeout = 150 * time.Millisecond
	c.IdleTimeout = 150 * time.Millisecond
	c.MaxRetries = -1
}

func TestStalledServer(t *testing.T) {
	for _, tc := range []struct {
		name     string
		noStream bool
		first    string // text sent before the stall
		phase    string
	}{
		{"headers then nothing", false, "", "first token"},
		{"one token then nothing", false, "The answer", "next token"},
		{"no-stream: headers then nothing", true, "", "reply"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := llmtest.NewFake(t, func(w http.ResponseWriter, r *http.Request, n int, b llmtest.ChatBody) {
				w.Header().Set("Content-Type", "text/event-stream")
				w.WriteHeader(200)
				if tc.first != "" {
					llmtest.SSE(w, llmtest.Delta(tc.first))
				}
				w.(http.Flusher).Flush()
				<-r.Context().Done() // stall until the client gives up
			})
			var out strings.Builder
			start := time.Now()
			_, err := newTestLLM(t, f.URL, func(c *LLMConfig) {
				limited(c)
				c.NoStream = tc.noStream
				if tc.first != "" {
					c.FirstTokenTimeout = time.Minute // the stall to catch is the next token's, however slow the machine
				}
			}).Complete(t.Context(), hello, &out)
			if !errors.Is(err, ErrTimeout) {
				t.Fatalf("error %v, want ErrTimeout", err)
			}
			if !strings.Contains(err.Error(), tc.phase) || !strings.Contains(err.Error(), f.URL) {
				t.Errorf("error %q does not say what was awaited (%s) from which server", err, tc.phase)
			}
			if out.String() != tc.first {
				t.Errorf("wrote %q", out.String())
			}
			if f.Requests() != 1 {
				t.Errorf("%d requests: a stall is not retried", f.Requests())
			}
			t.Logf("gave up after %v", time.Since(start))
		})
	}
}

// A server that streams empty deltas forever sends no text: the first-token
// timeout ends it.
func TestServerStreamingNothingForever(t *testing.T) {
	f := llmtest.NewFake(t, func(w http.ResponseWriter, r *http.Request, n int, b llmtest.ChatBody) {
		w.Header().Set("Content-Type", "text/event-stream")
		for i := 0; i < 1e6 && r.Context().Err() == nil; i++ {
			llmtest.SSE(w, llmtest.Delta(""))
			time.Sleep(time.Millisecond)
		}
		if r.Context().Err() == nil {
			t.Errorf("the client read a million empty events")
		}
	})
	_, err := newTestLLM(t, f.URL, limited).Complete(t.Context(), hello, io.Discard)
	if !errors.Is(err, ErrTimeout) {
		t.Fatalf("error %v, want ErrTimeout", err)
	}
}

// An endless reply is cut at MaxAnswerBytes (streamed) or at the body cap
// (not streamed), whatever the server goes on sending.
func TestEndlessReply(t *testing.T) {
	const limit = 4096
	for _, noStream := range []bool{false, true} {
		t.Run(fmt.Sprintf("no-stream=%v", noStream), func(t *testing.T) {
			var sent atomic.Int64
			const serverCap = 256 << 20
			f := llmtest.NewFake(t, func(w http.ResponseWriter, r *http.Request, n int, b llmtest.ChatBody) {
				if b.Stream {
					w.Header().Set("Content-Type", "text/event-stream")
					for sent.Load() < serverCap && r.Context().Err() == nil {
						ev, _ := json.Marshal(llmtest.Delta("all work and no play "))
						k, err := fmt.Fprintf(w, "data: %s\n\n", ev)
						sent.Add(int64(k))
						if err != nil {
							return
						}
					}
					return
				}
				w.Header().Set("Content-Type", "application/json")
				io.WriteString(w, `{"id":"c1","object":"chat.completion","created":1,"model":"test-model","choices":[{"index":0,"message":{"role":"assistant","content":"`)
				chunk := strings.Repeat("all work and no play ", 1000)
				for sent.Load() < serverCap {
					k, err := io.WriteString(w, chunk)
					sent.Add(int64(k))
					if err != nil {
						return
					}
				}
			})
			var out strings.Builder
			c, err := newTestLLM(t, f.URL, func(c *LLMConfig) {
				c.MaxRetries, c.NoStream, c.MaxAnswerBytes = -1, noStream, limit // the size cap, not a timeout, must end it
			}).Complete(t.Context(), hello, &out)
			if !errors.Is(err, ErrTooLong) {
				t.Fatalf("error %v, want ErrTooLong", err)
			}
			if out.Len() > limit || (c != nil && len(c.Text) > limit) {
				t.Errorf("kept %d bytes of text, more than the %d allowed", out.Len(), limit)
			}
			f.Close() // wait for the handler: sent is final
			if s := sent.Load(); s >= serverCap {
				t.Errorf("the client read the server's whole %d bytes: no cap", s)
			}
		})
	}
}

// A reply with no choice, or with no text, is an error, not a blank answer.
func TestEmptyReply(t *testing.T) {
	for _, tc := range []struct {
		name     string
		noStream bool
		reply    func(w http.ResponseWriter)
	}{
		{"no choices", true, func(w http.ResponseWriter) {
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"id":"c1","object":"chat.completion","created":1,"model":"test-model","choices":[],"usage":{"prompt_tokens":3,"completion_tokens":0,"total_tokens":3}}`)
		}},
		{"empty content", true, func(w http.ResponseWriter) {
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"id":"c1","object":"chat.completion","created":1,"model":"test-model","choices":[{"index":0,"message":{"role":"assistant","content":""},"finish_reason":"length"}]}`)
		}},
		{"stream of usage only", false, func(w http.ResponseWriter) {
			w.Header().Set("Content-Type", "text/event-stream")
			llmtest.SSE(w, llmtest.UsageChunk(3, 0))
			llmtest.SSE(w, "[DONE]")
		}},
		{"stream of blank text", false, func(w http.ResponseWriter) { llmtest.StreamReply(w, " ", "\n") }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := llmtest.NewFake(t, func(w http.ResponseWriter, r *http.Request, n int, b llmtest.ChatBody) { tc.reply(w) })
			_, err := newTestLLM(t, f.URL, func(c *LLMConfig) { c.NoStream = tc.noStream }).Complete(t.Context(), hello, io.Discard)
			if !errors.Is(err, ErrEmptyReply) {
				t.Fatalf("error %v, want ErrEmptyReply", err)
			}
		})
	}
}

// What a server sends back is untrusted: the key it echoes is scrubbed and
// terminal controls (C0, C1, bidi overrides) are made inert, in the text
// written and returned, however the stream is cut.
func TestRepliesAreScrubbedAndInert(t *testing.T) {
	reply := "Your key is " + testKey + ". \x1b[2J\x1b]0;pwned\x07 C1 \u009b31m \u009d0;t\u009c bidi \u202eevil\u202c NUL\x00 CR\rdone"
	for _, noStream := range []bool{false, true} {
		for _, size := range []int{1, 2, 3, 7} {
			f := llmtest.NewFake(t, func(w http.ResponseWriter, r *http.Request, n int, b llmtest.ChatBody) {
				if b.Stream {
					llmtest.StreamReply(w, llmtest.Pieces(reply, size)...)
					return
				}
				w.Header().Set("Content-Type", "application/json")
				js, _ := json.Marshal(reply)
				io.WriteString(w, `{"id":"c1","object":"chat.completion","created":1,"model":"test-model","choices":[{"index":0,"message":{"role":"assistant","content":`+string(js)+`},"finish_reason":"stop"}]}`)
			})
			var out strings.Builder
			c, err := newTestLLM(t, f.URL, func(c *LLMConfig) { c.NoStream = noStream }).Complete(t.Context(), hello, &out)
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range []string{out.String(), c.Text} {
				if strings.Contains(s, testKey) || strings.ContainsAny(s, "\x1b\x07\x00\r\u009b\u009d\u009c\u202e\u202c") {
					t.Errorf("no-stream %v, pieces of %d: not scrubbed or not inert: %q", noStream, size, s)
				}
				if !strings.Contains(s, "Your key is [redacted].") || !strings.Contains(s, "done") {
					t.Errorf("no-stream %v, pieces of %d: text lost: %q", noStream, size, s)
				}
			}
		}
	}
}
