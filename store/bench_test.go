package store_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"

	chromem "github.com/philippgille/chromem-go"

	"github.com/papers-cli/papers/internal/testmain"
	"github.com/papers-cli/papers/store"
	"github.com/papers-cli/papers/store/storetest"
)

// Benchmarks run on synthetic libraries of 200 and 2,000 papers x 50 chunks
// x 384 dimensions (10k and 100k chunks), each built once per benchmark
// process. Set STORE_BENCH_DIR to keep them between runs (they take a while
// to build).

const benchDims = 384

var benchSizes = []struct {
	name   string
	papers int
}{{"chunks=10k", 200}, {"chunks=100k", 2000}}

var (
	benchMu   sync.Mutex
	benchLibs = map[int]string{}
	benchTmp  string
)

func benchLibrary(b *testing.B, papers int) string {
	b.Helper()
	benchMu.Lock()
	defer benchMu.Unlock()
	if dir, ok := benchLibs[papers]; ok {
		return dir
	}
	root := os.Getenv("STORE_BENCH_DIR")
	if root == "" {
		if benchTmp == "" {
			var err error
			if benchTmp, err = os.MkdirTemp("", "store-bench-"); err != nil {
				b.Fatal(err)
			}
		}
		root = benchTmp
	}
	dir := filepath.Join(root, fmt.Sprintf("lib-%dx50x%d", papers, benchDims))
	ctx := context.Background()
	if _, err := os.Stat(filepath.Join(dir, store.FileName)); err != nil {
		if err := storetest.Synthetic(ctx, dir, papers, 50, benchDims, 1); err != nil {
			b.Fatal(err)
		}
	}
	benchLibs[papers] = dir
	return dir
}

func TestMain(m *testing.M) {
	// The test binary re-executed as a child process of the kill tests.
	switch os.Getenv("STORE_CHILD") {
	case "writer":
		childWriter() // durability_test.go
	case "index":
		store.IndexChild() // segments_kill_test.go
	}
	testmain.GC()
	code := m.Run()
	if benchTmp != "" {
		os.RemoveAll(benchTmp)
	}
	os.Exit(code)
}

func benchQuery(i int) []float32 {
	return storetest.Vector(rand.New(rand.NewPCG(uint64(i), 99)), benchDims)
}

// Open + List of every paper + Close: what `papers list` costs.
func BenchmarkOpenList(b *testing.B) {
	for _, s := range benchSizes {
		b.Run(s.name, func(b *testing.B) {
			dir := benchLibrary(b, s.papers)
			ctx := context.Background()
			b.ReportAllocs()
			c0 := cpuTime()
			for b.Loop() {
				lib, err := store.Open(ctx, dir)
				if err != nil {
					b.Fatal(err)
				}
				ps, err := lib.List(ctx, store.Filter{})
				if err != nil || len(ps) != s.papers {
					b.Fatalf("List: %d papers, %v", len(ps), err)
				}
				lib.Close()
			}
			reportCPU(b, c0)
		})
	}
}

// Open + first SearchVectors + Close: the in-process part of a cold
// `papers search`. "sidecar" is the usual case (index.bin is current);
// "rebuild" deletes it first, so the vectors come from SQLite and the sidecar
// is rewritten (the first search after an ingest).
func BenchmarkSearchVectorsCold(b *testing.B) {
	for _, s := range benchSizes {
		for _, mode := range []string{"sidecar", "rebuild"} {
			b.Run(s.name+"/"+mode, func(b *testing.B) {
				dir := benchLibrary(b, s.papers)
				ctx := context.Background()
				q := benchQuery(1)
				b.ReportAllocs()
				c0 := cpuTime()
				for b.Loop() {
					if mode == "rebuild" {
						os.RemoveAll(filepath.Join(dir, store.IndexDir))
					}
					lib, err := store.Open(ctx, dir)
					if err != nil {
						b.Fatal(err)
					}
					hits, err := lib.SearchVectors(ctx, q, 10, store.Filter{})
					if err != nil || len(hits) != 10 {
						b.Fatalf("SearchVectors: %d hits, %v", len(hits), err)
					}
					lib.Close()
				}
				reportCPU(b, c0)
			})
		}
	}
}

// A query on a loaded index, unfiltered and with a category filter.
func BenchmarkSearchVectorsWarm(b *testing.B) {
	for _, s := range benchSizes {
		for _, filtered := range []bool{false, true} {
			name := s.name
			f := store.Filter{}
			if filtered {
				name += "/category"
				f.Categories = []string{"cs.CL"}
			}
			b.Run(name, func(b *testing.B) {
				dir := benchLibrary(b, s.papers)
				ctx := context.Background()
				lib, err := store.Open(ctx, dir)
				if err != nil {
					b.Fatal(err)
				}
				defer lib.Close()
				if _, err := lib.SearchVectors(ctx, benchQuery(0), 10, f); err != nil {
					b.Fatal(err)
				}
				b.ReportAllocs()
				i := 0
				c0 := cpuTime()
				for b.Loop() {
					i++
					if _, err := lib.SearchVectors(ctx, benchQuery(i), 10, f); err != nil {
						b.Fatal(err)
					}
				}
				reportCPU(b, c0)
			})
		}
	}
}

