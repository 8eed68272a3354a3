// Package storetest builds synthetic libraries for benchmarks and tests of
// the packages that read the library: deterministic for a seed, written
// through store.Put like a real ingest.
package storetest

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/papers-cli/papers/store"
)

// Embedder is the embedder name Synthetic records, for dims dimensions.
func Embedder(dims int) string { return fmt.Sprintf("synthetic/random-%d", dims) }

// vocabulary for chunk texts, in Zipf rank order: random strings, with the
// topic words of benchmark queries placed at every 40th rank from 40 on, so
// that they occur in a realistic few to 20% of chunks rather than in all.
var vocabulary = func() []string {
	r := rand.New(rand.NewPCG(1, 1))
	topic := strings.Fields(`reinforcement learning agent policy gradient reward model language
		transformer attention retrieval augmented generation benchmark dataset evaluation
		training inference optimisation planning reasoning tool memory environment
		simulation robot vision graph neural network diffusion sampling token context`)
	var words []string
	for len(words) < 5000 {
		if len(words) >= 40 && len(words)%40 == 0 && len(topic) > 0 {
			words = append(words, topic[0])
			topic = topic[1:]
			continue
		}
		n := 3 + r.IntN(8)
		b := make([]byte, n)
		for i := range b {
			b[i] = byte('a' + r.IntN(26))
		}
		words = append(words, string(b))
	}
	return words
}()

// Synthetic creates (or extends) the library in dir with papers papers of
// chunksPerPaper chunks each: random unit vectors of dims dimensions, about
// 100 words of text per chunk drawn from a Zipf-like vocabulary, dates spread
// over 2020-2025 and three categories. Paper ids are "syn-%06d". The same
// seed gives the same library.
func Synthetic(ctx context.Context, dir string, papers, chunksPerPaper, dims int, seed uint64) error {
	return Build(ctx, dir, Options{Papers: papers, ChunksPerPaper: chunksPerPaper, Dims: dims, Seed: seed})
}

// Options configure Build.
type Options struct {
	Papers, ChunksPerPaper, Dims int
	Seed                         uint64
	// First is the number of the first paper (ids "syn-%06d" from it), so
	// that a library can be grown in steps.
	First int
	// Embedder is the embedder name recorded (default Embedder(Dims)).
	// Recording the local embedder's lets the papers command search and
	// ingest into the library (its vectors are random all the same).
	Embedder string
	// Batch is how many papers go in one transaction (default 1).
	Batch int
	// RefreshEvery refreshes the search index after this many papers and
	// at the end (0: never), as repeated ingests would.
	RefreshEvery int
	// Progress, if set, is called after each transaction with the papers
	// written so far.
	Progress func(done int)
	// Refreshed, if set, is called after each refresh with its duration
	// (its merges included).
	Refreshed func(done int, took time.Duration)
}

// Build writes the synthetic library o describes into dir (see Synthetic).
func Build(ctx context.Context, dir string, o Options) error {
	lib, err := store.Open(ctx, dir)
	if err != nil {
		return err
	}
	defer lib.Close()
	name := o.Embedder
	if name == "" {
		name = Embedder(o.Dims)
	}
	if err := lib.EnsureEmbedder(ctx, name, o.Dims); err != nil {
		return err
	}
	if err := lib.SetChunker(ctx, "synthetic"); err != nil {
		return err
	}
	r := rand.New(rand.NewPCG(o.Seed, 0xbe7c4))
	zipf := rand.NewZipf(rand.New(rand.NewPCG(o.Seed, 2)), 1.1, 1, uint64(len(vocabulary)-1))
	text := func(n int) string {
		var b strings.Builder
		for i := range n {
			if i > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(vocabulary[zipf.Uint64()])
		}
		return b.String()
	}
	cats := []string{"cs.AI", "cs.CL", "cs.LG", "stat.ML"}
	start := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	batch := max(o.Batch, 1)
	var items []store.Item
	sinceRefresh := 0
	for i := range o.Papers {
		p := store.Paper{
			ID:         fmt.Sprintf("syn-%06d", o.First+i),
			Version:    1,
			Title:      text(8),
			Abstract:   text(120),
			Authors:    []string{fmt.Sprintf("Author %d", r.IntN(500)), fmt.Sprintf("Author %d", r.IntN(500))},
			Categories: []string{cats[r.IntN(len(cats))], cats[r.IntN(len(cats))]},
			Published:  start.Add(time.Duration(r.IntN(6*365*24)) * time.Hour),
			Source:     "arxiv",
			Pages:      o.ChunksPerPaper / 3,
		}
		cs := make([]store.Chunk, o.ChunksPerPaper)
		for s := range cs {
			cs[s] = store.Chunk{Seq: s, PageStart: s / 3, PageEnd: s/3 + 1, Text: text(100), Vector: Vector(r, o.Dims)}
		}
		items = append(items, store.Item{Paper: p, Chunks: cs})
		if len(items) < batch && i < o.Papers-1 {
			continue
		}
		if _, err := lib.PutBatch(ctx, items); err != nil {
			return err
		}
		sinceRefresh += len(items)
		items = items[:0]
		if o.RefreshEvery > 0 && (sinceRefresh >= o.RefreshEvery || i == o.Papers-1) {
			t0 := time.Now()
			if err := lib.Refresh(ctx); err != nil {
				return err
			}
			if o.Refreshed != nil {
				o.Refreshed(i+1, time.Since(t0))
			}
			sinceRefresh = 0
		}
		if o.Progress != nil {
			o.Progress(i + 1)
		}
	}
	return nil
}

// Vector returns a random unit vector of dims dimensions.
func Vector(r *rand.Rand, dims int) []float32 {
	v := make([]float32, dims)
	var s float64
	for i := range v {
		f := r.NormFloat64()
		v[i] = float32(f)
		s += f * f
	}
	inv := 1 / math.Sqrt(s)
	for i := range v {
		v[i] = float32(float64(v[i]) * inv)
	}
	return v
}
