package storetest

import (
	"context"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/papers-cli/papers/store"
)

// QueryEmbedder gives texts the synthetic library's kind of vectors: a
// random unit vector of Dims dimensions per text (the same text, the same
// vector), so dense search costs what it costs with a real model of that
// size. Its Name is Embedder(Dims).
type QueryEmbedder struct{ Dims int }

func (e QueryEmbedder) Name() string    { return Embedder(e.Dims) }
func (e QueryEmbedder) Dimensions() int { return e.Dims }

func (e QueryEmbedder) EmbedDocuments(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		out[i], _ = e.EmbedQuery(ctx, t)
	}
	return out, nil
}

func (e QueryEmbedder) EmbedQuery(ctx context.Context, text string) ([]float32, error) {
	h := fnv.New64a()
	h.Write([]byte(text))
	return Vector(rand.New(rand.NewPCG(h.Sum64(), 7)), e.Dims), nil
}

// BenchLibrary opens the synthetic library of papers papers x 50 chunks of
// dims dimensions (seed 1) for a benchmark, building it first when it is
// not there; it is closed when the benchmark ends. The library lives in the
// directory $envDir names, kept between runs (building 100k chunks takes a
// while), else in a temporary one.
func BenchLibrary(b testing.TB, envDir string, papers, dims int) *store.Library {
	b.Helper()
	root := os.Getenv(envDir)
	if root == "" {
		root = b.TempDir()
	}
	dir := filepath.Join(root, fmt.Sprintf("lib-%dx50x%d", papers, dims))
	ctx := context.Background()
	if _, err := os.Stat(filepath.Join(dir, store.FileName)); err != nil {
		if err := Synthetic(ctx, dir, papers, 50, dims, 1); err != nil {
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
