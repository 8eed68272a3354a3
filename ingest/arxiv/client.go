package arxiv

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/papers-cli/papers/internal/netlog"
	"github.com/papers-cli/papers/internal/retry"
)

// The purposes of the client's requests in the network ledger.
const (
	PurposeAPI = "arxiv api"
	PurposePDF = "arxiv pdf"
)

// Defaults applied by New and, for zero fields, by every method.
const (
	DefaultAPIURL      = "https://export.arxiv.org/api/query"
	DefaultPDFURL      = "https://arxiv.org/pdf/"
	DefaultDelay       = 3 * time.Second
	DefaultUserAgent   = "papers/0.1 (+https://github.com/papers-cli/papers)"
	DefaultMaxPDFBytes = 100 << 20
	DefaultPageSize    = 100
	DefaultTimeout     = 2 * time.Minute
	DefaultBackoff     = 2 * time.Second
	DefaultMaxTries    = 4
	// DefaultHeaderTimeout bounds the wait for a response's headers, and
	// DefaultIdleTimeout the wait for each further piece of its body.
	DefaultHeaderTimeout = 30 * time.Second
	DefaultIdleTimeout   = 30 * time.Second
	// DefaultMaxElapsed bounds one call, all its tries and waits.
	DefaultMaxElapsed = 3 * time.Minute

	// MaxPageSize is the largest max_results arXiv honours in one call.
	MaxPageSize = 2000
	// lookupBatch is how many ids go in one id_list request.
	lookupBatch = 100
	// maxFeedBytes bounds one API response body (2000 entries are ~10 MB).
	maxFeedBytes = 64 << 20
	// maxRetryWait bounds how long one Retry-After or backoff may stall us.
	maxRetryWait = 5 * time.Minute
)

// Client talks to the arXiv API and PDF server politely: every request,
// API or PDF, goes through one pacer, so a Client never has more than one
// request in flight and starts a request no sooner than Delay after the
// previous one ended. Transient failures (429, 5xx, transport errors other
// than an unknown host or a refused connection, timeouts, suspicious empty pages) are retried with exponential backoff,
// honouring Retry-After, at most MaxTries times.
//
// Use New, or a zero Client: zero fields take the defaults above when used.
// Set fields before the first request and do not change them afterwards.
// A Client is safe for concurrent use (requests are serialised) and must not
// be copied after first use. Share one Client per process so the pacing
// holds across commands running in it.
type Client struct {
	// APIURL is the query endpoint; default DefaultAPIURL. The caller
	// applies PAPERS_ARXIV_API_URL.
	APIURL string
	// PDFURL is the prefix a PDF's id (with version) is appended to;
	// default DefaultPDFURL.
	PDFURL string
	// Delay is the minimum gap between the end of one request and the start
	// of the next (so also between the starts of any two requests), API
	// and PDF alike. Zero means DefaultDelay (3s, arXiv's terms of use);
	// a negative Delay disables pacing (for tests and private mirrors).
	Delay time.Duration
	// UserAgent is sent on every request; default DefaultUserAgent.
	UserAgent string
	// MaxPDFBytes caps a PDF download; default DefaultMaxPDFBytes (100 MiB).
	MaxPDFBytes int64
	// PageSize is how many results one search request asks for; default
	// 100, at most MaxPageSize.
	PageSize int
	// Timeout bounds one attempt, including reading its body; default
	// DefaultTimeout. The ctx passed to each method bounds the whole call.
	Timeout time.Duration
	// HeaderTimeout bounds the wait for the response to start (a server
	// that accepts the connection and never answers); IdleTimeout the wait
	// for each further piece of the body (a stalled download). Defaults
	// DefaultHeaderTimeout and DefaultIdleTimeout. Both are retried.
	HeaderTimeout, IdleTimeout time.Duration
	// MaxElapsed bounds one call with all its tries and the backoff between
	// them (default DefaultMaxElapsed): no further try starts that could
	// not begin within it. A server that accepts and never answers thus
	// costs at most MaxTries x HeaderTimeout plus backoff (2 min 14 s by
	// default, where it took MaxTries x Timeout, 8 min). Waits the server
	// asks for with Retry-After (each at most 5 min) are not counted.
	MaxElapsed time.Duration
	// Backoff is the wait before the first retry, doubled for each further
	// retry; default DefaultBackoff. A Retry-After header replaces it.
	Backoff time.Duration
	// MaxTries bounds the attempts per request; default DefaultMaxTries.
	MaxTries int
	// HTTPClient sends the requests: the run's one client, which records
	// them in the network ledger and refuses them offline (internal/netlog).
	// Nil uses a client of its own that records nothing. Requests are one
	// at a time whatever the client (see the pacing above); timeouts come
	// from ctx and Timeout, not from the client.
	HTTPClient *http.Client
	// Logf, if set, receives retry notices.
	Logf func(format string, args ...any)

	once sync.Once
	gate chan struct{} // holds one token while a request is in flight
	last time.Time     // end of the previous request; guarded by gate
	hc   *http.Client
}

