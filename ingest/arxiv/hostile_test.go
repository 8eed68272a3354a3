package arxiv_test

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/papers-cli/papers/ingest/arxiv"
	"github.com/papers-cli/papers/internal/shareddata"
)

// hostile is a TCP server that reads each request and hands the
// connection to answer; it counts the requests.
type hostile struct {
	ln       net.Listener
	requests atomic.Int32
}

func newHostile(t *testing.T, answer func(c net.Conn, req *http.Request)) *hostile {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	h := &hostile{ln: ln}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				req, err := http.ReadRequest(bufio.NewReader(c))
				if err != nil {
					return
				}
				h.requests.Add(1)
				answer(c, req)
			}()
		}
	}()
	return h
}

func (h *hostile) url() string { return "http://" + h.ln.Addr().String() }

// hang holds the connection open, sending nothing, until the client goes.
func hang(c net.Conn, _ *http.Request) { io.Copy(io.Discard, c) }

// hostileClient has short limits, and a per-attempt Timeout long enough
// that only the limit under test can end a try quickly.
func hostileClient(h *hostile) *arxiv.Client {
	c := arxiv.New()
	c.APIURL, c.PDFURL = h.url()+"/api/query", h.url()+"/pdf/"
	c.Delay, c.Backoff = -1, time.Millisecond
	c.Timeout = time.Hour
	c.HeaderTimeout, c.IdleTimeout = 100*time.Millisecond, 100*time.Millisecond
	return c
}

// within runs fn under a generous deadline: a limit that does not hold
// shows as the deadline's error, not as a hung test.
func within(t *testing.T, fn func(ctx context.Context) error) error {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	err := fn(ctx)
	if errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("still waiting after 30 s: %v", err)
	}
	return err
}

// TestServerThatNeverAnswers: a server that accepts the connection and
// never answers costs MaxTries x HeaderTimeout, not MaxTries x Timeout
// (494 s with the defaults before), and the error says what happened.
func TestServerThatNeverAnswers(t *testing.T) {
	h := newHostile(t, hang)
	c := hostileClient(h)
	err := within(t, func(ctx context.Context) error {
		_, err := c.Search(ctx, "all:testing", 10)
		return err
	})
	if !errors.Is(err, arxiv.ErrSlow) || !strings.Contains(err.Error(), "no answer within 100ms") || !strings.Contains(err.Error(), "4 tries") {
		t.Errorf("err = %v, want ErrSlow naming the 100ms wait, after 4 tries", err)
	}
	if n := h.requests.Load(); n != 4 {
		t.Errorf("%d requests, want 4", n)
	}
}

// TestStalledPDF: a PDF server that sends the start of a real PDF and then
// nothing is reported as stalled after so many bytes, not as a lost
// connection, and retried.
func TestStalledPDF(t *testing.T) {
	pdf, err := os.ReadFile(shareddata.Path(t, "pdfs", "papers", "toolformer_2302.04761v1.pdf"))
	if err != nil {
		t.Fatalf("test data missing: %v", err)
	}
	h := newHostile(t, func(c net.Conn, _ *http.Request) {
		io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Type: application/pdf\r\nContent-Length: 1000000\r\n\r\n")
		c.Write(pdf[:129])
		hang(c, nil)
	})
	c := hostileClient(h)
	c.MaxTries = 2
	path := filepath.Join(t.TempDir(), "x.pdf")
	err = within(t, func(ctx context.Context) error {
		_, err := c.DownloadPDF(ctx, "2302.04761v1", path)
		return err
	})
	if !errors.Is(err, arxiv.ErrSlow) || !strings.Contains(err.Error(), "no data for 100ms after 129 bytes") || strings.Contains(err.Error(), "connection lost") {
		t.Errorf("err = %v, want a stall after 129 bytes", err)
	}
	if n := h.requests.Load(); n != 2 {
		t.Errorf("%d requests, want 2", n)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("a stalled download left %s (%v)", path, err)
	}
}

// TestMaxElapsedBoundsACall: retries stop when the next try could not
// start within MaxElapsed, whatever MaxTries allows.
func TestMaxElapsedBoundsACall(t *testing.T) {
	h := newHostile(t, hang)
	c := hostileClient(h)
	c.MaxTries, c.HeaderTimeout, c.MaxElapsed = 100, 200*time.Millisecond, 700*time.Millisecond
	err := within(t, func(ctx context.Context) error {
		_, err := c.Count(ctx, "all:testing")
		return err
	})
	if !errors.Is(err, arxiv.ErrSlow) || !strings.Contains(err.Error(), "gave up after") {
		t.Errorf("err = %v, want ErrSlow, gave up", err)
	}
	if n := h.requests.Load(); n < 2 || n > 4 {
		t.Errorf("%d tries in a 700ms budget of 200ms tries, want 2-4", n)
	}
}

// TestStatusLineIsNotEchoed: the reason phrase of a status line is the
// server's own text; errors carry Go's words for the code instead, so
// escape sequences in it never reach the terminal.
func TestStatusLineIsNotEchoed(t *testing.T) {
	h := newHostile(t, func(c net.Conn, _ *http.Request) {
		io.WriteString(c, "HTTP/1.1 404 \x1b]0;pwned\x07\x1b[2JNot Found\r\nContent-Length: 0\r\n\r\n")
	})
	c := hostileClient(h)
	err := within(t, func(ctx context.Context) error {
		_, err := c.DownloadPDF(ctx, "2302.04761v1", filepath.Join(t.TempDir(), "x.pdf"))
		return err
	})
	if err == nil || !strings.Contains(err.Error(), "404 Not Found") || strings.ContainsAny(err.Error(), "\x1b\x07") || strings.Contains(err.Error(), "pwned") {
		t.Errorf("err = %q, want 404 Not Found without the server's text", err)
	}
}
