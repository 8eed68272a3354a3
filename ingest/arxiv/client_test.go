package arxiv_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/papers-cli/papers/ingest/arxiv"
	"github.com/papers-cli/papers/ingest/arxiv/arxivtest"
	"github.com/papers-cli/papers/internal/shareddata"
)

// newServer starts a fake arXiv on the shared data, checking it exists.
func newServer(t *testing.T, opts arxivtest.Options) *arxivtest.Server {
	t.Helper()
	opts.DataDir = arxivtest.DataDir(t) // left out, saying so, without the shared data
	return arxivtest.NewServer(t, opts)
}

// newClient points a client at s with short, test-sized waits.
func newClient(t *testing.T, s *arxivtest.Server) *arxiv.Client {
	c := arxiv.New()
	c.APIURL = s.APIURL()
	c.PDFURL = s.PDFURL()
	c.Delay = time.Millisecond
	c.Backoff = time.Millisecond
	c.UserAgent = "papers-test/1.0 (+https://github.com/papers-cli/papers)"
	c.Logf = t.Logf
	return c
}

// synth makes n entries, the i-th published at first+i*step.
func synth(n int, first time.Time, step time.Duration) []arxiv.Entry {
	es := make([]arxiv.Entry, n)
	for i := range es {
		p := first.Add(time.Duration(i) * step)
		es[i] = arxiv.Entry{
			ID: fmt.Sprintf("2601.%05d", i+1), Version: 1,
			Title:           fmt.Sprintf("Synthetic paper %d on tool use", i+1),
			Summary:         "Agents learn to call tools.",
			Authors:         []arxiv.Author{{Name: "A. Author", Affiliations: []string{"Somewhere"}}},
			Published:       p,
			Updated:         p,
			PrimaryCategory: "cs.CL",
			Categories:      []string{"cs.CL", "cs.AI"},
		}
	}
	return es
}

func ids(es []arxiv.Entry) []string {
	var out []string
	for _, e := range es {
		out = append(out, e.IDVersion())
	}
	return out
}

func TestSearchPaging(t *testing.T) {
	s := newServer(t, arxivtest.Options{})
	c := newClient(t, s)
	c.PageSize = 10
	got, err := c.Search(context.Background(), "all:testing", 25)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 25 {
		t.Fatalf("got %d entries, want 25", len(got))
	}
	for i := 1; i < len(got); i++ {
		if got[i].Published.After(got[i-1].Published) {
			t.Errorf("entry %d (%s) is newer than entry %d: not sorted by submittedDate descending", i, got[i].ID, i-1)
		}
	}
	reqs := s.Requests()
	var pages []string
	for _, r := range reqs {
		q := r.Query
		pages = append(pages, q.Get("start")+"+"+q.Get("max_results"))
		if q.Get("search_query") != "all:testing" || q.Get("sortBy") != "submittedDate" || q.Get("sortOrder") != "descending" {
			t.Errorf("request %v lacks the query or sort", q)
		}
	}
	if want := []string{"0+10", "10+10", "20+5"}; !slices.Equal(pages, want) {
		t.Errorf("pages (start+max_results) = %v, want %v", pages, want)
	}
}

func TestSearchStopsAtTotalResults(t *testing.T) {
	s := newServer(t, arxivtest.Options{Entries: synth(7, time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), time.Hour)})
	c := newClient(t, s)
	c.PageSize = 5
	got, err := c.Search(context.Background(), "all:tool", 25)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 7 || len(s.Requests()) != 2 {
		t.Errorf("got %d entries in %d requests, want 7 in 2", len(got), len(s.Requests()))
	}
	if got[0].ID != "2601.00007" {
		t.Errorf("first = %s, want the newest, 2601.00007", got[0].ID)
	}
}

