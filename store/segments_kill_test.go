package store

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/papers-cli/papers/internal/shareddata"
	"github.com/papers-cli/papers/store/index"
)

// IndexChild is the index child of TestKill9DuringIndexWrite: the test
// binary re-executed with STORE_CHILD=index (TestMain runs it, and it
// exits), with segments cut every 16 chunks and merged three at a time,
// so that it writes segments, deletions, commits and merges all the time.
// It adds SciFact abstracts, replaces some by new versions, deletes some,
// and refreshes every other step, printing "step <i>" after each.
//
//	STORE_SEG_CHILD_DIR     library directory
//	STORE_SEG_CHILD_PREFIX  paper id prefix
//	STORE_SEG_CHILD_N       steps (0: until killed)
//	STORE_SEG_CHILD_CORPUS  SciFact's corpus.jsonl
func IndexChild() {
	dir := os.Getenv("STORE_SEG_CHILD_DIR")
	defer index.SetMergePolicy(3, 1)()
	defer index.SetSegmentChunks(16)()
	pruneEvery = 4
	prefix := os.Getenv("STORE_SEG_CHILD_PREFIX")
	n, _ := strconv.Atoi(os.Getenv("STORE_SEG_CHILD_N"))
	ctx := context.Background()
	die := func(what string, err error) {
		fmt.Fprintf(os.Stderr, "index child %s: %v\n", what, err)
		os.Exit(3)
	}
	lib, err := Open(ctx, dir)
	if err != nil {
		die("open", err)
	}
	// Say when a merge starts (the parent kills some children then).
	var step atomic.Int64
	lib.ix.Close()
	lib.ix = index.Open(index.Config{Dir: filepath.Join(dir, IndexDir), Wait: busyTimeout, Snapshot: lib.snapshot, Committed: lib.indexCommitted,
		Merging: func() { fmt.Printf("merge %d\n", step.Load()) }})
	if err := lib.EnsureEmbedder(ctx, "test/rand-8", 8); err != nil {
		die("embedder", err)
	}
	abstracts, err := readAbstracts(os.Getenv("STORE_SEG_CHILD_CORPUS"), 300)
	if err != nil {
		die("read SciFact", err)
	}
	r := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 2))
	put := func(i, version int) {
		a := abstracts[(i*7+version)%len(abstracts)]
		var cs []Chunk
		for j, part := range splitSentences(a[1], 1+(i+version)%4) {
			v := make([]float32, 8)
			for k := range v {
				v[k] = float32(r.NormFloat64())
			}
			cs = append(cs, Chunk{Seq: j, Text: part, Vector: v})
		}
		p := Paper{ID: fmt.Sprintf("%s%04d", prefix, i), Version: version, Title: a[0], Categories: []string{"q-bio.GN"}}
		if _, err := lib.Put(ctx, p, cs); err != nil {
			die("put", err)
		}
	}
	for i := 0; n == 0 || i < n; i++ {
		put(i, 1)
		if i%3 == 1 {
			put(r.IntN(i), 2+r.IntN(5))
		}
		if i%5 == 4 {
			if err := lib.Delete(ctx, fmt.Sprintf("%s%04d", prefix, r.IntN(i))); err != nil && !errors.Is(err, ErrNotFound) {
				die("delete", err)
			}
		}
		if i%2 == 1 {
			// Refresh and merge, saying when each starts.
			step.Store(int64(i))
			fmt.Printf("refresh %d\n", i)
			if err := lib.Refresh(ctx); err != nil {
				die("refresh", err)
			}
		}
		fmt.Printf("step %d\n", i)
	}
	lib.Close()
	os.Exit(0)
}

func startIndexChild(t *testing.T, dir, prefix string, n int) (*exec.Cmd, *bufio.Scanner) {
	t.Helper()
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), "STORE_CHILD=index", "STORE_SEG_CHILD_CORPUS="+shareddata.Path(t, "scifact", "corpus.jsonl"), "STORE_SEG_CHILD_DIR="+dir, "STORE_SEG_CHILD_PREFIX="+prefix, "STORE_SEG_CHILD_N="+strconv.Itoa(n))
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return cmd, bufio.NewScanner(out)
}

// checkIndexAfter checks that the library in dir opens, passes Check (the
// index against the library), searches exactly as an index built from
// nothing, and that a refresh leaves no temporary file behind.
func checkIndexAfter(t *testing.T, dir, when string) {
	t.Helper()
	ctx := context.Background()
	lib, err := Open(ctx, dir)
	if err != nil {
		t.Fatalf("%s: open: %v", when, err)
	}
	defer lib.Close()
	if err := lib.Check(ctx); err != nil {
		t.Fatalf("%s: %v", when, err)
	}
	sameAsRebuild(t, lib, when)
	if err := lib.Refresh(ctx); err != nil {
		t.Fatalf("%s: refresh: %v", when, err)
	}
	if tmps, _ := indexTemps(dir); len(tmps) > 0 {
		t.Errorf("%s: temporary files left after a refresh: %v", when, tmps)
	}
	if err := lib.Check(ctx); err != nil {
		t.Fatalf("%s, refreshed: %v", when, err)
	}
}

