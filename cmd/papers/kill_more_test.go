package main

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/papers-cli/papers/ingest/arxiv"
	"github.com/papers-cli/papers/ingest/arxiv/arxivtest"
	"github.com/papers-cli/papers/store"
)

// The kill tests of update, reindex, rm and the index refresh: each kills
// its command with SIGKILL at 20 random moments spread over one
// uninterrupted run (calibrated here, under this machine's load) and checks
// that the library opens, passes PRAGMA integrity_check and that search
// agrees with it. They use small libraries, so a round costs a fraction of
// a second, and run in parallel with each other.
//
// The processes they kill are papers built without the race detector
// (plainCmd), even in a -race run: a killed process's race report would go
// unread (nothing fails on it), the code they run is the packages' (whose
// tests run under -race) and a -race child is 4-8 times slower. The checks
// after each kill still run here, under -race, and cost most of a round's
// CPU: under the race detector 5 rounds each keep the suite within its time
// (the 20 run in every test run without -race), and the checks that the
// kills landed where they prove something are left to those runs.

var killRounds = map[bool]int{false: 20, true: 5}[raceDetector]

// killAfter runs c, kills it with SIGKILL after wait and returns what it
// printed on stderr until then.
func killAfter(t *testing.T, c *exec.Cmd, wait time.Duration) string {
	t.Helper()
	var stderr bytes.Buffer
	c.Stderr = &stderr
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(wait)
	c.Process.Kill()
	c.Wait()
	return stderr.String()
}

// run runs c to completion, failing the test if it fails.
func run(t *testing.T, c *exec.Cmd) string {
	t.Helper()
	out, err := c.CombinedOutput()
	if err != nil {
		t.Fatalf("%s: %v\n%s", strings.Join(c.Args[1:], " "), err, out)
	}
	return string(out)
}

// timed runs c to completion and returns how long it took.
func timed(t *testing.T, c *exec.Cmd) time.Duration {
	t.Helper()
	began := time.Now()
	run(t, c)
	return time.Since(began)
}

// moment is a random kill time over span: from 2% of it to all of it.
func moment(rng *rand.Rand, span time.Duration) time.Duration {
	return span/50 + time.Duration(rng.Int64N(int64(span)))
}

// checkSearchAgrees checks, after checkLibrary's integrity checks, that
// search agrees with the library: no hit is a paper the library does not
// hold (probes are queries that would find removed papers), and each of up
// to sample papers is found by its title (BM25) and by its own vector
// (dense), whose dimensions are the manifest's.
func checkSearchAgrees(t *testing.T, home, when string, sample int, probes ...string) {
	t.Helper()
	checkLibrary(t, home, nil, when)
	ctx := context.Background()
	lib, err := store.Open(ctx, home)
	if err != nil {
		t.Fatalf("%s: %v", when, err)
	}
	defer lib.Close()
	man, err := lib.Manifest(ctx)
	if err != nil {
		t.Fatal(err)
	}
	ps, err := lib.List(ctx, store.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	held := map[string]bool{}
	for _, p := range ps {
		held[p.ID] = true
	}
	check := func(query string, hits []store.Hit, err error) {
		if err != nil {
			t.Fatalf("%s: search %q: %v", when, query, err)
		}
		for _, h := range hits {
			if !held[h.PaperID] {
				t.Fatalf("%s: search %q finds %s, which the library does not hold", when, query, h.PaperID)
			}
		}
	}
	for _, q := range probes {
		hits, err := lib.SearchText(ctx, q, 20, store.Filter{}, store.Feedback{})
		check(q, hits, err)
	}
	rng := rand.New(rand.NewPCG(uint64(len(ps)), 7))
	rng.Shuffle(len(ps), func(i, j int) { ps[i], ps[j] = ps[j], ps[i] })
	for _, p := range ps[:min(sample, len(ps))] {
		hits, err := lib.SearchText(ctx, p.Title, 50, store.Filter{}, store.Feedback{})
		check(p.Title, hits, err)
		if !slices.ContainsFunc(hits, func(h store.Hit) bool { return h.PaperID == p.ID }) {
			t.Fatalf("%s: %s is in the library but search for its title %q does not find it", when, p.ID, p.Title)
		}
		cs, err := lib.ChunksWithVectors(ctx, p.ID)
		if err != nil || len(cs) == 0 {
			t.Fatalf("%s: chunks of %s: %d, %v", when, p.ID, len(cs), err)
		}
		if len(cs[0].Vector) != man.Dimensions {
			t.Fatalf("%s: %s has vectors of %d dimensions, the manifest says %s with %d", when, p.ID, len(cs[0].Vector), man.Embedder, man.Dimensions)
		}
		vh, err := lib.SearchVectors(ctx, cs[0].Vector, 5, store.Filter{})
		check(p.ID+" (dense)", vh, err)
		if !slices.ContainsFunc(vh, func(h store.Hit) bool { return h.PaperID == p.ID }) {
			t.Fatalf("%s: dense search with %s's own vector does not find it: %v", when, p.ID, vh)
		}
	}
}

// copyFile copies src to dst.
func copyFile(t *testing.T, src, dst string) {
	t.Helper()
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, b, 0o600); err != nil {
		t.Fatal(err)
	}
}

