package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/papers-cli/papers/ingest/arxiv"
	"github.com/papers-cli/papers/ingest/arxiv/arxivtest"
)

// TestTopicDailyTiming times what a daily cron job does on a 500-paper
// topic: `papers update` (new papers with their PDFs, one revision) and
// `papers digest --since 1d`, as whole processes against a fake arXiv with
// PAPERS_ARXIV_DELAY=0, and counts the requests that arXiv's 3 s delay
// would pace. It takes a while, so it runs only with PAPERS_TOPIC_TIMING=1:
//
//	PAPERS_TOPIC_TIMING=1 go test ./cmd/papers -run TestTopicDailyTiming -v -count=1
func TestTopicDailyTiming(t *testing.T) {
	if os.Getenv("PAPERS_TOPIC_TIMING") != "1" {
		t.Skip("set PAPERS_TOPIC_TIMING=1 to time a daily update and digest on a 500-paper topic")
	}
	data := sharedData(t)
	now := time.Now().UTC()
	// 500 papers of the topic over the last 12 weeks (texts of real recorded
	// records, cycled under new ids), PDFs cycled from the real ones.
	var texts []arxiv.Entry
	seen := map[string]bool{}
	for _, e := range arxivtest.RecordedEntries(t, data) {
		if !seen[e.ID] && e.Title != "" && e.Summary != "" {
			seen[e.ID] = true
			texts = append(texts, e)
		}
	}
	var pdfs []string
	for _, f := range []string{"toolformer_2302.04761v1.pdf", "deepseek_r1_2501.12948.pdf", "constitutional_ai_2212.08073.pdf", "pasa_2501.10120.pdf", "arxiv_1111.2011v2.pdf"} {
		pdfs = append(pdfs, filepath.Join(data, "pdfs", "papers", f))
	}
	mk := func(i int, published time.Time) arxiv.Entry {
		e := texts[i%len(texts)]
		e.ID, e.Version = fmt.Sprintf("2609.%05d", i+1), 1
		e.Title = fmt.Sprintf("%s (%d)", e.Title, i)
		e.Summary += " We propose a model."
		e.Published, e.Updated = published, published
		e.AbsURL = "https://arxiv.org/abs/" + e.ID + "v1"
		return e
	}
	const held, daily = 500, 6
	var base []arxiv.Entry
	for i := range held {
		base = append(base, mk(daily+i, now.Add(-26*time.Hour-time.Duration(i)*4*time.Hour))) // 500 x 4 h = 83 days
	}
	pdfMap := map[string]string{}
	var fresh []arxiv.Entry
	for i := range daily {
		e := mk(i, now.Add(-time.Duration(1+3*i)*time.Hour))
		fresh = append(fresh, e)
		pdfMap[e.ID] = pdfs[i%len(pdfs)]
	}
	rev := base[100]
	rev.Version, rev.Updated = 2, now.Add(-2*time.Hour)
	rev.Summary += " Version 2 adds experiments."
	pdfMap[rev.ID+"v2"] = pdfs[0]

	home := t.TempDir()
	run := func(srv *arxivtest.Server, args ...string) time.Duration {
		t.Helper()
		c := papersCmd(home, args...)
		c.Env = append(c.Env, "PAPERS_ARXIV_API_URL="+srv.APIURL(), "PAPERS_ARXIV_PDF_URL="+srv.PDFURL(), "PAPERS_ARXIV_DELAY=0")
		start := time.Now()
		out, err := c.CombinedOutput()
		d := time.Since(start)
		if err != nil {
			t.Fatalf("papers %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return d
	}
	count := func(srv *arxivtest.Server) (api, pdf int) {
		for _, r := range srv.Requests() {
			if r.Kind == "api" {
				api++
			} else {
				pdf++
			}
		}
		return api, pdf
	}

	// Day 0: follow the topic; its first update takes the 12-week window
	// (abstracts only here: 500 PDFs would measure PDF extraction, which has
	// its own benchmark).
	s0 := arxivtest.NewServer(t, arxivtest.Options{DataDir: data, Entries: base, MatchQuery: true})
	run(s0, "topic", "add", "ml", "--query", "abs:model")
	first := run(s0, "update", "--abstracts-only")
	api0, _ := count(s0)

	// Day 1: six new papers and one revision, with PDFs, then the digest.
	feed := append(slices.Clone(fresh), base...)
	feed[daily+100] = rev
	s1 := arxivtest.NewServer(t, arxivtest.Options{DataDir: data, Entries: feed, MatchQuery: true, PDFs: pdfMap})
	var upd, dig []time.Duration
	upd = append(upd, run(s1, "update"))
	api1, pdf1 := count(s1)
	dig = append(dig, run(s1, "digest", "ml", "--since", "1d"))
	// Repeat runs: nothing new (one request each), digest again.
	for range 4 {
		upd = append(upd, run(s1, "update"))
		dig = append(dig, run(s1, "digest", "ml", "--since", "1d"))
	}
	apiN, pdfN := count(s1)
	mom := run(s1, "momentum", "ml")
	apiM, _ := count(s1)

	t.Logf("first update, %d papers, abstracts only: %v in %d API requests (polite gaps: %d x 3 s = %d s)", held, first.Round(time.Millisecond), api0, api0-1, 3*(api0-1))
	t.Logf("daily update, %d new + 1 revised with PDFs: %v, %d API + %d PDF requests (polite gaps: %d x 3 s = %d s)",
		daily, upd[0].Round(time.Millisecond), api1, pdf1, api1+pdf1-1, 3*(api1+pdf1-1))
	t.Logf("digest --since 1d: %v", dig[0].Round(time.Millisecond))
	t.Logf("momentum: %v in %d API requests", mom.Round(time.Millisecond), apiM-apiN)
	t.Logf("update with nothing new: %v (%d requests over 4 runs); digest repeats: %v", upd[1:], apiN-api1+pdfN-pdf1, dig[1:])
}
