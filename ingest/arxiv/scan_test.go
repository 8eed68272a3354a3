package arxiv_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/papers-cli/papers/ingest/arxiv"
	"github.com/papers-cli/papers/ingest/arxiv/arxivtest"
)

func TestScanStopsEarlyAndPages(t *testing.T) {
	day := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var es []arxiv.Entry
	for i := range 25 {
		p := day.Add(time.Duration(i) * time.Hour)
		// Updated runs the other way round from Published, so the two sort
		// orders differ.
		es = append(es, arxiv.Entry{ID: fmt.Sprintf("2601.%05d", i+1), Version: 1, Title: "t", Summary: "s",
			Published: p, Updated: day.Add(time.Duration(100-i) * time.Hour)})
	}
	s := arxivtest.NewServer(t, arxivtest.Options{Entries: es})
	c := arxiv.New()
	c.APIURL, c.Delay = s.APIURL(), -1

	var got []string
	total, err := c.Scan(context.Background(), "all:x", arxiv.ByLastUpdated, 10, func(e arxiv.Entry) bool {
		got = append(got, e.ID)
		return len(got) < 3
	})
	if err != nil || total != 25 || len(got) != 3 || got[0] != "2601.00001" || len(s.Requests()) != 1 {
		t.Fatalf("stop after 3 by last update: %v total %d, %d requests, %v", got, total, len(s.Requests()), err)
	}

	got = got[:0]
	_, err = c.Scan(context.Background(), "all:x", arxiv.BySubmitted, 10, func(e arxiv.Entry) bool {
		got = append(got, e.ID)
		return true
	})
	if err != nil || len(got) != 25 || got[0] != "2601.00025" || len(s.Requests()) != 1+3 {
		t.Fatalf("whole scan by submission: %d entries, first %s, %d requests, %v", len(got), got[0], len(s.Requests()), err)
	}
	if _, err := c.Scan(context.Background(), " ", "", 0, func(arxiv.Entry) bool { return true }); err == nil {
		t.Error("empty query: no error")
	}
}
