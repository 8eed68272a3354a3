package arxiv

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"os"
	"path/filepath"

	"github.com/papers-cli/papers/internal/netlog"
	"github.com/papers-cli/papers/internal/retry"
)

// ErrHTML is returned (wrapped) when arXiv answers a PDF request with an
// HTML page, which it does under load, twice in a row.
var ErrHTML = errors.New("arxiv returned HTML instead of a PDF")

// ErrTruncatedPDF is returned (wrapped) when a download ends before the
// PDF does (no %%EOF in its last KiB, or the connection dropped mid-body
// on every try).
var ErrTruncatedPDF = errors.New("truncated pdf")

// pdfTail is how much of the end of a file is searched for %%EOF.
const pdfTail = 1024

// DownloadPDF downloads the PDF of idv ("2302.04761v1", or a bare id for
// the latest version; any form ParseID accepts) to path and returns its
// size in bytes.
//
// The body is streamed to path+".part", checked (it must start with %PDF-
// after optional whitespace, end with %%EOF in its last KiB and be at most
// MaxPDFBytes), fsynced and renamed to path. On any failure the part file
// is removed and path is left untouched, so path only ever holds a complete
// PDF. An HTML answer is waited out and retried once, then ErrHTML.
// Transport failures are retried like API requests; the part file is
// rewritten from the start each try.
func (c *Client) DownloadPDF(ctx context.Context, idv, path string) (int64, error) {
	id, v, err := ParseID(idv)
	if err != nil {
		return 0, fmt.Errorf("download pdf: %w", err)
	}
	idv = idWithVersion(id, v)
	u := c.pdfURL() + idv
	ctx = netlog.WithPurpose(ctx, PurposePDF)
	part := path + ".part"
	var n int64
	for htmlTries := 0; ; htmlTries++ {
		err = c.get(ctx, u, func(resp *http.Response) error {
			var err error
			n, err = c.savePDF(resp, part)
			return err
		})
		if errors.Is(err, ErrHTML) && htmlTries == 0 && ctx.Err() == nil {
			c.logf("arxiv: %s returned HTML instead of a PDF; retrying once", u)
			if err = retry.Sleep(ctx, c.backoff()); err == nil {
				continue
			}
		}
		break
	}
	if err != nil {
		os.Remove(part)
		return 0, fmt.Errorf("download pdf %s: %w", idv, err)
	}
	if err := os.Rename(part, path); err != nil {
		os.Remove(part)
		return 0, fmt.Errorf("download pdf %s: %w", idv, err)
	}
	syncDir(filepath.Dir(path))
	return n, nil
}

// savePDF streams resp's body into part, checking it is a whole PDF.
func (c *Client) savePDF(resp *http.Response, part string) (int64, error) {
	if mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); mt == "text/html" {
		return 0, ErrHTML
	}
	limit := c.maxPDFBytes()
	if resp.ContentLength > limit {
		return 0, fmt.Errorf("pdf larger than %s", sizeLabel(limit))
	}
	f, err := os.Create(part)
	if err != nil {
		return 0, err
	}
	chk := &pdfChecker{w: f}
	n, err := io.Copy(chk, io.LimitReader(resp.Body, limit+1))
	switch {
	case err == nil && n > limit:
		err = fmt.Errorf("pdf larger than %s", sizeLabel(limit))
	case errors.Is(err, ErrHTML) || errors.Is(err, errNotPDF) || chk.werr != nil:
		// The content or our disk is the problem: no retry helps.
	case errors.Is(err, ErrSlow):
		// The server stalled or is too slow: another try may do better.
		err = retryable(err)
	case err != nil:
		// The connection dropped mid-body: another try may complete it.
		err = retryable(fmt.Errorf("%w: connection lost after %d bytes: %v", ErrTruncatedPDF, n, err))
	case !chk.sniffed:
		err = fmt.Errorf("%w (%d bytes)", errNotPDF, n)
	case !bytes.Contains(lastBytes(chk.tail, pdfTail), []byte("%%EOF")):
		err = fmt.Errorf("%w: no %%%%EOF in the last KiB of %d bytes", ErrTruncatedPDF, n)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(part)
		return 0, err
	}
	return n, nil
}

var errNotPDF = errors.New("response is not a PDF (no %PDF- header)")

// pdfChecker passes bytes through to w, checking the header as it goes
// and keeping the last pdfTail bytes.
type pdfChecker struct {
	w       io.Writer
	werr    error
	head    []byte // leading bytes until the header is decided
	sniffed bool
	tail    []byte
}

func (p *pdfChecker) Write(b []byte) (int, error) {
	if !p.sniffed {
		p.head = append(p.head, b...)
		trimmed := bytes.TrimLeft(p.head, " \t\r\n\f\x00")
		switch {
		case len(trimmed) > 0 && trimmed[0] == '<':
			return 0, ErrHTML
		case len(trimmed) >= 5:
			if !bytes.HasPrefix(trimmed, []byte("%PDF-")) {
				return 0, errNotPDF
			}
			p.sniffed = true
			p.head = nil
		case len(p.head) > pdfTail:
			return 0, errNotPDF
		}
	}
	n, err := p.w.Write(b)
	if err != nil {
		p.werr = err
		return n, fmt.Errorf("write pdf: %w", err)
	}
	p.tail = append(p.tail, b[:n]...)
	if len(p.tail) > 2*pdfTail {
		p.tail = append(p.tail[:0], p.tail[len(p.tail)-pdfTail:]...)
	}
	return n, nil
}

func lastBytes(b []byte, n int) []byte {
	if len(b) > n {
		return b[len(b)-n:]
	}
	return b
}

func sizeLabel(n int64) string {
	if n%(1<<20) == 0 {
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%d bytes", n)
}

// syncDir makes a rename durable; failures are ignored (not all systems
// can fsync a directory).
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		d.Close()
	}
}
