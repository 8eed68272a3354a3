package crossref

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/papers-cli/papers/ingest/crossref/crossreftest"
)

// The pacing follows the limit Crossref announces with each answer
// (x-rate-limit-limit per x-rate-limit-interval), never faster than Delay;
// the User-Agent names papers and, given one, the user's address.
func TestPaceFromHeaders(t *testing.T) {
	s := crossreftest.NewServer(t, crossreftest.Options{})
	c := &Client{HTTPClient: s.Client(), BaseURL: s.URL, Mailto: "reader@example.org", UserAgent: "papers/test (+https://github.com/papers-cli/papers)"}
	ctx := context.Background()
	if c.pace() != DefaultDelay {
		t.Errorf("before any answer: %s, want %s", c.pace(), DefaultDelay)
	}
	for _, w := range []struct {
		doi string
		gap time.Duration
	}{
		{"10.1371/journal.pone.0033693", 200 * time.Millisecond}, // public pool, 5 a second (2026)
		{"10.1002/jor.1100150407", 100 * time.Millisecond},       // polite pool, 10 a second
		{"10.1038/nnano.2014.279", 20 * time.Millisecond},        // 50 a second (2022)
	} {
		if _, err := c.Work(ctx, w.doi); err != nil {
			t.Fatal(err)
		}
		if c.gap != w.gap || c.pace() != w.gap {
			t.Errorf("after %s: gap %s, pace %s; want %s", w.doi, c.gap, c.pace(), w.gap)
		}
	}
	c.Delay = 150 * time.Millisecond
	if c.pace() != 150*time.Millisecond {
		t.Errorf("Delay above the announced gap: pace %s", c.pace())
	}
	if ua := s.Requests()[0].UserAgent; ua != "papers/test (+https://github.com/papers-cli/papers; mailto:reader@example.org)" {
		t.Errorf("User-Agent %q", ua)
	}
	c2 := &Client{Mailto: "a@b.c"}
	if ua := c2.userAgent(); !strings.HasPrefix(ua, "papers (+https://github.com/papers-cli/papers; mailto:a@b.c)") {
		t.Errorf("default User-Agent %q", ua)
	}
}
