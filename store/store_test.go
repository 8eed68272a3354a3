package store_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/papers-cli/papers/store"
)

const dims = 8

func openTest(t *testing.T, dir string) *store.Library {
	t.Helper()
	lib, err := store.Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { lib.Close() })
	if err := lib.EnsureEmbedder(context.Background(), "test/rand-8", dims); err != nil {
		t.Fatal(err)
	}
	return lib
}

func vec(r *rand.Rand) []float32 {
	v := make([]float32, dims)
	for i := range v {
		v[i] = float32(r.NormFloat64())
	}
	return v
}

func paper(id string, published string, cats, authors []string) store.Paper {
	pub, _ := time.Parse("2006-01-02", published)
	return store.Paper{
		ID: id, Version: 1, Title: "Title of " + id, Abstract: "Abstract of " + id,
		Authors: authors, Categories: cats, Published: pub, Source: "arxiv",
		ContentHash: "hash-" + id, AddedAt: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC),
	}
}

func chunks(r *rand.Rand, texts ...string) []store.Chunk {
	var cs []store.Chunk
	for i, t := range texts {
		cs = append(cs, store.Chunk{Seq: i, PageStart: i, PageEnd: i, Text: t, Vector: vec(r)})
	}
	return cs
}

func TestOpenCreatesLibrary(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "lib")
	lib, err := store.Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	defer lib.Close()
	fi, err := os.Stat(dir)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o700 {
		t.Errorf("library dir mode = %v, want 0700", fi.Mode().Perm())
	}
	if _, err := os.Stat(filepath.Join(dir, store.FileName)); err != nil {
		t.Errorf("library file: %v", err)
	}
	if lib.Dir() != dir {
		t.Errorf("Dir() = %q, want %q", lib.Dir(), dir)
	}
	m, err := lib.Manifest(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if m.Schema != store.SchemaVersion || m.Embedder != "" || m.Created.IsZero() {
		t.Errorf("fresh manifest = %+v", m)
	}
	if err := lib.SetChunker(ctx, "para-v1"); err != nil {
		t.Fatal(err)
	}
	if err := lib.EnsureEmbedder(ctx, "local/hash-768", 768); err != nil {
		t.Fatal(err)
	}
	lib.Close()

	// Reopen: the manifest persisted.
	lib2, err := store.Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	defer lib2.Close()
	m2, err := lib2.Manifest(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if m2.Chunker != "para-v1" || m2.Embedder != "local/hash-768" || m2.Dimensions != 768 || !m2.Created.Equal(m.Created) {
		t.Errorf("reopened manifest = %+v", m2)
	}
}

func TestEnsureEmbedderMismatch(t *testing.T) {
	ctx := context.Background()
	lib := openTest(t, t.TempDir())
	r := rand.New(rand.NewPCG(1, 2))
	// Same embedder again: fine.
	if err := lib.EnsureEmbedder(ctx, "test/rand-8", dims); err != nil {
		t.Fatal(err)
	}
	// No chunks yet: switching is allowed.
	if err := lib.EnsureEmbedder(ctx, "other", 4); err != nil {
		t.Fatalf("switch on empty library: %v", err)
	}
	if err := lib.EnsureEmbedder(ctx, "test/rand-8", dims); err != nil {
		t.Fatal(err)
	}
	if _, err := lib.Put(ctx, paper("p1", "2025-01-01", nil, nil), chunks(r, "a")); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		dims int
	}{{"openai/text-embedding-3-small", dims}, {"test/rand-8", 16}} {
		err := lib.EnsureEmbedder(ctx, tc.name, tc.dims)
		if !errors.Is(err, store.ErrEmbedderMismatch) {
			t.Fatalf("EnsureEmbedder(%q, %d) = %v, want ErrEmbedderMismatch", tc.name, tc.dims, err)
		}
		if !strings.Contains(err.Error(), `"test/rand-8"`) || !strings.Contains(err.Error(), `"`+tc.name+`"`) {
			t.Errorf("error does not name both embedders: %v", err)
		}
	}
	// Wrong dimensions in Put.
	bad := chunks(r, "x")
	bad[0].Vector = bad[0].Vector[:4]
	if _, err := lib.Put(ctx, paper("p2", "2025-01-01", nil, nil), bad); err == nil {
		t.Error("Put with 4-dimension vector into 8-dimension library succeeded")
	}
	if _, err := lib.Get(ctx, "p2"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("failed Put left paper p2 behind: %v", err)
	}
}

