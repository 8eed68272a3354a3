// Command coldsearch times whole processes that open a library and search it
// or list it, as `papers search` and `papers list` do, from process start to
// printed results, and reports p50/p95 wall time and peak RSS.
//
//	go build -o /tmp/coldsearch ./store/internal/coldsearch
//	/tmp/coldsearch -dir /tmp/lib100k -gen 2000x50x384   # build a synthetic library once
//	/tmp/coldsearch -dir /tmp/lib100k -runs 21           # time 21 cold searches
//	/tmp/coldsearch -dir /tmp/lib100k -runs 21 -list     # time 21 cold lists
//
// Each run is a fresh process (the page cache stays warm, as it is for a
// user running commands one after another).
package main

import (
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/papers-cli/papers/store"
	"github.com/papers-cli/papers/store/storetest"
)

func main() {
	dir := flag.String("dir", "", "library directory")
	gen := flag.String("gen", "", "build a synthetic library PAPERSxCHUNKSxDIMS in -dir first")
	runs := flag.Int("runs", 0, "time this many child processes and report")
	list := flag.Bool("list", false, "list papers instead of searching")
	k := flag.Int("k", 10, "hits")
	flag.Parse()
	ctx := context.Background()
	if *gen != "" {
		var p, c, d int
		if _, err := fmt.Sscanf(strings.ReplaceAll(*gen, "x", " "), "%d %d %d", &p, &c, &d); err != nil {
			fail(fmt.Errorf("-gen %q: %w", *gen, err))
		}
		t0 := time.Now()
		if err := storetest.Synthetic(ctx, *dir, p, c, d, 1); err != nil {
			fail(err)
		}
		lib, err := store.Open(ctx, *dir)
		if err != nil {
			fail(err)
		}
		if err := lib.Refresh(ctx); err != nil {
			fail(err)
		}
		lib.Close()
		fmt.Fprintf(os.Stderr, "built %s in %v\n", *gen, time.Since(t0).Round(time.Millisecond))
	}
	if *runs > 0 {
		drive(*runs, os.Args[1:])
		return
	}
	if *gen != "" {
		return
	}
	if err := once(ctx, *dir, *list, *k); err != nil {
		fail(err)
	}
}

// once is the measured work: open, query, print, exit.
func once(ctx context.Context, dir string, list bool, k int) error {
	lib, err := store.Open(ctx, dir)
	if err != nil {
		return err
	}
	defer lib.Close()
	if list {
		ps, err := lib.List(ctx, store.Filter{})
		if err != nil {
			return err
		}
		for _, p := range ps {
			fmt.Printf("%s\tv%d\t%s\t%s\t%s\t%d\n", p.ID, p.Version, p.Published.Format("2006-01-02"), strings.Join(p.Categories, ","), p.Title, p.Chunks)
		}
		return nil
	}
	m, err := lib.Manifest(ctx)
	if err != nil {
		return err
	}
	q := storetest.Vector(rand.New(rand.NewPCG(uint64(os.Getpid()), 7)), m.Dimensions)
	hits, err := lib.SearchVectors(ctx, q, k, store.Filter{})
	if err != nil {
		return err
	}
	var ids []string
	for _, h := range hits {
		ids = append(ids, h.ChunkID)
	}
	texts, err := lib.ChunkTexts(ctx, ids)
	if err != nil {
		return err
	}
	for _, h := range hits {
		t := texts[h.ChunkID].Text
		fmt.Printf("%.4f\t%s\t%.60s\n", h.Score, h.ChunkID, t)
	}
	return nil
}

// drive runs the same command without -runs and -gen as child processes.
func drive(n int, args []string) {
	var child []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		name := strings.TrimLeft(strings.SplitN(a, "=", 2)[0], "-")
		if name == "runs" || name == "gen" {
			if !strings.Contains(a, "=") {
				i++
			}
			continue
		}
		child = append(child, a)
	}
	var walls []time.Duration
	var maxRSS int64
	for range n {
		cmd := exec.Command(os.Args[0], child...)
		cmd.Stderr = os.Stderr
		t0 := time.Now()
		if err := cmd.Run(); err != nil {
			fail(err)
		}
		walls = append(walls, time.Since(t0))
		if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
			maxRSS = max(maxRSS, ru.Maxrss) // KiB on Linux
		}
	}
	slices.Sort(walls)
	ms := func(d time.Duration) string { return strconv.FormatFloat(float64(d)/1e6, 'f', 1, 64) }
	fmt.Printf("runs=%d min=%sms p50=%sms p95=%sms max=%sms peak_rss=%dMiB\n", n,
		ms(walls[0]), ms(walls[n/2]), ms(walls[min(n-1, n*95/100)]), ms(walls[n-1]), maxRSS/1024)
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "coldsearch:", err)
	os.Exit(1)
}
