package store_test

import (
	"context"
	"database/sql"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"testing"

	"github.com/papers-cli/papers/role"
	"github.com/papers-cli/papers/store"
)

// TestChunkRoles: a chunk's role is stored and read back by every reader
// of chunks (Chunks, ChunkTexts, ForEachChunk); a library of schema 6, whose chunks have
// no role, reads them as body text after the migration, and an identical
// re-ingest of role-less chunks is still recognised (the fingerprint of
// body text did not change).
func TestChunkRoles(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	lib := openTest(t, dir)
	r := rand.New(rand.NewPCG(6, 1))
	cs := chunks(r, "title and abstract", "running text of the method", "Model 1 2 3\nOurs 4 5 6", "Table 1: results")
	cs[2].Role, cs[3].Role = role.Table, role.Caption
	if _, err := lib.Put(ctx, paper("a", "2025-01-01", nil, nil), cs); err != nil {
		t.Fatal(err)
	}
	plain := chunks(r, "title of b", "body of b")
	if _, err := lib.Put(ctx, paper("b", "2025-01-02", nil, nil), plain); err != nil {
		t.Fatal(err)
	}
	got, err := lib.Chunks(ctx, "a")
	if err != nil {
		t.Fatal(err)
	}
	want := []role.Role{role.Body, role.Body, role.Table, role.Caption}
	for i, c := range got {
		if c.Role != want[i] {
			t.Errorf("chunk %d read back as %q, want %q", i, c.Role, want[i])
		}
	}
	texts, err := lib.ChunkTexts(ctx, []string{"a#2", "a#1"})
	if err != nil || texts["a#2"].Role != role.Table || texts["a#1"].Role != role.Body {
		t.Errorf("ChunkTexts = %+v, %v", texts, err)
	}
	var walked []role.Role
	if err := lib.ForEachChunk(ctx, false, func(c store.Chunk) error {
		if c.PaperID == "a" {
			walked = append(walked, c.Role)
		}
		return nil
	}); err != nil || !slices.Equal(walked, want) {
		t.Errorf("ForEachChunk: roles %v, %v", walked, err)
	}
	lib.Close()

	// back to schema 6: chunks without a role column
	db, err := sql.Open("sqlite", filepath.Join(dir, store.FileName))
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		"ALTER TABLE chunks DROP COLUMN role",
		"UPDATE manifest SET value = '6' WHERE key = 'schema'",
		"PRAGMA user_version = 6",
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	db.Close()
	lib = openTest(t, dir)
	got, err = lib.Chunks(ctx, "a")
	if err != nil {
		t.Fatal(err)
	}
	for i, c := range got {
		if c.Role != role.Body {
			t.Errorf("chunk %d of a schema 6 library reads as %q, want body", i, c.Role)
		}
	}
	if err := lib.Check(ctx); err != nil {
		t.Fatal(err)
	}
	res, err := lib.Put(ctx, paper("b", "2025-01-02", nil, nil), plain)
	if err != nil || res != store.Unchanged {
		t.Errorf("re-ingest of b after the migration: %+v, %v; want unchanged", res, err)
	}
}