func TestCountDateRange(t *testing.T) {
	// One entry a day through January and February 2026.
	s := newServer(t, arxivtest.Options{Entries: synth(59, time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC), 24*time.Hour)})
	c := newClient(t, s)
	tests := []struct {
		query string
		want  int
	}{
		{"(abs:tool) AND submittedDate:[202601010000 TO 202601312359]", 31},
		{"(abs:tool) AND submittedDate:[202602010000 TO 202602282359]", 28},
		{"abs:tool AND submittedDate:[202601100000 TO 202601101159]", 0},
		{"abs:tool AND submittedDate:[202601100000 TO 202601101200]", 1},
		{"abs:tool", 59},
	}
	for _, tc := range tests {
		t.Run(tc.query, func(t *testing.T) {
			n, err := c.Count(context.Background(), tc.query)
			if err != nil || n != tc.want {
				t.Errorf("Count = %d, %v; want %d", n, err, tc.want)
			}
		})
	}
}

func TestLookup(t *testing.T) {
	s := newServer(t, arxivtest.Options{})
	c := newClient(t, s)
	got, err := c.Lookup(context.Background(), []string{
		"1605.08386", "astro-ph/0601001", "quant-ph/0201082v1",
		"https://arxiv.org/abs/2104.12255v1", "arXiv:1111.2011v2", "0000.0000",
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"1605.08386v1", "astro-ph/0601001v1", "quant-ph/0201082v1", "2104.12255v1", "1111.2011v2"}
	if !slices.Equal(ids(got), want) {
		t.Errorf("got %v, want %v (0000.0000 simply missing)", ids(got), want)
	}
	reqs := s.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests, want 1", len(reqs))
	}
	if q := reqs[0].Query; q.Get("id_list") != "1605.08386,astro-ph/0601001,quant-ph/0201082v1,2104.12255v1,1111.2011v2,0000.0000" || q.Get("max_results") != "6" {
		t.Errorf("query = %v", q)
	}
	if got[1].Authors[2].Affiliations[0] != "CfA" {
		t.Errorf("affiliations lost: %+v", got[1].Authors)
	}
}

// TestNoResultsAreBelieved: a feed whose totalResults is 0 (an unknown
// id, a query nothing matches) is believed at once, not retried as a
// suspicious empty page (3 s more with arXiv's pacing).
func TestNoResultsAreBelieved(t *testing.T) {
	s := newServer(t, arxivtest.Options{MatchQuery: true})
	c := newClient(t, s)
	got, err := c.Lookup(context.Background(), []string{"0000.0000"})
	if err != nil || len(got) != 0 {
		t.Fatalf("got %v, %v; want no entries and no error", ids(got), err)
	}
	if n := len(s.Requests()); n != 1 {
		t.Errorf("look-up of an unknown id: %d requests, want 1", n)
	}
	found, err := c.Search(context.Background(), "ti:xyzzyplugh", 10)
	if err != nil || len(found) != 0 {
		t.Fatalf("search: got %v, %v; want nothing", ids(found), err)
	}
	n, err := c.Count(context.Background(), "ti:xyzzyplugh")
	if err != nil || n != 0 {
		t.Fatalf("count: %d, %v", n, err)
	}
	if n := len(s.Requests()); n != 3 {
		t.Errorf("search and count with no results: %d requests in all, want 3", n)
	}
}

