package embed

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"testing"

	"github.com/papers-cli/papers/eval"
)

// scifactDir is the SciFact collection shared by the project's tests.
const scifactDir = "../../shared/data/scifact"

type scifact struct {
	docs    []eval.Doc
	queries []eval.Query
	qrels   eval.Qrels
}

func loadSciFact(t testing.TB) scifact {
	t.Helper()
	docs, err := eval.ReadCorpus(filepath.Join(scifactDir, "corpus.jsonl"))
	if err != nil {
		t.Fatalf("the SciFact corpus is needed at %s (see shared/data/README): %v", scifactDir, err)
	}
	qs, err := eval.ReadQueries(filepath.Join(scifactDir, "queries.jsonl"))
	if err != nil {
		t.Fatalf("SciFact queries: %v", err)
	}
	qrels, err := eval.ReadQrels(filepath.Join(scifactDir, "qrels", "train.tsv"))
	if err != nil {
		t.Fatalf("SciFact train qrels: %v", err)
	}
	return scifact{docs, eval.Judged(qs, qrels), qrels}
}

// denseNDCG embeds the corpus (title + text, as ingest's first chunk does)
// and returns the mean nDCG@10 of exact cosine search over queries.
func denseNDCG(t testing.TB, e Embedder, sf scifact, queries []eval.Query) float64 {
	t.Helper()
	ctx := context.Background()
	texts := make([]string, len(sf.docs))
	for i, d := range sf.docs {
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
		type hit struct {
			id string
			s  float32
		}
		hits := make([]hit, len(vecs))
		for i, v := range vecs {
			var s float32
			for j := range v {
				s += v[j] * qv[j]
			}
			hits[i] = hit{sf.docs[i].ID, s}
		}
		sort.Slice(hits, func(a, b int) bool {
			if hits[a].s != hits[b].s {
				return hits[a].s > hits[b].s
			}
			return hits[a].id < hits[b].id
		})
		ids := make([]string, 10)
		for i := range ids {
			ids[i] = hits[i].id
		}
		sum += eval.NDCG(ids, sf.qrels[q.ID], 10)
	}
	return sum / float64(len(queries))
}

func TestLocalSciFactQuality(t *testing.T) {
	sf := loadSciFact(t)
	got := denseNDCG(t, NewLocal(), sf, sf.queries)
	t.Logf("local embedder alone, SciFact train (%d queries): nDCG@10 = %.4f", len(sf.queries), got)
	if got < 0.50 {
		t.Errorf("nDCG@10 = %.4f, want >= 0.50", got)
	}
}

func TestLocalTune(t *testing.T) {
	if os.Getenv("TUNE") == "" {
		return
	}
	sf := loadSciFact(t)
	for _, c := range []localConfig{
		{dim: 768, wordWeight: 1, charWeight: 0, minN: 3, maxN: 5},
		{dim: 768, wordWeight: 1, charWeight: 1, minN: 3, maxN: 5},
		{dim: 768, wordWeight: 1, charWeight: 0.5, minN: 3, maxN: 5},
		{dim: 384, wordWeight: 1, charWeight: 1, minN: 3, maxN: 5},
		{dim: 1536, wordWeight: 1, charWeight: 1, minN: 3, maxN: 5},
		{dim: 768, wordWeight: 1, bigrWeight: 0.3, charWeight: 1, minN: 3, maxN: 5},
	} {
		t.Logf("%+v: %.4f", c, denseNDCG(t, &Local{cfg: c}, sf, sf.queries))
	}
	_ = slices.Max[[]int]
}
