package embed

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/papers-cli/papers/eval"
	"github.com/papers-cli/papers/internal/shareddata"
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

// denseNDCG embeds the corpus (title + text, as ingest's first chunk does)
// and returns the mean nDCG@10 of exact cosine search over queries.
func denseNDCG(t testing.TB, e Embedder, sf eval.Collection, queries []eval.Query) float64 {
	t.Helper()
	ctx := context.Background()
	texts := make([]string, len(sf.Docs))
	for i, d := range sf.Docs {
		texts[i] = d.Title + "\n\n" + d.Text
	}
	vecs, err := e.EmbedDocuments(ctx, texts)
	if err != nil {
		t.Fatal(err)
	}
	var sum float64
	for _, q := range queries {
		qv, err := e.EmbedQuery(ctx, q.Text)
		if err != nil {
			t.Fatal(err)
		}
		sum += eval.NDCG(top10(sf.Docs, vecs, qv), sf.Qrels[q.ID], 10)
	}
	return sum / float64(len(queries))
}

// top10 returns the ids of the 10 documents most similar to the query
// vector qv, by exact dot product, ties broken by id.
func top10(docs []eval.Doc, vecs [][]float32, qv []float32) []string {
	// A query has few features: summing only over its nonzero dimensions,
	// in order, gives the same float32 sums (a zero product adds nothing)
	// in a fraction of the reads, which the race detector makes dear.
	// The query's features live in arrays on the stack, which the race
	// detector does not watch (vectors of up to 4096 dimensions).
	var qi [4096]int32
	var qx [4096]float32
	n := 0
	for j, x := range qv[:min(len(qv), len(qi))] {
		if x != 0 {
			qi[n], qx[n] = int32(j), x
			n++
		}
	}
	type hit struct {
		i int
		s float32
	}
	better := func(a, b hit) bool { return a.s > b.s || a.s == b.s && docs[a.i].ID < docs[b.i].ID }
	var best [10]hit
	kept := 0
	for i, v := range vecs {
		var s float32
		for k := 0; k < n; k++ {
			s += v[qi[k]] * qx[k]
		}
		h := hit{i, s}
		if kept == len(best) && !better(h, best[kept-1]) {
			continue
		}
		if kept < len(best) {
			kept++
		}
		at := kept - 1
		for at > 0 && better(h, best[at-1]) {
			best[at] = best[at-1]
			at--
		}
		best[at] = h
	}
	ids := make([]string, kept)
	for i := range ids {
		ids[i] = docs[best[i].i].ID
	}
	return ids
}

// TestLocalSciFactQuality: the local embedder's nDCG@10 on SciFact train,
// on a slice in every run and on the whole split without -race (the check
// is sequential code: the race detector finds nothing in it and makes it
// tenfold dearer), each against a floor a little under what it measured.
func TestLocalSciFactQuality(t *testing.T) {
	sf := loadSciFact(t)
	for _, c := range []struct {
		name  string
		set   eval.Collection
		floor float64 // a margin under the measured value, in the comment
		whole bool
	}{
		// the first 200 queries over their judged abstracts and 1,000
		// others: measured nDCG@10 0.6561
		{"slice", sf.Slice(200, 1000), 0.63, false},
		// the whole train split (809 queries, 5,183 abstracts): measured
		// 0.5432 when the defaults were chosen (BenchmarkLocalTune)
		{"whole", sf, 0.52, true},
	} {
		if c.whole && raceEnabled && !fullTests {
			t.Logf("%s: ranked without -race only (PAPERS_FULL_TESTS=1 ranks it here too): the race detector finds nothing in it and makes it tenfold dearer", c.name)
			continue
		}
		t.Run(c.name, func(t *testing.T) {
			got := denseNDCG(t, NewLocal(), c.set, c.set.Queries)
			t.Logf("%d queries, %d abstracts: nDCG@10 = %.4f", len(c.set.Queries), len(c.set.Docs), got)
			if got < c.floor {
				t.Errorf("nDCG@10 = %.4f, want >= %.2f", got, c.floor)
			}
		})
	}
}

// BenchmarkLocalTune reports the nDCG@10 on SciFact train of the local
// embedder with each configuration it was chosen among (exact cosine over
// the 5,183 title+abstracts; 768 dimensions with character 3-5-grams won
// at its size):
//
//	go test ./embed -run '^$' -bench LocalTune -benchtime 1x
func BenchmarkLocalTune(b *testing.B) {
	sf := loadSciFact(b)
	for _, c := range []localConfig{
		{dim: 768, wordWeight: 1, charWeight: 0, minN: 3, maxN: 5},
		{dim: 768, wordWeight: 1, charWeight: 1, minN: 3, maxN: 5},
		{dim: 768, wordWeight: 1, charWeight: 0.5, minN: 3, maxN: 5},
		{dim: 384, wordWeight: 1, charWeight: 1, minN: 3, maxN: 5},
		{dim: 1536, wordWeight: 1, charWeight: 1, minN: 3, maxN: 5},
		{dim: 768, wordWeight: 1, bigrWeight: 0.3, charWeight: 1, minN: 3, maxN: 5},
	} {
		b.Run(fmt.Sprintf("dim%d-char%g-bigram%g", c.dim, c.charWeight, c.bigrWeight), func(b *testing.B) {
			var ndcg float64
			for b.Loop() {
				ndcg = denseNDCG(b, &Local{cfg: c}, sf, sf.Queries)
			}
			b.ReportMetric(ndcg, "nDCG@10")
		})
	}
}

func TestLocalIsDeterministicAndNormalised(t *testing.T) {
	ctx := context.Background()
	e := NewLocal()
	texts := []string{"Reinforcement learning agents", "Proteins fold; ", "", "the of and"}
	a, err := e.EmbedDocuments(ctx, texts)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := e.EmbedDocuments(ctx, texts)
	for i := range texts {
		if !slices.Equal(a[i], b[i]) {
			t.Errorf("text %d embedded differently twice", i)
		}
		if len(a[i]) != e.Dimensions() {
			t.Errorf("text %d: %d dims", i, len(a[i]))
		}
		var n float64
		for _, x := range a[i] {
			n += float64(x) * float64(x)
		}
		if wantZero := i >= 2; wantZero != (n == 0) || (!wantZero && (n < 0.9999 || n > 1.0001)) {
			t.Errorf("text %q: |v|^2 = %f", texts[i], n)
		}
	}
	q, _ := e.EmbedQuery(ctx, texts[0])
	if !slices.Equal(q, a[0]) {
		t.Error("a query and a document of the same text differ")
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := e.EmbedDocuments(cancelled, texts); err == nil {
		t.Error("no error on a cancelled context")
	}
}

func TestTerms(t *testing.T) {
	got := Terms("The Agents' rewards were HACKED by GRPO-style training in 2025.")
	want := []string{"agent", "reward", "hack", "grpo", "style", "train", "2025"}
	if !slices.Equal(got, want) {
		t.Errorf("Terms = %q, want %q", got, want)
	}
	if cw := ContentWords("What is the reward of GRPO?"); !slices.Equal(cw, []string{"reward", "grpo"}) {
		t.Errorf("ContentWords = %q", cw)
	}
}

func BenchmarkLocalEmbedAbstract(b *testing.B) {
	text := strings.Repeat("Alterations of the architecture of cerebral white matter in the developing human brain can affect cortical development. ", 12)
	e := NewLocal()
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		e.EmbedDocuments(ctx, []string{text})
	}
}
