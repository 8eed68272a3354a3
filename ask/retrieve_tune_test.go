package ask

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/papers-cli/papers/embed"
	"github.com/papers-cli/papers/eval"
)

const scifactDir = "../../shared/data/scifact"

type sciFact struct {
	docs    []eval.Doc
	queries []eval.Query
	qrels   eval.Qrels
}

func loadSciFact(t testing.TB) sciFact {
	t.Helper()
	docs, err := eval.ReadCorpus(filepath.Join(scifactDir, "corpus.jsonl"))
	if err != nil {
		t.Fatalf("the SciFact corpus is needed at %s (see shared/data/README.md): %v", scifactDir, err)
	}
	qs, err := eval.ReadQueries(filepath.Join(scifactDir, "queries.jsonl"))
	if err != nil {
		t.Fatalf("SciFact queries: %v", err)
	}
	qrels, err := eval.ReadQrels(filepath.Join(scifactDir, "qrels", "train.tsv"))
	if err != nil {
		t.Fatalf("SciFact train qrels: %v", err)
	}
	return sciFact{docs, eval.Judged(qs, qrels), qrels}
}

type denseIdx struct {
	ids  []string
	vecs [][]float32
}

func (d denseIdx) search(q []float32, k int) []Scored {
	out := make([]Scored, len(d.vecs))
	for i, v := range d.vecs {
		var s float32
		for j := range v {
			s += v[j] * q[j]
		}
		out[i] = Scored{d.ids[i], float64(s)}
	}
	sortScored(out)
	return out[:min(k, len(out))]
}

func ids(s []Scored) []string {
	out := make([]string, len(s))
	for i := range s {
		out[i] = s[i].ID
	}
	return out
}

func TestTune(t *testing.T) {
	if os.Getenv("TUNE") == "" {
		return
	}
	sf := loadSciFact(t)
	ctx := context.Background()
	var lex []LexDoc
	var texts []string
	d := denseIdx{}
	for _, doc := range sf.docs {
		lex = append(lex, LexDoc{ID: doc.ID, Title: doc.Title, Text: doc.Title + "\n\n" + doc.Text})
		texts = append(texts, doc.Title+"\n\n"+doc.Text)
		d.ids = append(d.ids, doc.ID)
	}
	e := embed.NewLocal()
	d.vecs, _ = e.EmbedDocuments(ctx, texts)
	type run struct {
		bm, dn []Scored
		q      eval.Query
	}
	for _, p := range []BM25Params{
		{K1: 1.2, B: 0.75, BTitle: 0.5, TitleWeight: 0},
		{K1: 1.2, B: 0.75, BTitle: 0.5, TitleWeight: 1},
		{K1: 1.2, B: 0.75, BTitle: 0.5, TitleWeight: 2},
		{K1: 0.9, B: 0.4, BTitle: 0.5, TitleWeight: 1},
		{K1: 1.2, B: 0.75, BTitle: 0.5, TitleWeight: 3},
	} {
		x := NewLexIndex(lex, p)
		var runs []run
		for _, q := range sf.queries {
			qv, _ := e.EmbedQuery(ctx, q.Text)
			runs = append(runs, run{x.Search(q.Text, 1000, nil), d.search(qv, 1000), q})
		}
		score := func(name string, f func(r run) []Scored) {
			var a eval.Accumulator
			for _, r := range runs {
				a.Add(ids(f(r)), sf.qrels[r.q.ID], 0)
			}
			rep := a.Report()
			t.Logf("%+v %s: ndcg %.4f r@100 %.4f", p, name, rep.NDCG10, rep.Recall100)
		}
		score("bm25", func(r run) []Scored { return r.bm })
		score("dense", func(r run) []Scored { return r.dn })
		for _, w := range []float64{0.3, 0.5, 0.7} {
			score("rrf60 w="+ftoa(w), func(r run) []Scored { return FuseRRF([][]Scored{r.bm, r.dn}, []float64{1, w}, 60) })
			score("score100 w="+ftoa(w), func(r run) []Scored { return FuseScores([][]Scored{r.bm[:min(100, len(r.bm))], r.dn[:100]}, []float64{1, w}) })
		}
	}
}

func ftoa(f float64) string { return string(rune('0'+int(f*10))) }
