package store_test

import (
	"bufio"
	"context"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/papers-cli/papers/store"
)

// childWriter is the child writer of TestKill9DuringPut and
// TestTwoProcessesWrite: the test binary re-executed with
// STORE_CHILD=writer (TestMain runs it, and it exits). It puts papers (and
// new versions of papers it put before) and prints "committed <id>
// <version>" after each Put returns.
//
//	STORE_CHILD_DIR     library directory
//	STORE_CHILD_PREFIX  paper id prefix
//	STORE_CHILD_N       papers to add (0: until killed)
func childWriter() {
	dir := os.Getenv("STORE_CHILD_DIR")
	prefix := os.Getenv("STORE_CHILD_PREFIX")
	n, _ := strconv.Atoi(os.Getenv("STORE_CHILD_N"))
	ctx := context.Background()
	lib, err := store.Open(ctx, dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, "child open:", err)
		os.Exit(3)
	}
	if err := lib.EnsureEmbedder(ctx, "test/rand-8", dims); err != nil {
		fmt.Fprintln(os.Stderr, "child embedder:", err)
		os.Exit(3)
	}
	r := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 1))
	put := func(id string, version int) {
		p, cs := versioned(id, version)
		if _, err := lib.Put(ctx, p, cs); err != nil {
			fmt.Fprintln(os.Stderr, "child put:", err)
			os.Exit(3)
		}
		fmt.Printf("committed %s %d\n", id, version)
	}
	for i := 0; n == 0 || i < n; i++ {
		put(fmt.Sprintf("%s%04d", prefix, i), 1)
		if i%2 == 1 { // a new version of an earlier paper: its chunks are replaced
			id := fmt.Sprintf("%s%04d", prefix, r.IntN(i))
			old, err := lib.Get(ctx, id)
			if err != nil {
				fmt.Fprintln(os.Stderr, "child get:", err)
				os.Exit(3)
			}
			put(id, old.Version+1)
		}
		if i%10 == 9 { // writes the vector sidecar, which may be killed too
			if _, err := lib.SearchVectors(ctx, vec(r), 5, store.Filter{}); err != nil {
				fmt.Fprintln(os.Stderr, "child search:", err)
				os.Exit(3)
			}
		}
	}
	lib.Close()
	os.Exit(0)
}

// versioned is the paper and chunks the child writes for (id, version): the
// chunk count and texts depend on both, so a mix of two versions shows.
func versioned(id string, version int) (store.Paper, []store.Chunk) {
	h := fnv.New64a()
	fmt.Fprintf(h, "%s/%d", id, version)
	seed := h.Sum64()
	r := rand.New(rand.NewPCG(seed, 0))
	p := store.Paper{ID: id, Version: version, Title: "Paper " + id, Source: "arxiv",
		Categories: []string{"cs.AI"}, Authors: []string{"A. Author"},
		Published: time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(seed%1000) * time.Hour)}
	n := 5 + int(seed%20)
	filler := strings.Repeat("lorem ipsum dolor sit amet ", 40)
	var cs []store.Chunk
	for s := range n {
		cs = append(cs, store.Chunk{Seq: s, PageStart: s, PageEnd: s,
			Text: fmt.Sprintf("%s v%d c%d %s", id, version, s, filler), Vector: vec(r)})
	}
	return p, cs
}

// checkCommitted opens the library and checks its integrity and that every
// paper reported committed is there, at least at the reported version, with
// exactly the chunks of the version it holds.
func checkCommitted(t *testing.T, dir string, committed map[string]int) {
	t.Helper()
	ctx := context.Background()
	lib, err := store.Open(ctx, dir)
	if err != nil {
		t.Fatalf("open after kill: %v", err)
	}
	defer lib.Close()
	if err := lib.Check(ctx); err != nil {
		t.Fatalf("check: %v", err)
	}
	for id, v := range committed {
		p, err := lib.Get(ctx, id)
		if err != nil {
			t.Fatalf("committed paper %s: %v", id, err)
		}
		if p.Version < v {
			t.Fatalf("paper %s at version %d, version %d was committed", id, p.Version, v)
		}
		_, want := versioned(id, p.Version)
		got, err := lib.Chunks(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(want) || p.Chunks != len(want) {
			t.Fatalf("paper %s v%d: %d chunks (paper says %d), want %d", id, p.Version, len(got), p.Chunks, len(want))
		}
		for i := range got {
			if got[i].Text != want[i].Text {
				t.Fatalf("paper %s v%d chunk %d holds %.20q", id, p.Version, i, got[i].Text)
			}
		}
	}
	if _, err := lib.SearchVectors(ctx, make([]float32, dims), 3, store.Filter{}); err != nil {
		t.Fatalf("search after kill: %v", err)
	}
}

func startChild(t *testing.T, dir, prefix string, n int) (*exec.Cmd, *bufio.Scanner) {
	t.Helper()
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), "STORE_CHILD=writer", "STORE_CHILD_DIR="+dir, "STORE_CHILD_PREFIX="+prefix, "STORE_CHILD_N="+strconv.Itoa(n))
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

