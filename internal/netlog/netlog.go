// Package netlog is the one way papers reaches the network. A Transport is
// the http.RoundTripper every outbound client of a run takes (arXiv, PDF
// downloads, Crossref, model and embedding servers): it records each
// request in the library's network ledger (time, host, purpose, bytes each
// way, status, and for models the tokens) and, when offline, refuses every
// request before a connection is opened. It also owns the only dialer of
// the program (see Transport.base), so that under Offline no socket can be
// opened by any client built on it.
//
// What is recorded never holds a secret: no query string (where keys and
// tokens travel), no user info, no header, no body; the path of the URL is
// kept, the host with its port. Failures are recorded as a short kind
// ("timeout", "refused"), never as an error's text, which quotes the URL.
package netlog

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptrace"
	"sync"
	"sync/atomic"
	"time"
)

// ErrOffline is matched (errors.Is) by the error of every request a
// Transport refuses because it is offline.
var ErrOffline = errors.New("offline")

// OfflineError is the error of a request refused offline: it names where
// the request would have gone and why.
type OfflineError struct {
	Host    string // host[:port] of the request
	Purpose string // what the request was for ("arxiv api", "model"), may be empty
}

func (e *OfflineError) Error() string {
	what := e.Host
	if e.Purpose != "" {
		what = e.Purpose + " at " + e.Host
	}
	return fmt.Sprintf("offline: this needs the network (%s), and papers runs offline (--offline or PAPERS_OFFLINE=1)", what)
}

// Is matches ErrOffline.
func (e *OfflineError) Is(target error) bool { return target == ErrOffline }

// Options configure a Transport.
type Options struct {
	// Ledger is the ledger file that records every request (see
	// LedgerName); "" records nothing.
	Ledger string
	// Offline refuses every request with an *OfflineError, before any
	// connection is opened.
	Offline bool
	// Warn receives, once, why a request could not be recorded (a
	// read-only library, a full disk); the request itself goes on. Nil
	// discards it.
	Warn func(msg string)
	// Now is the clock of the records (default time.Now).
	Now func() time.Time
}

// Transport records and, offline, refuses requests. It is safe for
// concurrent use; build one per run (one per library session) and hand
// Client() (or the Transport) to every outbound client of the run.
type Transport struct {
	opts   Options
	base   http.RoundTripper
	ledger *ledger
	client *http.Client
}

var _ http.RoundTripper = (*Transport)(nil)

// New returns a Transport. It opens nothing: the ledger file is created by
// the first request recorded.
func New(o Options) *Transport {
	if o.Now == nil {
		o.Now = time.Now
	}
	t := &Transport{opts: o}
	t.base = newBase(o.Offline)
	if o.Ledger != "" {
		t.ledger = &ledger{path: o.Ledger, warn: o.Warn}
	}
	// No client timeout: requests are bounded by their contexts and by
	// each client's own limits (a streamed answer may rightly take minutes).
	t.client = &http.Client{Transport: t}
	return t
}

// Client returns the one HTTP client of the Transport.
func (t *Transport) Client() *http.Client { return t.client }

// Offline reports whether the Transport refuses every request.
func (t *Transport) Offline() bool { return t.opts.Offline }

// Ledger returns the path of the ledger file ("" when nothing is recorded).
func (t *Transport) Ledger() string {
	if t.ledger == nil {
		return ""
	}
	return t.ledger.path
}

// Close closes the ledger file. Requests after Close are still recorded
// (the file is opened again).
func (t *Transport) Close() error {
	if t.ledger == nil {
		return nil
	}
	return t.ledger.close()
}

// newBase is the program's only dialing transport. Offline, its dialer
// refuses too: the Transport refuses before it, and a proxy or a redirect
// cannot reach a socket either.
func newBase(offline bool) *http.Transport {
	dialer := &net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}
	dial := dialer.DialContext
	if offline {
		dial = func(ctx context.Context, network, addr string) (net.Conn, error) {
			return nil, &OfflineError{Host: addr}
		}
	}
	return &http.Transport{
		Proxy:               http.ProxyFromEnvironment,
		DialContext:         dial,
		ForceAttemptHTTP2:   true,
		MaxIdleConns:        16,
		MaxIdleConnsPerHost: 8, // embedders keep several requests in flight to one server
		IdleConnTimeout:     90 * time.Second,
		TLSHandshakeTimeout: 10 * time.Second,
		// A local model may load for a minute and a reply that is not
		// streamed arrives whole: each client bounds its own wait more
		// tightly; this is the last resort.
		ResponseHeaderTimeout: 5 * time.Minute,
	}
}

