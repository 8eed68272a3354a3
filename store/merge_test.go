package store_test

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/papers-cli/papers/store"
)

// Tags: Put replaces the tags of every source but "user"; Get and List
// read them back sorted by source and name.
func TestPutTags(t *testing.T) {
	ctx := context.Background()
	lib := openTest(t, t.TempDir())
	r := rand.New(rand.NewPCG(3, 1))
	p := paper("2501.00001", "2025-01-01", nil, []string{"Ana Lima"})
	p.Tags = []store.Tag{{Name: "zotero:Reading/RL", Source: "zotero"}, {Name: " agents ", Source: "corpus"},
		{Name: "AGENTS", Source: "corpus"}, {Name: "mine", Source: store.TagUser}, {Name: "", Source: "zotero"}}
	if _, err := lib.Put(ctx, p, chunks(r, "a")); err != nil {
		t.Fatal(err)
	}
	got, err := lib.Get(ctx, p.ID)
	if err != nil {
		t.Fatal(err)
	}
	want := []store.Tag{{Name: "agents", Source: "corpus"}, {Name: "mine", Source: "user"}, {Name: "zotero:Reading/RL", Source: "zotero"}}
	if !slices.Equal(got.Tags, want) {
		t.Errorf("tags = %v, want %v", got.Tags, want)
	}
	// A re-ingest with other zotero tags and none of the user's: the
	// zotero and corpus tags are replaced, the user's stay.
	p.Tags = []store.Tag{{Name: "zotero:Later", Source: "zotero"}}
	if res, err := lib.Put(ctx, p, chunks(r, "a")); err != nil || res != store.Updated {
		t.Fatalf("Put = %v, %v; want updated (the tags changed)", res, err)
	}
	ps, err := lib.List(ctx, store.Filter{Brief: true})
	if err != nil {
		t.Fatal(err)
	}
	want = []store.Tag{{Name: "mine", Source: "user"}, {Name: "zotero:Later", Source: "zotero"}}
	if len(ps) != 1 || !slices.Equal(ps[0].Tags, want) {
		t.Errorf("listed tags = %v, want %v", ps[0].Tags, want)
	}
	if res, err := lib.Put(ctx, p, chunks(r, "a")); err != nil || res != store.Unchanged {
		t.Errorf("same Put again = %v, %v; want unchanged", res, err)
	}
	if err := lib.Delete(ctx, p.ID); err != nil {
		t.Fatal(err)
	}
	p.Tags = nil
	if _, err := lib.Put(ctx, p, chunks(r, "a")); err != nil {
		t.Fatal(err)
	}
	if got, _ := lib.Get(ctx, p.ID); len(got.Tags) != 0 {
		t.Errorf("tags outlived papers rm: %v", got.Tags)
	}
}