// copyIndex copies the search index of the library in src (its commit,
// segments and deletion files) into the library in dst.
func copyIndex(t *testing.T, src, dst string) {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(src, store.IndexDir, "*"))
	if err := os.MkdirAll(filepath.Join(dst, store.IndexDir), 0o700); err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if !strings.HasSuffix(f, ".lock") {
			copyFile(t, f, filepath.Join(dst, store.IndexDir, filepath.Base(f)))
		}
	}
}

// indexTemps lists the temporary files in home's search index.
func indexTemps(home string) []string {
	tmps, _ := filepath.Glob(filepath.Join(home, store.IndexDir, "*.tmp-*"))
	return tmps
}

// ingestSlice ingests lines [from, to) of SciFact into home.
func ingestSlice(t *testing.T, home string, from, to int) {
	t.Helper()
	f := filepath.Join(t.TempDir(), "slice.jsonl")
	writeLines(t, filepath.Join(sharedData(t), "scifact", "corpus.jsonl"), f, from, to)
	run(t, plainCmd(t, home, "ingest", "--jsonl", f))
}

// TestKillUpdate kills the first `papers update` of a topic, reruns it to
// completion and purges the topic: every paper the killed run stored
// belongs to the topic (it commits with its membership), so nothing is
// left behind as "ingested yourself".
func TestKillUpdate(t *testing.T) {
	if testing.Short() {
		t.Skip("kills 20 processes")
	}
	t.Parallel()
	data := sharedData(t)
	now := time.Now().UTC()
	var entries []arxiv.Entry
	seen := map[string]bool{}
	for _, e := range arxivtest.RecordedEntries(t, data) {
		if !seen[e.ID] && e.Title != "" && e.Summary != "" && len(entries) < 40 {
			seen[e.ID] = true
			e.Version = 1
			e.Published = now.Add(-time.Duration(len(entries)+1) * 12 * time.Hour)
			e.Updated = e.Published
			entries = append(entries, e)
		}
	}
	srv := arxivtest.NewServer(t, arxivtest.Options{DataDir: data, Entries: entries})
	cmd := func(home string, args ...string) *exec.Cmd {
		c := plainCmd(t, home, args...)
		c.Env = append(c.Env, "PAPERS_ARXIV_API_URL="+srv.APIURL(), "PAPERS_ARXIV_PDF_URL="+srv.PDFURL(), "PAPERS_ARXIV_DELAY=0")
		return c
	}
	template := t.TempDir()
	run(t, cmd(template, "topic", "add", "t", "--query", "abs:model"))
	fresh := func() string {
		home := t.TempDir()
		copyFile(t, filepath.Join(template, store.FileName), filepath.Join(home, store.FileName))
		return home
	}
	span := timed(t, cmd(fresh(), "update", "--abstracts-only"))
	t.Logf("one update takes %v here", span)
	rng := rand.New(rand.NewPCG(3, 4))
	midRun := 0
	for round := range killRounds {
		home := fresh()
		wait := moment(rng, span)
		stderr := killAfter(t, cmd(home, "update", "--abstracts-only"), wait)
		when := fmt.Sprintf("round %d (killed after %v)", round, wait)
		checkSearchAgrees(t, home, when, 10)
		if strings.Contains(stderr, "added") {
			midRun++
		}
		if round%4 == 0 { // the rerun completes what the killed run left
			run(t, cmd(home, "update", "--abstracts-only"))
		}
		// Every paper here was brought by the topic's update: a purge
		// leaves none (an orphan of the killed run would stay).
		ctx := context.Background()
		lib, err := store.Open(ctx, home)
		if err != nil {
			t.Fatal(err)
		}
		held, _, _ := lib.Count(ctx)
		purged, err := lib.RemoveTopic(ctx, "t", true)
		n, _, _ := lib.Count(ctx)
		lib.Close()
		if err != nil || n != 0 {
			t.Fatalf("%s: topic rm --purge removed %d of %d papers (%v): the rest are orphans of the killed run", when, len(purged), held, err)
		}
	}
	if midRun < killRounds/4 && !raceDetector {
		t.Fatalf("only %d of %d rounds were killed after a paper was stored: the test proves too little", midRun, killRounds)
	}
}

