package openaicompat

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"
)

// TooLargeError is the error of a reply longer than its cap: a body over
// Config.MaxBody, an answer over its caller's limit, a vector of absurd
// dimensions.
type TooLargeError struct {
	What  string // "reply", "answer", "embedding"
	Limit int64  // the cap, in Unit
	Unit  string // "bytes", "dimensions"
}

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("the %s exceeded %d %s", e.What, e.Limit, e.Unit)
}

// capTransport caps the bytes read of every response body.
type capTransport struct {
	base http.RoundTripper
	max  int64
}

func (t capTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := t.base.RoundTrip(r)
	if err == nil {
		resp.Body = &cappedBody{rc: resp.Body, left: t.max, max: t.max}
	}
	return resp, err
}

type cappedBody struct {
	rc        io.ReadCloser
	left, max int64
}

func (b *cappedBody) Read(p []byte) (int, error) {
	if b.left <= 0 {
		// One byte more tells a body of exactly max bytes from a longer one.
		var one [1]byte
		if n, _ := b.rc.Read(one[:]); n > 0 {
			return 0, &TooLargeError{What: "reply", Limit: b.max, Unit: "bytes"}
		}
		return b.rc.Read(p[:0])
	}
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.rc.Read(p)
	b.left -= int64(n)
	return n, err
}

func (b *cappedBody) Close() error { return b.rc.Close() }

// TimeoutError is the cause of a request a Watchdog stopped.
type TimeoutError struct {
	What  string        // the server: "model server", "embedding server"
	URL   string        // its base URL, without credentials
	Phase string        // what did not come in time: "first token", "next token", "reply"
	After time.Duration // the limit
}

func (e *TimeoutError) Error() string {
	return fmt.Sprintf("the %s at %s sent no %s for %s", e.What, e.URL, e.Phase, e.After)
}

// Timeout reports true: a TimeoutError is a net.Error-style timeout.
func (e *TimeoutError) Timeout() bool { return true }

// Watchdog cancels a request's context when it is not fed in time: the
// time to the first token, then the idle time between tokens, or the time
// of a whole reply. Safe for concurrent use.
type Watchdog struct {
	cancel context.CancelCauseFunc
	ctx    context.Context
	mu     sync.Mutex
	timer  *time.Timer
	fired  *TimeoutError
}

// Watch returns a context that is cancelled, with cause, when d passes
// before the next Feed (d <= 0 never fires). Call Stop when done.
func Watch(ctx context.Context, d time.Duration, cause *TimeoutError) (context.Context, *Watchdog) {
	wctx, cancel := context.WithCancelCause(ctx)
	w := &Watchdog{cancel: cancel, ctx: wctx}
	w.Feed(d, cause)
	return wctx, w
}

// Feed restarts the clock: the next deadline is d from now, with cause.
func (w *Watchdog) Feed(d time.Duration, cause *TimeoutError) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.timer != nil {
		w.timer.Stop()
		w.timer = nil
	}
	if d <= 0 || w.fired != nil {
		return
	}
	cause.After = d
	w.timer = time.AfterFunc(d, func() {
		w.mu.Lock()
		if w.fired == nil {
			w.fired = cause
		}
		w.mu.Unlock()
		w.cancel(cause)
	})
}

// Err returns the watchdog's TimeoutError when it fired, else err: the
// request's own error (a context error) says less than why it was stopped.
func (w *Watchdog) Err(err error) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.fired != nil && err != nil {
		return w.fired
	}
	return err
}

// Stop releases the watchdog and its context.
func (w *Watchdog) Stop() {
	w.mu.Lock()
	if w.timer != nil {
		w.timer.Stop()
	}
	w.mu.Unlock()
	w.cancel(context.Canceled)
}
