package ingest

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/papers-cli/papers/embed"
	"github.com/papers-cli/papers/ingest/arxiv"
	"github.com/papers-cli/papers/ingest/arxiv/arxivtest"
	"github.com/papers-cli/papers/store"
)

// BenchmarkIngestPDFs ingests the 8 papers of shared/data/pdfs/papers from a
// local fake arXiv with no pacing (PAPERS_ARXIV_DELAY=0): lookup, download,
// extraction, chunking, embedding and commit, into a fresh library each
// iteration. Reports papers/s and pages/s.
//
//	go test ./ingest -run XXX -bench IngestPDFs -benchtime 3x
func BenchmarkIngestPDFs(b *testing.B) {
	data := arxivtest.DataDir(b)
	files := map[string]string{
		"2302.04761": "toolformer_2302.04761v1.pdf",
		"2501.12948": "deepseek_r1_2501.12948.pdf",
		"2212.08073": "constitutional_ai_2212.08073.pdf",
		"2501.10120": "pasa_2501.10120.pdf",
		"1111.2011":  "arxiv_1111.2011v2.pdf",
		// the three without an arXiv id are served under made-up ids
		"2404.00001": "adarefiner_naacl2024findings.pdf",
		"2404.00002": "papermage_emnlp2023demo.pdf",
		"2404.00003": "explanations_molecular_prediction_paperqa.pdf",
	}
	opts := arxivtest.Options{DataDir: data, PDFs: map[string]string{}}
	var ids []string
	for id, f := range files {
		opts.PDFs[id] = filepath.Join(data, "pdfs", "papers", f)
		ids = append(ids, id)
		if id != "1111.2011" {
			opts.Entries = append(opts.Entries, arxiv.Entry{ID: id, Version: 1, Title: f, Summary: "abstract of " + f, Published: time.Now()})
		}
	}
	srv := arxivtest.NewServer(b, opts)
	ctx := context.Background()
	e := embed.NewLocal()
	pages := 0
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		lib, err := store.Open(ctx, b.TempDir())
		if err != nil {
			b.Fatal(err)
		}
		lib.EnsureEmbedder(ctx, e.Name(), e.Dimensions())
		client := arxiv.New()
		client.APIURL, client.PDFURL, client.Delay = srv.APIURL(), srv.PDFURL(), -1
		in := &Ingester{Lib: lib, Embedder: e, Arxiv: client, CacheDir: filepath.Join(lib.Dir(), "cache")}
		b.StartTimer()
		rep, err := in.ArxivIDs(ctx, ids)
		if err != nil || len(rep.Added) != len(ids) || len(rep.Failed) != 0 {
			b.Fatalf("ingest: %v %+v", err, rep)
		}
		pages += rep.Pages
		b.StopTimer()
		lib.Close()
		b.StartTimer()
	}
	secs := b.Elapsed().Seconds()
	b.ReportMetric(float64(len(ids)*b.N)/secs, "papers/s")
	b.ReportMetric(float64(pages)/secs, "pages/s")
}
