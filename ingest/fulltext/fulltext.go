// Package fulltext finds and downloads the open-access PDF of a paper
// known by its DOI: the PDF link its publisher deposited with Crossref,
// else the one its landing page names (the citation_pdf_url meta tag that
// Google Scholar reads, which most publishers print), reached through the
// DOI resolver. A download is checked to be a whole PDF before it is kept.
package fulltext

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"html"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/papers-cli/papers/internal/lazyre"
	"github.com/papers-cli/papers/internal/netlog"
)

// Defaults applied to a Client's zero fields.
const (
	DefaultResolver = "https://doi.org/"
	DefaultMaxBytes = 100 << 20
	DefaultTimeout  = 2 * time.Minute
	maxPageBytes    = 4 << 20
)

// The purposes of the requests in the network ledger.
const (
	PurposeLanding = "doi landing page"
	PurposePDF     = "doi pdf"
)

// ErrNoPDF is wrapped by FindPDF's error when neither Crossref's record
// nor the landing page names a PDF anyone may read.
var ErrNoPDF = errors.New("no open-access PDF found")

// ErrNotPDF is wrapped by Download's error for an answer that is not a
// whole PDF (an HTML login page, a truncated file).
var ErrNotPDF = errors.New("not a PDF")

// Client fetches landing pages and PDFs, one request at a time from its
// caller's loop. Zero fields take the defaults above.
type Client struct {
	// HTTPClient sends every request: the caller's (the session's, so the
	// network ledger and --offline hold). nil: a client of its own that no ledger records.
	HTTPClient *http.Client
	// Resolver is the DOI resolver a landing page is reached through
	// (default DefaultResolver; the caller applies PAPERS_DOI_URL).
	Resolver  string
	UserAgent string
	// MaxBytes caps a PDF; Timeout bounds one request.
	MaxBytes int64
	Timeout  time.Duration
}

func (c *Client) hc() *http.Client {
	if c.HTTPClient == nil {
		return netlog.New(netlog.Options{}).Client() // unrecorded: the caller gave no ledger
	}
	return c.HTTPClient
}

func (c *Client) get(ctx context.Context, u, accept string) (*http.Response, context.CancelFunc, error) {
	timeout := c.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		cancel()
		return nil, nil, err
	}
	if c.UserAgent != "" {
		req.Header.Set("User-Agent", c.UserAgent)
	}
	req.Header.Set("Accept", accept)
	resp, err := c.hc().Do(req)
	if err != nil {
		cancel()
		return nil, nil, err
	}
	if resp.StatusCode != http.StatusOK {
		resp.Body.Close()
		cancel()
		return nil, nil, fmt.Errorf("GET %s: %s", u, resp.Status)
	}
	return resp, cancel, nil
}

// FindPDF returns the address of the paper's PDF: deposited (Crossref's
// links, given by the caller, first), else the landing page's
// citation_pdf_url. A landing page that names none is an error wrapping
// ErrNoPDF.
func (c *Client) FindPDF(ctx context.Context, doi string, deposited []string) (string, error) {
	for _, u := range deposited {
		if strings.HasPrefix(u, "http://") || strings.HasPrefix(u, "https://") {
			return u, nil
		}
	}
	res := c.Resolver
	if res == "" {
		res = DefaultResolver
	}
	landing := strings.TrimSuffix(res, "/") + "/" + doi
	resp, cancel, err := c.get(netlog.WithPurpose(ctx, PurposeLanding), landing, "text/html,application/xhtml+xml")
	if err != nil {
		return "", fmt.Errorf("the landing page of %s: %w", doi, err)
	}
	defer cancel()
	defer resp.Body.Close()
	page, err := io.ReadAll(io.LimitReader(resp.Body, maxPageBytes))
	if err != nil {
		return "", fmt.Errorf("read the landing page of %s: %w", doi, err)
	}
	if u := citationPDF(page, resp.Request.URL); u != "" {
		return u, nil
	}
	return "", fmt.Errorf("%w for %s: Crossref lists none, and its landing page %s names none", ErrNoPDF, doi, resp.Request.URL)
}

var metaTag = lazyre.New(`(?is)<meta\b[^>]*>`)
var attr = lazyre.New(`(?is)\b(name|content)\s*=\s*("[^"]*"|'[^']*'|[^\s>]+)`)

// citationPDF is the citation_pdf_url of an HTML page, resolved against
// base, or "".
func citationPDF(page []byte, base *url.URL) string {
	for _, m := range metaTag.FindAll(page, -1) {
		var name, content string
		for _, a := range attr.FindAllSubmatch(m, -1) {
			v := strings.Trim(string(a[2]), `"'`)
			if strings.EqualFold(string(a[1]), "name") {
				name = v
			} else {
				content = html.UnescapeString(v)
			}
		}
		if strings.EqualFold(name, "citation_pdf_url") && content != "" {
			u, err := base.Parse(strings.TrimSpace(content))
			if err == nil && (u.Scheme == "http" || u.Scheme == "https") {
				return u.String()
			}
		}
	}
	return ""
}

// Download fetches the PDF at u into path (through a temporary file,
// renamed when whole) and returns its size. An answer that does not start
// with %PDF-, lacks %%EOF at its end or exceeds MaxBytes is an error
// wrapping ErrNotPDF, and nothing is kept.
func (c *Client) Download(ctx context.Context, u, path string) (int64, error) {
	resp, cancel, err := c.get(netlog.WithPurpose(ctx, PurposePDF), u, "application/pdf")
	if err != nil {
		return 0, err
	}
	defer cancel()
	defer resp.Body.Close()
	max := c.MaxBytes
	if max <= 0 {
		max = DefaultMaxBytes
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return 0, err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".download-*")
	if err != nil {
		return 0, err
	}
	defer os.Remove(tmp.Name())
	n, err := io.Copy(tmp, io.LimitReader(resp.Body, max+1))
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return n, fmt.Errorf("download %s: %w", u, err)
	}
	if n > max {
		return n, fmt.Errorf("%w: %s is larger than %d MiB", ErrNotPDF, u, max>>20)
	}
	if err := checkPDF(tmp.Name(), n); err != nil {
		return n, fmt.Errorf("%w: %s %v", ErrNotPDF, u, err)
	}
	return n, os.Rename(tmp.Name(), path)
}

// checkPDF reads a downloaded file's head and tail.
func checkPDF(path string, n int64) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	head := make([]byte, 1024)
	k, _ := io.ReadFull(f, head)
	if !bytes.Contains(head[:k], []byte("%PDF-")) {
		if bytes.Contains(bytes.ToLower(head[:k]), []byte("<html")) {
			return errors.New("is an HTML page (a login or paywall?)")
		}
		return errors.New("does not start with %PDF-")
	}
	tail := make([]byte, 2048)
	off := max(n-int64(len(tail)), 0)
	k, _ = f.ReadAt(tail, off)
	if !bytes.Contains(tail[:k], []byte("%%EOF")) {
		return errors.New("is cut short (no %%EOF at its end)")
	}
	return nil
}
