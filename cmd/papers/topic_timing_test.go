package main

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/papers-cli/papers/ingest/arxiv"
	"github.com/papers-cli/papers/ingest/arxiv/arxivtest"
)

// BenchmarkTopicDaily times what a daily cron job does on a 500-paper
// topic: `papers update` (new papers with their PDFs, one revision) and
// `papers digest --since 1d`, as whole processes against a fake arXiv with
// PAPERS_ARXIV_DELAY=0, and checks the requests that arXiv's 3 s delay
// would pace: the first update reads 5 pages, a day's update 1 page and the
// 7 PDFs, an update with nothing new 1 page, momentum 1 search and 1 count.
// Each iteration follows the topic from scratch; the steps' times are
// reported as metrics (BENCHMARKS.md, "Topics"):
//
//	go test ./cmd/papers -run '^$' -bench BenchmarkTopicDaily -benchtime 1x
func BenchmarkTopicDaily(b *testing.B) {
	for range b.N {
		topicDaily(b)
	}
}

func topicDaily(b *testing.B) {
	b.StopTimer()
	data := sharedData(b)
	now := time.Now().UTC()
	// 500 papers of the topic over the last 12 weeks (texts of real recorded
	// records, cycled under new ids), PDFs cycled from the real ones.
	var texts []arxiv.Entry
	seen := map[string]bool{}
	for _, e := range arxivtest.RecordedEntries(b, data) {
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

	home := b.TempDir()
	b.StartTimer()
	defer b.StopTimer()
	run := func(srv *arxivtest.Server, args ...string) time.Duration {
		b.Helper()
		c := papersCmd(home, args...)
		c.Env = append(c.Env, "PAPERS_ARXIV_API_URL="+srv.APIURL(), "PAPERS_ARXIV_PDF_URL="+srv.PDFURL(), "PAPERS_ARXIV_DELAY=0")
		start := time.Now()
		out, err := c.CombinedOutput()
		d := time.Since(start)
		if err != nil {
			b.Fatalf("papers %s: %v\n%s", strings.Join(args, " "), err, out)
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
	s0 := arxivtest.NewServer(b, arxivtest.Options{DataDir: data, Entries: base, MatchQuery: true})
	run(s0, "topic", "add", "ml", "--query", "abs:model")
	first := run(s0, "update", "--abstracts-only")
	api0, _ := count(s0)

	// Day 1: six new papers and one revision, with PDFs, then the digest.
	feed := append(slices.Clone(fresh), base...)
	feed[daily+100] = rev
	s1 := arxivtest.NewServer(b, arxivtest.Options{DataDir: data, Entries: feed, MatchQuery: true, PDFs: pdfMap})
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

	want := func(what string, got, want int) {
		b.Helper()
		if got != want {
			b.Fatalf("%s: %d requests to arXiv, want %d", what, got, want)
		}
	}
	want("first update of 500 papers (API pages)", api0, 5)
	want("daily update (API)", api1, 1)
	want("daily update (PDFs)", pdf1, daily+1)
	want("4 updates with nothing new", apiN-api1+pdfN-pdf1, 4)
	want("momentum", apiM-apiN, 2)
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1e3 }
	b.ReportMetric(ms(first), "first-update-ms")
	b.ReportMetric(ms(upd[0]), "daily-update-ms")
	b.ReportMetric(ms(dig[0]), "digest-ms")
	b.ReportMetric(ms(slices.Max(upd[1:])), "nothing-new-update-ms")
	b.ReportMetric(ms(mom), "momentum-ms")
}