// TestBadEntrySkipped: a real page with one entry whose id is not an arXiv
// id keeps its other entries, with a warning; paging goes on from the
// page's full length (no entry read twice or lost), nothing is retried.
// It failed the whole page after 4 tries, so a topic could never update.
func TestBadEntrySkipped(t *testing.T) {
	page1, err := os.ReadFile(dataFile(t, "api-2026/q_testing_s0_m10_bc5a6c384fe9.xml"))
	if err != nil {
		t.Fatal(err)
	}
	page2, err := os.ReadFile(dataFile(t, "api-2026/q_testing_s10_m10_34e56e15aaac.xml"))
	if err != nil {
		t.Fatal(err)
	}
	bad := strings.Replace(string(page1), "<id>http://arxiv.org/abs/2405.13786v1</id>", "<id>http://arxiv.org/abs/not-an-id</id>", 1)
	if bad == string(page1) {
		t.Fatal("the recorded page changed: entry 2405.13786v1 not found")
	}
	total := regexp.MustCompile(`<opensearch:totalResults[^>]*>\d+<`)
	var requests atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		body := bad
		if r.URL.Query().Get("start") == "10" {
			body = string(page2)
		}
		io.WriteString(w, total.ReplaceAllString(body, `<opensearch:totalResults xmlns:opensearch="http://a9.com/-/spec/opensearch/1.1/">20<`))
	}))
	defer srv.Close()
	c := arxiv.New()
	c.APIURL, c.Delay, c.Backoff = srv.URL, -1, time.Millisecond
	var warnings []string
	c.Logf = func(f string, a ...any) { warnings = append(warnings, fmt.Sprintf(f, a...)) }
	var got []string
	if _, err := c.Scan(context.Background(), "all:testing", arxiv.ByLastUpdated, 10, func(e arxiv.Entry) bool {
		got = append(got, e.ID)
		return true
	}); err != nil {
		t.Fatalf("scan: %v", err)
	}
	if len(got) != 19 || slices.Contains(got, "2405.13786") || requests.Load() != 2 {
		t.Errorf("got %d entries in %d requests, want the 19 readable ones in 2: %v", len(got), requests.Load(), got)
	}
	if len(warnings) != 1 || !strings.Contains(warnings[0], "not-an-id") || !strings.Contains(warnings[0], "skipped") {
		t.Errorf("warnings %q, want one naming the entry skipped", warnings)
	}
}

func TestLookupBatches(t *testing.T) {
	entries := synth(150, time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), time.Minute)
	s := newServer(t, arxivtest.Options{Entries: entries})
	var want []string
	for _, e := range entries {
		want = append(want, e.ID)
	}
	got, err := newClient(t, s).Lookup(context.Background(), want)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 150 {
		t.Errorf("got %d entries, want 150", len(got))
	}
	var sizes []int
	for _, r := range s.Requests() {
		sizes = append(sizes, len(strings.Split(r.Query.Get("id_list"), ",")))
	}
	if !slices.Equal(sizes, []int{100, 50}) {
		t.Errorf("batch sizes %v, want [100 50]", sizes)
	}
}

func TestLookupMalformedID(t *testing.T) {
	s := newServer(t, arxivtest.Options{})
	_, err := newClient(t, s).Lookup(context.Background(), []string{"2501.12948", "abc"})
	if err == nil || !strings.Contains(err.Error(), `"abc"`) {
		t.Errorf("err = %v, want one naming \"abc\"", err)
	}
	if n := len(s.Requests()); n != 0 {
		t.Errorf("%d requests sent for a malformed id", n)
	}
}

// TestHTTPErrors fakes arXiv answers the fake server does not give for
// well-formed requests: the recorded 400 error feed and a 404.
func TestHTTPErrors(t *testing.T) {
	errorFeed, err := os.ReadFile(dataFile(t, "api-2026/id_abc_s0_m100_b79c8dcf6bc3.xml"))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		status  int
		body    []byte
		wantErr string
		apiErr  bool
	}{
		{"error feed", http.StatusBadRequest, errorFeed, "incorrect id format for abc", true},
		{"not found", http.StatusNotFound, []byte("nope"), "404 Not Found", false},
		{"bad request without feed", http.StatusBadRequest, []byte("<html>bad</html>"), "400 Bad Request", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var hits int
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				hits++
				w.WriteHeader(tc.status)
				w.Write(tc.body)
			}))
			defer srv.Close()
			c := arxiv.New()
			c.APIURL, c.Delay, c.Backoff = srv.URL+"/api/query", time.Millisecond, time.Millisecond
			_, err := c.Count(context.Background(), "all:testing")
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("err = %v, want one containing %q", err, tc.wantErr)
			}
			var apiErr *arxiv.APIError
			if errors.As(err, &apiErr) != tc.apiErr {
				t.Errorf("errors.As(*APIError) = %v, want %v (err %v)", !tc.apiErr, tc.apiErr, err)
			}
			var status *arxiv.StatusError
			if !tc.apiErr && (!errors.As(err, &status) || status.Code != tc.status) {
				t.Errorf("err %v is not a *StatusError with code %d", err, tc.status)
			}
			if !tc.apiErr && !strings.Contains(err.Error(), srv.URL) {
				t.Errorf("err %v does not name the URL", err)
			}
			if hits != 1 {
				t.Errorf("%d requests, want 1 (not retried)", hits)
			}
		})
	}
}