// New returns a Client with every default filled in.
func New() *Client {
	return &Client{
		APIURL:      DefaultAPIURL,
		PDFURL:      DefaultPDFURL,
		Delay:       DefaultDelay,
		UserAgent:   DefaultUserAgent,
		MaxPDFBytes: DefaultMaxPDFBytes,
		PageSize:    DefaultPageSize,
		Timeout:     DefaultTimeout,
		Backoff:     DefaultBackoff,
		MaxTries:    DefaultMaxTries,
	}
}

func (c *Client) init() {
	c.once.Do(func() {
		c.gate = make(chan struct{}, 1)
		c.hc = c.HTTPClient
		if c.hc == nil {
			c.hc = netlog.New(netlog.Options{}).Client()
		}
	})
}

func (c *Client) apiURL() string    { return orDefault(c.APIURL, DefaultAPIURL) }
func (c *Client) pdfURL() string    { return orDefault(c.PDFURL, DefaultPDFURL) }
func (c *Client) userAgent() string { return orDefault(c.UserAgent, DefaultUserAgent) }

func (c *Client) delay() time.Duration {
	switch {
	case c.Delay < 0:
		return 0
	case c.Delay == 0:
		return DefaultDelay
	}
	return c.Delay
}

func (c *Client) maxPDFBytes() int64 {
	if c.MaxPDFBytes <= 0 {
		return DefaultMaxPDFBytes
	}
	return c.MaxPDFBytes
}

func (c *Client) pageSize() int {
	switch {
	case c.PageSize <= 0:
		return DefaultPageSize
	case c.PageSize > MaxPageSize:
		return MaxPageSize
	}
	return c.PageSize
}

func (c *Client) timeout() time.Duration {
	if c.Timeout <= 0 {
		return DefaultTimeout
	}
	return c.Timeout
}

func (c *Client) headerTimeout() time.Duration {
	return orDefaultDuration(c.HeaderTimeout, DefaultHeaderTimeout)
}
func (c *Client) idleTimeout() time.Duration {
	return orDefaultDuration(c.IdleTimeout, DefaultIdleTimeout)
}
func (c *Client) maxElapsed() time.Duration {
	return orDefaultDuration(c.MaxElapsed, DefaultMaxElapsed)
}

func orDefaultDuration(d, def time.Duration) time.Duration {
	if d <= 0 {
		return def
	}
	return d
}

func (c *Client) backoff() time.Duration {
	if c.Backoff <= 0 {
		return DefaultBackoff
	}
	return c.Backoff
}

func (c *Client) maxTries() int {
	if c.MaxTries <= 0 {
		return DefaultMaxTries
	}
	return c.MaxTries
}

