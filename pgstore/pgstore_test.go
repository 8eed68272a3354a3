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

// openLib opens a library in a schema of the test's own.
func openLib(t testing.TB) (*store.Library, *engine) {
	t.Helper()
	return openURL(t, pgtest.URL(t))
}

// openURL opens the library at u, closed when t ends.
func openURL(t testing.TB, u string) (*store.Library, *engine) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	lib, e, err := open(ctx, u, t.TempDir(), true)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { lib.Close() })
	return lib, e
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
func twoLibraries(t testing.TB, docs []eval.Doc, e embed.Embedder) (*store.Library, *store.Library, *engine) {
	t.Helper()
	ctx := context.Background()
	lib, err := store.Open(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { lib.Close() })
	pg, eng := openLib(t)
	texts, vecs := embedDocs(t, docs, e)
	const batch = 250
	var took [2]time.Duration
	for i, l := range []*store.Library{lib, pg} {
		start := time.Now()
		if err := l.EnsureEmbedder(ctx, e.Name(), e.Dimensions()); err != nil {
			t.Fatal(err)
		}
		for lo := 0; lo < len(docs); lo += batch {
			var items []store.Item
			for i := lo; i < min(lo+batch, len(docs)); i++ {
				d := docs[i]
				p := store.Paper{ID: d.ID, Title: d.Title, Abstract: d.Text, Source: "jsonl"}
				items = append(items, store.Item{Paper: p, Chunks: []store.Chunk{{PaperID: d.ID, Seq: 0, Text: texts[i], Vector: vecs[i]}}})
			}
			if _, err := l.PutBatch(ctx, items); err != nil {
				t.Fatal(err)
			}
		}
		if err := l.Refresh(ctx); err != nil {
			t.Fatal(err)
		}
		took[i] = time.Since(start)
	}
	t.Logf("stored %d papers: embedded %v, PostgreSQL %v", len(docs), took[0], took[1])
	return lib, pg, eng
}

