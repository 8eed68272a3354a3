package store

import (
	"context"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/papers-cli/papers/store/index"
)

// onlySegment returns the name of the one segment of lib's index.
func onlySegment(t *testing.T, lib *Library) string {
	t.Helper()
	c, err := index.ReadCommit(filepath.Join(lib.dir, IndexDir))
	if err != nil || c == nil || len(c.Segments) != 1 {
		t.Fatalf("commit %+v, %v: want one segment", c, err)
	}
	return c.Segments[0]
}

// TestCorruptPostingsAreRebuilt damages the postings of a segment (chunk
// numbers out of range, which opening a segment does not check): the next
// text search notices, rebuilds the index from the database and answers.
// The index check finds the damage too.
func TestCorruptPostingsAreRebuilt(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	lib := openWithEmbedder(t, dir, 4)
	for i, text := range []string{"reward models", "planning agents", "reward hacking"} {
		if _, err := lib.Put(ctx, Paper{ID: fmt.Sprintf("p%d", i), Version: 1}, []Chunk{{Text: text, Vector: []float32{1, 0, 0, 0}}}); err != nil {
			t.Fatal(err)
		}
	}
	want, err := lib.SearchText(ctx, "reward", 5, Filter{}, Feedback{})
	if err != nil || len(want) != 2 {
		t.Fatalf("SearchText = %v, %v", want, err)
	}
	name := onlySegment(t, lib)
	lib.Close()

	path := filepath.Join(dir, IndexDir, name+".seg")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	// The full-text index is the segment's tail, of the size the .seg's
	// header gives at bytes 32-40 (see index/segment.go); its postings
	// start after a 32-byte header and four arrays (fts's layout).
	le := binary.LittleEndian
	at := len(b) - int(le.Uint64(b[32:40]))
	nDocs, nTerms, nPost := int(le.Uint32(b[at+8:])), int(le.Uint32(b[at+12:])), int(le.Uint32(b[at+16:]))
	postDoc := at + 32 + 8*nDocs + 8*nTerms
	for i := range nPost {
		le.PutUint32(b[postDoc+4*i:], uint32(1000+i))
	}
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}

	lib, err = Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	defer lib.Close()
	if err := lib.Check(ctx); err == nil || !strings.Contains(err.Error(), "checksum") {
		t.Errorf("Check of the damaged index = %v, want a checksum mismatch", err)
	}
	got, err := lib.SearchText(ctx, "reward", 5, Filter{}, Feedback{})
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("after damage: %v, %v; want %v", got, err, want)
	}
	if err := lib.Check(ctx); err != nil {
		t.Errorf("Check after the rebuild: %v", err)
	}
}

// openWithEmbedder opens a library in dir, closed at the end of the test,
// for vectors of dims dimensions.
func openWithEmbedder(t *testing.T, dir string, dims int) *Library {
	t.Helper()
	lib, err := Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { lib.Close() })
	if err := lib.EnsureEmbedder(context.Background(), fmt.Sprintf("test/rand-%d", dims), dims); err != nil {
		t.Fatal(err)
	}
	return lib
}
