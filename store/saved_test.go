package store_test

import (
	"context"
	"errors"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/papers-cli/papers/store"
)

// User tags and saves are the user's: re-ingesting a paper (Put with other
// metadata, other chunks, other source tags), reindexing and merging a
// duplicate into it keep them; deleting it removes them; List filters by
// them.
func TestUserTagsAndSaves(t *testing.T) {
	ctx := context.Background()
	lib := openTest(t, t.TempDir())
	r := rand.New(rand.NewPCG(13, 13))
	a := paper("2501.00001", "2025-01-01", []string{"cs.LG"}, nil)
	a.Tags = []store.Tag{{Name: "World Models", Source: "corpus"}}
	b := paper("2501.00002", "2025-01-02", []string{"cs.CL"}, nil)
	for _, p := range []store.Paper{a, b} {
		if _, err := lib.Put(ctx, p, chunks(r, "abstract of "+p.ID)); err != nil {
			t.Fatal(err)
		}
	}
	added, err := lib.AddTags(ctx, a.ID, []string{"to-read", " Reading  Group ", "TO-READ"})
	if err != nil || !slices.Equal(added, []string{"Reading Group", "to-read"}) {
		t.Fatalf("AddTags = %q, %v", added, err)
	}
	if added, err := lib.AddTags(ctx, a.ID, []string{"To-Read"}); err != nil || len(added) != 0 {
		t.Errorf("AddTags of a tag held in another case = %q, %v; want nothing added", added, err)
	}
	if _, err := lib.AddTags(ctx, a.ID, []string{" \t\x07"}); !errors.Is(err, store.ErrEmptyTag) {
		t.Errorf("AddTags of blanks and a control character = %v, want ErrEmptyTag", err)
	}
	if _, err := lib.AddTags(ctx, "nope", []string{"x"}); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("AddTags on a missing paper = %v, want ErrNotFound", err)
	}
	if n, err := lib.Save(ctx, []string{a.ID, a.ID}); err != nil || n != 1 {
		t.Errorf("Save = %d, %v; want 1 newly saved", n, err)
	}
	if _, err := lib.Save(ctx, []string{b.ID, "nope"}); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("Save with a missing paper = %v, want ErrNotFound", err)
	}
	if p, _ := lib.Get(ctx, b.ID); !p.Saved.IsZero() {
		t.Error("a Save that failed saved a paper")
	}

	check := func(when string) {
		t.Helper()
		p, err := lib.Get(ctx, a.ID)
		if err != nil {
			t.Fatal(err)
		}
		want := []store.Tag{{Name: "World Models", Source: "corpus"}, {Name: "Reading Group", Source: "user"}, {Name: "to-read", Source: "user"}}
		if !slices.Equal(p.Tags, want) || p.Saved.IsZero() {
			t.Errorf("%s: tags %v saved %v; want %v, saved", when, p.Tags, p.Saved, want)
		}
		for _, f := range []store.Filter{{Tags: []string{"to-READ"}}, {Tags: []string{"world models"}}, {Saved: true}, {Saved: true, Tags: []string{"reading group", "x"}}} {
			if ps, err := lib.List(ctx, f); err != nil || ids(ps) != a.ID {
				t.Errorf("%s: List(%+v) = %s, %v; want %s", when, f, ids(ps), err, a.ID)
			}
		}
		if ps, err := lib.List(ctx, store.Filter{Saved: true, Categories: []string{"cs.CL"}}); err != nil || len(ps) != 0 {
			t.Errorf("%s: saved and cs.CL = %s, %v; want none", when, ids(ps), err)
		}
	}
	check("after tagging")

	// Re-ingest with new metadata and chunks: the user's marks stay.
	a2 := a
	a2.Version, a2.Title = 2, "A new title"
	a2.Tags = []store.Tag{{Name: "World Models", Source: "corpus"}}
	if res, err := lib.Put(ctx, a2, chunks(r, "new abstract", "a body")); err != nil || res != store.Updated {
		t.Fatalf("re-Put = %v, %v", res, err)
	}
	check("after re-ingest")

	err = lib.Reindex(ctx, "new/2", 2, 8, func(ctx context.Context, cs []store.Chunk) ([][]float32, error) {
		out := make([][]float32, len(cs))
		for i := range out {
			out[i] = []float32{1, 1}
		}
		return out, nil
	}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	check("after reindex")

	if removed, err := lib.RemoveTags(ctx, a.ID, []string{"TO-READ", "world models", "absent"}); err != nil || !slices.Equal(removed, []string{"to-read"}) {
		t.Errorf("RemoveTags = %q, %v; want only the user tag removed", removed, err)
	}
	if n, err := lib.Unsave(ctx, []string{a.ID, b.ID}); err != nil || n != 1 {
		t.Errorf("Unsave = %d, %v; want 1", n, err)
	}
	if ps, err := lib.List(ctx, store.Filter{Saved: true}); err != nil || len(ps) != 0 {
		t.Errorf("saved after Unsave = %s, %v", ids(ps), err)
	}
	if _, err := lib.Save(ctx, []string{b.ID}); err != nil {
		t.Fatal(err)
	}
	if err := lib.Delete(ctx, b.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := lib.Put(ctx, b, []store.Chunk{{Text: "b again", Vector: []float32{1, 0}}}); err != nil { // the reindexed library's 2 dimensions
		t.Fatal(err)
	}
	if p, _ := lib.Get(ctx, b.ID); !p.Saved.IsZero() {
		t.Error("a deleted paper ingested again is still saved")
	}
}

// Merging a duplicate into a paper moves the duplicate's save.
func TestAbsorbMovesSave(t *testing.T) {
	ctx := context.Background()
	lib := openTest(t, t.TempDir())
	r := rand.New(rand.NewPCG(14, 14))
	local := paper("pdf:aaaa000000000000", "", nil, nil)
	local.Source, local.ContentHash = "pdf", "aaaa"
	if _, err := lib.Put(ctx, local, chunks(r, "local abstract", "body")); err != nil {
		t.Fatal(err)
	}
	if _, err := lib.Save(ctx, []string{local.ID}); err != nil {
		t.Fatal(err)
	}
	ax := paper("2501.12948", "2025-01-22", nil, nil)
	ax.ArxivID, ax.ContentHash = ax.ID, "aaaa"
	if _, err := lib.PutBatch(ctx, []store.Item{{Paper: ax, Chunks: chunks(r, "abstract"), BodyFrom: local.ID, Absorb: []string{local.ID}}}); err != nil {
		t.Fatal(err)
	}
	if ps, err := lib.List(ctx, store.Filter{Saved: true}); err != nil || ids(ps) != ax.ID {
		t.Errorf("saved after the merge = %s, %v; want %s", ids(ps), err, ax.ID)
	}
}
