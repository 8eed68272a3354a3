package retrieve

import (
	"context"
	"testing"

	"github.com/papers-cli/papers/store"
	"github.com/papers-cli/papers/store/storetest"
)

// Retrieval benchmarks on the store's synthetic libraries (2,000 papers x 50
// chunks = 100k chunks and 200 x 50 = 10k, 384 dimensions, Zipf-distributed
// words). RETRIEVE_BENCH_DIR keeps the libraries between runs.

const benchDims = 384

func benchLibrary(b *testing.B, papers int) *store.Library {
	return storetest.BenchLibrary(b, "RETRIEVE_BENCH_DIR", papers, benchDims)
}

// BenchmarkRetrieve is one in-process query of 5 content words, top 10,
// per mode, after the vector index is loaded.
func BenchmarkRetrieve(b *testing.B) {
	for _, size := range []struct {
		name   string
		papers int
	}{{"chunks=10k", 200}, {"chunks=100k", 2000}} {
		for _, mode := range []Mode{BM25, Dense, Hybrid} {
			b.Run(size.name+"/"+string(mode), func(b *testing.B) {
				lib := benchLibrary(b, size.papers)
				r := &Retriever{Index: lib, Embedder: storetest.QueryEmbedder{Dims: benchDims}}
				ctx := context.Background()
				q := "reinforcement learning agent reward planning"
				if _, err := r.Retrieve(ctx, q, Options{Mode: mode}); err != nil {
					b.Fatal(err)
				}
				b.ReportAllocs()
				for b.Loop() {
					ps, err := r.Retrieve(ctx, q, Options{Mode: mode})
					if err != nil || len(ps) == 0 {
						b.Fatalf("%d passages, %v", len(ps), err)
					}
				}
			})
		}
	}
}