// templateLibrary ingests lines [0, n) of SciFact into a library and
// returns a function that copies it into a fresh home (library.db and,
// with index, its search index).
func templateLibrary(t *testing.T, n int) func(index bool) string {
	t.Helper()
	template := t.TempDir()
	ingestSlice(t, template, 0, n)
	return func(index bool) string {
		home := t.TempDir()
		copyFile(t, filepath.Join(template, store.FileName), filepath.Join(home, store.FileName))
		if index {
			copyIndex(t, template, home)
		}
		return home
	}
}

// TestKillReindex kills `papers reindex` from the local embedder to an
// OpenAI-compatible one: the library keeps the old embedder and vectors or
// holds the new ones, never a mix, and search agrees with it.
func TestKillReindex(t *testing.T) {
	if testing.Short() {
		t.Skip("kills 20 processes")
	}
	t.Parallel()
	fresh := templateLibrary(t, 200)
	emb := newGatedEmbedder(t)
	emb.release()
	cmd := func(home string) *exec.Cmd {
		c := plainCmd(t, home, "reindex", "--embedder", "openai:tiny", "--batch", "32")
		c.Env = append(c.Env, "OPENAI_BASE_URL="+emb.URL+"/v1", "OPENAI_API_KEY=sk-test")
		return c
	}
	span := timed(t, cmd(fresh(true)))
	t.Logf("one reindex takes %v here", span)
	rng := rand.New(rand.NewPCG(5, 6))
	switched, rounds := 0, 0
	// killRounds, and up to as many more while every kill lands on the same
	// side of the switch: a loaded machine reindexes slower (or faster)
	// than it did when timed, so the kill window follows it
	for round := 0; round < killRounds || !raceDetector && (switched == 0 || switched == round) && round < 2*killRounds; round++ {
		if round > 0 && round%5 == 0 {
			switch switched {
			case 0:
				span *= 2
			case round:
				span /= 2
			}
		}
		rounds++
		home := fresh(true)
		wait := moment(rng, span)
		killAfter(t, cmd(home), wait)
		when := fmt.Sprintf("round %d (killed after %v)", round, wait)
		checkSearchAgrees(t, home, when, 10)
		lib, err := store.Open(context.Background(), home)
		if err != nil {
			t.Fatal(err)
		}
		m, _ := lib.Manifest(context.Background())
		lib.Close()
		switch m.Embedder {
		case "openai/tiny":
			switched++
		case "local/hash-768-v1":
		default:
			t.Fatalf("%s: the manifest names %q", when, m.Embedder)
		}
	}
	if (switched == 0 || switched == rounds) && !raceDetector {
		t.Fatalf("%d of %d rounds ended with the new embedder: the kills did not land inside the reindex", switched, rounds)
	}
	t.Logf("%d of %d rounds ended with the new embedder", switched, rounds)
}

