package ask

import (
	"context"
	"os"
	"testing"

	"github.com/papers-cli/papers/embed"
	"github.com/papers-cli/papers/eval"
)

func TestTuneStore(t *testing.T) {
	if os.Getenv("TUNE") == "" {
		return
	}
	sf := loadSciFact(t)
	e := embed.NewLocal()
	lib := sciFactLibrary(t, sf.docs, e)
	ctx := context.Background()
	for _, fu := range []Fusion{
		{Method: "score", DenseWeight: 0.3, Depth: 100},
		{Method: "score", DenseWeight: 0.15, Depth: 100},
		{Method: "score", DenseWeight: 0.5, Depth: 100},
		{Method: "rrf", DenseWeight: 0.3, RRFK: 60, Depth: 100},
	} {
		r := &Retriever{Index: lib, Embedder: e, Fusion: fu}
		for _, m := range []Mode{BM25, Dense, Hybrid} {
			if m != Hybrid && fu.DenseWeight != 0.3 || m != Hybrid && fu.Method == "rrf" {
				continue
			}
			rep, err := eval.Run(ctx, paperRanking(r, m), sf.queries, sf.qrels, nil)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%s %+v: %+v", m, fu, rep)
		}
	}
}