func (c *Client) logf(format string, args ...any) {
	if c.Logf != nil {
		c.Logf(format, args...)
	}
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// acquire takes the single request slot and waits out Delay since the end
// of the previous request. The caller must call release when its request,
// body included, is done.
func (c *Client) acquire(ctx context.Context) error {
	c.init()
	select {
	case c.gate <- struct{}{}:
	case <-ctx.Done():
		return context.Cause(ctx)
	}
	if d := c.delay(); d > 0 && !c.last.IsZero() {
		if wait := time.Until(c.last.Add(d)); wait > 0 {
			if err := retry.Sleep(ctx, wait); err != nil {
				<-c.gate
				return err
			}
		}
	}
	return nil
}

func (c *Client) release() {
	c.last = time.Now()
	<-c.gate
}

// retryableError marks a failure worth another attempt.
type retryableError struct {
	err        error
	retryAfter time.Duration // from a Retry-After header
	hasAfter   bool
}

func (e *retryableError) Error() string { return e.err.Error() }
func (e *retryableError) Unwrap() error { return e.err }

func retryable(err error) error { return &retryableError{err: err} }

// get fetches u, retrying transient failures, and hands each successful
// (200) response to fn. fn may return a *retryableError to ask for another
// attempt. The response body is drained and closed by get.
func (c *Client) get(ctx context.Context, u string, fn func(*http.Response) error) error {
	wait := c.backoff()
	began := time.Now()
	var asked time.Duration // waits the server asked for (Retry-After): outside MaxElapsed
	for try := 1; ; try++ {
		err := c.attempt(ctx, u, fn)
		if err == nil {
			return nil
		}
		if ctx.Err() != nil {
			return context.Cause(ctx)
		}
		var r *retryableError
		if !errors.As(err, &r) {
			return err
		}
		if try >= c.maxTries() {
			return fmt.Errorf("%w (gave up after %d tries)", r.err, try)
		}
		w := wait
		if r.hasAfter {
			w = r.retryAfter
		}
		w = min(w, maxRetryWait)
		if spent := time.Since(began) - asked; !r.hasAfter && spent+w >= c.maxElapsed() {
			return fmt.Errorf("%w (gave up after %d tries in %s)", r.err, try, spent.Round(time.Second))
		}
		if r.hasAfter {
			asked += w
		}
		c.logf("arxiv: %v; retry %d of %d in %s", r.err, try, c.maxTries()-1, w)
		if err := retry.Sleep(ctx, w); err != nil {
			return err
		}
		wait *= 2
	}
}

func (c *Client) attempt(ctx context.Context, u string, fn func(*http.Response) error) error {
	if err := c.acquire(ctx); err != nil {
		return err
	}
	defer c.release()
	// Each limit cancels the attempt with its own cause, so that the error
	// says which one (not "context canceled", nor a lost connection).
	actx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	whole := time.AfterFunc(c.timeout(), func() {
		cancel(fmt.Errorf("%w: GET %s: not finished within %s", ErrSlow, u, c.timeout()))
	})
	defer whole.Stop()
	head := time.AfterFunc(c.headerTimeout(), func() {
		cancel(fmt.Errorf("%w: GET %s: no answer within %s of sending the request", ErrSlow, u, c.headerTimeout()))
	})
	req, err := http.NewRequestWithContext(actx, http.MethodGet, u, nil)
	if err != nil {
		head.Stop()
		return fmt.Errorf("build request for %s: %w", u, err)
	}
	req.Header.Set("User-Agent", c.userAgent())
	resp, err := c.hc.Do(req)
	head.Stop()
	if err != nil {
		if ctx.Err() != nil {
			return context.Cause(ctx)
		}
		if cause := context.Cause(actx); cause != nil {
			return retryable(cause)
		}
		var dns *net.DNSError
		if errors.As(err, &dns) && dns.IsNotFound {
			return err // the host does not exist: another try will not find it
		}
		if errors.Is(err, netlog.ErrOffline) {
			return err // refused by --offline: no try will go out
		}
		if errors.Is(err, syscall.ECONNREFUSED) {
			return err // nothing listens there (offline, a wrong mirror): no use waiting
		}
		return retryable(err) // *url.Error names the method and URL
	}
	resp.Body = newIdleBody(resp.Body, actx, c.idleTimeout(), func(n int64) {
		cancel(fmt.Errorf("%w: GET %s: no data for %s after %d bytes", ErrSlow, u, c.idleTimeout(), n))
	})
	defer func() {
		// Drain a little so the connection can be reused.
		_, _ = io.CopyN(io.Discard, resp.Body, 64<<10)
		resp.Body.Close()
	}()
	switch resp.StatusCode {
	case http.StatusOK:
		return fn(resp)
	case http.StatusTooManyRequests, http.StatusInternalServerError, http.StatusBadGateway,
		http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		r := &retryableError{err: &StatusError{URL: u, Code: resp.StatusCode}}
		r.retryAfter, r.hasAfter = retry.ParseRetryAfter(resp.Header.Get("Retry-After"), time.Now())
		return r
	case http.StatusBadRequest:
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
		if _, err := ParseFeed(bytes.NewReader(body)); err != nil {
			var apiErr *APIError
			if errors.As(err, &apiErr) {
				return apiErr
			}
		}
	}
	return &StatusError{URL: u, Code: resp.StatusCode}
}

// ErrSlow is wrapped by the error of an attempt that a server accepted but
// did not answer in time: no response within HeaderTimeout, no data for
// IdleTimeout, or not finished within Timeout. It is retried.
var ErrSlow = errors.New("too slow")

// idleBody is a response body that calls stall (which cancels the
// request) when no byte arrives for d.
type idleBody struct {
	io.ReadCloser
	ctx   context.Context
	timer *time.Timer
	d     time.Duration
	n     int64
}

func newIdleBody(r io.ReadCloser, ctx context.Context, d time.Duration, stall func(n int64)) *idleBody {
	b := &idleBody{ReadCloser: r, ctx: ctx, d: d}
	b.timer = time.AfterFunc(d, func() { stall(atomic.LoadInt64(&b.n)) })
	return b
}

func (b *idleBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if n > 0 {
		atomic.AddInt64(&b.n, int64(n))
		b.timer.Reset(b.d)
	}
	if err != nil && err != io.EOF {
		if cause := context.Cause(b.ctx); cause != nil && errors.Is(cause, ErrSlow) {
			err = cause // why the read failed: the server stalled, the connection is fine
		}
	}
	return n, err
}

func (b *idleBody) Close() error {
	b.timer.Stop()
	return b.ReadCloser.Close()
}

// query fetches and parses one API page. If suspicious(feed) holds, the
// page is fetched once more and the second answer is believed: arXiv
// returns empty pages under load.
func (c *Client) query(ctx context.Context, params url.Values, suspicious func(*Feed) bool) (*Feed, error) {
	u := c.apiURL()
	if strings.Contains(u, "?") {
		u += "&" + params.Encode()
	} else {
		u += "?" + params.Encode()
	}
	ctx = netlog.WithPurpose(ctx, PurposeAPI)
	var feed *Feed
	fetch := func() error {
		return c.get(ctx, u, func(resp *http.Response) error {
			body, err := io.ReadAll(io.LimitReader(resp.Body, maxFeedBytes+1))
			if err != nil {
				return retryable(fmt.Errorf("read %s: %w", u, err))
			}
			if len(body) > maxFeedBytes {
				return fmt.Errorf("read %s: response larger than %d MiB", u, maxFeedBytes>>20)
			}
			f, err := ParseFeed(bytes.NewReader(body))
			if err != nil {
				var apiErr *APIError
				if errors.As(err, &apiErr) {
					return err
				}
				// A 200 that is not a feed is a glitch (an HTML error
				// page under load): worth another try.
				return retryable(fmt.Errorf("GET %s: %w", u, err))
			}
			feed = f
			return nil
		})
	}
	if err := fetch(); err != nil {
		return nil, err
	}
	if suspicious != nil && suspicious(feed) {
		c.logf("arxiv: empty page (start %d of %d results); asking once more", feed.StartIndex, feed.TotalResults)
		if err := fetch(); err != nil {
			return nil, err
		}
	}
	for _, why := range feed.Skipped {
		c.logf("warning: arxiv: skipped an entry it could not read, the rest of the page is kept: %s", why)
	}
	return feed, nil
}

// Search runs an arXiv search_query (e.g. `ti:"tool use" AND cat:cs.CL`)
// sorted by submission date, newest first, and returns at most max entries.
// It pages with start/max_results (PageSize per request) until max entries
// are collected or totalResults is exhausted. An entry repeated across pages
// (new submissions shift the pages while we read them) is kept once. An
// empty first page, or an empty page while totalResults says more remain,
// is asked for once more before it is believed. On error, the entries
// gathered before it are returned with it.
func (c *Client) Search(ctx context.Context, query string, max int) ([]Entry, error) {
	if strings.TrimSpace(query) == "" {
		return nil, errors.New("search arxiv: empty query")
	}
	if max <= 0 {
		return nil, fmt.Errorf("search arxiv for %q: max must be positive, got %d", query, max)
	}
	var out []Entry
	seen := map[string]bool{}
	for start := 0; start < max; {
		n := min(c.pageSize(), max-start)
		params := url.Values{
			"search_query": {query},
			"sortBy":       {"submittedDate"},
			"sortOrder":    {"descending"},
			"start":        {strconv.Itoa(start)},
			"max_results":  {strconv.Itoa(n)},
		}
		f, err := c.query(ctx, params, func(f *Feed) bool { return f.emptyButMore(start) })
		if err != nil {
			return out, fmt.Errorf("search arxiv for %q (start %d): %w", query, start, err)
		}
		for _, e := range f.Entries {
			if !seen[e.ID] {
				seen[e.ID] = true
				out = append(out, e)
			}
		}
		if f.Read() == 0 {
			if start < f.TotalResults {
				c.logf("arxiv: page at %d of %d results stayed empty; stopping with %d entries", start, f.TotalResults, len(out))
			}
			break
		}
		start += f.Read()
		if start >= f.TotalResults {
			break
		}
	}
	if len(out) > max {
		out = out[:max]
	}
	return out, nil
}

// Count returns arXiv's totalResults for query, fetching at most one entry.
// It is meant for counting submissions in date ranges, e.g.
// `(cat:cs.CL AND abs:agent) AND submittedDate:[202601010000 TO 202601312359]`.
// A count of 0 is believed; a page without its entry while the count says
// there are results is asked for once more.
func (c *Client) Count(ctx context.Context, query string) (int, error) {
	if strings.TrimSpace(query) == "" {
		return 0, errors.New("count arxiv results: empty query")
	}
	params := url.Values{
		"search_query": {query},
		"start":        {"0"},
		"max_results":  {"1"},
	}
	f, err := c.query(ctx, params, func(f *Feed) bool { return f.emptyButMore(0) })
	if err != nil {
		return 0, fmt.Errorf("count arxiv results for %q: %w", query, err)
	}
	return f.TotalResults, nil
}

// Lookup fetches the entries of ids (any form ParseID accepts; a version
// selects that version, no version gives the latest), 100 per request.
// An id arXiv does not know is simply absent from the result: the caller
// reports it as not found. Entries come in arXiv's order, one per distinct
// id. A malformed id is an error before any request is sent. A batch
// that comes back empty although totalResults counts results is asked for
// once more; one with totalResults 0 (no id known) is believed. On
// error, the entries of the batches before it are returned with it.
func (c *Client) Lookup(ctx context.Context, ids []string) ([]Entry, error) {
	var list []string
	seen := map[string]bool{}
	for _, s := range ids {
		id, v, err := ParseID(s)
		if err != nil {
			return nil, fmt.Errorf("look up arxiv ids: %w", err)
		}
		idv := idWithVersion(id, v)
		if !seen[idv] {
			seen[idv] = true
			list = append(list, idv)
		}
	}
	var out []Entry
	for len(list) > 0 {
		batch := list[:min(lookupBatch, len(list))]
		list = list[len(batch):]
		params := url.Values{
			"id_list":     {strings.Join(batch, ",")},
			"start":       {"0"},
			"max_results": {strconv.Itoa(len(batch))},
		}
		f, err := c.query(ctx, params, func(f *Feed) bool { return f.emptyButMore(0) })
		if err != nil {
			return out, fmt.Errorf("look up arxiv ids %s: %w", describeIDs(batch), err)
		}
		out = append(out, f.Entries...)
	}
	return out, nil
}

func describeIDs(ids []string) string {
	if len(ids) <= 3 {
		return strings.Join(ids, ", ")
	}
	return fmt.Sprintf("%s, ... (%d ids)", strings.Join(ids[:3], ", "), len(ids))
}