// TestKillRm kills `papers rm` of 20 ids: all of them are removed or none
// (one transaction), and search finds none that is removed and every one
// that is not.
func TestKillRm(t *testing.T) {
	if testing.Short() {
		t.Skip("kills 20 processes")
	}
	t.Parallel()
	fresh := templateLibrary(t, 300)
	home := fresh(true)
	lib, err := store.Open(context.Background(), home)
	if err != nil {
		t.Fatal(err)
	}
	all, err := lib.List(context.Background(), store.Filter{})
	lib.Close()
	if err != nil || len(all) != 300 {
		t.Fatalf("template library: %d papers, %v", len(all), err)
	}
	rng := rand.New(rand.NewPCG(7, 8))
	pick := func() (ids, titles []string) {
		for _, i := range rng.Perm(len(all))[:20] {
			ids, titles = append(ids, all[i].ID), append(titles, all[i].Title)
		}
		return ids, titles
	}
	ids, _ := pick()
	span := timed(t, plainCmd(t, home, append([]string{"rm"}, ids...)...))
	t.Logf("one rm of 20 papers takes %v here", span)
	removed := 0
	for round := range killRounds {
		home := fresh(true)
		ids, titles := pick()
		wait := moment(rng, span)
		killAfter(t, plainCmd(t, home, append([]string{"rm"}, ids...)...), wait)
		when := fmt.Sprintf("round %d (killed after %v)", round, wait)
		checkSearchAgrees(t, home, when, 10, titles...)
		lib, err := store.Open(context.Background(), home)
		if err != nil {
			t.Fatal(err)
		}
		gone := 0
		for _, id := range ids {
			if _, err := lib.Get(context.Background(), id); err != nil {
				gone++
			}
		}
		lib.Close()
		if gone != 0 && gone != len(ids) {
			t.Fatalf("%s: %d of the %d papers were removed: rm is all or none", when, gone, len(ids))
		}
		if gone > 0 {
			removed++
		}
	}
	t.Logf("%d of %d rounds were killed after the removal", removed, killRounds)
}

// TestKillRefresh kills the rebuild of the search index (a search of a
// library whose index directory is gone): the next open removes the
// temporary files it left, and search agrees with the library.
func TestKillRefresh(t *testing.T) {
	if testing.Short() {
		t.Skip("kills 20 processes")
	}
	t.Parallel()
	fresh := templateLibrary(t, 300)
	cmd := func(home string) *exec.Cmd { return plainCmd(t, home, "search", "--json", "cancer cells") }
	span := timed(t, cmd(fresh(false)))
	t.Logf("one search rebuilding the index takes %v here", span)
	rng := rand.New(rand.NewPCG(9, 10))
	leftovers := 0
	for round := range killRounds {
		home := fresh(false)
		wait := moment(rng, span)
		killAfter(t, cmd(home), wait)
		when := fmt.Sprintf("round %d (killed after %v)", round, wait)
		if tmps := indexTemps(home); len(tmps) > 0 {
			leftovers++
		}
		checkSearchAgrees(t, home, when, 10)
		if tmps := indexTemps(home); len(tmps) > 0 {
			t.Fatalf("%s: %v left after the next open", when, tmps)
		}
	}
	if leftovers == 0 && !raceDetector { // 5 rounds under -race may all miss it
		t.Fatalf("no kill left a temporary index behind: none landed in the rebuild, the test proves too little")
	}
	t.Logf("%d of %d kills left a temporary index behind (removed at the next open)", leftovers, killRounds)
}
