package arxivtest_test

import (
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/papers-cli/papers/ingest/arxiv"
	"github.com/papers-cli/papers/ingest/arxiv/arxivtest"
)

func get(t *testing.T, u string) (int, string) {
	t.Helper()
	resp, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(b)
}

func feed(t *testing.T, s *arxivtest.Server, q url.Values) (*arxiv.Feed, error) {
	t.Helper()
	status, body := get(t, s.APIURL()+"?"+q.Encode())
	f, err := arxiv.ParseFeed(strings.NewReader(body))
	if (status == http.StatusBadRequest) != (err != nil) {
		t.Errorf("status %d with parse error %v", status, err)
	}
	return f, err
}

func TestDataDirFound(t *testing.T) {
	dir := arxivtest.DataDir(t)
	if _, err := os.Stat(dir + "/arxiv/api-2026"); err != nil {
		t.Errorf("DataDir = %s: %v", dir, err)
	}
}

func TestIDList(t *testing.T) {
	s := arxivtest.NewServer(t, arxivtest.Options{})
	tests := []struct {
		idList  string
		want    []string
		errText string
	}{
		{"1605.08386", []string{"1605.08386v1"}, ""},
		{"1111.2011v2,astro-ph/0601001", []string{"1111.2011v2", "astro-ph/0601001v1"}, ""},
		{"1111.2011v1", nil, ""}, // a version not recorded
		{"0000.0000", nil, ""},
		{"abc", nil, "incorrect id format for abc"},
		{"https://arxiv.org/abs/1605.08386", nil, "incorrect id format"},
	}
	for _, tc := range tests {
		t.Run(tc.idList, func(t *testing.T) {
			f, err := feed(t, s, url.Values{"id_list": {tc.idList}, "max_results": {"100"}})
			if tc.errText != "" {
				if err == nil || !strings.Contains(err.Error(), tc.errText) {
					t.Errorf("err = %v, want %q", err, tc.errText)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, e := range f.Entries {
				got = append(got, e.IDVersion())
			}
			if strings.Join(got, " ") != strings.Join(tc.want, " ") || f.TotalResults != len(tc.want) {
				t.Errorf("got %v (total %d), want %v", got, f.TotalResults, tc.want)
			}
		})
	}
}

func TestSearchQuery(t *testing.T) {
	entries := []arxiv.Entry{
		{ID: "2601.00001", Title: "Tool use", Summary: "agents", Published: time.Date(2026, 1, 5, 10, 0, 0, 0, time.UTC)},
		{ID: "2601.00002", Title: "Reward models", Summary: "agents", Published: time.Date(2026, 1, 20, 10, 0, 0, 0, time.UTC)},
		{ID: "2602.00001", Title: "Tool learning", Summary: "LLM", Published: time.Date(2026, 2, 3, 10, 0, 0, 0, time.UTC)},
	}
	s := arxivtest.NewServer(t, arxivtest.Options{Entries: entries, MatchQuery: true})
	tests := []struct {
		query string
		extra url.Values
		want  string
		total int
	}{
		{"all:tool", nil, "2601.00001 2602.00001", 2},
		{"all:tool", url.Values{"sortBy": {"submittedDate"}, "sortOrder": {"descending"}}, "2602.00001 2601.00001", 2},
		{"(abs:agents) AND submittedDate:[202601010000 TO 202601312359]", nil, "2601.00001 2601.00002", 2},
		{"submittedDate:[20260201 TO 20260228]", nil, "2602.00001", 1},
		{"ti:tool AND abs:agents", nil, "2601.00001", 1},
		{"all:*", url.Values{"start": {"1"}, "max_results": {"1"}}, "2601.00002", 3},
		{"all:*", url.Values{"max_results": {"0"}}, "", 3},
	}
	for _, tc := range tests {
		t.Run(tc.query, func(t *testing.T) {
			q := url.Values{"search_query": {tc.query}}
			for k, v := range tc.extra {
				q[k] = v
			}
			f, err := feed(t, s, q)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, e := range f.Entries {
				got = append(got, e.ID)
			}
			if strings.Join(got, " ") != tc.want || f.TotalResults != tc.total {
				t.Errorf("got %v (total %d), want %q (total %d)", got, f.TotalResults, tc.want, tc.total)
			}
		})
	}
	if _, err := feed(t, s, url.Values{"search_query": {"all:x"}, "start": {"-1"}}); err == nil {
		t.Error("negative start accepted")
	}
}

// TestWriteFeedRoundTrip checks that what the fake serves parses back to
// the entries it was given.
func TestWriteFeedRoundTrip(t *testing.T) {
	in := arxivtest.RecordedEntries(t, arxivtest.DataDir(t))
	var b strings.Builder
	if err := arxivtest.WriteFeed(&b, "t & <q>", len(in), 0, len(in), in); err != nil {
		t.Fatal(err)
	}
	out, err := arxiv.ParseFeed(strings.NewReader(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Entries) != len(in) || out.TotalResults != len(in) {
		t.Fatalf("got %d entries (total %d), want %d", len(out.Entries), out.TotalResults, len(in))
	}
	for i, e := range out.Entries {
		w := in[i]
		if e.IDVersion() != w.IDVersion() || e.Title != w.Title || e.Summary != w.Summary || e.DOI != w.DOI ||
			e.Comment != w.Comment || e.JournalRef != w.JournalRef || !e.Published.Equal(w.Published) ||
			strings.Join(e.Categories, ",") != strings.Join(w.Categories, ",") || len(e.Authors) != len(w.Authors) {
			t.Errorf("entry %d: got %+v\nwant %+v", i, e, w)
		}
	}
}
