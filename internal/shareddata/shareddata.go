// Package shareddata locates, for tests, the shared test data: real
// inputs made by others (PDFs, arXiv responses, SciFact, QASPER, a Zotero
// library) that live beside the repository in ../shared/data, not in it
// (see its README.md). A clone without it still runs every test that
// needs none; the tests that need it are skipped, each saying so, unless
// PAPERS_REQUIRE_SHARED_DATA is set (.ci/run sets it): then a missing
// file fails the test, so CI never passes by leaving them out.
package shareddata

import (
	"os"
	"path/filepath"
	"sync"
	"testing"
)

// Env names the variable that points at the shared data elsewhere than
// ../shared/data beside the repository.
const Env = "PAPERS_SHARED_DATA"

// RequireEnv names the variable that makes missing shared data a failure.
const RequireEnv = "PAPERS_REQUIRE_SHARED_DATA"

var root = sync.OnceValue(func() string {
	if d := os.Getenv(Env); d != "" {
		if abs, err := filepath.Abs(d); err == nil {
			return abs
		}
		return d
	}
	dir, err := os.Getwd()
	if err != nil {
		return ""
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return filepath.Join(filepath.Dir(dir), "shared", "data")
		}
		up := filepath.Dir(dir)
		if up == dir {
			return ""
		}
		dir = up
	}
})

// Root is the absolute path of the shared data, $PAPERS_SHARED_DATA or
// ../shared/data from the module's root, whether it exists or not.
func Root() string { return root() }

// Path returns the path of rel (slash-separated parts) in the shared data,
// checked to exist. When it is not there the test is skipped with a
// message naming what it needed, or fails under PAPERS_REQUIRE_SHARED_DATA.
func Path(t testing.TB, rel ...string) string {
	t.Helper()
	p := filepath.Join(append([]string{Root()}, rel...)...)
	if _, err := os.Stat(p); err != nil {
		Missing(t, p, err)
	}
	return p
}

// Missing reports that the shared data at p is not there: a skip saying
// so, or, under PAPERS_REQUIRE_SHARED_DATA, a failure.
func Missing(t testing.TB, p string, err error) {
	t.Helper()
	msg := "left out: this test needs the shared test data at " + p + " (" + err.Error() + "), which is not in the repository: put ../shared/data beside it (see its README.md) or set " + Env
	if os.Getenv(RequireEnv) != "" {
		t.Fatal(msg)
	}
	t.Skip(msg)
}

// Exists reports whether rel is in the shared data.
func Exists(rel ...string) bool {
	_, err := os.Stat(filepath.Join(append([]string{Root()}, rel...)...))
	return err == nil
}