func TestPutGetRoundTrip(t *testing.T) {
	ctx := context.Background()
	lib := openTest(t, t.TempDir())
	r := rand.New(rand.NewPCG(1, 2))
	p := paper("2501.12948", "2025-01-22", []string{"cs.CL", "cs.AI"}, []string{"DeepSeek-AI", "Daya Guo"})
	p.Affiliations = []string{"DeepSeek"}
	p.Updated = time.Date(2025, 2, 1, 10, 0, 0, 0, time.FixedZone("x", 3600))
	p.Comment, p.JournalRef, p.DOI, p.URL, p.Pages, p.TextError = "22 pages", "Nature", "10.1/x", "https://arxiv.org/abs/2501.12948", 22, ""
	cs := chunks(r, "title and abstract", "Introduction. We study RL.", "Method: GRPO.")
	cs[2].Section = "2 Method"
	res, err := lib.Put(ctx, p, cs)
	if err != nil || res != store.Added {
		t.Fatalf("Put = %v, %v; want added", res, err)
	}
	got, err := lib.Get(ctx, p.ID)
	if err != nil {
		t.Fatal(err)
	}
	want := p
	want.Chunks = 3
	want.Updated = want.Updated.UTC()
	want.Published = want.Published.UTC()
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Get =\n%+v\nwant\n%+v", got, want)
	}
	if _, err := lib.Get(ctx, "nope"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("Get(nope) = %v, want ErrNotFound", err)
	}
	byHash, err := lib.FindByHash(ctx, p.ContentHash)
	if err != nil || byHash.ID != p.ID {
		t.Errorf("FindByHash = %v, %v", byHash.ID, err)
	}
	if _, err := lib.FindByHash(ctx, "nope"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("FindByHash(nope) = %v, want ErrNotFound", err)
	}

	gotChunks, err := lib.Chunks(ctx, p.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(gotChunks) != 3 || gotChunks[2].Section != "2 Method" || gotChunks[1].Text != cs[1].Text || gotChunks[0].Vector != nil || gotChunks[1].PaperID != p.ID {
		t.Errorf("Chunks = %+v", gotChunks)
	}
	withVec, err := lib.ChunksWithVectors(ctx, p.ID)
	if err != nil {
		t.Fatal(err)
	}
	for i, c := range withVec {
		if len(c.Vector) != dims {
			t.Fatalf("chunk %d vector len %d", i, len(c.Vector))
		}
		// stored normalised, same direction
		var n, d float64
		for j := range c.Vector {
			n += float64(c.Vector[j] * c.Vector[j])
			d += float64(c.Vector[j] * cs[i].Vector[j])
		}
		if n < 0.999 || n > 1.001 || d <= 0 {
			t.Errorf("chunk %d vector not the normalised input (norm² %v, dot %v)", i, n, d)
		}
	}
	if _, err := lib.Chunks(ctx, "nope"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("Chunks(nope) = %v, want ErrNotFound", err)
	}

	texts, err := lib.ChunkTexts(ctx, []string{store.ChunkID(p.ID, 2), store.ChunkID(p.ID, 0), "absent#1"})
	if err != nil {
		t.Fatal(err)
	}
	if len(texts) != 2 || texts[p.ID+"#2"].Text != "Method: GRPO." || texts[p.ID+"#0"].Text != "title and abstract" {
		t.Errorf("ChunkTexts = %+v", texts)
	}
	if _, err := lib.ChunkTexts(ctx, []string{"no-hash"}); err == nil {
		t.Error("ChunkTexts accepted a malformed id")
	}
}

func TestPutAddedUpdatedUnchanged(t *testing.T) {
	ctx := context.Background()
	lib := openTest(t, t.TempDir())
	r := rand.New(rand.NewPCG(1, 2))
	p := paper("2210.03629", "2022-10-06", []string{"cs.CL"}, []string{"Shunyu Yao"})
	cs := chunks(r, "abstract", "body one", "body two")
	put := func(p store.Paper, cs []store.Chunk, want store.PutResult) {
		t.Helper()
		got, err := lib.Put(ctx, p, cs)
		if err != nil || got != want {
			t.Fatalf("Put = %v, %v; want %v", got, err, want)
		}
	}
	put(p, cs, store.Added)
	first, _ := lib.Get(ctx, p.ID)

	// Re-ingest: same everything, AddedAt differs -> unchanged.
	again := p
	again.AddedAt = time.Now()
	put(again, cs, store.Unchanged)

	// Newer version with fewer chunks replaces the old ones.
	v3 := p
	v3.Version = 3
	v3.AddedAt = time.Now()
	put(v3, cs[:2], store.Updated)
	got, _ := lib.Get(ctx, p.ID)
	if got.Version != 3 || got.Chunks != 2 || !got.AddedAt.Equal(first.AddedAt) {
		t.Errorf("after update: version %d chunks %d added %v (first added %v)", got.Version, got.Chunks, got.AddedAt, first.AddedAt)
	}
	all, _ := lib.Chunks(ctx, p.ID)
	if len(all) != 2 {
		t.Errorf("%d chunks after update, want 2", len(all))
	}
	if papers, n, _ := lib.Count(ctx); papers != 1 || n != 2 {
		t.Errorf("Count = %d, %d; want 1, 2", papers, n)
	}
	// The replaced chunk is gone from full text search too.
	hits, err := lib.SearchText(ctx, "two", 10, store.Filter{}, store.Feedback{})
	if err != nil || len(hits) != 0 {
		t.Errorf("SearchText(two) after replace = %v, %v", hits, err)
	}
	// Metadata-only change (journal ref added without a new version).
	jr := v3
	jr.JournalRef = "ICLR 2023"
	put(jr, cs[:2], store.Updated)
	// Changed chunk text with the same version.
	cs2 := slices.Clone(cs[:2])
	cs2[1].Text = "body one, re-extracted"
	put(jr, cs2, store.Updated)
	put(jr, cs2, store.Unchanged)
}

