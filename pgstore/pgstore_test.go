package pgstore

import (
	"context"
	"math"
	"testing"
	"time"

	"github.com/papers-cli/papers/embed"
	"github.com/papers-cli/papers/eval"
	"github.com/papers-cli/papers/internal/pgtest"
	"github.com/papers-cli/papers/internal/testmain"
	"github.com/papers-cli/papers/retrieve"
	"github.com/papers-cli/papers/store"
)

func TestMain(m *testing.M) { testmain.Main(m) }

const scifactDir = "../../shared/data/scifact"

// open opens a library in a schema of the test's own.
func open(t testing.TB) *Store {
	t.Helper()
	return openURL(t, pgtest.URL(t))
}

// openURL opens the library at u, closed when t ends.
func openURL(t testing.TB, u string) *Store {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	s, err := Open(ctx, u)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// sciFact reads the SciFact collection with its train judgements.
func sciFact(t testing.TB) eval.Collection {
	t.Helper()
	c, err := eval.ReadCollection(scifactDir, "train")
	if err != nil {
		t.Fatalf("the SciFact collection is needed at %s (see shared/data/README.md): %v", scifactDir, err)
	}
	return c
}

// twoLibraries stores docs, one paper each with its title+abstract chunk
// embedded by e, in an embedded library and in PostgreSQL, by the same
// batches.
func twoLibraries(t testing.TB, docs []eval.Doc, e embed.Embedder) (*store.Library, *Store) {
	t.Helper()
	ctx := context.Background()
	lib, err := store.Open(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { lib.Close() })
	pg := open(t)
	for _, l := range []interface {
		EnsureEmbedder(context.Context, string, int) error
	}{lib, pg} {
		if err := l.EnsureEmbedder(ctx, e.Name(), e.Dimensions()); err != nil {
			t.Fatal(err)
		}
	}
	texts, vecs := embedDocs(t, docs, e)
	const batch = 250
	var tEmbedded, tPG time.Duration
	for lo := 0; lo < len(docs); lo += batch {
		var items []store.Item
		var pitems []Item
		for i := lo; i < min(lo+batch, len(docs)); i++ {
			d := docs[i]
			p := store.Paper{ID: d.ID, Title: d.Title, Abstract: d.Text, Source: "jsonl"}
			cs := []store.Chunk{{PaperID: d.ID, Seq: 0, Text: texts[i], Vector: vecs[i]}}
			items = append(items, store.Item{Paper: p, Chunks: cs})
			pitems = append(pitems, Item{Paper: p, Chunks: cs})
		}
		start := time.Now()
		if _, err := lib.PutBatch(ctx, items); err != nil {
			t.Fatal(err)
		}
		tEmbedded += time.Since(start)
		start = time.Now()
		if _, err := pg.PutBatch(ctx, pitems); err != nil {
			t.Fatal(err)
		}
		tPG += time.Since(start)
	}
	t.Logf("stored %d papers: embedded %v, PostgreSQL %v", len(docs), tEmbedded, tPG)
	return lib, pg
}

// Searches in PostgreSQL agree with the embedded library's on the same
// 420 SciFact abstracts (25 claims with what they judge, and 400 others),
// stored once in both.
func TestSearchAgreesWithEmbedded(t *testing.T) {
	c := sciFact(t).Slice(25, 400)
	e := embed.NewLocal()
	lib, pg := twoLibraries(t, c.Docs, e)
	t.Run("text", func(t *testing.T) { searchTextExact(t, c, lib, pg) })
	t.Run("text with pg_textsearch", func(t *testing.T) { searchTextIndexed(t, c, lib, pg) })
	t.Run("vectors", func(t *testing.T) { searchVectors(t, c, e, lib, pg) })
}

// embedDocs returns each document's chunk text (title and abstract, as
// ingest makes it for a corpus record) and its vector.
func embedDocs(t testing.TB, docs []eval.Doc, e embed.Embedder) ([]string, [][]float32) {
	t.Helper()
	texts := make([]string, len(docs))
	for i, d := range docs {
		texts[i] = d.Title + "\n\n" + d.Text
	}
	vecs, err := e.EmbedDocuments(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	return texts, vecs
}

// Text search in PostgreSQL without pg_textsearch scores as the embedded
// library's BM25 does: the same chunks in the same order with the same
// scores, plain and with pseudo-relevance feedback, with and without a
// filter.
func searchTextExact(t *testing.T, c eval.Collection, lib *store.Library, pg0 *Store) {
	pg := *pg0
	pg.textIndex = false
	ctx := context.Background()
	ids := make([]string, 0, 200)
	for _, d := range c.Docs[:100] {
		ids = append(ids, d.ID)
	}
	checked := 0
	for _, q := range c.Queries {
		for _, tc := range []struct {
			name string
			fb   store.Feedback
			f    store.Filter
		}{
			{"plain", store.Feedback{}, store.Filter{}},
			{"feedback", retrieve.DefaultFeedback, store.Filter{}},
			{"filtered", retrieve.DefaultFeedback, store.Filter{IDs: ids}},
		} {
			want, err := lib.SearchText(ctx, q.Text, 20, tc.f, tc.fb)
			if err != nil {
				t.Fatal(err)
			}
			got, err := pg.SearchText(ctx, q.Text, 20, tc.f, tc.fb)
			if err != nil {
				t.Fatal(err)
			}
			if !sameHits(t, got, want) {
				t.Errorf("%s query %q:\n got %v\nwant %v", tc.name, q.Text, got, want)
			}
			checked++
		}
	}
	if checked == 0 {
		t.Fatal("no query was checked")
	}
}

// sameHits compares rankings: the same chunks in the same order, scores
// equal to float32 rounding; chunks whose scores tie (to that rounding)
// may come in either order.
func sameHits(t testing.TB, got, want []store.Hit) bool {
	t.Helper()
	if len(got) != len(want) {
		return false
	}
	close := func(a, b float32) bool { return math.Abs(float64(a-b)) <= 1e-5*math.Max(1, math.Abs(float64(b))) }
	for i := range want {
		if !close(got[i].Score, want[i].Score) {
			return false
		}
		if got[i].ChunkID == want[i].ChunkID {
			continue
		}
		// a tie: the other's chunk must be at a neighbouring rank with the same score
		found := false
		for j := range want {
			if want[j].ChunkID == got[i].ChunkID && close(want[j].Score, want[i].Score) {
				found = true
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// The vectors' nearest neighbours in PostgreSQL (HNSW candidates re-scored
// exactly) are the embedded library's exact ones.
func searchVectors(t *testing.T, c eval.Collection, e embed.Embedder, lib *store.Library, pg *Store) {
	ctx := context.Background()
	for _, q := range c.Queries {
		v, err := e.EmbedQuery(ctx, q.Text)
		if err != nil {
			t.Fatal(err)
		}
		want, err := lib.SearchVectors(ctx, v, 10, store.Filter{})
		if err != nil {
			t.Fatal(err)
		}
		got, err := pg.SearchVectors(ctx, v, 10, store.Filter{})
		if err != nil {
			t.Fatal(err)
		}
		if !sameHits(t, got, want) {
			t.Errorf("query %q:\n got %v\nwant %v", q.Text, got, want)
		}
	}
}

// With pg_textsearch, text search takes its candidates from its BM25
// index (Lucene's idf) and scores them exactly: the best chunks are mostly
// the embedded library's, and a filter (which takes the candidates from
// the GIN index) still yields every chunk it allows that matches.
func searchTextIndexed(t *testing.T, c eval.Collection, lib *store.Library, pg *Store) {
	if !pg.textIndex {
		t.Fatalf("the server (%s) has no pg_textsearch: PGlite's has", pg)
	}
	ctx := context.Background()
	ids := []string{c.Docs[0].ID, c.Docs[1].ID, c.Docs[2].ID}
	same, n := 0, 0
	for _, q := range c.Queries {
		want, err := lib.SearchText(ctx, q.Text, 10, store.Filter{}, retrieve.DefaultFeedback)
		if err != nil {
			t.Fatal(err)
		}
		got, err := pg.SearchText(ctx, q.Text, 10, store.Filter{}, retrieve.DefaultFeedback)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(want) {
			t.Errorf("query %q: %d hits, the embedded library %d", q.Text, len(got), len(want))
		}
		top := map[string]bool{}
		for _, h := range want {
			top[h.ChunkID] = true
		}
		for _, h := range got {
			if top[h.ChunkID] {
				same++
			}
		}
		n += len(want)
		wantF, err := lib.SearchText(ctx, q.Text, 10, store.Filter{IDs: ids}, store.Feedback{})
		if err != nil {
			t.Fatal(err)
		}
		gotF, err := pg.SearchText(ctx, q.Text, 10, store.Filter{IDs: ids}, store.Feedback{})
		if err != nil {
			t.Fatal(err)
		}
		if len(gotF) != len(wantF) {
			t.Errorf("query %q among %v: %d hits, the embedded library %d", q.Text, ids, len(gotF), len(wantF))
		}
	}
	// A filter too broad to score every chunk it selects takes the index's
	// candidates among its chunks: only theirs come back, the best mostly
	// the embedded library's.
	defer func(n int) { exactUpTo = n }(exactUpTo)
	exactUpTo = 0
	var allowed []string
	in := map[string]bool{}
	for _, d := range c.Docs[:200] {
		allowed = append(allowed, d.ID)
		in[d.ID] = true
	}
	sameF, nF := 0, 0
	for _, q := range c.Queries {
		f := store.Filter{IDs: allowed}
		want, err := lib.SearchText(ctx, q.Text, 10, f, retrieve.DefaultFeedback)
		if err != nil {
			t.Fatal(err)
		}
		got, err := pg.SearchText(ctx, q.Text, 10, f, retrieve.DefaultFeedback)
		if err != nil {
			t.Fatal(err)
		}
		top := map[string]bool{}
		for _, h := range want {
			top[h.ChunkID] = true
		}
		for _, h := range got {
			if !in[h.PaperID] {
				t.Errorf("query %q among 200 papers: %s is not one of them", q.Text, h.PaperID)
			}
			if top[h.ChunkID] {
				sameF++
			}
		}
		nF += len(want)
	}
	// measured: 1.00 (25 claims, 200 of 420 abstracts)
	if share := float64(sameF) / float64(nF); share < 0.95 {
		t.Errorf("filtered: %.2f of the embedded library's top 10 are in PostgreSQL's, want at least 0.95", share)
	} else {
		t.Logf("filtered: %.2f of the embedded library's top 10 are in PostgreSQL's", share)
	}
	// measured: 1.00 of the embedded top 10 (25 claims, 420 abstracts)
	if share := float64(same) / float64(n); share < 0.95 {
		t.Errorf("%.2f of the embedded library's top 10 are in PostgreSQL's, want at least 0.95", share)
	} else {
		t.Logf("%.2f of the embedded library's top 10 are in PostgreSQL's", share)
	}
}

// The retriever searches a library in PostgreSQL as it searches the
// embedded one.
var _ retrieve.Index = (*Store)(nil)
