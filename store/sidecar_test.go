package store

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
)

// TestDamagedSidecarNeverPanics builds a real sidecar, then flips bytes in
// copies of it: each copy is either refused by parseSidecar or searchable
// (dense and text, with feedback) without a panic; a refused one is what
// makes the store rebuild the index from the database.
func TestDamagedSidecarNeverPanics(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	lib := openWithEmbedder(t, dir, 16)
	r := rand.New(rand.NewPCG(11, 12))
	for i := range 20 {
		var cs []Chunk
		for j := range 3 {
			v := make([]float32, 16)
			for k := range v {
				v[k] = float32(r.NormFloat64())
			}
			cs = append(cs, Chunk{Seq: j, Text: fmt.Sprintf("chunk %d of paper %d about reward models and agents %d", j, i, r.IntN(50)), Vector: v})
		}
		if _, err := lib.Put(ctx, Paper{ID: fmt.Sprintf("p%02d", i), Version: 1, Title: "Paper about planning"}, cs); err != nil {
			t.Fatal(err)
		}
	}
	if err := lib.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	good, err := os.ReadFile(filepath.Join(dir, SidecarName))
	if err != nil {
		t.Fatal(err)
	}
	q := make([]float32, 16)
	q[0] = 1
	parsed := 0
	for n := range 3000 {
		bad := bytes.Clone(good)
		for range 1 + n%3 {
			bad[r.IntN(len(bad))] ^= byte(1 + r.IntN(255))
		}
		x, err := parseSidecar(bad)
		if err != nil {
			continue
		}
		parsed++
		if len(q) != x.dims {
			continue
		}
		if _, err := x.search(ctx, normalized(q), 5, nil); err != nil {
			t.Fatal(err)
		}
		acc := make([]float64, x.len())
		terms := []string{"reward", "agent", "plan"}
		if err := x.text.Score(terms, nil, acc); err == nil {
			x.text.Expand([]int{0, 1}, []float64{0.5, 0.5}, terms, 5, 0)
		}
	}
	t.Logf("%d of 3000 damaged copies parsed (the damage was in vectors, postings or padding)", parsed)
}

// TestCorruptPostingsAreRebuilt damages a posting of a current index.bin
// (a chunk number out of range, which parsing does not check): the next
// text search notices, rebuilds the index from the database and answers.
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
	lib.Close()

	path := filepath.Join(dir, SidecarName)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	x, err := parseSidecar(b)
	if err != nil {
		t.Fatal(err)
	}
	// The full-text index is the sidecar's tail; its postings start after
	// a 32-byte header and four arrays (fts's layout).
	at := len(b) - len(x.text.Encoding())
	le := binary.LittleEndian
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
	got, err := lib.SearchText(ctx, "reward", 5, Filter{}, Feedback{})
	if err != nil || len(got) != len(want) || got[0].ChunkID != want[0].ChunkID {
		t.Errorf("after damage: %v, %v; want %v", got, err, want)
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