// A paper's arXiv id, DOI and file hash are identifiers; one held by
// another paper is refused, and FindByIdentifiers finds the holder.
func TestIdentifiers(t *testing.T) {
	ctx := context.Background()
	lib := openTest(t, t.TempDir())
	r := rand.New(rand.NewPCG(3, 2))
	a := paper("2501.00001", "2025-01-01", nil, nil)
	a.ArxivID, a.DOI = "2501.00001", "10.1000/ABC"
	if _, err := lib.PutBatch(ctx, []store.Item{{Paper: a, Chunks: chunks(r, "a"),
		Identifiers: []store.Identifier{{Kind: store.IDZotero, Value: "u/ABCD1234", Stamp: "2024-01-01 00:00:00"}}}}); err != nil {
		t.Fatal(err)
	}
	for _, id := range []store.Identifier{{Kind: store.IDDOI, Value: "https://doi.org/10.1000/abc"}, {Kind: store.IDArxiv, Value: "2501.00001"},
		{Kind: store.IDSHA256, Value: "HASH-2501.00001"}, {Kind: store.IDZotero, Value: "u/ABCD1234"}} {
		ps, err := lib.FindByIdentifiers(ctx, []store.Identifier{id, {Kind: store.IDArxiv, Value: "9999.99999"}})
		if err != nil || len(ps) != 1 || ps[0].ID != a.ID {
			t.Errorf("FindByIdentifiers(%v) = %v, %v", id, ids(ps), err)
		}
	}
	// "zotero:KEY" names the paper holding the Zotero item, keyed by its arXiv id
	if p, err := lib.FindPaper(ctx, "zotero:ABCD1234"); err != nil || p.ID != a.ID {
		t.Errorf("FindPaper(zotero:ABCD1234) = %s, %v; want %s", p.ID, err, a.ID)
	}
	if _, err := lib.FindPaper(ctx, "zotero:ZZZZ9999"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("FindPaper of an unknown Zotero key: %v", err)
	}
	zs, err := lib.Identifiers(ctx, store.IDZotero)
	if err != nil || zs["u/ABCD1234"] != (store.IdentifierRecord{PaperID: a.ID, Stamp: "2024-01-01 00:00:00"}) {
		t.Errorf("zotero identifiers = %v, %v", zs, err)
	}
	b := paper("pdf:0123456789abcdef", "", nil, nil)
	b.Source, b.ContentHash = "pdf", "hash-2501.00001"
	_, err = lib.Put(ctx, b, chunks(r, "b"))
	if !errors.Is(err, store.ErrIdentifierTaken) || !strings.Contains(err.Error(), "2501.00001") {
		t.Errorf("Put of a second paper with the same file hash: %v; want ErrIdentifierTaken naming the holder", err)
	}
	if _, err := lib.Get(ctx, b.ID); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("the refused paper was stored: %v", err)
	}
}

// Absorbing a duplicate moves its body chunks (vectors and all), topic
// memberships and tags to the paper kept, and its id still finds it.
func TestPutAbsorbs(t *testing.T) {
	ctx := context.Background()
	lib := openTest(t, t.TempDir())
	r := rand.New(rand.NewPCG(3, 3))
	local := paper("pdf:f03f000000000000", "", nil, nil)
	local.Source, local.Pages, local.ContentHash = "pdf", 2, "f03f"
	local.Tags = []store.Tag{{Name: "mine", Source: store.TagUser}}
	if _, err := lib.Put(ctx, local, chunks(r, "local abstract", "body one about reward shaping", "body two")); err != nil {
		t.Fatal(err)
	}
	held, err := lib.ChunksWithVectors(ctx, local.ID)
	if err != nil {
		t.Fatal(err)
	}
	if err := lib.AddTopic(ctx, store.Topic{Name: "rl", Query: "cat:cs.LG"}); err != nil {
		t.Fatal(err)
	}
	if err := lib.AddToTopic(ctx, "rl", []string{local.ID}); err != nil {
		t.Fatal(err)
	}
	ax := paper("2501.12948", "2025-01-22", []string{"cs.CL"}, []string{"DeepSeek-AI"})
	ax.ArxivID, ax.ContentHash, ax.Pages = "2501.12948", "f03f", 2
	items := []store.Item{{Paper: ax, Chunks: chunks(r, "DeepSeek-R1 abstract"), BodyFrom: local.ID, Absorb: []string{local.ID}}}
	if res, err := lib.PutBatch(ctx, items); err != nil || res[0] != store.Updated { // the paper was there, as pdf:f03f…
		t.Fatalf("PutBatch = %v, %v", res, err)
	}
	if err := lib.Check(ctx); err != nil {
		t.Fatal(err)
	}
	got, err := lib.ChunksWithVectors(ctx, ax.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 || got[0].Text != "DeepSeek-R1 abstract" || got[1].Text != held[1].Text || !slices.Equal(got[2].Vector, held[2].Vector) {
		t.Errorf("chunks after the merge: %+v", got)
	}
	p, err := lib.Get(ctx, ax.ID)
	if err != nil || p.Chunks != 3 || !slices.Equal(p.Tags, local.Tags) {
		t.Errorf("merged paper: %+v, %v", p, err)
	}
	if _, err := lib.Get(ctx, local.ID); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("the duplicate is still there: %v", err)
	}
	if got, err := lib.FindPaper(ctx, local.ID); err != nil || got.ID != ax.ID {
		t.Errorf("FindPaper(%s) = %s, %v", local.ID, got.ID, err)
	}
	tp, err := lib.Topic(ctx, "rl")
	if err != nil || tp.Papers != 1 {
		t.Errorf("topic after the merge: %+v, %v", tp, err)
	}
	ps, err := lib.List(ctx, store.Filter{Topics: []string{"rl"}})
	if err != nil || ids(ps) != ax.ID {
		t.Errorf("topic members = %s, %v", ids(ps), err)
	}
	hits, err := lib.SearchText(ctx, "reward shaping", 3, store.Filter{}, store.Feedback{})
	if err != nil || len(hits) != 1 || hits[0].ChunkID != ax.ID+"#1" {
		t.Errorf("search after the merge = %+v, %v", hits, err)
	}
	// The same paper again, keeping its body: unchanged.
	items = []store.Item{{Paper: ax, Chunks: chunks(r, "DeepSeek-R1 abstract"), BodyFrom: ax.ID}}
	if res, err := lib.PutBatch(ctx, items); err != nil || res[0] != store.Unchanged {
		t.Errorf("PutBatch keeping the body = %v, %v; want unchanged", res, err)
	}
	// Reusing chunks of a paper the item does not absorb is a mistake.
	items = []store.Item{{Paper: ax, BodyFrom: "other"}}
	if _, err := lib.PutBatch(ctx, items); err == nil {
		t.Error("BodyFrom a paper not absorbed was accepted")
	}
}

