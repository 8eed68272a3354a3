package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestKillDuringIndexRefresh kills `papers ingest` with SIGKILL while it
// refreshes the search index (after its last paper was reported stored,
// when it writes a segment and maybe merges), and `papers rm` at a random
// moment, round after round on one library of SciFact abstracts. After
// each kill the library must open and pass its check (which compares the
// index with the library), and `papers search` must print exactly what it
// prints on a copy of the library whose index was deleted (so rebuilt
// from nothing). The processes are papers built without the race detector
// (see kill_more_test.go).
func TestKillDuringIndexRefresh(t *testing.T) {
	if testing.Short() {
		t.Skip("kills 8 processes")
	}
	data := sharedData(t)
	tmp := t.TempDir()
	corpus := filepath.Join(tmp, "corpus.jsonl")
	const base, rounds, size = 150, 4, 25
	writeLines(t, filepath.Join(data, "scifact", "corpus.jsonl"), corpus, 0, base+rounds*size)
	home := filepath.Join(tmp, "home")
	first := filepath.Join(tmp, "first.jsonl")
	writeLines(t, corpus, first, 0, base)
	if out, err := plainCmd(t, home, "ingest", "--jsonl", first).CombinedOutput(); err != nil {
		t.Fatalf("first ingest: %v\n%s", err, out)
	}
	rng := rand.New(rand.NewPCG(4, 7))
	killed := 0
	for round := range rounds {
		slice := filepath.Join(tmp, fmt.Sprintf("round%d.jsonl", round))
		writeLines(t, corpus, slice, base+round*size, base+(round+1)*size)
		cmd := plainCmd(t, home, "ingest", "--jsonl", slice)
		stderr, err := cmd.StderrPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		stored := make(chan struct{})
		go func() {
			n := 0
			sc := bufio.NewScanner(stderr)
			for sc.Scan() {
				if storedLine.MatchString(sc.Text()) {
					if n++; n == size {
						close(stored)
					}
				}
			}
			if n < size {
				close(stored)
			}
			io.Copy(io.Discard, stderr)
		}()
		<-stored
		time.Sleep(time.Duration(rng.IntN(15)) * time.Millisecond)
		if cmd.Process.Kill() == nil && cmd.Wait() != nil {
			killed++
		}
		checkIndexedLibrary(t, home, tmp, fmt.Sprintf("ingest of round %d killed", round))

		// rm of two papers of this round, killed somewhere in its run
		// (it deletes, then refreshes the index)
		ids := scifactIDs(t, slice)
		rm := plainCmd(t, home, "rm", ids[0], ids[1])
		if err := rm.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Duration(rng.IntN(60)) * time.Millisecond)
		if rm.Process.Kill() == nil && rm.Wait() != nil {
			killed++
		}
		checkIndexedLibrary(t, home, tmp, fmt.Sprintf("rm of round %d killed", round))
	}
	t.Logf("%d of %d processes were killed before they finished", killed, 2*rounds)
	if killed < rounds {
		t.Errorf("only %d kills landed before the end: the test proves too little", killed)
	}
}

// checkIndexedLibrary checks the library at home (see checkLibrary, which
// includes the index check) and that a search prints what it prints on a
// copy whose index is rebuilt from nothing.
func checkIndexedLibrary(t *testing.T, home, tmp, when string) {
	t.Helper()
	checkLibrary(t, home, nil, when)
	fresh := filepath.Join(tmp, "fresh")
	os.RemoveAll(fresh)
	if err := os.MkdirAll(fresh, 0o700); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"library.db", "library.db-wal"} {
		if _, err := os.Stat(filepath.Join(home, f)); err == nil {
			copyFile(t, filepath.Join(home, f), filepath.Join(fresh, f))
		}
	}
	for _, q := range []string{"gene expression in tumour cells"} {
		got, err := plainCmd(t, home, "search", "--json", "-k", "20", q).Output()
		if err != nil {
			t.Fatalf("%s: search: %v", when, err)
		}
		want, err := plainCmd(t, fresh, "search", "--json", "-k", "20", q).Output()
		if err != nil {
			t.Fatalf("%s: search of the rebuilt copy: %v", when, err)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("%s: search %q differs from a rebuilt index's:\n%s\nwant\n%s", when, q, got, want)
		}
	}
}

// scifactIDs returns the _id of each record of a corpus slice.
func scifactIDs(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		_, rest, _ := strings.Cut(line, `"_id": "`)
		if rest == line || rest == "" {
			_, rest, _ = strings.Cut(line, `"_id":"`)
		}
		id, _, _ := strings.Cut(rest, `"`)
		ids = append(ids, id)
	}
	return ids
}
