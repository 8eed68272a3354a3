// Package retry holds the pieces every HTTP client of papers uses to retry
// politely: reading Retry-After, waiting with jittered exponential backoff,
// and sleeping under a context. The arXiv client, the embedders and the
// language-model adapter share them so that they back off the same way.
package retry

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Sleep waits d or until ctx is done, returning the context's cause then.
// A non-positive d returns at once (with ctx.Err()).
func Sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return context.Cause(ctx)
	case <-t.C:
		return nil
	}
}

// ParseRetryAfter reads a Retry-After header: delay-seconds ("2", "0.5") or
// an HTTP date, relative to now. ok is false when v is absent or unreadable.
func ParseRetryAfter(v string, now time.Time) (d time.Duration, ok bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, false
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil && s >= 0 && !math.IsInf(s, 0) && !math.IsNaN(s) {
		return time.Duration(min(s, 1e9) * float64(time.Second)), true
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(t.Sub(now), 0), true
	}
	return 0, false
}

// Backoff is the wait before retry number attempt (0 for the first retry):
// the server's Retry-After when hint holds one, else base doubled per
// attempt plus up to 25% jitter; never more than maxWait.
func Backoff(attempt int, base, maxWait time.Duration, hint *Hint) time.Duration {
	if hint != nil && hint.Set {
		return min(hint.After, maxWait)
	}
	d := base << min(attempt, 20)
	d += time.Duration(rand.Int64N(int64(d/4) + 1))
	return min(d, maxWait)
}

// Hint carries the Retry-After of a failed response out of a client library
// that does not expose headers (go-openai): attach one to the request's
// context with WithHint and wrap the client's transport in Transport.
type Hint struct {
	After time.Duration
	Set   bool // the server sent a usable Retry-After (possibly 0)
}

type hintKey struct{}

// WithHint returns a context whose requests record their Retry-After in
// the returned Hint (through Transport).
func WithHint(ctx context.Context) (context.Context, *Hint) {
	h := &Hint{}
	return context.WithValue(ctx, hintKey{}, h), h
}

// Transport records the Retry-After of error responses (status >= 400) in
// the Hint of the request's context, if it has one. Base sends the
// requests (the run's transport, internal/netlog); it must be set.
type Transport struct{ Base http.RoundTripper }

// RoundTrip implements http.RoundTripper.
func (t Transport) RoundTrip(r *http.Request) (*http.Response, error) {
	if t.Base == nil {
		return nil, errors.New("retry.Transport has no Base transport")
	}
	resp, err := t.Base.RoundTrip(r)
	if err == nil && resp.StatusCode >= 400 {
		if h, ok := r.Context().Value(hintKey{}).(*Hint); ok {
			h.After, h.Set = ParseRetryAfter(resp.Header.Get("Retry-After"), time.Now())
		}
	}
	return resp, err
}
