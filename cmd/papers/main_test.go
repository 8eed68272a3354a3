package main

import (
	"flag"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/papers-cli/papers/cmd"
)

// TestMain lets the test binary act as the papers command: testscript runs
// it under the name "papers", and the kill test runs it with PAPERS_AS_MAIN=1.
func TestMain(m *testing.M) {
	if os.Getenv("PAPERS_AS_MAIN") == "1" {
		os.Exit(cmd.Main())
	}
	// The scripts and the kill tests mostly wait (on the papers processes
	// they start, fake servers' pacing, deadlines), not compute: unless
	// -parallel is given, run three times as many at once as there are
	// CPUs (on 2 cores: 290 s -> 204 s of the package under -race).
	if f := flag.Lookup("test.parallel"); f != nil {
		_ = f.Value.Set(strconv.Itoa(3 * runtime.GOMAXPROCS(0)))
	}
	testscript.Main(m, map[string]func(){
		"papers": func() { os.Exit(cmd.Main()) },
	})
}

// sharedData is the project's shared test data, beside the repository.
func sharedData(t testing.TB) string {
	t.Helper()
	dir, err := filepath.Abs(filepath.Join("..", "..", "..", "shared", "data"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "README.md")); err != nil {
		t.Fatalf("shared test data not found at %s (the tests need ../shared/data beside the repository): %v", dir, err)
	}
	return dir
}

// TestREADMETestCommandIsCI: the test command README.md gives is the one
// .ci/run runs, character for character.
func TestREADMETestCommandIsCI(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	ci, err := os.ReadFile(filepath.Join("..", "..", ".ci", "run"))
	if err != nil {
		t.Fatal(err)
	}
	command := func(text string) []string {
		var out []string
		for _, line := range strings.Split(text, "\n") {
			if strings.HasPrefix(line, "go test ") {
				out = append(out, line)
			}
		}
		return out
	}
	r, c := command(string(readme)), command(string(ci))
	if len(r) != 1 || len(c) != 1 || r[0] != c[0] {
		t.Errorf("README.md gives %q as the test command, .ci/run runs %q", r, c)
	}
}