// BM25 over FTS5 for a 5-word query, top 100.
func BenchmarkSearchText(b *testing.B) {
	for _, s := range benchSizes {
		b.Run(s.name, func(b *testing.B) {
			dir := benchLibrary(b, s.papers)
			ctx := context.Background()
			lib, err := store.Open(ctx, dir)
			if err != nil {
				b.Fatal(err)
			}
			defer lib.Close()
			b.ReportAllocs()
			c0 := cpuTime()
			for b.Loop() {
				hits, err := lib.SearchText(ctx, "reinforcement learning agent reward planning", 100, store.Filter{}, store.Feedback{})
				if err != nil || len(hits) == 0 {
					b.Fatalf("SearchText: %d hits, %v", len(hits), err)
				}
			}
			reportCPU(b, c0)
		})
	}
}

// Put of a new version of one 50-chunk paper, then Refresh: what `papers
// ingest` of one paper costs at its end, with the index and sidecar of the
// library before the Put at hand. "copy" is the usual case (the unchanged
// papers' chunks are copied from the previous index); "full" forgets the
// previous index first, so everything is read from SQLite and tokenized. The
// paper is deleted again afterwards.
func BenchmarkRefreshAfterPut(b *testing.B) {
	for _, s := range benchSizes {
		for _, mode := range []string{"copy", "full"} {
			b.Run(s.name+"/"+mode, func(b *testing.B) {
				dir := benchLibrary(b, s.papers)
				ctx := context.Background()
				lib, err := store.Open(ctx, dir)
				if err != nil {
					b.Fatal(err)
				}
				defer lib.Close()
				if err := lib.Refresh(ctx); err != nil {
					b.Fatal(err)
				}
				r := rand.New(rand.NewPCG(3, 4))
				version := 0
				b.ReportAllocs()
				c0 := cpuTime()
				for b.Loop() {
					version++
					p := store.Paper{ID: "bench-refresh", Version: version, Title: fmt.Sprintf("Version %d of a paper", version)}
					cs := make([]store.Chunk, 50)
					for i := range cs {
						cs[i] = store.Chunk{Seq: i, Text: fmt.Sprintf("chunk %d of version %d about agents and tools", i, version), Vector: storetest.Vector(r, benchDims)}
					}
					if _, err := lib.Put(ctx, p, cs); err != nil {
						b.Fatal(err)
					}
					if mode == "full" {
						lib.Close()
						os.RemoveAll(filepath.Join(dir, store.IndexDir))
						if lib, err = store.Open(ctx, dir); err != nil {
							b.Fatal(err)
						}
					}
					if err := lib.Refresh(ctx); err != nil {
						b.Fatal(err)
					}
				}
				reportCPU(b, c0)
				if err := lib.Delete(ctx, "bench-refresh"); err != nil {
					b.Fatal(err)
				}
				if err := lib.Refresh(ctx); err != nil {
					b.Fatal(err)
				}
			})
		}
	}
}

// Put of a 50-chunk paper (384 dims) into a growing library, one transaction
// and one fsync each; reports papers/s and chunks/s.
func BenchmarkPut(b *testing.B) {
	ctx := context.Background()
	dir := b.TempDir()
	lib, err := store.Open(ctx, dir)
	if err != nil {
		b.Fatal(err)
	}
	defer lib.Close()
	if err := lib.EnsureEmbedder(ctx, storetest.Embedder(benchDims), benchDims); err != nil {
		b.Fatal(err)
	}
	r := rand.New(rand.NewPCG(1, 2))
	words := "policy gradient agents learn to plan with tools and memory in simulated environments "
	n := 0
	b.ReportAllocs()
	c0 := cpuTime()
	for b.Loop() {
		b.StopTimer()
		p := store.Paper{ID: fmt.Sprintf("put-%06d", n), Version: 1, Title: "A paper", Categories: []string{"cs.AI"}}
		cs := make([]store.Chunk, 50)
		for s := range cs {
			cs[s] = store.Chunk{Seq: s, Text: fmt.Sprintf("%d %s%s%s%s", s, words, words, words, words), Vector: storetest.Vector(r, benchDims)}
		}
		n++
		b.StartTimer()
		if _, err := lib.Put(ctx, p, cs); err != nil {
			b.Fatal(err)
		}
	}
	reportCPU(b, c0)
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "papers/s")
	b.ReportMetric(50*float64(b.N)/b.Elapsed().Seconds(), "chunks/s")
}