func TestDelete(t *testing.T) {
	ctx := context.Background()
	lib := openTest(t, t.TempDir())
	r := rand.New(rand.NewPCG(1, 2))
	lib.Put(ctx, paper("a", "2025-01-01", []string{"cs.AI"}, nil), chunks(r, "alpha", "beta"))
	lib.Put(ctx, paper("b", "2025-01-02", []string{"cs.AI"}, nil), chunks(r, "gamma"))
	if _, err := lib.SearchVectors(ctx, vec(r), 10, store.Filter{}); err != nil { // load the index
		t.Fatal(err)
	}
	if err := lib.Delete(ctx, "a"); err != nil {
		t.Fatal(err)
	}
	if err := lib.Delete(ctx, "a"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("second Delete = %v, want ErrNotFound", err)
	}
	if _, err := lib.Get(ctx, "a"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("Get after Delete = %v", err)
	}
	if p, c, _ := lib.Count(ctx); p != 1 || c != 1 {
		t.Errorf("Count = %d, %d; want 1, 1", p, c)
	}
	hits, _ := lib.SearchText(ctx, "alpha beta gamma", 10, store.Filter{}, store.Feedback{})
	if len(hits) != 1 || hits[0].PaperID != "b" {
		t.Errorf("SearchText after delete = %v", hits)
	}
	vh, _ := lib.SearchVectors(ctx, vec(r), 10, store.Filter{})
	if len(vh) != 1 || vh[0].ChunkID != "b#0" {
		t.Errorf("SearchVectors after delete = %v", vh)
	}
	ps, _ := lib.List(ctx, store.Filter{Categories: []string{"cs.AI"}})
	if len(ps) != 1 {
		t.Errorf("category rows left behind: %v", ps)
	}
}

// TestDeleteAllIsAllOrNone: an id not held among several removes none; the
// others go in one transaction.
func TestDeleteAllIsAllOrNone(t *testing.T) {
	ctx := context.Background()
	lib := openTest(t, t.TempDir())
	r := rand.New(rand.NewPCG(1, 2))
	for _, id := range []string{"a", "b", "c"} {
		if _, err := lib.Put(ctx, paper(id, "2025-01-01", nil, nil), chunks(r, "text of "+id)); err != nil {
			t.Fatal(err)
		}
	}
	err := lib.DeleteAll(ctx, []string{"a", "nosuch", "b"})
	if !errors.Is(err, store.ErrNotFound) || !strings.Contains(err.Error(), "nosuch") {
		t.Fatalf("DeleteAll with an unknown id = %v, want ErrNotFound naming it", err)
	}
	if n, _, _ := lib.Count(ctx); n != 3 {
		t.Fatalf("a failed DeleteAll removed papers: %d left of 3", n)
	}
	if err := lib.DeleteAll(ctx, []string{"a", "b"}); err != nil {
		t.Fatal(err)
	}
	if ps, _ := lib.List(ctx, store.Filter{}); ids(ps) != "c" {
		t.Errorf("after DeleteAll(a, b) the library holds %s", ids(ps))
	}
}

// TestResolve: a reference names one paper, by its id or an alias, or is
// refused as ambiguous naming both candidates.
func TestFindPaper(t *testing.T) {
	ctx := context.Background()
	lib := openTest(t, t.TempDir())
	r := rand.New(rand.NewPCG(1, 2))
	rec := paper("2501.12948v1", "2025-01-01", nil, nil)
	rec.Source, rec.Version = "jsonl", 0
	for _, p := range []store.Paper{paper("2501.12948", "2025-01-01", nil, nil), rec} {
		if _, err := lib.Put(ctx, p, chunks(r, "x")); err != nil {
			t.Fatal(err)
		}
	}
	var amb *store.AmbiguousError
	if _, err := lib.FindPaper(ctx, "2501.12948v1", "2501.12948"); !errors.As(err, &amb) || !errors.Is(err, store.ErrAmbiguous) || len(amb.Candidates) != 2 {
		t.Errorf("FindPaper(2501.12948v1) = %v, want both candidates", err)
	}
	if p, err := lib.FindPaper(ctx, "arXiv:2501.12948", "2501.12948"); err != nil || p.ID != "2501.12948" {
		t.Errorf("FindPaper(arXiv:2501.12948) = %v, %v", p.ID, err)
	}
	if _, err := lib.FindPaper(ctx, "2501.99999"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("Resolve of an id not held = %v", err)
	}
}

