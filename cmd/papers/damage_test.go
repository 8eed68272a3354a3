package main

import (
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/papers-cli/papers/store"
)

// TestDamagedLibraryFile damages pages of library.db (SciFact, 1,000
// abstracts): the command that meets the damage says the library file is
// damaged and names papers check --repair; every later command says so
// too (search and ingest carried on with exit 0, and ingest wrote into
// the damaged file) and nothing is written into it; papers check finds it
// (exit 1, with the fix); papers check --repair recovers the readable
// papers into a new file and keeps the damaged one, after which every
// command works and check passes.
func TestDamagedLibraryFile(t *testing.T) {
	t.Parallel()
	data := sharedData(t)
	home := t.TempDir()
	corpus := filepath.Join(t.TempDir(), "corpus.jsonl")
	writeLines(t, filepath.Join(data, "scifact", "corpus.jsonl"), corpus, 0, 1000)
	run(t, plainCmd(t, home, "ingest", "--jsonl", corpus))
	run(t, plainCmd(t, home, "search", "cancer")) // the index, to be rebuilt after the repair
	db := filepath.Join(home, store.FileName)
	b, err := os.ReadFile(db)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(db + "-wal"); err == nil {
		t.Fatal("the library's WAL was not checkpointed: damage the file itself")
	}
	r := rand.New(rand.NewPCG(27, 3))
	pages := len(b) / 4096
	for range 4 {
		p := pages/4 + r.IntN(pages/2)
		for i := p * 4096; i < (p+1)*4096; i++ {
			b[i] = byte(r.IntN(256))
		}
	}
	if err := os.WriteFile(db, b, 0o600); err != nil {
		t.Fatal(err)
	}

	// related reads every chunk's vector: it meets the damage
	code, stderr := outcome(t, plainCmd(t, home, "related", "4983"))
	if code != 1 || !strings.Contains(stderr, "the library file is damaged") || !strings.Contains(stderr, "papers check --repair") {
		t.Fatalf("related over a damaged page: exit %d:\n%s", code, stderr)
	}
	// every command says so now; writes write nothing
	size := len(b)
	for _, args := range [][]string{{"search", "cancer"}, {"list"}, {"ask", "--extractive", "what causes cancer"}} {
		_, stderr := outcome(t, plainCmd(t, home, args...))
		if !strings.Contains(stderr, "damaged") || !strings.Contains(stderr, "papers check --repair") {
			t.Errorf("%s after the damage was met: nothing said:\n%s", args[0], stderr)
		}
	}
	code, stderr = outcome(t, plainCmd(t, home, "ingest", "--jsonl", filepath.Join(data, "topic", "rl-for-llm-agents.jsonl")))
	if code != 1 || !strings.Contains(stderr, "damaged") || !strings.Contains(stderr, "hint: run `papers check --repair`") {
		t.Errorf("ingest into a damaged library: exit %d:\n%s", code, stderr)
	}
	if fi, err := os.Stat(db); err != nil || fi.Size() != int64(size) {
		t.Errorf("the damaged file was written: %v", err)
	}
	code, stderr = outcome(t, plainCmd(t, home, "check"))
	if code != 1 {
		t.Errorf("check of a damaged library: exit %d, want 1\n%s", code, stderr)
	}
	out, err := plainCmd(t, home, "check", "--repair", "--json").Output()
	if err != nil {
		t.Fatalf("check --repair: %v\n%s", err, out)
	}
	var rep struct {
		Repaired struct {
			Recovered int      `json:"recovered"`
			Lost      []string `json:"lost"`
			Damaged   string   `json:"damaged_file"`
		} `json:"repaired"`
		OK bool `json:"ok"`
	}
	if err := json.Unmarshal(out, &rep); err != nil {
		t.Fatalf("check --repair --json: %v\n%s", err, out)
	}
	t.Logf("repaired: %d recovered, %d lost", rep.Repaired.Recovered, len(rep.Repaired.Lost))
	if !rep.OK || rep.Repaired.Recovered == 0 || rep.Repaired.Recovered+len(rep.Repaired.Lost) > 1000 {
		t.Errorf("check --repair: %s", out)
	}
	if _, err := os.Stat(rep.Repaired.Damaged); err != nil {
		t.Errorf("the damaged file was not kept: %v", err)
	}
	if n := countPapers(t, home); n != rep.Repaired.Recovered {
		t.Errorf("list shows %d papers, the repair recovered %d", n, rep.Repaired.Recovered)
	}
	run(t, plainCmd(t, home, "check"))
	run(t, plainCmd(t, home, "ingest", "--jsonl", filepath.Join(data, "topic", "rl-for-llm-agents.jsonl")))
	checkSearchAgrees(t, home, "after the repair", 10)
}