// A schema 2 library holding a local PDF and its arXiv copy (the same
// bytes, as arXiv serves them), and a local PDF whose stamp names an arXiv
// paper not held, opens as schema 3 with one paper each, keyed by the
// arXiv id, nothing lost, and says so once.
func TestMigrateMergesDuplicates(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	lib := openTest(t, dir)
	r := rand.New(rand.NewPCG(3, 4))
	ax := paper("2501.12948", "2025-01-22", []string{"cs.CL"}, []string{"DeepSeek-AI"})
	ax.ContentHash, ax.Pages = "", 1
	local := store.Paper{ID: "pdf:f03f000000000000", Title: "DeepSeek-R1 local", Source: "pdf", Pages: 1, ContentHash: "aa11", URL: "file:///x/r1.pdf"}
	stamped := store.Paper{ID: "pdf:55c2000000000000", Title: "Reflexion", Source: "pdf", Pages: 1, ContentHash: "bb22", Comment: "arXiv:2303.11366v4"}
	abstractOnly := paper("2302.04761", "2023-02-09", nil, nil)
	abstractOnly.ContentHash = ""
	toolLocal := store.Paper{ID: "pdf:7001000000000000", Title: "Toolformer", Source: "pdf", Pages: 1, ContentHash: "cc33", Comment: "arXiv:2302.04761v1"}
	corpus := store.Paper{ID: "doc1", Title: "A corpus record", Source: "jsonl", ContentHash: "dd44"}
	for _, pc := range []struct {
		p  store.Paper
		cs []store.Chunk
	}{
		{ax, chunks(r, "R1 abstract", "R1 body from arXiv")},
		{local, chunks(r, "R1 local abstract", "R1 body from the local file")},
		{stamped, chunks(r, "Reflexion abstract", "Reflexion body")},
		{abstractOnly, chunks(r, "Toolformer abstract")},
		{toolLocal, chunks(r, "Toolformer local abstract", "Toolformer body one", "Toolformer body two")},
		{corpus, chunks(r, "corpus text")},
	} {
		if _, err := lib.Put(ctx, pc.p, pc.cs); err != nil {
			t.Fatal(err)
		}
	}
	if err := lib.AddTopic(ctx, store.Topic{Name: "reasoning", Query: "abs:reasoning"}); err != nil {
		t.Fatal(err)
	}
	if err := lib.AddTopicMembers(ctx, "reasoning", store.TopicMembers{IDs: []string{ax.ID, local.ID, toolLocal.ID}, Brought: []string{ax.ID}}); err != nil {
		t.Fatal(err)
	}
	lib.Close()
	// The arXiv copy's PDF in the cache is byte for byte the local file.
	cache := filepath.Join(dir, store.PDFCacheDir)
	if err := os.MkdirAll(cache, 0o700); err != nil {
		t.Fatal(err)
	}
	data := []byte("%PDF-1.5 the same bytes")
	if err := os.WriteFile(filepath.Join(cache, "2501.12948v1.pdf"), data, 0o600); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", filepath.Join(dir, store.FileName))
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range append(schema3Undo,
		"UPDATE papers SET content_hash = '"+sha256Hex(data)+"' WHERE id = '"+local.ID+"'",
		"UPDATE manifest SET value = '2' WHERE key = 'schema'", "PRAGMA user_version = 2") {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	db.Close()

	lib, err = store.Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	defer lib.Close()
	notes := strings.Join(lib.MigrationNotes(), "\n")
	if !strings.Contains(notes, local.ID+" -> 2501.12948") || !strings.Contains(notes, toolLocal.ID+" -> 2302.04761") ||
		!strings.Contains(notes, stamped.ID+" -> 2303.11366") {
		t.Errorf("migration notes:\n%s", notes)
	}
	if err := lib.Check(ctx); err != nil {
		t.Fatal(err)
	}
	ps, err := lib.List(ctx, store.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	if got := ids(ps); got != "2501.12948,2302.04761,2303.11366,doc1" {
		t.Errorf("papers after the migration: %s", got)
	}
	body := func(id string) []string {
		cs, err := lib.Chunks(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, c := range cs {
			out = append(out, c.Text)
		}
		return out
	}
	// The arXiv paper keeps its own text; the abstract-only one gains the
	// local body; the stamped one is re-keyed with its version.
	if got := body("2501.12948"); !slices.Equal(got, []string{"R1 abstract", "R1 body from arXiv"}) {
		t.Errorf("R1 chunks = %q", got)
	}
	if got := body("2302.04761"); !slices.Equal(got, []string{"Toolformer abstract", "Toolformer body one", "Toolformer body two"}) {
		t.Errorf("Toolformer chunks = %q", got)
	}
	re, err := lib.Get(ctx, "2303.11366")
	if err != nil || re.Version != 4 || re.ArxivID != "2303.11366" || re.Comment != "" || re.Source != "pdf" || re.Title != "Reflexion" {
		t.Errorf("re-keyed paper: %+v, %v", re, err)
	}
	tool, _ := lib.Get(ctx, "2302.04761")
	if tool.Pages != 1 || tool.ContentHash != "cc33" || tool.Chunks != 3 {
		t.Errorf("Toolformer after the merge: pages %d hash %q chunks %d", tool.Pages, tool.ContentHash, tool.Chunks)
	}
	for old, id := range map[string]string{local.ID: "2501.12948", toolLocal.ID: "2302.04761", stamped.ID: "2303.11366"} {
		if got, err := lib.FindPaper(ctx, old); err != nil || got.ID != id {
			t.Errorf("FindPaper(%s) = %s, %v", old, got.ID, err)
		}
	}
	members, err := lib.List(ctx, store.Filter{Topics: []string{"reasoning"}})
	if err != nil || ids(members) != "2501.12948,2302.04761" {
		t.Errorf("topic members = %s, %v", ids(members), err)
	}
	// The local file's hash now finds the arXiv paper.
	if found, err := lib.FindByIdentifiers(ctx, []store.Identifier{{Kind: store.IDSHA256, Value: sha256Hex(data)}}); err != nil || ids(found) != "2501.12948" {
		t.Errorf("by the local file's hash: %s, %v", ids(found), err)
	}
	// Purging the topic deletes only what it brought: R1 was the user's
	// too (the local file), so it stays.
	purged, err := lib.RemoveTopic(ctx, "reasoning", true)
	if err != nil || len(purged) != 0 {
		t.Errorf("purge after the merge = %v, %v; want nothing (the user had both papers)", purged, err)
	}
	lib.Close()
	lib2, err := store.Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	defer lib2.Close()
	if n := lib2.MigrationNotes(); n != nil {
		t.Errorf("second open says %q; the migration is reported once", n)
	}
}

func sha256Hex(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}