// Searches in PostgreSQL agree with the embedded library's on the same
// 420 SciFact abstracts (25 claims with what they judge, and 400 others),
// stored once in both.
func TestSearchAgreesWithEmbedded(t *testing.T) {
	c := sciFact(t).Slice(25, 400)
	e := embed.NewLocal()
	lib, pg, eng := twoLibraries(t, c.Docs, e)
	t.Run("text", func(t *testing.T) { searchTextExact(t, c, lib, pg, eng) })
	t.Run("text with pg_textsearch", func(t *testing.T) { searchTextIndexed(t, c, lib, pg, eng) })
	t.Run("vectors", func(t *testing.T) { searchVectors(t, c, e, lib, pg) })
	t.Run("vectors with HNSW", func(t *testing.T) { searchVectorsIndexed(t, c, e, lib, pg) })
	checkTextStats(t, eng)
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
func searchTextExact(t *testing.T, c eval.Collection, lib, pg *store.Library, eng *engine) {
	defer func(b bool) { eng.textIndex = b }(eng.textIndex)
	eng.textIndex = false
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

// vectorHits embeds query and returns the top 10 chunks by vector of the
// PostgreSQL library (got) and of the embedded one (want).
func vectorHits(t *testing.T, e embed.Embedder, query string, lib, pg *store.Library) (got, want []store.Hit) {
	t.Helper()
	ctx := context.Background()
	v, err := e.EmbedQuery(ctx, query)
	if err != nil {
		t.Fatal(err)
	}
	if want, err = lib.SearchVectors(ctx, v, 10, store.Filter{}); err != nil {
		t.Fatal(err)
	}
	if got, err = pg.SearchVectors(ctx, v, 10, store.Filter{}); err != nil {
		t.Fatal(err)
	}
	return got, want
}

// The vectors' nearest neighbours in PostgreSQL (HNSW candidates re-scored
// exactly) are the embedded library's exact ones.
func searchVectors(t *testing.T, c eval.Collection, e embed.Embedder, lib, pg *store.Library) {
	for _, q := range c.Queries {
		got, want := vectorHits(t, e, q.Text, lib, pg)
		if !sameHits(t, got, want) {
			t.Errorf("query %q:\n got %v\nwant %v", q.Text, got, want)
		}
	}
}

// With pg_textsearch, text search takes its candidates from its BM25
// index (Lucene's idf) and scores them exactly: the best chunks are mostly
// the embedded library's, and a filter (which takes the candidates from
// the GIN index) still yields every chunk it allows that matches.
func searchTextIndexed(t *testing.T, c eval.Collection, lib, pg *store.Library, eng *engine) {
	if !eng.textIndex {
		t.Fatalf("the server (%s) has no pg_textsearch: PGlite's has", eng)
	}
	// Every search takes the index's candidates, as in a library of more
	// than exactUpTo chunks.
	defer func(n int) { exactUpTo = n }(exactUpTo)
	exactUpTo = 0
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

// From approxFrom chunks on, the HNSW index (built by Refresh) proposes
// the candidates, which are re-scored exactly: the best are mostly the
// exact ones, with their exact scores.
func searchVectorsIndexed(t *testing.T, c eval.Collection, e embed.Embedder, lib, pg *store.Library) {
	defer func(n int64) { approxFrom = n }(approxFrom)
	approxFrom = 0
	ctx := context.Background()
	if err := pg.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	same, n := 0, 0
	for _, q := range c.Queries {
		got, want := vectorHits(t, e, q.Text, lib, pg)
		exact := map[string]float32{}
		for _, h := range want {
			exact[h.ChunkID] = h.Score
		}
		for _, h := range got {
			if s, ok := exact[h.ChunkID]; ok {
				same++
				if math.Abs(float64(s-h.Score)) > 1e-5 {
					t.Errorf("query %q: %s scored %v, exactly %v", q.Text, h.ChunkID, h.Score, s)
				}
			}
		}
		n += len(want)
	}
	// measured: 0.99 of the exact top 10 (25 claims, 420 abstracts, the
	// local embedder's 768 dimensions)
	if share := float64(same) / float64(n); share < 0.9 {
		t.Errorf("%.2f of the exact top 10 are in the HNSW candidates' top 10, want at least 0.9", share)
	} else {
		t.Logf("%.2f of the exact top 10 are in the HNSW candidates' top 10", share)
	}
}

// checkTextStats checks BM25's statistics against the chunks: no chunk
// twice, the chunk and token counts and every term's document frequency
// what the chunks' tsvectors say.
func checkTextStats(t testing.TB, e *engine) {
	t.Helper()
	var dupes, statChunks, chunks, statTokens, sumLen int64
	var badDF int
	err := e.db.QueryRowContext(context.Background(), `SELECT
	(SELECT count(*) FROM (SELECT paper_id, seq FROM chunks GROUP BY 1, 2 HAVING count(*) > 1) d),
	(SELECT chunks FROM text_stats), (SELECT count(*) FROM chunks), (SELECT tokens FROM text_stats), (SELECT coalesce(sum(len), 0) FROM chunks),
	(SELECT count(*) FROM terms t FULL JOIN (SELECT u.lexeme, count(*) AS n FROM chunks c CROSS JOIN LATERAL unnest(c.tsv) u GROUP BY 1) x
		ON x.lexeme = t.term WHERE coalesce(t.df, 0) <> coalesce(x.n, 0))`).Scan(&dupes, &statChunks, &chunks, &statTokens, &sumLen, &badDF)
	if err != nil {
		t.Fatal(err)
	}
	if dupes != 0 || statChunks != chunks || statTokens != sumLen || badDF != 0 {
		t.Errorf("%d duplicated chunks; statistics %d chunks, %d tokens for %d and %d; %d terms with a wrong document frequency",
			dupes, statChunks, statTokens, chunks, sumLen, badDF)
	}
}
