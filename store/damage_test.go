package store

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/papers-cli/papers/internal/leview"
)

// TestDamagedSegmentNeverPanics builds a real segment, then flips bytes
// in copies of its .seg file: each copy is either refused by parseSegment
// or searchable (dense and text, with feedback) without a panic; a refused
// one is what makes the store rebuild the index from the database.
func TestDamagedSegmentNeverPanics(t *testing.T) {
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
	name := onlySegment(t, lib)
	good, err := os.ReadFile(filepath.Join(lib.indexDir(), name+".seg"))
	if err != nil {
		t.Fatal(err)
	}
	vecs, err := os.ReadFile(filepath.Join(lib.indexDir(), name+".vec"))
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
		s, err := parseSegment("x", bad)
		if err != nil {
			continue
		}
		parsed++
		s.vecs.mem = leview.Of[float32](vecs, len(vecs)/4)
		x := newView(indexVersion{dims: s.dims}, 0, []liveSeg{{segment: s}})
		if len(q) == x.dims {
			if _, err := x.search(ctx, normalized(q), 5, nil); err != nil && !errors.Is(err, errBadSegment) {
				t.Fatal(err)
			}
		}
		acc := make([]float64, x.len())
		terms := []string{"reward", "agent", "plan"}
		if err := x.text.Score(terms, nil, acc); err == nil && x.len() >= 2 {
			x.text.Expand([]int{0, 1}, []float64{0.5, 0.5}, terms, 5, 0)
		}
	}
	t.Logf("%d of 3000 damaged copies parsed (the damage was in vectors, postings or padding)", parsed)
}

// onlySegment returns the name of the one segment of lib's index.
func onlySegment(t *testing.T, lib *Library) string {
	t.Helper()
	c, err := readCommit(lib.indexDir())
	if err != nil || c == nil || len(c.segs) != 1 {
		t.Fatalf("commit %+v, %v: want one segment", c, err)
	}
	return c.segs[0].name
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
	s, err := parseSegment(name, b)
	if err != nil {
		t.Fatal(err)
	}
	// The full-text index is the segment's tail; its postings start after
	// a 32-byte header and four arrays (fts's layout).
	at := len(b) - len(s.text.Encoding())
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
