package main

import (
	"os"
	"path/filepath"
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