// readCommitted records the commits the child reports; first, if not nil,
// is closed at the first one.
func readCommitted(sc *bufio.Scanner, committed map[string]int, mu *sync.Mutex, first chan<- struct{}) int {
	n := 0
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) != 3 || f[0] != "committed" {
			continue
		}
		v, _ := strconv.Atoi(f[2])
		mu.Lock()
		committed[f[1]] = max(committed[f[1]], v)
		mu.Unlock()
		if n++; n == 1 && first != nil {
			close(first)
		}
	}
	if n == 0 && first != nil {
		close(first)
	}
	return n
}

// TestKill9DuringPut kills a writing process with SIGKILL at random moments
// and checks that the library opens, passes integrity_check, and holds every
// paper whose Put had returned. Every other round the kill comes at a random
// moment after the child's first commit, so that half the kills land in the
// middle of writing however slowly the child starts on a busy machine; the
// others at a random moment from its start.
func TestKill9DuringPut(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns processes")
	}
	dir := t.TempDir()
	committed := map[string]int{}
	var mu sync.Mutex
	r := rand.New(rand.NewPCG(42, 42))
	const rounds = 16
	killedMidRun := 0
	for round := range rounds {
		prefix := fmt.Sprintf("r%02d-", round)
		cmd, sc := startChild(t, dir, prefix, 0)
		done := make(chan int)
		first := make(chan struct{})
		go func() { done <- readCommitted(sc, committed, &mu, first) }()
		if round%2 == 1 {
			<-first
			time.Sleep(time.Duration(r.IntN(300)) * time.Millisecond)
		} else {
			time.Sleep(time.Duration(100+r.IntN(600)) * time.Millisecond)
		}
		if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
			t.Fatalf("round %d: kill: %v", round, err)
		}
		n := <-done
		err := cmd.Wait()
		if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() {
			t.Fatalf("round %d: child was not killed but ended: %v", round, err)
		}
		if n > 0 {
			killedMidRun++
		}
		// This round's papers (a round writes only papers of its own
		// prefix, so an earlier round's are never written again: any of
		// theirs that a later kill lost is lost at the end, checked
		// below), and the whole library's integrity.
		mine := map[string]int{}
		for id, v := range committed {
			if strings.HasPrefix(id, prefix) {
				mine[id] = v
			}
		}
		checkCommitted(t, dir, mine)
	}
	checkCommitted(t, dir, committed)
	t.Logf("%d kills, %d after at least one commit; %d papers committed in all", rounds, killedMidRun, len(committed))
	if killedMidRun < rounds/2 {
		t.Errorf("only %d of %d kills came after a commit: the child starts too slowly for this test", killedMidRun, rounds)
	}
}

// TestTwoProcessesWrite runs two writers on one library at once: they take
// turns (busy_timeout) and every paper of both arrives intact.
func TestTwoProcessesWrite(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns processes")
	}
	dir := t.TempDir()
	// Create the library first so that both children find it.
	lib, err := store.Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	lib.Close()
	committed := map[string]int{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for _, prefix := range []string{"x", "y"} {
		cmd, sc := startChild(t, dir, prefix, 40)
		wg.Add(1)
		go func() {
			defer wg.Done()
			readCommitted(sc, committed, &mu, nil)
			if err := cmd.Wait(); err != nil {
				t.Errorf("writer %s: %v", prefix, err)
			}
		}()
	}
	wg.Wait()
	if len(committed) != 80 {
		t.Errorf("%d papers committed, want 80", len(committed))
	}
	checkCommitted(t, dir, committed)
}

// TestTwoHandlesWrite writes through two Library handles on one directory
// from several goroutines while a third lists.
func TestTwoHandlesWrite(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	a, b := openTest(t, dir), openTest(t, dir)
	var wg sync.WaitGroup
	committed := map[string]int{}
	var mu sync.Mutex
	for w, lib := range []*store.Library{a, b, a, b} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 15 {
				id := fmt.Sprintf("w%d-%02d", w, i)
				p, cs := versioned(id, 1)
				if _, err := lib.Put(ctx, p, cs); err != nil {
					t.Errorf("put %s: %v", id, err)
					return
				}
				mu.Lock()
				committed[id] = 1
				mu.Unlock()
			}
		}()
	}
	stop := make(chan struct{})
	var reads int
	go func() {
		for {
			select {
			case <-stop:
				return
			default:
			}
			if _, err := b.List(ctx, store.Filter{Limit: 10}); err != nil {
				t.Errorf("list during writes: %v", err)
				return
			}
			reads++
		}
	}()
	wg.Wait()
	close(stop)
	if n, _, _ := a.Count(ctx); n != 60 {
		t.Errorf("%d papers, want 60", n)
	}
	checkCommitted(t, dir, committed)
}