// TestPoliteness checks, on a mixed run of searches, lookups and a PDF,
// the gap between requests, the User-Agent and the single connection.
func TestPoliteness(t *testing.T) {
	s := newServer(t, arxivtest.Options{PDFs: map[string]string{"2302.04761": shareddata.Path(t, "pdfs", "papers", "toolformer_2302.04761v1.pdf")}})
	c := newClient(t, s)
	c.Delay = 20 * time.Millisecond
	c.PageSize = 10
	ctx := context.Background()
	var wg sync.WaitGroup
	for range 2 { // concurrent callers still share the one pacer
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := c.Search(ctx, "all:testing", 30); err != nil {
				t.Error(err)
			}
		}()
	}
	if _, err := c.Lookup(ctx, []string{"1605.08386"}); err != nil {
		t.Error(err)
	}
	if _, err := c.DownloadPDF(ctx, "2302.04761v1", filepath.Join(t.TempDir(), "p.pdf")); err != nil {
		t.Error(err)
	}
	wg.Wait()
	reqs := s.Requests()
	if len(reqs) != 8 {
		t.Errorf("%d requests, want 8", len(reqs))
	}
	for i, r := range reqs {
		if r.UserAgent != c.UserAgent {
			t.Errorf("request %d (%s) User-Agent %q", i, r.Path, r.UserAgent)
		}
		if i > 0 {
			if gap := r.Time.Sub(reqs[i-1].Time); gap < c.Delay {
				t.Errorf("request %d came %s after the previous one, want >= %s", i, gap, c.Delay)
			}
		}
	}
	if n := s.MaxInFlight(); n != 1 {
		t.Errorf("%d requests in flight at once, want 1", n)
	}
	// API and PDF share the fake's host here, so all of it is one connection.
	if n := s.Connections(); n != 1 {
		t.Errorf("%d connections, want 1", n)
	}
}

func TestDefaultsArePolite(t *testing.T) {
	c := arxiv.New()
	if c.Delay != 3*time.Second || c.APIURL != "https://export.arxiv.org/api/query" ||
		c.PDFURL != "https://arxiv.org/pdf/" || c.MaxPDFBytes != 100<<20 || !strings.HasPrefix(c.UserAgent, "papers/") {
		t.Errorf("defaults = %+v", c)
	}
	// one connection per host comes from the pacing, whatever the client
	// (TestPoliteness counts the connections)
}

func TestRetries(t *testing.T) {
	tests := []struct {
		name     string
		opts     arxivtest.Options
		requests int
		minGap   time.Duration // between the first two requests
	}{
		{"429 then 200", arxivtest.Options{TooManyRequests: 2}, 3, 0},
		{"Retry-After honoured", arxivtest.Options{TooManyRequests: 1, RetryAfter: "1"}, 2, time.Second},
		{"503 then 200", arxivtest.Options{ServiceUnavailable: 1}, 2, 0},
		{"connection reset", arxivtest.Options{Resets: 1}, 2, 0},
		{"empty first page", arxivtest.Options{EmptyPages: 1}, 2, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := newServer(t, tc.opts)
			c := newClient(t, s)
			var notices []string
			c.Logf = func(f string, a ...any) { notices = append(notices, fmt.Sprintf(f, a...)) }
			got, err := c.Search(context.Background(), "all:testing", 10)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != 10 {
				t.Errorf("got %d entries, want 10", len(got))
			}
			reqs := s.Requests()
			if len(reqs) != tc.requests {
				t.Errorf("%d requests, want %d", len(reqs), tc.requests)
			}
			if gap := reqs[1].Time.Sub(reqs[0].Time); gap < tc.minGap {
				t.Errorf("retried after %s, want >= %s", gap, tc.minGap)
			}
			if len(notices) == 0 {
				t.Error("no retry notice logged")
			}
		})
	}
}

