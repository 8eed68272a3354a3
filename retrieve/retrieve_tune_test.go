package retrieve

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/papers-cli/papers/embed"
	"github.com/papers-cli/papers/eval"
	"github.com/papers-cli/papers/store"
)

// BenchmarkTuneFusion tunes hybrid fusion on the SciFact train split: it
// reports the nDCG@10 of each fusion method, weight and depth as a metric
// (TestRetrieveSciFactSubset is the check). It stores the corpus in a
// library of its own, or searches the library TUNE_LIBRARY names, e.g. one
// built by
//
//	papers eval --corpus corpus.jsonl --queries queries.jsonl --qrels qrels/train.tsv --keep
//
// Run it with
//
//	go test ./ask -run '^$' -bench BenchmarkTuneFusion -benchtime 1x
func BenchmarkTuneFusion(b *testing.B) {
	ctx := context.Background()
	sf := loadSciFact(b)
	e := embed.NewLocal()
	var lib *store.Library
	if dir := os.Getenv("TUNE_LIBRARY"); dir != "" {
		var err error
		if lib, err = store.Open(ctx, dir); err != nil {
			b.Fatal(err)
		}
		defer lib.Close()
	} else {
		lib = sciFactLibrary(b, sf.Docs, e)
	}
	type lists struct{ lex, dense []Scored }
	var all []lists
	r := &Retriever{Index: lib, Embedder: e}
	for _, q := range sf.Queries {
		lex, err := r.Lexical(ctx, q.Text, 300, store.Filter{})
		if err != nil {
			b.Fatal(err)
		}
		dense, err := r.dense(ctx, q.Text, 300, store.Filter{})
		if err != nil {
			b.Fatal(err)
		}
		all = append(all, lists{lex, dense})
	}
	b.ResetTimer()
	score := func(name string, f func(l lists) []Scored) {
		var acc eval.Accumulator
		for i, l := range all {
			ranked := diversify(f(l), 100, 1)
			ids := make([]string, len(ranked))
			for j, s := range ranked {
				ids[j], _, _ = store.ParseChunkID(s.ID)
			}
			acc.Add(ids, sf.Qrels[sf.Queries[i].ID], 0)
		}
		rep := acc.Report()
		b.Logf("%-40s nDCG@10 %.4f  R@100 %.4f  MRR@10 %.4f", name, rep.NDCG10, rep.Recall100, rep.MRR10)
		b.ReportMetric(rep.NDCG10, "ndcg@10:"+strings.ReplaceAll(name, " ", ","))
	}
	for range b.N {
		score("bm25", func(l lists) []Scored { return l.lex })
		score("dense", func(l lists) []Scored { return l.dense })
		for _, depth := range []int{100, 300} {
			cut := func(s []Scored) []Scored { return s[:min(depth, len(s))] }
			for _, w := range []float64{0.05, 0.1, 0.2, 0.3} {
				fu := Fusion{Method: "score", DenseWeight: w}
				score(fmt.Sprintf("score d=%d w=%.2f", depth, w), func(l lists) []Scored { return fu.fuse(cut(l.lex), cut(l.dense)) })
			}
			for _, w := range []float64{0.2, 0.4} {
				for _, k := range []float64{10, 60} {
					fu := Fusion{Method: "rrf", DenseWeight: w, RRFK: k}
					score(fmt.Sprintf("rrf d=%d w=%.2f k=%.0f", depth, w, k), func(l lists) []Scored { return fu.fuse(cut(l.lex), cut(l.dense)) })
				}
			}
		}
	}
}
