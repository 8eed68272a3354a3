package export

import (
	"context"
	"slices"
	"testing"

	"github.com/papers-cli/papers/store"
)

// TestSelect: references in any form find their paper once, in order, then
// the filter's papers; a version other than the held one is reported; an
// id the library does not hold is missing and the filter is not read.
func TestSelect(t *testing.T) {
	ctx := context.Background()
	lib, err := store.Open(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer lib.Close()
	if err := lib.EnsureEmbedder(ctx, "e", 2); err != nil {
		t.Fatal(err)
	}
	for _, p := range []store.Paper{
		{ID: "2501.12948", Version: 2, Title: "R1", Source: "arxiv", Categories: []string{"cs.CL"}},
		{ID: "topic-001", Title: "ECHO", Source: "jsonl", Categories: []string{"cs.LG"}},
		{ID: "topic-002", Title: "Other", Source: "jsonl", Categories: []string{"cs.LG"}},
	} {
		if _, err := lib.Put(ctx, p, []store.Chunk{{Text: p.Title, Vector: []float32{1, 0}}}); err != nil {
			t.Fatal(err)
		}
	}
	ids := func(ps []store.Paper) []string {
		var out []string
		for _, p := range ps {
			out = append(out, p.ID)
		}
		return out
	}
	got, err := Select(ctx, lib, Selection{
		Refs:   []string{"https://arxiv.org/abs/2501.12948v1", "topic-002", "arXiv:2501.12948"},
		Filter: &store.Filter{Categories: []string{"cs.LG"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"2501.12948", "topic-002", "topic-001"}; !slices.Equal(ids(got.Papers), want) {
		t.Errorf("papers %v, want %v", ids(got.Papers), want)
	}
	if len(got.Versions) != 1 || got.Versions[0] != (VersionAsked{ID: "2501.12948", Asked: 1, Held: 2}) || len(got.Missing) != 0 {
		t.Errorf("versions %+v, missing %v", got.Versions, got.Missing)
	}
	got, err = Select(ctx, lib, Selection{Refs: []string{"nope", "topic-001"}, Filter: &store.Filter{}})
	if err != nil || !slices.Equal(got.Missing, []string{"nope"}) || !slices.Equal(ids(got.Papers), []string{"topic-001"}) {
		t.Errorf("Select(nope) = %v, %+v", err, got)
	}
}