// TestSearchEmptyPageMidway: an empty page while totalResults says more
// remain is asked for again; if it stays empty, Search stops with what it has.
func TestSearchEmptyPageMidway(t *testing.T) {
	tests := []struct {
		name        string
		empty       int
		entries     int
		requests    int
		wantNotices int
	}{
		{"empty once", 1, 30, 4, 1},
		{"empty twice", 2, 10, 3, 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := newServer(t, arxivtest.Options{EmptyPagesAfter: 1, EmptyPages: tc.empty})
			c := newClient(t, s)
			c.PageSize = 10
			var notices []string
			c.Logf = func(f string, a ...any) { notices = append(notices, fmt.Sprintf(f, a...)) }
			got, err := c.Search(context.Background(), "all:testing", 30)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != tc.entries || len(s.Requests()) != tc.requests || len(notices) != tc.wantNotices {
				t.Errorf("got %d entries in %d requests with notices %q; want %d in %d with %d notices",
					len(got), len(s.Requests()), notices, tc.entries, tc.requests, tc.wantNotices)
			}
		})
	}
}

func TestRetriesAreBounded(t *testing.T) {
	s := newServer(t, arxivtest.Options{ServiceUnavailable: 100})
	c := newClient(t, s)
	c.MaxTries = 3
	_, err := c.Search(context.Background(), "all:testing", 10)
	if err == nil || !strings.Contains(err.Error(), "503") || !strings.Contains(err.Error(), "3 tries") {
		t.Errorf("err = %v, want a 503 after 3 tries", err)
	}
	var status *arxiv.StatusError
	if !errors.As(err, &status) || !status.Unavailable() || status.RateLimited() {
		t.Errorf("err %v is not a *StatusError of an outage", err)
	}
	if n := len(s.Requests()); n != 3 {
		t.Errorf("%d requests, want 3", n)
	}
}

func TestTimeoutIsRetried(t *testing.T) {
	s := newServer(t, arxivtest.Options{Latency: 300 * time.Millisecond})
	c := newClient(t, s)
	c.Timeout = 50 * time.Millisecond
	c.MaxTries = 2
	_, err := c.Count(context.Background(), "all:testing")
	if err == nil || !strings.Contains(err.Error(), "2 tries") {
		t.Errorf("err = %v, want a timeout after 2 tries", err)
	}
}

func TestCancellation(t *testing.T) {
	t.Run("during a slow request", func(t *testing.T) {
		s := newServer(t, arxivtest.Options{Latency: 10 * time.Second})
		c := newClient(t, s)
		ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
		defer cancel()
		begin := time.Now()
		_, err := c.Search(ctx, "all:testing", 10)
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("err = %v, want context.DeadlineExceeded", err)
		}
		if d := time.Since(begin); d > 2*time.Second {
			t.Errorf("returned after %s, want promptly", d)
		}
	})
	t.Run("while pacing", func(t *testing.T) {
		s := newServer(t, arxivtest.Options{})
		c := newClient(t, s)
		c.Delay = time.Hour
		if _, err := c.Count(context.Background(), "all:testing"); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		time.AfterFunc(50*time.Millisecond, cancel)
		begin := time.Now()
		_, err := c.Lookup(ctx, []string{"1605.08386"})
		if !errors.Is(err, context.Canceled) {
			t.Errorf("err = %v, want context.Canceled", err)
		}
		if d := time.Since(begin); d > 2*time.Second {
			t.Errorf("returned after %s, want promptly", d)
		}
		if n := len(s.Requests()); n != 1 {
			t.Errorf("%d requests, want 1", n)
		}
	})
	t.Run("while backing off", func(t *testing.T) {
		s := newServer(t, arxivtest.Options{TooManyRequests: 1, RetryAfter: "3600"})
		c := newClient(t, s)
		ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
		defer cancel()
		begin := time.Now()
		if _, err := c.Count(ctx, "all:testing"); !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("err = %v, want context.DeadlineExceeded", err)
		}
		if d := time.Since(begin); d > 2*time.Second {
			t.Errorf("returned after %s, want promptly", d)
		}
	})
}