// indexTemps lists the temporary files of dir's index: all, and the
// merges'.
func indexTemps(dir string) (all, merges []string) {
	return index.TempFiles(filepath.Join(dir, IndexDir))
}

// TestKill9DuringIndexWrite runs two index children on one library at
// once (each writing segments, deletion files and commits, and merging)
// while this process searches it throughout, and SIGKILLs both at random
// moments, again and again: half the time just after one starts a
// refresh, half just after it starts a merge (the test counts the kills
// that left a merge's temporary files, and wants some). Every search must
// succeed, and after each kill the library must open, pass Check, and
// search as an index built from nothing would. A last round lets both
// children finish.
func TestKill9DuringIndexWrite(t *testing.T) {
	shareddata.Path(t, "scifact", "corpus.jsonl") // the children write SciFact's abstracts
	dir := t.TempDir()
	rounds := 10
	if RaceEnabled {
		rounds = 6
	}
	r := rand.New(rand.NewPCG(3, 9))
	midMerge, midWrite := 0, 0
	for round := 0; round <= rounds; round++ {
		searches := searchThroughout(t, dir)
		last := round == rounds
		n := 0
		if last {
			n = 12 // steps each, then exit
		}
		a, sa := startIndexChild(t, dir, fmt.Sprintf("a%02d-", round), n)
		b, sb := startIndexChild(t, dir, fmt.Sprintf("b%02d-", round), n)
		go func() {
			for sb.Scan() {
			}
		}()
		// Half the rounds aim at a refresh writing a segment, half at a
		// merge: some time in, then a few milliseconds after one starts.
		aim := []string{"refresh", "merge"}[round%2]
		steps := 0
		done := make(chan struct{})
		aimed := make(chan struct{}, 1000)
		go func() {
			defer close(done)
			for sa.Scan() {
				if strings.HasPrefix(sa.Text(), aim) {
					aimed <- struct{}{}
				} else if strings.HasPrefix(sa.Text(), "step") {
					steps++
				}
			}
		}()
		if last {
			for _, c := range []*exec.Cmd{a, b} {
				if err := c.Wait(); err != nil {
					t.Errorf("child: %v", err)
				}
			}
			<-done
			t.Logf("%d searches while two processes wrote", searches())
			checkIndexAfter(t, dir, "after two writers finished")
			break
		}
		time.Sleep(time.Duration(200+r.IntN(600)) * time.Millisecond)
		for len(aimed) > 0 {
			<-aimed
		}
		select {
		case <-aimed:
		case <-done:
		}
		time.Sleep(time.Duration(r.IntN(20)) * time.Millisecond)
		a.Process.Kill()
		b.Process.Kill()
		a.Wait()
		b.Wait()
		<-done
		searches()
		temps, merges := indexTemps(dir)
		if len(merges) > 0 {
			midMerge++
		}
		if len(temps) > 0 {
			midWrite++
		}
		checkIndexAfter(t, dir, fmt.Sprintf("round %d (killed after %d steps)", round, steps))
	}
	t.Logf("%d of %d kills left temporary index files, %d of them a merge's", midWrite, rounds, midMerge)
	if midMerge == 0 {
		t.Errorf("no kill landed in a merge: the test proves too little")
	}
}

// searchThroughout searches the library in dir (text with feedback, and
// dense) on another goroutine until the returned function is called,
// which reports how many rounds of searches there were. Every search
// must succeed.
func searchThroughout(t *testing.T, dir string) func() int64 {
	t.Helper()
	ctx := context.Background()
	lib := openWithEmbedder(t, dir, 8)
	var stop atomic.Bool
	var n atomic.Int64
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		q := []float32{0, 1, 0, 0, 0, 0, 0, 0}
		for !stop.Load() {
			if _, err := lib.SearchText(ctx, "gene expression in cells", 10, Filter{}, Feedback{Docs: 5, Terms: 10, QueryWeight: 3}); err != nil {
				t.Errorf("search text during writes: %v", err)
				return
			}
			if _, err := lib.SearchVectors(ctx, q, 10, Filter{}); err != nil {
				t.Errorf("search vectors during writes: %v", err)
				return
			}
			n.Add(1)
			time.Sleep(5 * time.Millisecond)
		}
	}()
	return func() int64 {
		stop.Store(true)
		wg.Wait()
		lib.Close()
		return n.Load()
	}
}
