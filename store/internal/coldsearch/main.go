// Command coldsearch times whole processes that open a library and search it
// or list it, as `papers search` and `papers list` do, from process start to
// printed results, and reports p50/p95 wall time and peak RSS.
//
//	go build -o /tmp/coldsearch ./store/internal/coldsearch
//	/tmp/coldsearch -dir /tmp/lib100k -gen 2000x50x384   # build a synthetic library once
//	/tmp/coldsearch -dir /tmp/lib100k -runs 21           # time 21 cold searches
//	/tmp/coldsearch -dir /tmp/lib100k -runs 21 -list     # time 21 cold lists
//	/tmp/coldsearch -dir /tmp/lib100k -mode text -warm 50 # 50 searches in one process
//	/tmp/coldsearch -dir /tmp/lib100k -put                # Put one paper, time the Refresh
//	/tmp/coldsearch -dir /tmp/lib100k -rm ID              # Delete a paper, time the Refresh
//
// Each run is a fresh process (the page cache stays warm, as it is for a
// user running commands one after another). -mode is dense (a random
// query vector), text (BM25 with the default feedback, top 300, as hybrid
// retrieval asks) or both (the two at once, as hybrid retrieval runs them).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"sync"
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
	mode := flag.String("mode", "dense", "dense, text or both")
	warm := flag.Int("warm", 0, "run this many searches in one process and report their median")
	put := flag.Bool("put", false, "put one new one-chunk paper and time the index refresh")
	rm := flag.String("rm", "", "delete this paper and time the index refresh")
	cpuprofile := flag.String("cpuprofile", "", "write a CPU profile of the run to this file")
	flag.Parse()
	if *cpuprofile != "" {
		f, err := os.Create(*cpuprofile)
		if err != nil {
			fail(err)
		}
		pprof.StartCPUProfile(f)
		defer pprof.StopCPUProfile()
	}
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
	var err error
	switch {
	case *put || *rm != "":
		err = change(ctx, *dir, *rm)
	case *warm > 0:
		err = warmSearches(ctx, *dir, *mode, *k, *warm)
	default:
		err = once(ctx, *dir, *list, *mode, *k)
	}
	if err != nil {
		pprof.StopCPUProfile()
		fail(err)
	}
}

const textQuery = "reinforcement learning agent reward planning"

// search runs one search of the mode: dense with query vector i, text
// with the benchmark query; both runs the two at once, as a hybrid
// search does (retrieve.Retriever.Retrieve).
func search(ctx context.Context, lib *store.Library, mode string, dims, k, i int) ([]store.Hit, error) {
	var text, dense []store.Hit
	var terr, derr error
	var wg sync.WaitGroup
	if mode == "text" || mode == "both" {
		wg.Go(func() {
			fb := store.Feedback{Docs: 10, Terms: 20, QueryWeight: 3, MinIDF: 1} // ask.DefaultFeedback
			text, terr = lib.SearchText(ctx, textQuery, max(k, 300), store.Filter{}, fb)
			text = text[:min(k, len(text))]
		})
	}
	if mode == "dense" || mode == "both" {
		wg.Go(func() {
			q := storetest.Vector(rand.New(rand.NewPCG(uint64(i), 7)), dims)
			dense, derr = lib.SearchVectors(ctx, q, k, store.Filter{})
		})
	}
	wg.Wait()
	if err := errors.Join(terr, derr); err != nil {
		return nil, err
	}
	return append(text, dense...), nil
}

// warmSearches opens the library, searches once, then n more times, and
// reports the first search and the median of the others.
func warmSearches(ctx context.Context, dir, mode string, k, n int) error {
	lib, err := store.Open(ctx, dir)
	if err != nil {
		return err
	}
	defer lib.Close()
	m, err := lib.Manifest(ctx)
	if err != nil {
		return err
	}
	t0 := time.Now()
	if _, err := search(ctx, lib, mode, m.Dimensions, k, 0); err != nil {
		return err
	}
	first := time.Since(t0)
	var ts []time.Duration
	c0 := cpuTime()
	for i := range n {
		t := time.Now()
		if _, err := search(ctx, lib, mode, m.Dimensions, k, i+1); err != nil {
			return err
		}
		ts = append(ts, time.Since(t))
	}
	cpu := cpuTime() - c0
	slices.Sort(ts)
	fmt.Printf("mode=%s first=%.1fms warm_p50=%.1fms warm_p95=%.1fms cpu_per_search=%.1fms runs=%d\n", mode,
		float64(first)/1e6, float64(ts[n/2])/1e6, float64(ts[min(n-1, n*95/100)])/1e6, float64(cpu)/1e6/float64(n), n)
	return nil
}

// change puts a new one-chunk paper (rm == "") or deletes paper rm, then
// refreshes the index, timing the two.
func change(ctx context.Context, dir, rm string) error {
	t0 := time.Now()
	lib, err := store.Open(ctx, dir)
	if err != nil {
		return err
	}
	defer lib.Close()
	m, err := lib.Manifest(ctx)
	if err != nil {
		return err
	}
	t1 := time.Now()
	id := rm
	if rm == "" {
		id = fmt.Sprintf("bench-put-%d", time.Now().UnixNano())
		v := storetest.Vector(rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 3)), m.Dimensions)
		_, err = lib.Put(ctx, store.Paper{ID: id, Title: "A new paper about reward models"},
			[]store.Chunk{{Text: "We train agents with reinforcement learning and planning over tools.", Vector: v}})
	} else {
		err = lib.Delete(ctx, rm)
	}
	if err != nil {
		return err
	}
	t2 := time.Now()
	if err := lib.Refresh(ctx); err != nil {
		return err
	}
	t3 := time.Now()
	op := "put"
	if rm != "" {
		op = "rm"
	}
	fmt.Printf("op=%s id=%s open=%.1fms write=%.1fms refresh=%.1fms total=%.1fms\n", op, id,
		float64(t1.Sub(t0))/1e6, float64(t2.Sub(t1))/1e6, float64(t3.Sub(t2))/1e6, float64(t3.Sub(t0))/1e6)
	return nil
}

// once is the measured work: open, query, print, exit.
func once(ctx context.Context, dir string, list bool, mode string, k int) error {
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
	hits, err := search(ctx, lib, mode, m.Dimensions, k, os.Getpid())
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

// cpuTime is the process's user and system CPU time so far: under a shared
// machine's load, wall times swing with the other jobs, CPU time much less.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
