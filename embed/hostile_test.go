package embed

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// Hostile embedding servers: each ends in a clear error from a configured
// bound, never in the test's own timeout.

// A server that accepts and never answers fails after Timeout, tried once
// more, with an error naming the server.
func TestEmbeddingServerThatNeverAnswers(t *testing.T) {
	s := &openAIServer{reply: func(w http.ResponseWriter, r *http.Request, n int32) bool {
		<-r.Context().Done()
		return true
	}}
	ts := newServer(t, s)
	e := newClient(t, ts.URL, func(o *OpenAIOptions) { o.Timeout = 100 * time.Millisecond; o.MaxRetryWait = 10 * time.Millisecond })
	for _, call := range []func() error{
		func() error { _, err := e.EmbedQuery(t.Context(), "q"); return err },
		func() error { _, err := e.EmbedDocuments(t.Context(), []string{"a", "b"}); return err },
	} {
		s.calls.Store(0)
		err := call()
		if !errors.Is(err, ErrTimeout) {
			t.Fatalf("error %v, want ErrTimeout", err)
		}
		if !strings.Contains(err.Error(), ts.URL) || !strings.Contains(err.Error(), "gave up after 2 attempts") {
			t.Errorf("error %q: want the server named and the attempts counted", err)
		}
		if n := s.calls.Load(); n != 2 {
			t.Errorf("%d requests, want 2 (a timeout is tried once more)", n)
		}
	}
}

// Replies that are not usable vectors say what is wrong with them.
func TestUnusableVectors(t *testing.T) {
	// one number more than accepted: the bound itself, not a size that
	// costs the JSON decoder seconds under the race detector
	huge := "[" + strings.Repeat("0.001,", MaxDimensions) + "0.001]"
	for _, tc := range []struct {
		name, body, msg string
	}{
		{"NaN literal", `{"object":"list","data":[{"index":0,"embedding":[NaN,0.5]}]}`, "invalid character"},
		{"NaN string", `{"object":"list","data":[{"index":0,"embedding":["NaN",0.5]}]}`, "unmarshal"},
		{"overflowing float32", `{"object":"list","data":[{"index":0,"embedding":[1e39,0.5]}]}`, "unmarshal"},
		{"one dimension too many", `{"object":"list","data":[{"index":0,"embedding":` + huge + `}]}`, fmt.Sprintf("%d dimensions", MaxDimensions+1)},
		{"no vectors", `{"object":"list","data":[]}`, "0 vectors for 1 inputs"},
		{"empty vector", `{"object":"list","data":[{"index":0,"embedding":[]}]}`, "empty vector"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := &openAIServer{reply: func(w http.ResponseWriter, r *http.Request, n int32) bool {
				w.Header().Set("Content-Type", "application/json")
				io.WriteString(w, tc.body)
				return true
			}}
			ts := newServer(t, s)
			e := newClient(t, ts.URL, nil)
			_, err := e.EmbedQuery(t.Context(), "q")
			if !errors.Is(err, ErrBadReply) || errors.Is(err, ErrUnreachable) {
				t.Fatalf("error %v, want ErrBadReply", err)
			}
			if !strings.Contains(err.Error(), tc.msg) {
				t.Errorf("error %q does not say %q", err, tc.msg)
			}
			if n := s.calls.Load(); n != 1 {
				t.Errorf("%d requests: a bad reply is not retried", n)
			}
		})
	}
}

// An endless reply is refused once its cap is read.
func TestEndlessEmbeddingReply(t *testing.T) {
	const serverCap = 1 << 30
	var sent int64
	done := make(chan struct{})
	s := &openAIServer{reply: func(w http.ResponseWriter, r *http.Request, n int32) bool {
		defer close(done)
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"object":"list","data":[{"index":0,"embedding":[`)
		chunk := strings.Repeat("0.5,", 4096)
		for sent < serverCap {
			k, err := io.WriteString(w, chunk)
			sent += int64(k)
			if err != nil {
				break
			}
		}
		return true
	}}
	ts := newServer(t, s)
	e := newClient(t, ts.URL, func(o *OpenAIOptions) { o.BatchSize = 1 })
	_, err := e.EmbedQuery(t.Context(), "q")
	if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "exceeded") {
		t.Fatalf("error %v, want ErrTooLarge", err)
	}
	<-done
	if sent >= serverCap {
		t.Errorf("the client read all %d bytes", sent)
	}
	t.Log(fmt.Sprintf("server wrote %d bytes before the client hung up", sent))
}
