// Package crossref is the client of Crossref's REST API (api.crossref.org):
// the record of a DOI (/works/{doi}) and a bibliographic search for a
// paper known by its title and authors (/works?query.bibliographic=). It
// asks as Crossref's etiquette wants: one request at a time, paced by the
// rate limit Crossref announces in its headers, in the polite pool when
// given an e-mail address (the mailto parameter and the User-Agent), with
// retries on 429 and 5xx honouring Retry-After.
package crossref

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/papers-cli/papers/internal/netlog"
	"github.com/papers-cli/papers/internal/retry"
)

// Purpose names Crossref's requests in the network ledger.
const Purpose = "crossref"

// Defaults applied to a Client's zero fields.
const (
	DefaultBaseURL   = "https://api.crossref.org"
	DefaultUserAgent = "papers (+https://github.com/papers-cli/papers)"
	// DefaultDelay is the gap between requests until Crossref's headers
	// say otherwise: its public pool allows 5 requests a second (2026).
	DefaultDelay   = 200 * time.Millisecond
	DefaultTimeout = time.Minute
	DefaultBackoff = time.Second
	DefaultTries   = 4
	// maxBody bounds one response (a work with its references is ~100 KB).
	maxBody = 16 << 20
	// maxRetryWait bounds one wait that Retry-After asks for.
	maxRetryWait = 2 * time.Minute
)

// ErrNotFound is wrapped by the error of a DOI Crossref does not know.
var ErrNotFound = errors.New("not found")

// NotFoundError is the error of Work for a DOI Crossref answers 404 for:
// one never registered, mistyped, or registered with another agency
// (DataCite: arXiv, Zenodo, figshare).
type NotFoundError struct{ DOI string }

func (e *NotFoundError) Error() string {
	return fmt.Sprintf("Crossref does not know the DOI %s", e.DOI)
}

// Is makes a *NotFoundError match ErrNotFound.
func (e *NotFoundError) Is(target error) bool { return target == ErrNotFound }

// StatusError is an answer Crossref gave that is neither a record nor a
// 404: a refused query (400, with Crossref's reason), or a server error
// that outlasted the retries.
type StatusError struct {
	URL    string
	Code   int
	Reason string // Crossref's message, when its body gives one
}

func (e *StatusError) Error() string {
	if e.Reason != "" {
		return fmt.Sprintf("Crossref answered %d to GET %s: %s", e.Code, e.URL, e.Reason)
	}
	return fmt.Sprintf("Crossref answered %d %s to GET %s", e.Code, http.StatusText(e.Code), e.URL)
}

// Client asks Crossref. Set its fields before the first request and do not
// change them afterwards; zero fields take the defaults above. A Client is
// safe for concurrent use: requests are sent one at a time (Crossref's
// concurrency limit is 1), each no sooner than the gap Crossref's
// x-rate-limit headers allow after the previous one started.
type Client struct {
	// HTTPClient sends every request: the caller's, so that one transport
	// (the network ledger, --offline) carries all of papers' requests.
	// Nil means a client of its own that no ledger records.
	HTTPClient *http.Client
	// BaseURL is the API's root; default DefaultBaseURL (the caller
	// applies PAPERS_CROSSREF_API_URL).
	BaseURL string
	// Mailto is the user's e-mail address: sent as mailto (and in the
	// User-Agent), it puts requests in Crossref's polite pool.
	Mailto    string
	UserAgent string
	// Delay is the least gap between the starts of two requests until
	// Crossref's headers announce its limit; zero means DefaultDelay, a
	// negative Delay no pacing at all (tests, private mirrors).
	Delay time.Duration
	// Timeout bounds one attempt; Backoff is the first retry's wait,
	// doubled for each further one (Retry-After replaces it); Tries
	// bounds the attempts of one request.
	Timeout time.Duration
	Backoff time.Duration
	Tries   int
	// Logf, if set, receives retry notices.
	Logf func(format string, args ...any)

	mu   sync.Mutex // held while a request is in flight
	next time.Time  // when the next request may start
	gap  time.Duration
}

func (c *Client) baseURL() string {
	if c.BaseURL == "" {
		return DefaultBaseURL
	}
	return strings.TrimRight(c.BaseURL, "/")
}