// For comparison: the same vectors in an in-memory chromem collection, as
// DESIGN.md sketched (NewDB + AddDocuments with precomputed embeddings),
// loaded from the library's sidecar-backed index via ForEachChunk.
func BenchmarkChromem(b *testing.B) {
	for _, s := range benchSizes {
		dir := benchLibrary(b, s.papers)
		ctx := context.Background()
		lib, err := store.Open(ctx, dir)
		if err != nil {
			b.Fatal(err)
		}
		var docs []chromem.Document
		if err := lib.ForEachChunk(ctx, true, func(c store.Chunk) error {
			docs = append(docs, chromem.Document{
				ID:        store.ChunkID(c.PaperID, c.Seq),
				Metadata:  map[string]string{"paper_id": c.PaperID},
				Embedding: c.Vector,
			})
			return nil
		}); err != nil {
			b.Fatal(err)
		}
		lib.Close()
		load := func() *chromem.Collection {
			db := chromem.NewDB()
			col, err := db.CreateCollection("chunks", nil, func(context.Context, string) ([]float32, error) {
				return nil, fmt.Errorf("no embedding function")
			})
			if err != nil {
				b.Fatal(err)
			}
			if err := col.AddDocuments(ctx, docs, runtime.GOMAXPROCS(0)); err != nil {
				b.Fatal(err)
			}
			return col
		}
		b.Run(s.name+"/load", func(b *testing.B) {
			c0 := cpuTime()
			for b.Loop() {
				load()
			}
			reportCPU(b, c0)
		})
		col := load()
		b.Run(s.name+"/query", func(b *testing.B) {
			b.ReportAllocs()
			i := 0
			c0 := cpuTime()
			for b.Loop() {
				i++
				res, err := col.QueryEmbedding(ctx, benchQuery(i), 10, nil, nil)
				if err != nil || len(res) != 10 {
					b.Fatal(err)
				}
			}
			reportCPU(b, c0)
		})
		b.Run(s.name+"/query-where-paper", func(b *testing.B) {
			c0 := cpuTime()
			for b.Loop() {
				if _, err := col.QueryEmbedding(ctx, benchQuery(1), 10, map[string]string{"paper_id": "syn-000007"}, nil); err != nil {
					b.Fatal(err)
				}
			}
			reportCPU(b, c0)
		})
	}
}

// The flat index and chromem agree on the top 10 (as sets of ids with equal
// scores), so the comparison above is like for like.
func TestFlatIndexAgreesWithChromem(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	if err := storetest.Synthetic(ctx, dir, 40, 20, 32, 5); err != nil {
		t.Fatal(err)
	}
	lib, err := store.Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	defer lib.Close()
	db := chromem.NewDB()
	col, _ := db.CreateCollection("c", nil, nil)
	var docs []chromem.Document
	lib.ForEachChunk(ctx, true, func(c store.Chunk) error {
		docs = append(docs, chromem.Document{ID: store.ChunkID(c.PaperID, c.Seq), Embedding: c.Vector})
		return nil
	})
	if err := col.AddDocuments(ctx, docs, 2); err != nil {
		t.Fatal(err)
	}
	for i := range 20 {
		q := storetest.Vector(rand.New(rand.NewPCG(uint64(i), 3)), 32)
		hits, err := lib.SearchVectors(ctx, q, 10, store.Filter{})
		if err != nil {
			t.Fatal(err)
		}
		res, err := col.QueryEmbedding(ctx, q, 10, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		var a, c []string
		for j := range hits {
			a = append(a, hits[j].ChunkID)
			c = append(c, res[j].ID)
			if d := hits[j].Score - res[j].Similarity; d > 1e-5 || d < -1e-5 {
				t.Errorf("query %d rank %d: score %v vs chromem %v", i, j, hits[j].Score, res[j].Similarity)
			}
		}
		slices.Sort(a)
		slices.Sort(c)
		if !slices.Equal(a, c) {
			t.Errorf("query %d: flat %v, chromem %v", i, a, c)
		}
	}
}

func reportCPU(b *testing.B, c0 time.Duration) {
	if c := cpuTime(); c0 > 0 && b.N > 0 {
		b.ReportMetric(float64(c-c0)/float64(b.N)/1e6, "cpu-ms/op")
	}
}

// PaperVectors of a library of 10,000 papers (one chunk each, 768
// dimensions) whose papers.vec is current: what each papers related
// reads before building its collection.
func BenchmarkPaperVectorsCurrent(b *testing.B) {
	ctx := context.Background()
	dir := filepath.Join(b.TempDir(), "lib")
	if err := storetest.Build(ctx, dir, storetest.Options{Papers: 10000, ChunksPerPaper: 1, Dims: 768, Seed: 1, Batch: 500}); err != nil {
		b.Fatal(err)
	}
	lib, err := store.Open(ctx, dir)
	if err != nil {
		b.Fatal(err)
	}
	defer lib.Close()
	pv, err := lib.PaperVectors(ctx) // computes and writes papers.vec
	if err != nil {
		b.Fatal(err)
	}
	pv.Close()
	b.ReportAllocs()
	b.ResetTimer()
	c0 := cpuTime()
	for b.Loop() {
		pv, err := lib.PaperVectors(ctx)
		if err != nil || len(pv.Papers) != 10000 || pv.Reused != 10000 {
			b.Fatalf("%v, reused %d", err, pv.Reused)
		}
		pv.Close()
	}
	reportCPU(b, c0)
}