func TestDownloadPDF(t *testing.T) {
	want, err := os.ReadFile(shareddata.Path(t, "pdfs", "papers", "toolformer_2302.04761v1.pdf"))
	if err != nil {
		t.Fatal(err)
	}
	big := shareddata.Path(t, "pdfs", "papers", "adarefiner_naacl2024findings.pdf")
	tests := []struct {
		name     string
		opts     arxivtest.Options
		idv      string
		maxBytes int64
		wantErr  error  // errors.Is target, if any
		errText  string // substring of the error, if any
		pdfReqs  int
	}{
		{name: "ok", idv: "2302.04761v1", pdfReqs: 1},
		{name: "ok from URL form", idv: "https://arxiv.org/pdf/2302.04761v1.pdf", pdfReqs: 1},
		{name: "HTML then PDF", opts: arxivtest.Options{HTMLPDFs: 1}, idv: "2302.04761v1", pdfReqs: 2},
		{name: "HTML twice", opts: arxivtest.Options{HTMLPDFs: 2}, idv: "2302.04761v1", wantErr: arxiv.ErrHTML,
			errText: "arxiv returned HTML instead of a PDF", pdfReqs: 2},
		{name: "truncated", opts: arxivtest.Options{TruncatePDFs: true}, idv: "2302.04761v1",
			wantErr: arxiv.ErrTruncatedPDF, errText: "truncated", pdfReqs: 1},
		{name: "too large", opts: arxivtest.Options{PDFs: map[string]string{"2302.04761": big}}, idv: "2302.04761",
			maxBytes: 1 << 20, errText: "pdf larger than 1 MiB", pdfReqs: 1},
		{name: "429 then PDF", opts: arxivtest.Options{TooManyRequests: 1}, idv: "2302.04761v1", pdfReqs: 2},
		{name: "reset then PDF", opts: arxivtest.Options{Resets: 1}, idv: "2302.04761v1", pdfReqs: 2},
		{name: "not found", idv: "2501.00001v1", errText: "404", pdfReqs: 1},
		{name: "bad id", idv: "abc", errText: `"abc"`, pdfReqs: 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.opts.PDFs == nil {
				tc.opts.PDFs = map[string]string{"2302.04761v1": shareddata.Path(t, "pdfs", "papers", "toolformer_2302.04761v1.pdf")}
			}
			s := newServer(t, tc.opts)
			c := newClient(t, s)
			if tc.maxBytes > 0 {
				c.MaxPDFBytes = tc.maxBytes
			}
			path := filepath.Join(t.TempDir(), "paper.pdf")
			n, err := c.DownloadPDF(context.Background(), tc.idv, path)
			if len(s.Requests()) != tc.pdfReqs {
				t.Errorf("%d requests, want %d", len(s.Requests()), tc.pdfReqs)
			}
			if _, serr := os.Stat(path + ".part"); !os.IsNotExist(serr) {
				t.Errorf("part file left behind: %v", serr)
			}
			if tc.wantErr == nil && tc.errText == "" {
				if err != nil {
					t.Fatal(err)
				}
				got, _ := os.ReadFile(path)
				if n != int64(len(want)) || !bytes.Equal(got, want) {
					t.Errorf("wrote %d bytes (file %d), want the %d bytes of the PDF", n, len(got), len(want))
				}
				return
			}
			if err == nil {
				t.Fatal("no error")
			}
			if tc.wantErr != nil && !errors.Is(err, tc.wantErr) {
				t.Errorf("err = %v, want %v", err, tc.wantErr)
			}
			if !strings.Contains(err.Error(), tc.errText) {
				t.Errorf("err = %v, want one containing %q", err, tc.errText)
			}
			if _, serr := os.Stat(path); !os.IsNotExist(serr) {
				t.Errorf("failed download left %s: %v", path, serr)
			}
		})
	}
}