func (c *Client) userAgent() string {
	ua := c.UserAgent
	if ua == "" {
		ua = DefaultUserAgent
	}
	if c.Mailto != "" && !strings.Contains(ua, "mailto:") {
		ua = strings.TrimSuffix(ua, ")") + "; mailto:" + c.Mailto + ")"
		if !strings.Contains(ua, "(") {
			ua = strings.Replace(ua, "; mailto:", " (mailto:", 1)
		}
	}
	return ua
}

func orDuration(d, def time.Duration) time.Duration {
	if d <= 0 {
		return def
	}
	return d
}

// Work returns Crossref's record of a DOI (normalised or not). A DOI it
// does not know is a *NotFoundError.
func (c *Client) Work(ctx context.Context, doi string) (*Work, error) {
	doi = strings.TrimSpace(doi)
	if doi == "" {
		return nil, errors.New("look up a DOI in Crossref: empty DOI")
	}
	u := c.baseURL() + "/works/" + url.PathEscape(doi)
	if q := c.params(nil); len(q) > 0 {
		u += "?" + q.Encode()
	}
	var env struct {
		Status  string `json:"status"`
		Message *Work  `json:"message"`
	}
	err := c.get(ctx, u, &env)
	var se *StatusError
	if errors.As(err, &se) && se.Code == http.StatusNotFound {
		return nil, &NotFoundError{DOI: doi}
	}
	if err != nil {
		return nil, fmt.Errorf("look up %s in Crossref: %w", doi, err)
	}
	if env.Message == nil || env.Message.DOI == "" {
		return nil, fmt.Errorf("look up %s in Crossref: the answer holds no record", doi)
	}
	return env.Message, nil
}

// Query is a bibliographic search: the words of a reference (its title,
// typically) and, to narrow it, its authors' names.
type Query struct {
	Bibliographic string
	Author        string
	Rows          int // results wanted; default 5
}

// Search returns Crossref's best matches for q, best first, with their
// relevance scores. Crossref always answers with its nearest records, even
// for a paper it does not hold: the caller decides whether the first is
// the paper (see Similarity).
func (c *Client) Search(ctx context.Context, q Query) ([]Work, error) {
	if strings.TrimSpace(q.Bibliographic) == "" {
		return nil, errors.New("search Crossref: empty query")
	}
	rows := q.Rows
	if rows <= 0 {
		rows = 5
	}
	v := url.Values{"query.bibliographic": {q.Bibliographic}, "rows": {strconv.Itoa(rows)}}
	if q.Author != "" {
		v.Set("query.author", q.Author)
	}
	u := c.baseURL() + "/works?" + c.params(v).Encode()
	var env struct {
		Message struct {
			Items []Work `json:"items"`
		} `json:"message"`
	}
	if err := c.get(ctx, u, &env); err != nil {
		return nil, fmt.Errorf("search Crossref for %q: %w", q.Bibliographic, err)
	}
	return env.Message.Items, nil
}

func (c *Client) params(v url.Values) url.Values {
	if c.Mailto == "" {
		return v
	}
	if v == nil {
		v = url.Values{}
	}
	v.Set("mailto", c.Mailto)
	return v
}

// get fetches u and decodes its JSON body into out, retrying 429 and 5xx
// answers (honouring Retry-After) and failed connections.
func (c *Client) get(ctx context.Context, u string, out any) error {
	ctx = netlog.WithPurpose(ctx, Purpose)
	wait := orDuration(c.Backoff, DefaultBackoff)
	tries := c.Tries
	if tries <= 0 {
		tries = DefaultTries
	}
	for try := 1; ; try++ {
		after, hasAfter, err := c.attempt(ctx, u, out)
		if err == nil {
			return nil
		}
		if ctx.Err() != nil {
			return context.Cause(ctx)
		}
		transient := retryable(err)
		if !transient || try >= tries {
			if transient {
				return fmt.Errorf("%w (gave up after %d tries)", err, try)
			}
			return err
		}
		d := retry.Backoff(try-1, wait, maxRetryWait, &retry.Hint{After: after, Set: hasAfter})
		if c.Logf != nil {
			c.Logf("crossref: %v; retry %d of %d in %s", err, try, tries-1, d.Round(time.Millisecond))
		}
		if err := retry.Sleep(ctx, d); err != nil {
			return err
		}
	}
}

var errDecode = errors.New("not a Crossref answer")

