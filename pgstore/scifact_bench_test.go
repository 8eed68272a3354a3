package pgstore

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/papers-cli/papers/embed"
	"github.com/papers-cli/papers/eval"
	"github.com/papers-cli/papers/retrieve"
)

// BenchmarkSciFact stores the whole SciFact corpus in an embedded library
// and in PostgreSQL (PGlite unless PAPERS_TEST_DATABASE_URL names a
// server), then ranks the 809 judged train claims against both with the
// retriever papers eval uses (one passage per paper, 100), in every mode,
// and reports each store's nDCG@10 and Recall@100 and its mean and p95
// latency per query; PostgreSQL's text candidates from pg_textsearch's
// index where the server has it. With PAPERS_SCIFACT_EXACT=1 it also ranks
// PostgreSQL's text from the tsvectors alone (every chunk holding a query
// term scored): TestSearchAgreesWithEmbedded shows those rankings are the
// embedded library's, hit for hit, and they cost seconds a query here. It runs once whatever -benchtime says:
//
//	go test ./pgstore -run '^$' -bench SciFact -benchtime 1x -timeout 60m
func BenchmarkSciFact(b *testing.B) {
	c := sciFact(b)
	e := embed.NewLocal()
	lib, pg, eng := twoLibraries(b, c.Docs, e)
	ctx := context.Background()
	hasIndex := eng.textIndex // pg_textsearch is on the server
	for b.Loop() {
		for _, mode := range []retrieve.Mode{retrieve.BM25, retrieve.Dense, retrieve.Hybrid} {
			for _, st := range []struct {
				name  string
				index retrieve.Index
			}{{"embedded", lib}, {"postgres", pg}, {"postgres+pg_textsearch", pg}} {
				if st.name == "postgres+pg_textsearch" && (!hasIndex || mode == retrieve.Dense) ||
					st.name == "postgres" && mode != retrieve.Dense && os.Getenv("PAPERS_SCIFACT_EXACT") != "1" {
					continue
				}
				// BM25 from the tsvectors (as the embedded library's), or
				// pg_textsearch's candidates.
				eng.textIndex = st.name == "postgres+pg_textsearch"
				r := &retrieve.Retriever{Index: st.index, Embedder: e}
				start := time.Now()
				rep, err := eval.Run(ctx, func(ctx context.Context, q string) ([]string, error) {
					ps, err := r.Retrieve(ctx, q, retrieve.Options{K: 100, Mode: mode, PerPaper: 1})
					ids := make([]string, len(ps))
					for i, p := range ps {
						ids[i] = p.PaperID
					}
					return ids, err
				}, c.Queries, c.Qrels, nil)
				if err != nil {
					b.Fatal(err)
				}
				b.Logf("%-6s %-8s nDCG@10 %.4f  Recall@100 %.4f  MRR@10 %.4f  latency mean %.1f ms p95 %.1f ms (%d queries, %v)",
					mode, st.name, rep.NDCG10, rep.Recall100, rep.MRR10, rep.Latency.Mean, rep.Latency.P95, rep.Queries, time.Since(start).Round(time.Second))
				b.ReportMetric(rep.NDCG10, string(mode)+"-"+st.name+"-ndcg@10")
			}
		}
	}
}