func ids(ps []store.Paper) string {
	var s []string
	for _, p := range ps {
		s = append(s, p.ID)
	}
	return strings.Join(s, ",")
}

func TestListFilters(t *testing.T) {
	ctx := context.Background()
	lib := openTest(t, t.TempDir())
	r := rand.New(rand.NewPCG(1, 2))
	ps := []store.Paper{
		paper("a", "2024-05-01", []string{"cs.CL", "cs.AI"}, []string{"Ada Lovelace"}),
		paper("b", "2025-01-01", []string{"cs.LG"}, []string{"Alan Turing", "Grace Hopper"}),
		paper("c", "2025-01-01", []string{"astro-ph.CO"}, []string{"Vera Rubin"}),
		paper("d", "", []string{"cs.AI"}, nil),
		paper("e", "2023-03-03", []string{"stat.ML", "cs.LG"}, []string{"Grace Wahba"}),
	}
	ps[0].Tags = []store.Tag{{Name: "Reading", Source: "zotero"}}
	ps[4].Tags = []store.Tag{{Name: "reading", Source: store.TagUser}, {Name: "zotero:RL/Agents", Source: "zotero"}}
	ps[2].Tags = []store.Tag{{Name: "World Model Learning Computer-Use Agents RL for LLM Agents", Source: "corpus"}}
	ps[1].Tags = []store.Tag{{Name: "RL for LLM Agents surveys", Source: "zotero"}}
	for _, p := range ps {
		if _, err := lib.Put(ctx, p, chunks(r, "text of "+p.ID)); err != nil {
			t.Fatal(err)
		}
	}
	day := func(s string) time.Time { d, _ := time.Parse("2006-01-02", s); return d }
	for _, tc := range []struct {
		name string
		f    store.Filter
		want string
	}{
		{"all newest first, ties by id, undated last", store.Filter{}, "b,c,a,e,d"},
		{"limit", store.Filter{Limit: 2}, "b,c"},
		{"offset", store.Filter{Limit: 2, Offset: 2}, "a,e"},
		{"offset alone", store.Filter{Offset: 3}, "e,d"},
		{"ids", store.Filter{IDs: []string{"e", "a", "zz"}}, "a,e"},
		{"category exact, case-insensitive", store.Filter{Categories: []string{"CS.ai"}}, "a,d"},
		{"categories ORed", store.Filter{Categories: []string{"cs.LG", "astro-ph.CO"}}, "b,c,e"},
		{"archive", store.Filter{Categories: []string{"astro-ph"}}, "c"},
		{"archive cs", store.Filter{Categories: []string{"cs"}}, "b,a,e,d"},
		{"author substring", store.Filter{Authors: []string{"grace"}}, "b,e"},
		{"author with LIKE metachar", store.Filter{Authors: []string{"%"}}, ""},
		{"since", store.Filter{Since: day("2024-05-01")}, "b,c,a"},
		{"until inclusive", store.Filter{Until: day("2024-05-01")}, "a,e"},
		{"since and until", store.Filter{Since: day("2024-01-01"), Until: day("2024-12-31")}, "a"},
		{"kinds ANDed", store.Filter{Categories: []string{"cs.LG"}, Authors: []string{"Hopper"}}, "b"},
		{"tags of any source, case-insensitive", store.Filter{Tags: []string{"READING"}}, "a,e"},
		{"collection tag", store.Filter{Tags: []string{"zotero:rl/agents", "none"}}, "e"},
		{"tags and categories", store.Filter{Tags: []string{"reading"}, Categories: []string{"cs.CL"}}, "a"},
		{"a corpus's glued tags matched by phrase", store.Filter{Tags: []string{"rl  for LLM agents"}}, "c"},
		{"a phrase matches whole words only", store.Filter{Tags: []string{"LLM Agent", "Model Learn"}}, ""},
		{"a phrase with LIKE metachars", store.Filter{Tags: []string{"%", "_"}}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ps, err := lib.List(ctx, tc.f)
			if err != nil {
				t.Fatal(err)
			}
			if got := ids(ps); got != tc.want {
				t.Errorf("List = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestSearchText(t *testing.T) {
	ctx := context.Background()
	lib := openTest(t, t.TempDir())
	r := rand.New(rand.NewPCG(1, 2))
	a := paper("a", "2025-01-01", []string{"cs.LG"}, nil)
	a.Title = "Reinforcement learning for agents"
	lib.Put(ctx, a, chunks(r, "We train agents with policy gradients.", "Unrelated text about cooking."))
	b := paper("b", "2024-01-01", []string{"cs.CL"}, nil)
	b.Title = "Language models"
	lib.Put(ctx, b, chunks(r, "Language models are trained on text.", "Agents that reason and act: ReAct."))

	hits, err := lib.SearchText(ctx, "training agents", 10, store.Filter{}, store.Feedback{})
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) == 0 || hits[0].ChunkID != "a#0" {
		t.Fatalf("SearchText(training agents) = %+v, want a#0 first (stemmed train/trained, title match)", hits)
	}
	for i := 1; i < len(hits); i++ {
		if hits[i].Score > hits[i-1].Score {
			t.Errorf("hits not sorted by score: %+v", hits)
		}
	}
	// FTS5 syntax in user text is not interpreted.
	for _, q := range []string{`"unbalanced`, `a AND OR NOT (`, `col:agents*`, `NEAR(x y)`} {
		if _, err := lib.SearchText(ctx, q, 5, store.Filter{}, store.Feedback{}); err != nil {
			t.Errorf("SearchText(%q) = %v", q, err)
		}
	}
	if hits, _ := lib.SearchText(ctx, " ,.; ", 5, store.Filter{}, store.Feedback{}); hits != nil {
		t.Errorf("query without words gave %v", hits)
	}
	hits, _ = lib.SearchText(ctx, "agents", 10, store.Filter{Categories: []string{"cs.CL"}}, store.Feedback{})
	if len(hits) != 1 || hits[0].ChunkID != "b#1" {
		t.Errorf("filtered SearchText = %+v, want b#1", hits)
	}
	hits, _ = lib.SearchText(ctx, "agents", 1, store.Filter{}, store.Feedback{})
	if len(hits) != 1 {
		t.Errorf("k=1 gave %d hits", len(hits))
	}
}

func TestSearchVectors(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	lib := openTest(t, dir)
	// The caches of earlier versions go when the index directory comes.
	legacy := filepath.Join(dir, "vectors.f32")
	if err := os.WriteFile(legacy, []byte("PAPVEC01"), 0o600); err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(7, 8))
	type stored struct {
		id  string
		vec []float32
	}
	var all []stored
	for i := range 30 {
		p := paper(fmt.Sprintf("p%02d", i), fmt.Sprintf("2025-01-%02d", i+1), []string{[]string{"cs.AI", "cs.CL", "stat.ML"}[i%3]}, nil)
		cs := chunks(r, "x", "y", "z")
		if _, err := lib.Put(ctx, p, cs); err != nil {
			t.Fatal(err)
		}
		for _, c := range cs {
			all = append(all, stored{store.ChunkID(p.ID, c.Seq), c.Vector})
		}
	}
	q := vec(r)
	// Brute force oracle with cosine similarity.
	cos := func(a, b []float32) float64 {
		var d, na, nb float64
		for i := range a {
			d += float64(a[i] * b[i])
			na += float64(a[i] * a[i])
			nb += float64(b[i] * b[i])
		}
		return d / (math.Sqrt(na) * math.Sqrt(nb))
	}
	slices.SortFunc(all, func(a, b stored) int {
		ca, cb := cos(q, a.vec), cos(q, b.vec)
		if ca > cb {
			return -1
		}
		if ca < cb {
			return 1
		}
		return 0
	})
	hits, err := lib.SearchVectors(ctx, q, 5, store.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	for i, h := range hits {
		if h.ChunkID != all[i].id {
			t.Fatalf("hit %d = %s, want %s (hits %+v)", i, h.ChunkID, all[i].id, hits)
		}
		if d := float64(h.Score) - cos(q, all[i].vec); d > 1e-4 || d < -1e-4 {
			t.Errorf("hit %d score %v, cosine %v", i, h.Score, cos(q, all[i].vec))
		}
	}
	// The index was written; a fresh handle reads it and agrees.
	if _, err := os.Stat(filepath.Join(dir, store.IndexDir, "commit")); err != nil {
		t.Fatalf("index commit: %v", err)
	}
	if _, err := os.Stat(legacy); !os.IsNotExist(err) {
		t.Errorf("the legacy vectors.f32 is still there: %v", err)
	}
	lib2 := openTest(t, dir)
	hits2, err := lib2.SearchVectors(ctx, q, 5, store.Filter{})
	if err != nil || !reflect.DeepEqual(hits, hits2) {
		t.Errorf("second handle: %v, %v; want %v", hits2, err, hits)
	}
	// A torn segment or commit is rebuilt from the database.
	segs, _ := filepath.Glob(filepath.Join(dir, store.IndexDir, "*.seg"))
	for _, torn := range append(segs, filepath.Join(dir, store.IndexDir, "commit")) {
		b, _ := os.ReadFile(torn)
		os.WriteFile(torn, b[:len(b)-7], 0o600)
		lib3 := openTest(t, dir)
		hits3, err := lib3.SearchVectors(ctx, q, 5, store.Filter{})
		if err != nil || !reflect.DeepEqual(hits, hits3) {
			t.Errorf("torn %s: %v, %v; want %v", filepath.Base(torn), hits3, err, hits)
		}
		if err := lib3.Check(ctx); err != nil {
			t.Errorf("after the torn %s: %v", filepath.Base(torn), err)
		}
	}

	// k clamped to the number of chunks, all sorted, deterministic.
	hits, err = lib.SearchVectors(ctx, q, 1000, store.Filter{})
	if err != nil || len(hits) != 90 {
		t.Fatalf("k=1000: %d hits, %v", len(hits), err)
	}
	if hits, _ := lib.SearchVectors(ctx, q, 0, store.Filter{}); hits != nil {
		t.Errorf("k=0 gave %v", hits)
	}
	if _, err := lib.SearchVectors(ctx, q[:3], 5, store.Filter{}); err == nil {
		t.Error("query with wrong dimensions accepted")
	}

	// Filters select before ranking: k hits from the allowed papers only.
	hits, err = lib.SearchVectors(ctx, q, 7, store.Filter{Categories: []string{"cs.CL"}})
	if err != nil || len(hits) != 7 {
		t.Fatalf("filtered: %d hits, %v", len(hits), err)
	}
	for _, h := range hits {
		var n int
		fmt.Sscanf(h.PaperID, "p%d", &n)
		if n%3 != 1 {
			t.Errorf("hit %s is not in cs.CL", h.ChunkID)
		}
	}
	hits, _ = lib.SearchVectors(ctx, q, 7, store.Filter{IDs: []string{"p03"}})
	if len(hits) != 3 {
		t.Errorf("IDs filter: %v", hits)
	}
	if hits, _ := lib.SearchVectors(ctx, q, 7, store.Filter{IDs: []string{"none"}}); len(hits) != 0 {
		t.Errorf("filter matching nothing gave %v", hits)
	}

	// A Put through another handle is seen by the loaded index.
	newVec := slices.Clone(q)
	if _, err := lib2.Put(ctx, paper("new", "2026-01-01", nil, nil), []store.Chunk{{Seq: 0, Text: "q", Vector: newVec}}); err != nil {
		t.Fatal(err)
	}
	hits, _ = lib.SearchVectors(ctx, q, 1, store.Filter{})
	if len(hits) != 1 || hits[0].ChunkID != "new#0" || hits[0].Score < 0.9999 {
		t.Errorf("after Put elsewhere: %+v, want new#0 with score 1", hits)
	}
}

func TestSearchVectorsTiesByID(t *testing.T) {
	ctx := context.Background()
	lib := openTest(t, t.TempDir())
	v := []float32{1, 0, 0, 0, 0, 0, 0, 0}
	for _, id := range []string{"c", "a", "b"} {
		cs := []store.Chunk{{Seq: 0, Text: "t", Vector: v}, {Seq: 1, Text: "t", Vector: v}}
		if _, err := lib.Put(ctx, paper(id, "2025-01-01", nil, nil), cs); err != nil {
			t.Fatal(err)
		}
	}
	for range 5 {
		hits, err := lib.SearchVectors(ctx, v, 4, store.Filter{})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, h := range hits {
			got = append(got, h.ChunkID)
		}
		if want := "a#0,a#1,b#0,b#1"; strings.Join(got, ",") != want {
			t.Fatalf("ties = %v, want %s", got, want)
		}
	}
}

func TestForEachChunk(t *testing.T) {
	ctx := context.Background()
	lib := openTest(t, t.TempDir())
	r := rand.New(rand.NewPCG(1, 2))
	lib.Put(ctx, paper("b", "2025-01-01", nil, nil), chunks(r, "b0", "b1"))
	lib.Put(ctx, paper("a", "2025-01-01", nil, nil), chunks(r, "a0", "a1", "a2"))
	var got []string
	err := lib.ForEachChunk(ctx, true, func(c store.Chunk) error {
		if len(c.Vector) != dims {
			return fmt.Errorf("chunk %s#%d without vector", c.PaperID, c.Seq)
		}
		got = append(got, c.Text)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(got, ",") != "a0,a1,a2,b0,b1" {
		t.Errorf("ForEachChunk order = %v", got)
	}
	stop := errors.New("stop")
	n := 0
	err = lib.ForEachChunk(ctx, false, func(c store.Chunk) error {
		n++
		if c.Vector != nil {
			t.Errorf("vector without asking")
		}
		return stop
	})
	if !errors.Is(err, stop) || n != 1 {
		t.Errorf("ForEachChunk stop = %v after %d", err, n)
	}
}

func TestReindex(t *testing.T) {
	ctx := context.Background()
	lib := openTest(t, t.TempDir())
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 5 {
		if _, err := lib.Put(ctx, paper(fmt.Sprintf("p%d", i), "2025-01-01", nil, nil), chunks(r, "a", "b", "c")); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := lib.SearchVectors(ctx, vec(r), 3, store.Filter{}); err != nil {
		t.Fatal(err)
	}
	// A failing embedder leaves everything as it was.
	boom := errors.New("server down")
	calls := 0
	err := lib.Reindex(ctx, "new/4", 4, 4, func(ctx context.Context, cs []store.Chunk) ([][]float32, error) {
		calls++
		if calls == 3 {
			return nil, boom
		}
		out := make([][]float32, len(cs))
		for i := range out {
			out[i] = []float32{1, 0, 0, 0}
		}
		return out, nil
	}, nil, nil)
	if !errors.Is(err, boom) {
		t.Fatalf("Reindex = %v, want the embedder's error", err)
	}
	if m, _ := lib.Manifest(ctx); m.Embedder != "test/rand-8" || m.Dimensions != dims {
		t.Errorf("manifest after failed reindex: %+v", m)
	}
	if _, err := lib.SearchVectors(ctx, vec(r), 3, store.Filter{}); err != nil {
		t.Errorf("search after failed reindex: %v", err)
	}
	// A working one: every chunk gets a 4-dimension vector, seen in order.
	var seen []string
	var lastDone int
	err = lib.Reindex(ctx, "new/4", 4, 4, func(ctx context.Context, cs []store.Chunk) ([][]float32, error) {
		out := make([][]float32, len(cs))
		for i, c := range cs {
			seen = append(seen, store.ChunkID(c.PaperID, c.Seq))
			out[i] = []float32{float32(c.Seq + 1), 0, 0, 0}
			if c.PaperID == "p3" && c.Seq == 2 {
				out[i] = []float32{0, 0, 0, 2}
			}
		}
		return out, nil
	}, func(done, total int) { lastDone = done; _ = total }, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(seen) != 15 || lastDone != 15 {
		t.Errorf("embedded %d chunks, progress %d; want 15", len(seen), lastDone)
	}
	if m, _ := lib.Manifest(ctx); m.Embedder != "new/4" || m.Dimensions != 4 {
		t.Errorf("manifest after reindex: %+v", m)
	}
	hits, err := lib.SearchVectors(ctx, []float32{0, 0, 0, 1}, 1, store.Filter{})
	if err != nil || len(hits) != 1 || hits[0].ChunkID != "p3#2" || hits[0].Score < 0.9999 {
		t.Errorf("search with the new embedder: %+v, %v", hits, err)
	}
	if err := lib.EnsureEmbedder(ctx, "new/4", 4); err != nil {
		t.Error(err)
	}
	if err := lib.EnsureEmbedder(ctx, "test/rand-8", dims); !errors.Is(err, store.ErrEmbedderMismatch) {
		t.Errorf("old embedder after reindex: %v", err)
	}
	// Re-ingesting the same text with the new embedder is unchanged.
	p, cs := paper("p0", "2025-01-01", nil, nil), chunks(r, "a", "b", "c")
	for i := range cs {
		cs[i].Vector = []float32{1, 0, 0, 0}
	}
	if res, err := lib.Put(ctx, p, cs); err != nil || res != store.Unchanged {
		t.Errorf("re-ingest after reindex = %v, %v; want unchanged", res, err)
	}
	if err := lib.Check(ctx); err != nil {
		t.Error(err)
	}
}

// schema4Undo takes a library back to schema 3: the change log goes.
var schema4Undo = []string{
	"DROP TRIGGER index_log_insert", "DROP TRIGGER index_log_delete", "DROP TRIGGER index_log_update", "DROP TABLE index_log",
	"DROP INDEX papers_chunks",
}

// schema3Undo takes a library back to schema 2: what schema 3 added goes.
var schema3Undo = []string{
	"DROP TABLE paper_tags", "DROP TABLE paper_identifiers",
	"ALTER TABLE papers DROP COLUMN arxiv_id", "ALTER TABLE papers DROP COLUMN type", "ALTER TABLE papers DROP COLUMN venue",
	"ALTER TABLE papers DROP COLUMN volume", "ALTER TABLE papers DROP COLUMN issue", "ALTER TABLE papers DROP COLUMN page_range",
	"ALTER TABLE papers DROP COLUMN publisher", "ALTER TABLE papers DROP COLUMN issued", "ALTER TABLE papers DROP COLUMN meta_source",
}

// TestMigrateFromSchema1 opens a schema 1 library (with its FTS5 table) and
// checks that it becomes schema 2 with every paper and chunk kept, and that
// text search works from the new index.
func TestMigrateFromSchema1(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	lib := openTest(t, dir)
	r := rand.New(rand.NewPCG(1, 9))
	if _, err := lib.Put(ctx, paper("a", "2025-01-01", nil, nil), chunks(r, "reward models for language agents", "planning")); err != nil {
		t.Fatal(err)
	}
	lib.Close()
	db, err := sql.Open("sqlite", filepath.Join(dir, store.FileName))
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range append(append(schema4Undo, schema3Undo...), // back to what schema 1 held
		`CREATE VIRTUAL TABLE chunks_fts USING fts5 (title, text, content = '', contentless_delete = 1,
			tokenize = 'porter unicode61 remove_diacritics 2')`,
		`INSERT INTO chunks_fts (rowid, title, text) SELECT c.id, p.title, c.text FROM chunks c JOIN papers p ON p.id = c.paper_id`,
		`UPDATE manifest SET value = '1' WHERE key = 'schema'`,
		`PRAGMA user_version = 1`,
	) {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	db.Close()

	lib = openTest(t, dir)
	if err := lib.Check(ctx); err != nil {
		t.Fatal(err)
	}
	hits, err := lib.SearchText(ctx, "language agents", 5, store.Filter{}, store.Feedback{})
	if err != nil || len(hits) != 1 || hits[0].ChunkID != "a#0" {
		t.Errorf("search after migration = %+v, %v", hits, err)
	}
	lib.Close()
	db, err = sql.Open("sqlite", filepath.Join(dir, store.FileName))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var v, n, chunks int
	var schema string
	db.QueryRow("PRAGMA user_version").Scan(&v)
	db.QueryRow("SELECT count(*) FROM sqlite_master WHERE name LIKE 'chunks_fts%'").Scan(&n)
	db.QueryRow("SELECT value FROM manifest WHERE key = 'schema'").Scan(&schema)
	db.QueryRow("SELECT count(*) FROM chunks").Scan(&chunks)
	if v != store.SchemaVersion || n != 0 || schema != strconv.Itoa(store.SchemaVersion) || chunks != 2 {
		t.Errorf("after migration: user_version %d, %d FTS tables, manifest schema %q, %d chunks; want %d, 0, %q, 2",
			v, n, schema, chunks, store.SchemaVersion, strconv.Itoa(store.SchemaVersion))
	}
}

// TestPutRemovesTerminalControls: a title, author or chunk carrying escape
// sequences (from a PDF, a feed or a corpus) is stored without them, so no
// reader prints them to a terminal.
func TestPutRemovesTerminalControls(t *testing.T) {
	ctx := context.Background()
	lib := openTest(t, t.TempDir())
	r := rand.New(rand.NewPCG(1, 2))
	p := paper("evil", "2025-01-01", nil, []string{"Mallory \x1b[31m"})
	p.Title = "Evil \x1b]0;pwned\x07\x1b[31mRED \u202eTITLE"
	cs := chunks(r, "clear \x1b[2J screen", "page\fbreak")
	cs[1].Section = "2\x1b[1m Method"
	if _, err := lib.Put(ctx, p, cs); err != nil {
		t.Fatal(err)
	}
	got, err := lib.Get(ctx, "evil")
	if err != nil {
		t.Fatal(err)
	}
	stored, err := lib.Chunks(ctx, "evil")
	if err != nil {
		t.Fatal(err)
	}
	if got.Title != "Evil  ]0;pwned  [31mRED TITLE" || got.Authors[0] != "Mallory  [31m" ||
		stored[0].Text != "clear  [2J screen" || stored[1].Text != "page break" || stored[1].Section != "2 [1m Method" {
		t.Errorf("stored %q %q %q %q %q", got.Title, got.Authors, stored[0].Text, stored[1].Text, stored[1].Section)
	}
	// The same paper put again is unchanged: the fingerprint is of the
	// cleaned text.
	if res, err := lib.Put(ctx, p, cs); err != nil || res != store.Unchanged {
		t.Errorf("second Put = %v, %v; want unchanged", res, err)
	}
}

// TestPutAfterReindexElsewhere: vectors embedded with the embedder a handle
// agreed to are refused once another handle (process) reindexed the
// library, even at the same dimensions, with an error for the run, not for
// a paper; HoldEmbedder makes such a Reindex wait until released.
func TestPutAfterReindexElsewhere(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	a := openTest(t, dir)
	r := rand.New(rand.NewPCG(1, 5))
	if _, err := a.Put(ctx, paper("p1", "2025-01-01", nil, nil), chunks(r, "one")); err != nil {
		t.Fatal(err)
	}
	b := openTest(t, dir)
	release, err := a.HoldEmbedder(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	waited := make(chan struct{})
	done := make(chan error)
	go func() {
		done <- b.Reindex(ctx, "other/rand-8", dims, 8, func(ctx context.Context, cs []store.Chunk) ([][]float32, error) {
			out := make([][]float32, len(cs))
			for i := range out {
				out[i] = vec(rand.New(rand.NewPCG(9, uint64(i))))
			}
			return out, nil
		}, nil, func() { close(waited) })
	}()
	<-waited // the reindex waits for the holder
	release()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	_, err = a.Put(ctx, paper("p2", "2025-01-02", nil, nil), chunks(r, "two"))
	if !errors.Is(err, store.ErrEmbedderMismatch) || strings.Contains(err.Error(), "p2") || !strings.Contains(err.Error(), "other/rand-8") {
		t.Errorf("Put with the old embedder after a reindex = %v, want ErrEmbedderMismatch naming the new embedder, not the paper", err)
	}
	if _, err := b.Put(ctx, paper("p2", "2025-01-02", nil, nil), chunks(r, "two")); err != nil {
		t.Errorf("Put through the reindexing handle: %v", err)
	}
}