// retryable says whether another try may succeed: a 429 or 5xx answer, a
// lost or slow connection; not a refused query, a body that is no
// Crossref answer, an unknown host, a refused connection (a wrong
// PAPERS_CROSSREF_API_URL) or a request --offline refused.
func retryable(err error) bool {
	var se *StatusError
	if errors.As(err, &se) {
		return se.Code == http.StatusTooManyRequests || se.Code >= 500
	}
	var dns *net.DNSError
	if errors.Is(err, errDecode) || errors.As(err, &dns) && dns.IsNotFound || errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, netlog.ErrOffline) {
		return false
	}
	return true
}

// attempt sends one request, paced, and decodes a 200's body.
func (c *Client) attempt(ctx context.Context, u string, out any) (after time.Duration, hasAfter bool, err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := retry.Sleep(ctx, time.Until(c.next)); err != nil {
		return 0, false, err
	}
	c.next = time.Now().Add(c.pace())
	actx, cancel := context.WithTimeout(ctx, orDuration(c.Timeout, DefaultTimeout))
	defer cancel()
	req, err := http.NewRequestWithContext(actx, http.MethodGet, u, nil)
	if err != nil {
		return 0, false, fmt.Errorf("build request for %s: %w", u, err)
	}
	req.Header.Set("User-Agent", c.userAgent())
	req.Header.Set("Accept", "application/json")
	hc := c.HTTPClient
	if hc == nil {
		hc = netlog.New(netlog.Options{}).Client() // unrecorded: the caller gave no ledger
	}
	resp, err := hc.Do(req)
	if err != nil {
		return 0, false, err
	}
	defer resp.Body.Close()
	c.learnPace(resp.Header)
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxBody+1))
	if err != nil {
		return 0, false, fmt.Errorf("read %s: %w", u, err)
	}
	if resp.StatusCode != http.StatusOK {
		after, hasAfter = retry.ParseRetryAfter(resp.Header.Get("Retry-After"), time.Now())
		return after, hasAfter, &StatusError{URL: u, Code: resp.StatusCode, Reason: reason(body)}
	}
	if len(body) > maxBody {
		return 0, false, fmt.Errorf("%w: GET %s: answer larger than %d MiB", errDecode, u, maxBody>>20)
	}
	if err := json.Unmarshal(body, out); err != nil {
		return 0, false, fmt.Errorf("%w: GET %s: %v", errDecode, u, err)
	}
	return 0, false, nil
}

// pace is the gap before the next request: Crossref's announced limit
// once known, else Delay.
func (c *Client) pace() time.Duration {
	switch {
	case c.Delay < 0:
		return 0
	case c.gap > 0:
		return max(c.gap, c.Delay)
	}
	return orDuration(c.Delay, DefaultDelay)
}

// learnPace reads Crossref's rate limit: x-rate-limit-limit requests per
// x-rate-limit-interval ("1s"); older answers spell them x-ratelimit-*.
func (c *Client) learnPace(h http.Header) {
	limit, interval := h.Get("X-Rate-Limit-Limit"), h.Get("X-Rate-Limit-Interval")
	if limit == "" {
		limit, interval = h.Get("X-Ratelimit-Limit"), h.Get("X-Ratelimit-Interval")
	}
	n, err := strconv.Atoi(strings.TrimSpace(limit))
	d, err2 := time.ParseDuration(strings.TrimSpace(interval))
	if err != nil || err2 != nil || n <= 0 || d <= 0 {
		return
	}
	c.gap = d / time.Duration(n)
}

// reason is Crossref's explanation in an error body: the message of its
// JSON envelope ({"status":"failed","message":[{"message":...}]}), or a
// short plain-text body ("Resource not found.").
func reason(body []byte) string {
	var env struct {
		Message json.RawMessage `json:"message"`
	}
	if json.Unmarshal(body, &env) == nil && len(env.Message) > 0 {
		var list []struct {
			Message string `json:"message"`
		}
		if json.Unmarshal(env.Message, &list) == nil && len(list) > 0 && list[0].Message != "" {
			return list[0].Message
		}
		var s string
		if json.Unmarshal(env.Message, &s) == nil {
			return s
		}
		var ex struct {
			Name string `json:"name"`
		}
		if json.Unmarshal(env.Message, &ex) == nil && ex.Name != "" {
			return ex.Name
		}
	}
	s := strings.TrimSpace(string(body))
	if len(s) > 200 || strings.ContainsAny(s, "<{") {
		return ""
	}
	return s
}
