// Command synth writes a synthetic library for benchmarks: papers x chunks
// of random unit vectors and Zipf-drawn text (store/storetest.Build).
//
//	go run ./bench/synth -dir /tmp/lib100k -papers 2000 -chunks 50 -dims 384
//	go run ./bench/synth -dir /tmp/lib1m -papers 20000 -chunks 50 -dims 768 \
//	    -embedder local/hash-768-v1 -batch 20 -refresh 1000
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/papers-cli/papers/store/storetest"
)

func main() {
	dir := flag.String("dir", "", "library directory to create or extend")
	papers := flag.Int("papers", 2000, "papers")
	first := flag.Int("first", 0, "number of the first paper (to extend a library built before)")
	chunks := flag.Int("chunks", 50, "chunks per paper")
	dims := flag.Int("dims", 384, "vector dimensions")
	seed := flag.Uint64("seed", 1, "random seed")
	embedder := flag.String("embedder", "", "embedder name to record (default synthetic/random-DIMS; local/hash-768-v1 lets `papers` search and ingest)")
	batch := flag.Int("batch", 1, "papers per transaction")
	refresh := flag.Int("refresh", 0, "refresh the search index every this many papers and at the end (0: never)")
	flag.Parse()
	if *dir == "" {
		fmt.Fprintln(os.Stderr, "synth: -dir is required")
		os.Exit(2)
	}
	start := time.Now()
	last := start
	o := storetest.Options{
		Papers: *papers, First: *first, ChunksPerPaper: *chunks, Dims: *dims, Seed: *seed,
		Embedder: *embedder, Batch: *batch, RefreshEvery: *refresh,
		Progress: func(done int) {
			if time.Since(last) > 30*time.Second || done == *papers {
				last = time.Now()
				fmt.Fprintf(os.Stderr, "synth: %d of %d papers in %s\n", done, *papers, time.Since(start).Round(time.Second))
			}
		},
		Refreshed: func(done int, took time.Duration) {
			if took > time.Second {
				fmt.Fprintf(os.Stderr, "synth: the refresh after %d papers took %s (merges included)\n", done, took.Round(10*time.Millisecond))
			}
		},
	}
	if err := storetest.Build(context.Background(), *dir, o); err != nil {
		fmt.Fprintln(os.Stderr, "synth:", err)
		os.Exit(1)
	}
	fmt.Fprintf(os.Stderr, "synth: %d papers x %d chunks (%d dims) in %s\n", *papers, *chunks, *dims, time.Since(start).Round(time.Millisecond))
}
