package ask

import (
	"context"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/papers-cli/papers/store"
	"github.com/papers-cli/papers/store/storetest"
)

// Retrieval benchmarks on the store's synthetic libraries (2,000 papers x 50
// chunks = 100k chunks and 200 x 50 = 10k, 384 dimensions, Zipf-distributed
// words). RETRIEVE_BENCH_DIR keeps the libraries between runs.

const benchDims = 384

// synthEmbedder gives the synthetic library's kind of vectors: a random
// unit vector per text (deterministic), so dense search costs what it
// costs with a real 384-dimension model.
type synthEmbedder struct{}

func (synthEmbedder) Name() string    { return storetest.Embedder(benchDims) }
func (synthEmbedder) Dimensions() int { return benchDims }
func (synthEmbedder) EmbedDocuments(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		out[i], _ = synthEmbedder{}.EmbedQuery(ctx, t)
	}
	return out, nil
}
func (synthEmbedder) EmbedQuery(ctx context.Context, text string) ([]float32, error) {
	h := fnv.New64a()
	h.Write([]byte(text))
	return storetest.Vector(rand.New(rand.NewPCG(h.Sum64(), 7)), benchDims), nil
}

func benchLibrary(b *testing.B, papers int) *store.Library {
	b.Helper()
	root := os.Getenv("RETRIEVE_BENCH_DIR")
	if root == "" {
		root = b.TempDir()
	}
	dir := filepath.Join(root, fmt.Sprintf("lib-%dx50x%d", papers, benchDims))
	ctx := context.Background()
	if _, err := os.Stat(filepath.Join(dir, store.FileName)); err != nil {
		if err := storetest.Synthetic(ctx, dir, papers, 50, benchDims, 1); err != nil {
			b.Fatal(err)
		}
	}
	lib, err := store.Open(ctx, dir)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { lib.Close() })
	return lib
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
				r := &Retriever{Index: lib, Embedder: synthEmbedder{}}
				ctx := context.Background()
				q := "reinforcement learning agent reward planning"
				if _, err := r.Retrieve(ctx, q, RetrieveOptions{Mode: mode}); err != nil {
					b.Fatal(err)
				}
				b.ReportAllocs()
				for b.Loop() {
					ps, err := r.Retrieve(ctx, q, RetrieveOptions{Mode: mode})
					if err != nil || len(ps) == 0 {
						b.Fatalf("%d passages, %v", len(ps), err)
					}
				}
			})
		}
	}
}
