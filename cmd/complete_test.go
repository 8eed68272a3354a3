package cmd

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/papers-cli/papers/store/storetest"
)

// completions runs papers __complete ARGS... (what the shells' scripts
// run) and returns the candidates, without their descriptions.
func completions(t *testing.T, args ...string) []string {
	t.Helper()
	code, out, errs := runCmd(t, append([]string{"__complete"}, args...)...)
	if code != 0 {
		t.Fatalf("__complete %q: exit %d, %s", args, code, errs)
	}
	var got []string
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		if line == "" || strings.HasPrefix(line, ":") {
			continue // the directive
		}
		c, _, _ := strings.Cut(line, "\t")
		got = append(got, c)
	}
	return got
}

// TestCompletion: ids, topics and tags complete from the library (with
// PAPERS_HOME, as completion runs no pre-run), enum flags from their
// lists; an absent library completes nothing; the scripts of the three
// shells are written.
func TestCompletion(t *testing.T) {
	home := t.TempDir()
	if code, _, errs := runCmd(t, "--home", home, "ingest", "--jsonl", filepath.Join("..", "testdata", "corpus.jsonl")); code != 0 {
		t.Fatalf("ingest: %s", errs)
	}
	for _, args := range [][]string{{"tag", "t-004", "world-models"}, {"tag", "t-001", "Reading-Group"}, {"topic", "add", "agents", "--query", "abs:agent"}, {"topic", "add", "ir", "--query", "cat:cs.IR"},
		{"review", "t-001", "t-002", "--column", "Datasets", "--save", "t-pair"}} {
		if code, _, errs := runCmd(t, append([]string{"--home", home}, args...)...); code != 0 {
			t.Fatalf("%q: %s", args, errs)
		}
	}
	t.Setenv("PAPERS_HOME", home)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"show", "t-00"}, "t-001 t-002 t-003 t-004 t-005 t-006 t-007 t-008"},
		{[]string{"show", "t-004", ""}, ""}, // show takes one id
		{[]string{"rm", "t-001", "t-00"}, "t-001 t-002 t-003 t-004 t-005 t-006 t-007 t-008"},
		{[]string{"related", "x"}, ""},
		{[]string{"untag", "t-004", "w"}, "world-models"},
		{[]string{"list", "--tag", "read"}, "Reading-Group"}, // without regard to case
		{[]string{"search", "--paper", "t-00"}, "t-001 t-002 t-003 t-004 t-005 t-006 t-007 t-008"},
		{[]string{"digest", "a"}, "agents"},
		{[]string{"update", ""}, "agents ir"},
		{[]string{"ask", "--topic", "i"}, "ir"},
		{[]string{"search", "--mode", ""}, "hybrid bm25 dense"},
		{[]string{"export", "--format", ""}, "bibtex csl-json ris"},
		{[]string{"digest", "agents", "--format", ""}, "md json"},
		{[]string{"digest", "agents", "--rank", ""}, "date relevance"},
		{[]string{"ingest", "--embedder", ""}, "local openai: ollama:"},
		{[]string{"review", "t-"}, "t-pair t-001 t-002 t-003 t-004 t-005 t-006 t-007 t-008"}, // the saved review, then ids
		{[]string{"review", "--save", ""}, "t-pair"},
		{[]string{"review", "--format", ""}, "table markdown csv json"},
	} {
		if got := strings.Join(completions(t, tc.args...), " "); got != tc.want {
			t.Errorf("papers %s<TAB>: %q, want %q", strings.Join(tc.args, " "), got, tc.want)
		}
	}
	t.Setenv("PAPERS_HOME", filepath.Join(t.TempDir(), "none"))
	if got := completions(t, "show", ""); len(got) != 0 {
		t.Errorf("no library: %q", got)
	}
	if _, err := os.Stat(filepath.Join(os.Getenv("PAPERS_HOME"), "library.db")); err == nil {
		t.Error("completion created a library")
	}
	for _, sh := range []string{"bash", "zsh", "fish"} {
		code, out, _ := runCmd(t, "completion", sh)
		if code != 0 || !strings.Contains(out, "__complete") {
			t.Errorf("papers completion %s: exit %d, %d bytes without __complete", sh, code, len(out))
		}
	}
}

// BenchmarkComplete completes a paper id, a topic and a tag on a library
// of 10,000 papers, in process (what papers __complete does after its
// start; bench/complete/run.sh times the whole command):
//
//	COMPLETE_BENCH_DIR=/tmp/complete go test ./cmd -run '^$' -bench Complete -benchtime 200x
func BenchmarkComplete(b *testing.B) {
	root := os.Getenv("COMPLETE_BENCH_DIR")
	if root == "" {
		root = b.TempDir()
	}
	home := filepath.Join(root, "lib-10000")
	if _, err := os.Stat(filepath.Join(home, "library.db")); err != nil {
		if err := storetest.Build(context.Background(), home, storetest.Options{Papers: 10000, ChunksPerPaper: 1, Dims: 8, Seed: 1, Batch: 500}); err != nil {
			b.Fatal(err)
		}
	}
	b.Setenv("PAPERS_HOME", home)
	for _, args := range [][]string{{"show", "syn-0042"}, {"show", ""}, {"update", ""}, {"list", "--tag", ""}} {
		b.Run(strings.Join(args, "_"), func(b *testing.B) {
			for b.Loop() {
				if code := Run(b.Context(), append([]string{"__complete"}, args...), io.Discard, io.Discard); code != 0 {
					b.Fatal(fmt.Sprint("exit ", code))
				}
			}
		})
	}
}