// RoundTrip sends req through the program's dialer and records it, or
// refuses it offline.
func (t *Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	tag := tagOf(req.Context())
	if t.opts.Offline {
		if req.Body != nil {
			req.Body.Close()
		}
		return nil, &OfflineError{Host: req.URL.Host, Purpose: tag.purpose}
	}
	rec := &Record{Time: t.opts.Now().UTC(), Method: req.Method, Host: req.URL.Host, Path: req.URL.Path, Purpose: tag.purpose}
	start := time.Now()
	// http.Transport sends an idempotent request again, once, when a
	// reused connection breaks before the response: each time it is
	// written is a request on the wire, and recorded.
	var written atomic.Int32
	trace := &httptrace.ClientTrace{WroteRequest: func(httptrace.WroteRequestInfo) { written.Add(1) }}
	req = req.WithContext(httptrace.WithClientTrace(req.Context(), trace))
	var sent *countingBody
	if req.Body != nil && req.Body != http.NoBody {
		sent = &countingBody{ReadCloser: req.Body}
		req.Body = sent
	}
	resp, err := t.base.RoundTrip(req)
	for range written.Load() - 1 {
		lost := *rec
		lost.Error = "reset"
		lost.Millis = time.Since(start).Milliseconds()
		t.record(&lost)
	}
	if sent != nil {
		rec.Sent = sent.count()
	}
	if err != nil {
		rec.Error = kindOf(req.Context(), err)
		rec.Millis = time.Since(start).Milliseconds()
		t.record(rec)
		return nil, err
	}
	rec.Status = resp.StatusCode
	resp.Body = &recordedBody{body: resp.Body, t: t, rec: rec, start: start, tokens: tag.tokens, sent: sent}
	return resp, nil
}

func (t *Transport) record(r *Record) {
	if t.ledger != nil {
		t.ledger.append(r)
	}
}

// countingBody counts the bytes of a request body as the transport reads it.
type countingBody struct {
	io.ReadCloser
	mu sync.Mutex
	n  int64
}

func (b *countingBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	b.mu.Lock()
	b.n += int64(n)
	b.mu.Unlock()
	return n, err
}

func (b *countingBody) count() int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.n
}

// Tail sizes kept of a response whose tokens are read (TokenReader).
const (
	headBytes = 1 << 10
	tailBytes = 8 << 10
)

// recordedBody counts a response body as the caller reads it and records
// the request once, at EOF, at an error or at Close, whichever comes first.
type recordedBody struct {
	body   io.ReadCloser
	t      *Transport
	rec    *Record
	start  time.Time
	tokens TokenReader
	sent   *countingBody

	mu         sync.Mutex
	n          int64
	head, tail []byte // kept only when tokens is set
	done       bool
}

func (b *recordedBody) Read(p []byte) (int, error) {
	n, err := b.body.Read(p)
	b.mu.Lock()
	b.n += int64(n)
	if b.tokens != nil && n > 0 {
		b.keep(p[:n])
	}
	b.mu.Unlock()
	if err != nil {
		if err != io.EOF {
			b.finish(kindOf(context.Background(), err))
		} else {
			b.finish("")
		}
	}
	return n, err
}

// keep holds the first headBytes and the last tailBytes of the body.
func (b *recordedBody) keep(p []byte) {
	if room := headBytes - len(b.head); room > 0 {
		b.head = append(b.head, p[:min(room, len(p))]...)
	}
	b.tail = append(b.tail, p...)
	if len(b.tail) > 2*tailBytes {
		b.tail = append(b.tail[:0], b.tail[len(b.tail)-tailBytes:]...)
	}
}

func (b *recordedBody) Close() error {
	err := b.body.Close()
	b.finish("")
	return err
}

func (b *recordedBody) finish(failure string) {
	b.mu.Lock()
	if b.done {
		b.mu.Unlock()
		return
	}
	b.done = true
	r := *b.rec
	r.Received = b.n
	r.Error = failure
	if b.sent != nil {
		r.Sent = b.sent.count() // a request body may be read after the headers came
	}
	if b.tokens != nil {
		tail := b.tail
		if len(tail) > tailBytes {
			tail = tail[len(tail)-tailBytes:]
		}
		if u, ok := b.tokens(b.head, tail); ok {
			r.Model, r.TokensIn, r.TokensOut = u.Model, u.In, u.Out
		}
	}
	b.head, b.tail = nil, nil
	b.mu.Unlock()
	r.Millis = time.Since(b.start).Milliseconds()
	b.t.record(&r)
}
