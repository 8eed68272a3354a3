// Package llmtest holds fake OpenAI-compatible chat completions servers
// for tests: Server answers as Options say (in unit tests and testscript
// end-to-end scripts); Fake hands each request to the test's handler. Both
// speak the real protocol (SSE streaming with a final usage chunk without
// choices, or one JSON reply) so tests drive the real go-openai adapter.
package llmtest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
)

// Options say how the server answers.
type Options struct {
	// Reply is the assistant's answer, streamed in pieces of a few bytes.
	Reply string
	// Respond, when set, computes the reply from the request's system and
	// user messages instead (e.g. to answer quality-mode judgements).
	Respond func(system, user string) string
	// Status and Body, when Status is not 0, make every request fail with
	// that HTTP status and body (e.g. 401 and OpenAI's JSON error).
	Status int
	Body   string
	// Key, when set, is the bearer token requests must carry (401 otherwise).
	Key string
	// Stall makes every reply send its headers (and, streamed, the first
	// piece of Reply) and then nothing until the client gives up.
	Stall bool
}

// Server is a running fake; URL (from httptest) is its base without /v1.
type Server struct {
	*httptest.Server
	requests atomic.Int32
}

// BaseURL is the OpenAI-style base URL, ending in /v1.
func (s *Server) BaseURL() string { return s.URL + "/v1" }

// Requests is the number of chat completion requests received.
func (s *Server) Requests() int { return int(s.requests.Load()) }

// NewServer starts a fake server, closed when the test ends.
func NewServer(t testing.TB, o Options) *Server {
	s := &Server{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/chat/completions" || r.Method != http.MethodPost {
			http.Error(w, `{"error":{"message":"unknown endpoint","type":"invalid_request_error"}}`, http.StatusNotFound)
			return
		}
		s.requests.Add(1)
		if o.Key != "" && r.Header.Get("Authorization") != "Bearer "+o.Key {
			writeError(w, 401, `{"error":{"message":"Incorrect API key provided.","type":"invalid_request_error","code":"invalid_api_key"}}`)
			return
		}
		if o.Status != 0 {
			writeError(w, o.Status, o.Body)
			return
		}
		var req struct {
			Model    string `json:"model"`
			Stream   bool   `json:"stream"`
			Messages []struct {
				Role    string `json:"role"`
				Content string `json:"content"`
			} `json:"messages"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			writeError(w, 400, `{"error":{"message":"invalid JSON body","type":"invalid_request_error"}}`)
			return
		}
		var system, user string
		for _, m := range req.Messages {
			switch m.Role {
			case "system":
				system = m.Content
			case "user":
				user = m.Content
			}
		}
		reply := o.Reply
		if o.Respond != nil {
			reply = o.Respond(system, user)
		}
		usage := map[string]int{"prompt_tokens": (len(system) + len(user)) / 4, "completion_tokens": len(strings.Fields(reply)), "total_tokens": 0}
		usage["total_tokens"] = usage["prompt_tokens"] + usage["completion_tokens"]
		if o.Stall && !req.Stream {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusOK)
			w.(http.Flusher).Flush()
			<-r.Context().Done()
			return
		}
		if !req.Stream {
			w.Header().Set("Content-Type", "application/json")
			json.NewEncoder(w).Encode(map[string]any{
				"id": "chatcmpl-fake", "object": "chat.completion", "created": 1, "model": req.Model,
				"choices": []any{map[string]any{"index": 0, "message": map[string]any{"role": "assistant", "content": reply}, "finish_reason": "stop"}},
				"usage":   usage,
			})
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		event := func(v any) {
			b, _ := json.Marshal(v)
			fmt.Fprintf(w, "data: %s\n\n", b)
			if f, ok := w.(http.Flusher); ok {
				f.Flush()
			}
		}
		chunk := func(delta map[string]any, finish any) map[string]any {
			return map[string]any{"id": "chatcmpl-fake", "object": "chat.completion.chunk", "created": 1, "model": req.Model,
				"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}}}
		}
		for len(reply) > 0 {
			n := min(len(reply), 5)
			event(chunk(map[string]any{"content": reply[:n]}, nil))
			reply = reply[n:]
			if o.Stall {
				<-r.Context().Done()
				return
			}
		}
		event(chunk(map[string]any{}, "stop"))
		event(map[string]any{"id": "chatcmpl-fake", "object": "chat.completion.chunk", "created": 1, "model": req.Model, "choices": []any{}, "usage": usage})
		io.WriteString(w, "data: [DONE]\n\n")
	}))
	t.Cleanup(s.Close)
	return s
}

func writeError(w http.ResponseWriter, status int, body string) {
	if json.Valid([]byte(body)) {
		w.Header().Set("Content-Type", "application/json")
	}
	w.WriteHeader(status)
	io.WriteString(w, body)
}
