package store_test

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/papers-cli/papers/store"
)

func TestPutBatchIsOneTransaction(t *testing.T) {
	ctx := context.Background()
	lib := openTest(t, t.TempDir())
	r := rand.New(rand.NewPCG(7, 7))
	items := []store.Item{
		{Paper: paper("a", "2024-01-01", nil, nil), Chunks: chunks(r, "alpha one", "alpha two")},
		{Paper: paper("b", "2024-01-02", nil, nil), Chunks: chunks(r, "beta")},
	}
	res, err := lib.PutBatch(ctx, items)
	if err != nil {
		t.Fatal(err)
	}
	if res[0] != store.Added || res[1] != store.Added {
		t.Errorf("results %v, want both added", res)
	}
	res, err = lib.PutBatch(ctx, items)
	if err != nil || res[0] != store.Unchanged || res[1] != store.Unchanged {
		t.Errorf("second batch: %v %v, want unchanged", res, err)
	}
	// a bad item fails the whole batch and writes nothing
	bad := []store.Item{
		{Paper: paper("c", "2024-01-03", nil, nil), Chunks: chunks(r, "gamma")},
		{Paper: paper("d", "2024-01-04", nil, nil), Chunks: []store.Chunk{{Seq: 0, Text: "short vector", Vector: []float32{1, 0}}}},
	}
	if _, err := lib.PutBatch(ctx, bad); err == nil {
		t.Fatal("a chunk with the wrong dimensions should fail the batch")
	}
	if _, err := lib.Get(ctx, "c"); err == nil {
		t.Error("paper c of a failed batch was stored")
	}
	if n, c, _ := lib.Count(ctx); n != 2 || c != 3 {
		t.Errorf("library holds %d papers, %d chunks; want 2, 3", n, c)
	}
}
