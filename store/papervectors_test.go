package store_test

import (
	"context"
	"database/sql"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/papers-cli/papers/store"
)

// PaperVectors: one vector per paper, the normalised mean of its chunk
// vectors; the sidecar is reused while current, only changed papers are
// computed again, a reindex or a torn file recomputes all, and topics are
// read fresh every time.
func TestPaperVectors(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	lib := openTest(t, dir)
	r := rand.New(rand.NewPCG(21, 21))
	for _, id := range []string{"b", "a", "c"} {
		if _, err := lib.Put(ctx, paper(id, "2025-03-04", []string{"cs.CL"}, nil), chunks(r, "one", "two", "three")); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := lib.Put(ctx, paper("empty", "2025-03-04", nil, nil), nil); err != nil { // no chunk: no vector
		t.Fatal(err)
	}
	load := func() *store.PaperVectors {
		t.Helper()
		pv, err := lib.PaperVectors(ctx)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { pv.Close() })
		return pv
	}
	pv := load()
	if pv.Dims != dims || len(pv.Papers) != 3 || pv.Papers[0].ID != "a" || pv.Papers[2].ID != "c" || pv.Computed != 3 || pv.Reused != 0 {
		t.Fatalf("first load: %d dims, papers %+v, computed %d reused %d", pv.Dims, pv.Papers, pv.Computed, pv.Reused)
	}
	cs, err := lib.ChunksWithVectors(ctx, "b")
	if err != nil {
		t.Fatal(err)
	}
	want := make([]float64, dims)
	for _, c := range cs {
		for d, v := range c.Vector {
			want[d] += float64(v)
		}
	}
	var norm float64
	for _, v := range want {
		norm += v * v
	}
	for d, v := range pv.Vector(pv.Index("b")) {
		if math.Abs(float64(v)-want[d]/math.Sqrt(norm)) > 1e-6 {
			t.Fatalf("vector of b = %v, want the normalised mean %v", pv.Vector(1), want)
		}
	}
	if pv.Papers[0].Published.Year() != 2025 || pv.Papers[0].Categories[0] != "cs.CL" {
		t.Errorf("metadata of a: %+v", pv.Papers[0])
	}

	path := filepath.Join(dir, store.PaperVectorsName)
	before, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	// Current (the paper without a vector included): used as it is, its
	// metadata with it, and not written again.
	pv = load()
	if pv.Reused != 3 || pv.Computed != 0 {
		t.Errorf("second load: reused %d, computed %d; want the sidecar reused whole", pv.Reused, pv.Computed)
	}
	if a := pv.Papers[0]; a.ID != "a" || !a.Published.Equal(time.Date(2025, 3, 4, 0, 0, 0, 0, time.UTC)) || !slices.Equal(a.Categories, []string{"cs.CL"}) {
		t.Errorf("metadata of a from the sidecar: %+v", a)
	}
	if after, err := os.Stat(path); err != nil || !os.SameFile(before, after) {
		t.Errorf("a current sidecar was written again (%v)", err)
	}
	if err := lib.AddTopic(ctx, store.Topic{Name: "RL", Query: "x"}); err != nil {
		t.Fatal(err)
	}
	if err := lib.AddToTopic(ctx, "rl", []string{"c"}); err != nil {
		t.Fatal(err)
	}
	// Topic memberships are no write to papers: the sidecar stays current,
	// the topics are read fresh.
	if pv := load(); pv.Reused != 3 || pv.Computed != 0 || len(pv.Papers[2].Topics) != 1 {
		t.Errorf("after a topic's add: reused %d, computed %d, topics of c %v", pv.Reused, pv.Computed, pv.Papers[2].Topics)
	}
	if _, err := lib.Put(ctx, paper("a", "2025-03-05", nil, nil), chunks(r, "new")); err != nil {
		t.Fatal(err)
	}
	pv = load()
	if pv.Reused != 2 || pv.Computed != 1 || len(pv.Papers[2].Topics) != 1 || pv.Papers[2].Topics[0] != "RL" {
		t.Errorf("after a change: reused %d, computed %d, topics of c %v; want 2, 1, [RL]", pv.Reused, pv.Computed, pv.Papers[2].Topics)
	}
	if err := lib.Delete(ctx, "b"); err != nil {
		t.Fatal(err)
	}
	if pv := load(); len(pv.Papers) != 2 || pv.Reused != 2 {
		t.Errorf("after a delete: %d papers, reused %d", len(pv.Papers), pv.Reused)
	}

	// A library without vectors_gen (the sidecar is current by the
	// fingerprints), and one whose generation moved with nothing changed
	// (it is rewritten, every vector reused).
	db, err := sql.Open("sqlite", filepath.Join(dir, store.FileName))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec("UPDATE manifest SET value = CAST(value AS INTEGER) + 1 WHERE key = 'vectors_gen'"); err != nil {
		t.Fatal(err)
	}
	if pv := load(); pv.Reused != 2 || pv.Computed != 0 {
		t.Errorf("another generation: reused %d, computed %d; want 2, 0", pv.Reused, pv.Computed)
	}
	if _, err := db.Exec("DELETE FROM manifest WHERE key = 'vectors_gen'"); err != nil {
		t.Fatal(err)
	}
	before, err = os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if pv := load(); pv.Reused != 2 || pv.Computed != 0 || len(pv.Papers) != 2 {
		t.Errorf("without vectors_gen: reused %d, computed %d of %d", pv.Reused, pv.Computed, len(pv.Papers))
	}
	if after, err := os.Stat(path); err != nil || !os.SameFile(before, after) {
		t.Errorf("without vectors_gen, a sidecar current by the fingerprints was written again (%v)", err)
	}

	// A damaged vector is found by Check (a load does not read them all);
	// damaged entries make the sidecar ignored and rewritten.
	if err := lib.Check(ctx); err != nil {
		t.Fatalf("check of a sound library: %v", err)
	}
	good, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	bad := slices.Clone(good)
	bad[len(bad)-2] ^= 0x40
	if err := os.WriteFile(path, bad, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := lib.Check(ctx); err == nil || !strings.Contains(err.Error(), "papers.vec") {
		t.Errorf("check with a damaged vector: %v, want an error naming papers.vec", err)
	}
	bad = slices.Clone(good)
	bad[100] ^= 0x01 // in the embedder's name or the first entry
	if err := os.WriteFile(path, bad, 0o600); err != nil {
		t.Fatal(err)
	}
	if pv := load(); pv.Computed != 2 || len(pv.Papers) != 2 {
		t.Errorf("damaged entries: computed %d of %d", pv.Computed, len(pv.Papers))
	}

	// A torn sidecar is ignored and rewritten.
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b[:len(b)-5], 0o600); err != nil {
		t.Fatal(err)
	}
	if pv := load(); pv.Computed != 2 || len(pv.Papers) != 2 {
		t.Errorf("torn sidecar: computed %d of %d", pv.Computed, len(pv.Papers))
	}

	err = lib.Reindex(ctx, "new/3", 3, 8, func(ctx context.Context, cs []store.Chunk) ([][]float32, error) {
		out := make([][]float32, len(cs))
		for i := range out {
			out[i] = []float32{0, 3, 4}
		}
		return out, nil
	}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	pv = load()
	if pv.Dims != 3 || pv.Computed != 2 || pv.Embedder != "new/3" {
		t.Fatalf("after reindex: %d dims, computed %d, embedder %q", pv.Dims, pv.Computed, pv.Embedder)
	}
	if v := pv.Vector(0); v[0] != 0 || math.Abs(float64(v[1])-0.6) > 1e-6 || math.Abs(float64(v[2])-0.8) > 1e-6 {
		t.Errorf("vector after reindex = %v, want [0 0.6 0.8]", v)
	}
}
