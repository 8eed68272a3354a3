package store

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestSignCodesAddedToOlderIndex removes the sign codes of an index on
// disk, as an index written before them has none: the next search that
// may write the index writes them again, byte for byte as they were, and
// Check verifies them.
func TestSignCodesAddedToOlderIndex(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	lib, err := Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := lib.EnsureEmbedder(ctx, "test/rand-64", 64); err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(1, 1))
	for i := range 30 {
		v := make([]float32, 64)
		for j := range v {
			v[j] = float32(r.NormFloat64())
		}
		if _, err := lib.Put(ctx, Paper{ID: fmt.Sprintf("p%02d", i), Title: "t"}, []Chunk{{Text: "some words", Vector: v}}); err != nil {
			t.Fatal(err)
		}
		if i%10 == 9 {
			if err := lib.Refresh(ctx); err != nil {
				t.Fatal(err)
			}
		}
	}
	lib.Close()
	files, _ := filepath.Glob(filepath.Join(dir, IndexDir, "*.bits"))
	segs, _ := filepath.Glob(filepath.Join(dir, IndexDir, "*.seg"))
	if len(files) == 0 || len(files) != len(segs) {
		t.Fatalf("%d sign code files for %d segments", len(files), len(segs))
	}
	was := map[string][]byte{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		was[f] = b
		os.Remove(f)
	}
	q := make([]float32, 64)
	q[0] = 1
	lib, err = Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	defer lib.Close()
	if _, err := lib.SearchVectors(ctx, q, 3, Filter{}); err != nil {
		t.Fatal(err)
	}
	for f, b := range was {
		got, err := os.ReadFile(f)
		if err != nil {
			t.Fatalf("sign codes not written again: %v", err)
		}
		if !bytes.Equal(got, b) {
			t.Fatalf("%s: written again, not as a segment writer writes it", filepath.Base(f))
		}
	}
	if err := lib.Check(ctx); err != nil {
		t.Fatal(err)
	}
	lib.Close()

	// Damaged: a torn file is written again like a missing one; one whose
	// bits were changed is used (it only costs recall: every hit is
	// re-scored exactly) until Check finds it.
	var f string
	for f = range was {
		break
	}
	if err := os.Truncate(f, 40); err != nil {
		t.Fatal(err)
	}
	lib, err = Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	defer lib.Close()
	if _, err := lib.SearchVectors(ctx, q, 3, Filter{}); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(f); !bytes.Equal(got, was[f]) {
		t.Fatal("a torn sign code file was not written again")
	}
	b := slices.Clone(was[f])
	b[len(b)/2] ^= 0xff // in the codes or their factors: a change Check must find
	if err := os.WriteFile(f, b, 0o600); err != nil {
		t.Fatal(err)
	}
	lib2, err := Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	defer lib2.Close()
	if _, err := lib2.SearchVectors(ctx, q, 3, Filter{}); err != nil {
		t.Fatal(err)
	}
	// the search verified the changed file (its state was not the one
	// verified), found it damaged and rebuilt the index: nothing damaged
	// is left for Check (which found it before searches verified files)
	if err := lib2.Check(ctx); err != nil {
		t.Fatalf("Check after a search over changed sign codes: %v", err)
	}
	if got, err := os.ReadFile(f); err == nil && bytes.Equal(got, b) {
		t.Fatal("the changed sign codes are still in use")
	}
}
