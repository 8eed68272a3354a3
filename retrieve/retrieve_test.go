package retrieve

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/papers-cli/papers/embed"
	"github.com/papers-cli/papers/eval"
	"github.com/papers-cli/papers/internal/shareddata"
	"github.com/papers-cli/papers/internal/testmain"
	"github.com/papers-cli/papers/store"
)

// loadSciFact reads the SciFact collection with its train judgements.
func loadSciFact(t testing.TB) eval.Collection {
	t.Helper()
	c, err := eval.ReadCollection(shareddata.Path(t, "scifact"), "train")
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// sciFactLibrary stores docs in a real library in a temp dir, one paper per
// document with its title+abstract chunk, embedded by e.
func sciFactLibrary(t testing.TB, docs []eval.Doc, e embed.Embedder) *store.Library {
	t.Helper()
	ctx := context.Background()
	lib, err := store.Open(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { lib.Close() })
	if err := lib.EnsureEmbedder(ctx, e.Name(), e.Dimensions()); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	texts := make([]string, len(docs))
	for i, d := range docs {
		texts[i] = d.Title + "\n\n" + d.Text
	}
	vecs, err := e.EmbedDocuments(ctx, texts)
	if err != nil {
		t.Fatal(err)
	}
	// in batches, as ingest --jsonl stores them: one transaction a paper
	// was a third of the CPU of TestRetrieveSciFactSubset under -race
	const batch = 250
	for lo := 0; lo < len(docs); lo += batch {
		items := make([]store.Item, 0, batch)
		for i := lo; i < min(lo+batch, len(docs)); i++ {
			d := docs[i]
			items = append(items, store.Item{
				Paper:  store.Paper{ID: d.ID, Title: d.Title, Abstract: d.Text, Source: "jsonl"},
				Chunks: []store.Chunk{{PaperID: d.ID, Seq: 0, Text: texts[i], Vector: vecs[i]}},
			})
		}
		if _, err := lib.PutBatch(ctx, items); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("stored %d papers in %v", len(docs), time.Since(start))
	return lib
}

// paperRanking runs Retrieve for evaluation: one passage per paper, 100.
func paperRanking(r *Retriever, mode Mode) eval.SearchFunc {
	return func(ctx context.Context, q string) ([]string, error) {
		ps, err := r.Retrieve(ctx, q, Options{K: 100, Mode: mode, PerPaper: 1})
		if err != nil {
			return nil, err
		}
		ids := make([]string, len(ps))
		for i, p := range ps {
			ids[i] = p.PaperID
		}
		return ids, nil
	}
}

// smallLibrary holds four papers with metadata for filter tests; p1 has
// three chunks that all match "reward".
func smallLibrary(t *testing.T) (*store.Library, embed.Embedder) {
	t.Helper()
	ctx := context.Background()
	e := embed.NewLocal()
	lib, err := store.Open(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { lib.Close() })
	if err := lib.EnsureEmbedder(ctx, e.Name(), e.Dimensions()); err != nil {
		t.Fatal(err)
	}
	day := func(s string) time.Time { d, _ := time.Parse("2006-01-02", s); return d }
	papers := []struct {
		p      store.Paper
		chunks []string
	}{
		{store.Paper{ID: "p1", Version: 2, Title: "Reward models for agents", Authors: []string{"Ada Lovelace"}, Categories: []string{"cs.LG"}, Published: day("2025-03-01")},
			[]string{"Reward models for agents\n\nWe train reward models.", "The reward model scores rollouts.", "Reward hacking appears when the reward is misspecified."}},
		{store.Paper{ID: "p2", Version: 1, Title: "Process supervision", Authors: []string{"Alan Turing"}, Categories: []string{"cs.CL"}, Published: day("2024-06-01")},
			[]string{"Process supervision\n\nStep-level reward beats outcome reward for math."}},
		{store.Paper{ID: "p3", Title: "Protein folding", Authors: []string{"Rosalind Franklin"}, Categories: []string{"q-bio.BM"}, Published: day("2023-01-01")},
			[]string{"Protein folding\n\nStructures of proteins predicted from sequence."}},
		{store.Paper{ID: "p4", Title: "Reward shaping", Authors: []string{"Ada Byron"}, Categories: []string{"cs.AI"}, Published: day("2025-09-01")},
			[]string{"Reward shaping\n\nPotential-based reward shaping keeps optimal policies."}},
	}
	for _, pp := range papers {
		vecs, _ := e.EmbedDocuments(ctx, pp.chunks)
		var cs []store.Chunk
		for i, text := range pp.chunks {
			c := store.Chunk{PaperID: pp.p.ID, Seq: i, Text: text, Vector: vecs[i]}
			if i > 0 {
				c.PageStart, c.PageEnd, c.Section = i+1, i+2, "Method"
			}
			cs = append(cs, c)
		}
		if _, err := lib.Put(ctx, pp.p, cs); err != nil {
			t.Fatal(err)
		}
	}
	return lib, e
}

func paperIDs(ps []Passage) []string {
	var ids []string
	for _, p := range ps {
		ids = append(ids, p.ChunkID)
	}
	return ids
}

func TestRetrieve(t *testing.T) {
	lib, e := smallLibrary(t)
	r := &Retriever{Index: lib, Embedder: e}
	ctx := context.Background()
	day := func(s string) time.Time { d, _ := time.Parse("2006-01-02", s); return d }
	tests := []struct {
		name string
		q    string
		opt  Options
		want func(t *testing.T, ps []Passage)
	}{
		{"per-paper limit", "reward", Options{PerPaper: 1}, func(t *testing.T, ps []Passage) {
			seen := map[string]bool{}
			for _, p := range ps {
				if seen[p.PaperID] {
					t.Errorf("two passages of %s: %v", p.PaperID, paperIDs(ps))
				}
				seen[p.PaperID] = true
			}
			if len(ps) != 3 {
				t.Errorf("%v, want p1, p2, p4 once each", paperIDs(ps))
			}
		}},
		{"no per-paper limit", "reward", Options{PerPaper: -1, Mode: BM25}, func(t *testing.T, ps []Passage) {
			n := 0
			for _, p := range ps {
				if p.PaperID == "p1" {
					n++
				}
			}
			if n != 3 {
				t.Errorf("%d chunks of p1, want 3: %v", n, paperIDs(ps))
			}
		}},
		{"K", "reward", Options{K: 2}, func(t *testing.T, ps []Passage) {
			if len(ps) != 2 || ps[0].Rank != 1 || ps[1].Rank != 2 || ps[0].Score < ps[1].Score {
				t.Errorf("%+v", ps)
			}
		}},
		{"category", "reward", Options{Filter: store.Filter{Categories: []string{"cs.CL"}}}, func(t *testing.T, ps []Passage) {
			if len(ps) != 1 || ps[0].PaperID != "p2" {
				t.Errorf("%v, want p2 only", paperIDs(ps))
			}
		}},
		{"since and author", "reward", Options{Filter: store.Filter{Since: day("2025-01-01"), Authors: []string{"ada"}}}, func(t *testing.T, ps []Passage) {
			for _, p := range ps {
				if p.PaperID != "p1" && p.PaperID != "p4" {
					t.Errorf("%v, want p1 and p4 only", paperIDs(ps))
				}
			}
		}},
		{"paper ids", "reward", Options{Filter: store.Filter{IDs: []string{"p4"}}}, func(t *testing.T, ps []Passage) {
			if len(ps) != 1 || ps[0].PaperID != "p4" {
				t.Errorf("%v", paperIDs(ps))
			}
		}},
		{"hydrated", "reward hacking misspecified", Options{K: 1}, func(t *testing.T, ps []Passage) {
			if len(ps) != 1 {
				t.Fatalf("%v", paperIDs(ps))
			}
			p := ps[0]
			if p.ChunkID != "p1#2" || p.Seq != 2 || p.Pages() != "3-4" || p.Section != "Method" || p.Paper.Title != "Reward models for agents" || p.Paper.Version != 2 || !strings.Contains(p.Text, "hacking") {
				t.Errorf("%+v", p)
			}
		}},
		{"stop words only", "the of and", Options{}, func(t *testing.T, ps []Passage) {
			if len(ps) != 0 {
				t.Errorf("%v, want nothing", paperIDs(ps))
			}
		}},
		{"no shared words", "zzxqj", Options{}, func(t *testing.T, ps []Passage) {
			if len(ps) != 0 {
				t.Errorf("%v, want nothing", paperIDs(ps))
			}
		}},
		{"dense alone", "protein structures", Options{Mode: Dense, K: 1}, func(t *testing.T, ps []Passage) {
			if len(ps) != 1 || ps[0].PaperID != "p3" {
				t.Errorf("%v", paperIDs(ps))
			}
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ps, err := r.Retrieve(ctx, tc.q, tc.opt)
			if err != nil {
				t.Fatal(err)
			}
			tc.want(t, ps)
		})
	}
}

func TestRetrieveBM25NeedsNoEmbedder(t *testing.T) {
	lib, _ := smallLibrary(t)
	r := &Retriever{Index: lib}
	ps, err := r.Retrieve(context.Background(), "protein", Options{Mode: BM25})
	if err != nil || len(ps) != 1 {
		t.Fatalf("%v %v", paperIDs(ps), err)
	}
	if _, err := r.Retrieve(context.Background(), "protein", Options{}); err == nil {
		t.Error("hybrid without an embedder did not fail")
	}
}

func TestFusionTiesAreDeterministic(t *testing.T) {
	a := []Scored{{"b#0", 1}, {"a#0", 1}, {"c#0", 0.5}}
	b := []Scored{{"c#0", 1}, {"a#0", 1}, {"b#0", 1}}
	for i := 0; i < 20; i++ {
		got := FuseScores([][]Scored{a, b}, []float64{1, 1})
		if strings.Join(scoredIDs(got), " ") != "a#0 b#0 c#0" {
			t.Fatalf("FuseScores order %v", scoredIDs(got))
		}
		got = FuseRRF([][]Scored{{{"b#0", 2}}, {{"a#0", 9}}}, []float64{1, 1}, 60)
		if strings.Join(scoredIDs(got), " ") != "a#0 b#0" {
			t.Fatalf("FuseRRF order %v", scoredIDs(got))
		}
	}
	d := diversify([]Scored{{"x#0", 3}, {"x#1", 2}, {"y#0", 1}, {"x#2", 0.5}}, 3, 1)
	if strings.Join(scoredIDs(d), " ") != "x#0 y#0" {
		t.Errorf("diversify %v", scoredIDs(d))
	}
}

func scoredIDs(s []Scored) []string {
	var out []string
	for _, x := range s {
		out = append(out, x.ID)
	}
	return out
}

// TestRetrieveSciFactSubset checks the ranking quality of each mode on
// slices of SciFact train: queries over their relevant abstracts plus
// others (the full split is measured by papers eval, see BENCHMARKS.md).
// Ranking is sequential code in which the race detector finds nothing and
// costs tenfold, so under it only the smaller slice is ranked unless
// PAPERS_FULL_TESTS=1; without it both are, each against its own floors.
func TestRetrieveSciFactSubset(t *testing.T) {
	sf := loadSciFact(t)
	for _, c := range []struct {
		queries, others int
		big             bool
		// floors: hybrid and dense nDCG@10, hybrid Recall@100
		hybrid, dense, recall float64
	}{
		// Measured on these 100 queries: hybrid 0.7669, bm25 0.7656, dense
		// 0.6431, hybrid Recall@100 0.96 (on the first 200: 0.8109, 0.8105,
		// 0.6561, 0.965, when the floors were 0.78, 0.62 and 0.93).
		{queries: 100, others: 1000, big: true, hybrid: 0.74, dense: 0.61, recall: 0.93},
		// Measured on the first 50 over 500 others: hybrid 0.7942, bm25
		// 0.7942, dense 0.6101, hybrid Recall@100 0.98.
		{queries: 50, others: 500, hybrid: 0.77, dense: 0.58, recall: 0.95},
	} {
		name := fmt.Sprintf("%d queries, %d others", c.queries, c.others)
		if c.big && raceEnabled && !fullTests {
			t.Logf("%s: not under -race (PAPERS_FULL_TESTS=1 ranks it too)", name)
			continue
		}
		t.Run(name, func(t *testing.T) {
			sl := sf.Slice(c.queries, c.others)
			e := embed.NewLocal()
			lib := sciFactLibrary(t, sl.Docs, e)
			r := &Retriever{Index: lib, Embedder: e}
			got := map[Mode]eval.Report{}
			for _, m := range []Mode{BM25, Dense, Hybrid} {
				rep, err := eval.Run(context.Background(), paperRanking(r, m), sl.Queries, sf.Qrels, nil)
				if err != nil {
					t.Fatal(err)
				}
				t.Logf("%-6s %+v", m, rep)
				got[m] = rep
			}
			// The local embedder is lexical too, so fusion moves little: on
			// the full train split it adds +0.003 nDCG@10; on a slice it may
			// cost as much. Guard against a fusion that hurts.
			if got[Hybrid].NDCG10 < got[BM25].NDCG10-0.01 || got[Hybrid].NDCG10 < c.hybrid || got[Dense].NDCG10 < c.dense {
				t.Errorf("nDCG@10 hybrid %.4f, bm25 %.4f, dense %.4f: want hybrid >= bm25-0.01, hybrid >= %.2f, dense >= %.2f",
					got[Hybrid].NDCG10, got[BM25].NDCG10, got[Dense].NDCG10, c.hybrid, c.dense)
			}
			if got[Hybrid].Recall100 < c.recall {
				t.Errorf("Recall@100 hybrid %.4f, want >= %.2f", got[Hybrid].Recall100, c.recall)
			}
		})
	}
}

// TestHybridHasNoNoiseTail: "protein" is in one paper only; the hybrid
// ranking must not pad the result with passages that share no word with
// the query and whose vectors are only as close as unrelated texts are.
// A query that matches no word of the library finds nothing, in every
// mode, however close its hashed vector falls to a short chunk by chance
// (issue 12: "xyzzyplugh" came back at score 0.02, exit 0); a misspelt word
// still finds its chunks through their character n-grams (dense mode: in
// hybrid such a weak similarity is under the noise floor).
func TestNoWordNoMatch(t *testing.T) {
	lib, e := smallLibrary(t)
	r := &Retriever{Index: lib, Embedder: e}
	for _, m := range []Mode{Hybrid, Dense, BM25} {
		ps, err := r.Retrieve(t.Context(), "xyzzyplugh", Options{K: 10, Mode: m})
		if err != nil {
			t.Fatal(err)
		}
		if len(ps) > 0 {
			t.Errorf("%s: xyzzyplugh found %v", m, paperIDs(ps))
		}
	}
	ps, err := r.Retrieve(t.Context(), "protien foldng", Options{K: 10, Mode: Dense})
	if err != nil {
		t.Fatal(err)
	}
	if got := paperIDs(ps); len(got) == 0 || got[0] != "p3#0" {
		t.Errorf("dense: protien foldng found %v, want p3 first", got)
	}
}

func TestHybridHasNoNoiseTail(t *testing.T) {
	lib, e := smallLibrary(t)
	r := &Retriever{Index: lib, Embedder: e}
	ps, err := r.Retrieve(t.Context(), "protein", Options{K: 10, Mode: Hybrid})
	if err != nil {
		t.Fatal(err)
	}
	if got := paperIDs(ps); len(got) != 1 || got[0] != "p3#0" {
		t.Errorf("hybrid search for protein: %v, want only p3", got)
	}
}

// fullTests (PAPERS_FULL_TESTS=1) makes the race detector's run check the
// whole data of the tests that check a slice of it under -race.
var fullTests = testmain.Full

// TestDenseHitsGrowWithK: dense search's hits for k are the first k of its
// hits for any larger k, so a larger k never finds less. It kept only the
// chunks among the 3k nearest that share a word (or character 5-gram)
// with the query: "-k 1" printed nothing where "-k 10" found 7. Checked
// on SciFact claims, as written and badly misspelt (letters swapped, or
// every fourth one an x: the nearest vectors then often share no word or
// 5-gram with the query: the old filter broke this for 76 of these 300
// queries). Under the race detector it checks the first 10 claims among 300
// other abstracts, unless PAPERS_FULL_TESTS=1.
func TestDenseHitsGrowWithK(t *testing.T) {
	sf := loadSciFact(t)
	claims, others := 100, 1000
	if raceEnabled && !fullTests {
		claims, others = 10, 300
	}
	sl := sf.Slice(claims, others)
	e := embed.NewLocal()
	r := &Retriever{Index: sciFactLibrary(t, sl.Docs, e), Embedder: e}
	var queries []string
	for _, q := range sl.Queries {
		var swapped, xed []string
		for _, w := range strings.Fields(q.Text) {
			s, x := []byte(w), []byte(w)
			for i := 1; i+1 < len(s); i += 3 {
				s[i], s[i+1] = s[i+1], s[i]
			}
			for i := 2; i < len(x); i += 4 {
				x[i] = 'x'
			}
			swapped, xed = append(swapped, string(s)), append(xed, string(x))
		}
		queries = append(queries, q.Text, strings.Join(swapped, " "), strings.Join(xed, " "))
	}
	for _, q := range queries {
		var prev []string
		prevK := 0
		for _, k := range []int{1, 3, 10} {
			ps, err := r.Retrieve(t.Context(), q, Options{K: k, Mode: Dense})
			if err != nil {
				t.Fatal(err)
			}
			got := paperIDs(ps)
			if want := got[:min(prevK, len(got))]; strings.Join(prev, " ") != strings.Join(want, " ") {
				t.Errorf("%q: k=%d found %v, k=%d %v: want the first %d of those", q, prevK, prev, k, got, len(want))
				break
			}
			prev, prevK = got, k
		}
	}
}
