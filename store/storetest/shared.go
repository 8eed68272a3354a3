package storetest

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/papers-cli/papers/store"
)

// Shared is a library a test binary builds once (Build, usually an
// ingest of real test data) and hands to each test as a copy of its
// database file, so tests may write to theirs. The search index is
// derived: each copy builds its own on its first search.
type Shared struct {
	// Build fills the library in dir (created, empty).
	Build func(ctx context.Context, dir string) error

	once sync.Once
	db   []byte
	err  error
}

// Open returns a copy of the shared library, open, closed when t ends.
// The first call builds it (in that test's temporary directory: only the
// database's bytes are kept).
func (s *Shared) Open(t testing.TB) *store.Library {
	t.Helper()
	s.once.Do(func() {
		dir := t.TempDir()
		if s.err = s.Build(context.Background(), dir); s.err == nil {
			s.db, s.err = os.ReadFile(filepath.Join(dir, store.FileName))
		}
	})
	if s.err != nil {
		t.Fatalf("build the shared test library: %v", s.err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, store.FileName), s.db, 0o600); err != nil {
		t.Fatal(err)
	}
	lib, err := store.Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { lib.Close() })
	return lib
}