func TestDownloadPDFKeepsOldFileOnFailure(t *testing.T) {
	s := newServer(t, arxivtest.Options{TruncatePDFs: true, PDFs: map[string]string{"2302.04761": shareddata.Path(t, "pdfs", "papers", "toolformer_2302.04761v1.pdf")}})
	path := filepath.Join(t.TempDir(), "paper.pdf")
	if err := os.WriteFile(path, []byte("previous"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := newClient(t, s).DownloadPDF(context.Background(), "2302.04761", path); err == nil {
		t.Fatal("no error for a truncated PDF")
	}
	if b, _ := os.ReadFile(path); string(b) != "previous" {
		t.Errorf("existing file changed to %d bytes", len(b))
	}
}

func TestIDVersion(t *testing.T) {
	for _, tc := range []struct {
		e    arxiv.Entry
		want string
	}{
		{arxiv.Entry{ID: "2501.12948", Version: 2}, "2501.12948v2"},
		{arxiv.Entry{ID: "hep-th/9901001"}, "hep-th/9901001"},
	} {
		if got := tc.e.IDVersion(); got != tc.want {
			t.Errorf("IDVersion = %q, want %q", got, tc.want)
		}
	}
}

func TestUnknownHostIsNotRetried(t *testing.T) {
	for _, tc := range []struct {
		name  string
		dns   net.DNSError
		tries int
	}{
		{"no such host", net.DNSError{Err: "no such host", Name: "export.arxiv.org", IsNotFound: true}, 1},
		{"resolver busy", net.DNSError{Err: "server misbehaving", Name: "export.arxiv.org", IsTemporary: true}, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var mu sync.Mutex
			dials := 0
			c := arxiv.New()
			c.Delay, c.Backoff, c.MaxTries = -1, time.Millisecond, 3
			c.HTTPClient = &http.Client{Transport: &http.Transport{
				DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
					mu.Lock()
					dials++
					mu.Unlock()
					e := tc.dns
					return nil, &net.OpError{Op: "dial", Net: network, Err: &e}
				},
			}}
			_, err := c.Lookup(context.Background(), []string{"2501.12948"})
			if err == nil || !strings.Contains(err.Error(), tc.dns.Err) {
				t.Errorf("err = %v, want %q", err, tc.dns.Err)
			}
			if dials != tc.tries {
				t.Errorf("%d attempts, want %d", dials, tc.tries)
			}
		})
	}
}

// A refused connection (nothing listens: offline, a wrong mirror) fails at
// once; a reset one (the server dropped it) is tried again.
func TestRefusedConnectionIsNotRetried(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	var retries []string
	c := arxiv.New()
	c.Delay, c.Backoff, c.MaxTries = -1, time.Millisecond, 3
	c.APIURL = "http://" + addr + "/api/query"
	c.Logf = func(format string, args ...any) { retries = append(retries, fmt.Sprintf(format, args...)) }
	if _, err := c.Lookup(context.Background(), []string{"2501.12948"}); err == nil || !strings.Contains(err.Error(), "refused") {
		t.Errorf("err = %v, want connection refused", err)
	}
	if len(retries) != 0 {
		t.Errorf("retried: %q", retries)
	}
}
