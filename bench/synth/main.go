// Command synth writes a synthetic library for benchmarks: papers x chunks
// of random unit vectors and Zipf-drawn text (store/storetest.Synthetic).
//
//	go run ./bench/synth -dir /tmp/lib100k -papers 2000 -chunks 50 -dims 384
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
	chunks := flag.Int("chunks", 50, "chunks per paper")
	dims := flag.Int("dims", 384, "vector dimensions")
	seed := flag.Uint64("seed", 1, "random seed")
	flag.Parse()
	if *dir == "" {
		fmt.Fprintln(os.Stderr, "synth: -dir is required")
		os.Exit(2)
	}
	start := time.Now()
	if err := storetest.Synthetic(context.Background(), *dir, *papers, *chunks, *dims, *seed); err != nil {
		fmt.Fprintln(os.Stderr, "synth:", err)
		os.Exit(1)
	}
	fmt.Fprintf(os.Stderr, "synth: %d papers x %d chunks (%d dims) in %s\n", *papers, *chunks, *dims, time.Since(start).Round(time.Millisecond))
}
