// Command bleveproto is the prototype that store's choice of search engine
// was measured against (BENCHMARKS.md, "Incremental search index"): the
// lexical half of the index in bleve v2 (scorch segments, its BM25), over
// the same chunks, tokens and queries as store's own index, so that both
// run the same benchmarks. It is a separate module so that bleve never
// becomes a dependency of papers. bleve's vector search needs cgo (FAISS),
// so the dense half stays store's in every mode here.
//
//	bleveproto build  -lib DIR -out IDX            index a library's chunks
//	bleveproto eval   -lib DIR -idx IDX -queries Q -qrels R [-mode bm25|hybrid] [-no-feedback]
//	bleveproto search -idx IDX -runs N [-q TEXT] [-no-feedback]   time N queries in one process
//	bleveproto put    -idx IDX                     index one new chunk
//	bleveproto rm     -idx IDX -id CHUNK           delete one chunk
//
// Tokens are store/fts's (FTS5's porter tokenizer), given to bleve already
// stemmed through a whitespace analyzer, with a chunk's title tokens twice
// (fts.HeadWeight); feedback (RM3-like, as store.Feedback) reads each
// chunk's tokens from a stored field.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"math"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis/analyzer/custom"
	"github.com/blevesearch/bleve/v2/analysis/tokenizer/whitespace"
	"github.com/blevesearch/bleve/v2/mapping"
	"github.com/blevesearch/bleve/v2/search/query"
	index "github.com/blevesearch/bleve_index_api"

	"github.com/papers-cli/papers/embed"
	"github.com/papers-cli/papers/eval"
	"github.com/papers-cli/papers/retrieve"
	"github.com/papers-cli/papers/store"
	"github.com/papers-cli/papers/store/fts"
)

func main() {
	if len(os.Args) < 2 {
		fail(errors.New("usage: bleveproto build|eval|search|put|rm [flags]"))
	}
	fs := flag.NewFlagSet(os.Args[1], flag.ExitOnError)
	lib := fs.String("lib", "", "papers library directory")
	out := fs.String("out", "", "bleve index to create")
	idxPath := fs.String("idx", "", "bleve index")
	queries := fs.String("queries", "", "BEIR queries.jsonl")
	qrels := fs.String("qrels", "", "BEIR qrels .tsv")
	mode := fs.String("mode", "hybrid", "bm25 or hybrid")
	noFB := fs.Bool("no-feedback", false, "plain BM25")
	runs := fs.Int("runs", 20, "queries to time")
	q := fs.String("q", "reinforcement learning agent reward planning", "query")
	id := fs.String("id", "", "chunk id")
	batch := fs.Int("batch", 1000, "documents per bleve batch")
	fs.Parse(os.Args[2:])
	ctx := context.Background()
	var err error
	switch os.Args[1] {
	case "build":
		err = build(ctx, *lib, *out, *batch)
	case "eval":
		err = runEval(ctx, *lib, *idxPath, *queries, *qrels, retrieve.Mode(*mode), *noFB)
	case "search":
		err = timeSearch(*idxPath, *q, *runs, *noFB)
	case "put":
		err = put(*idxPath)
	case "rm":
		err = rm(*idxPath, *id)
	default:
		err = fmt.Errorf("unknown command %q", os.Args[1])
	}
	if err != nil {
		fail(err)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "bleveproto:", err)
	os.Exit(1)
}

// newMapping indexes field "text" (stemmed tokens, whitespace-separated)
// with BM25 and stores field "t" (the same tokens, for feedback) unindexed.
func newMapping() (*mapping.IndexMappingImpl, error) {
	im := bleve.NewIndexMapping()
	if err := im.AddCustomAnalyzer("pre", map[string]any{
		"type": custom.Name, "tokenizer": whitespace.Name, "token_filters": []any{},
	}); err != nil {
		return nil, err
	}
	im.ScoringModel = index.BM25Scoring
	im.DefaultAnalyzer = "pre"
	dm := bleve.NewDocumentStaticMapping()
	text := bleve.NewTextFieldMapping()
	text.Analyzer, text.Store, text.IncludeInAll, text.IncludeTermVectors, text.DocValues = "pre", false, false, false, false
	dm.AddFieldMappingsAt("text", text)
	stored := bleve.NewTextFieldMapping()
	stored.Index, stored.Store, stored.IncludeInAll, stored.IncludeTermVectors, stored.DocValues = false, true, false, false, false
	dm.AddFieldMappingsAt("t", stored)
	im.DefaultMapping = dm
	return im, nil
}

// doc is what bleve indexes of a chunk: its terms (title ones twice, as
// fts weighs a head) and its length as fts counts it.
func doc(title, body string) map[string]any {
	var toks []string
	for range fts.HeadWeight {
		for t := range fts.Terms(title) {
			toks = append(toks, string(t))
		}
	}
	for t := range fts.Terms(body) {
		toks = append(toks, string(t))
	}
	s := strings.Join(toks, " ")
	return map[string]any{"text": s, "t": fmt.Sprintf("%d %s", fts.Length(title, body), s)}
}

func build(ctx context.Context, libDir, out string, batchSize int) error {
	lib, err := store.Open(ctx, libDir)
	if err != nil {
		return err
	}
	defer lib.Close()
	ps, err := lib.List(ctx, store.Filter{Brief: true})
	if err != nil {
		return err
	}
	titles := make(map[string]string, len(ps))
	for _, p := range ps {
		titles[p.ID] = p.Title
	}
	ps = nil
	m, err := newMapping()
	if err != nil {
		return err
	}
	idx, err := bleve.New(out, m)
	if err != nil {
		return err
	}
	start := time.Now()
	b := idx.NewBatch()
	n := 0
	err = lib.ForEachChunk(ctx, false, func(c store.Chunk) error {
		if err := b.Index(store.ChunkID(c.PaperID, c.Seq), doc(titles[c.PaperID], c.Text)); err != nil {
			return err
		}
		if n++; b.Size() >= batchSize {
			if err := idx.Batch(b); err != nil {
				return err
			}
			b = idx.NewBatch()
		}
		if n%100000 == 0 {
			fmt.Fprintf(os.Stderr, "bleveproto: %d chunks in %s\n", n, time.Since(start).Round(time.Second))
		}
		return nil
	})
	if err == nil {
		err = idx.Batch(b)
	}
	if cerr := idx.Close(); err == nil {
		err = cerr
	}
	return report(map[string]any{"op": "build", "chunks": n, "s": time.Since(start).Seconds()})
}

func report(v map[string]any) error {
	return json.NewEncoder(os.Stdout).Encode(v)
}

// bleveIndex is retrieve.Index with the lexical half in bleve.
type bleveIndex struct {
	*store.Library
	idx    bleve.Index
	reader index.IndexReader
	live   float64
}

var _ retrieve.Index = (*bleveIndex)(nil)

func openBleve(path string) (bleve.Index, index.IndexReader, error) {
	idx, err := bleve.Open(path)
	if err != nil {
		return nil, nil, err
	}
	adv, err := idx.Advanced()
	if err != nil {
		return nil, nil, err
	}
	r, err := adv.Reader()
	if err != nil {
		return nil, nil, err
	}
	return idx, r, nil
}

// SearchText ranks with bleve's BM25, with store.Feedback's feedback.
func (b *bleveIndex) SearchText(ctx context.Context, text string, k int, f store.Filter, fb store.Feedback) ([]store.Hit, error) {
	terms := fts.QueryTerms(text)
	if len(terms) == 0 || k <= 0 {
		return nil, nil
	}
	hits, stored, err := b.query(ctx, terms, nil, max(k, fb.Docs), fb.Docs > 0)
	if err != nil || fb.Docs <= 0 || len(hits) == 0 {
		return hits[:min(k, len(hits))], err
	}
	nd := min(fb.Docs, len(hits))
	weights := make([]float64, nd)
	var z float64
	for i := range weights {
		weights[i] = math.Exp(float64(hits[i].Score - hits[0].Score))
		z += weights[i]
	}
	skip := map[string]bool{}
	for _, t := range terms {
		skip[t] = true
	}
	share := map[string]float64{}
	for i := range nd {
		toks := strings.Fields(stored[i])
		if len(toks) == 0 {
			continue
		}
		var l float64
		fmt.Sscan(toks[0], &l)
		for _, t := range toks[1:] {
			if !skip[t] {
				share[t] += weights[i] / z / max(l, 1)
			}
		}
	}
	type cand struct {
		t string
		w float64
	}
	var cands []cand
	for t, w := range share {
		if idf, err := b.idf(t); err != nil {
			return nil, err
		} else if idf >= fb.MinIDF {
			cands = append(cands, cand{t, w * idf})
		}
	}
	slices.SortFunc(cands, func(a, c cand) int {
		if a.w != c.w {
			if a.w > c.w {
				return -1
			}
			return 1
		}
		return strings.Compare(a.t, c.t)
	})
	qw := make([]float64, len(terms))
	for i := range qw {
		qw[i] = fb.QueryWeight
	}
	for _, c := range cands[:min(fb.Terms, len(cands))] {
		terms = append(terms, c.t)
		qw = append(qw, 1)
	}
	hits, _, err = b.query(ctx, terms, qw, k, false)
	return hits, err
}

func (b *bleveIndex) idf(t string) (float64, error) {
	tfr, err := b.reader.TermFieldReader(context.Background(), []byte(t), "text", false, false, false)
	if err != nil {
		return 0, err
	}
	defer tfr.Close()
	n := float64(tfr.Count())
	return max(math.Log((b.live-n+0.5)/(n+0.5)), 1e-6), nil
}

// query ORs terms (boosted by weights) and returns the best k, with each
// hit's stored tokens when withTokens.
func (b *bleveIndex) query(ctx context.Context, terms []string, weights []float64, k int, withTokens bool) ([]store.Hit, []string, error) {
	var qs []query.Query
	for i, t := range terms {
		tq := bleve.NewTermQuery(t)
		tq.SetField("text")
		if weights != nil {
			tq.SetBoost(weights[i])
		}
		qs = append(qs, tq)
	}
	req := bleve.NewSearchRequestOptions(bleve.NewDisjunctionQuery(qs...), k, 0, false)
	req.SortBy([]string{"-_score", "_id"})
	if withTokens {
		req.Fields = []string{"t"}
	}
	res, err := b.idx.SearchInContext(ctx, req)
	if err != nil {
		return nil, nil, err
	}
	hits := make([]store.Hit, 0, len(res.Hits))
	var stored []string
	for _, h := range res.Hits {
		pid, seq, err := store.ParseChunkID(h.ID)
		if err != nil {
			return nil, nil, err
		}
		hits = append(hits, store.Hit{ChunkID: h.ID, PaperID: pid, Seq: seq, Score: float32(h.Score)})
		if withTokens {
			s, _ := h.Fields["t"].(string)
			stored = append(stored, s)
		}
	}
	return hits, stored, nil
}

func runEval(ctx context.Context, libDir, idxPath, queriesPath, qrelsPath string, mode retrieve.Mode, noFB bool) error {
	lib, err := store.Open(ctx, libDir)
	if err != nil {
		return err
	}
	defer lib.Close()
	idx, r, err := openBleve(idxPath)
	if err != nil {
		return err
	}
	defer idx.Close()
	n, err := idx.DocCount()
	if err != nil {
		return err
	}
	e := embed.NewLocal()
	ret := &retrieve.Retriever{Index: &bleveIndex{Library: lib, idx: idx, reader: r, live: float64(n)}, Embedder: e, Fusion: retrieve.FusionFor(e)}
	if noFB {
		ret.Feedback = &store.Feedback{}
	}
	qs, err := eval.ReadQueries(queriesPath)
	if err != nil {
		return err
	}
	rel, err := eval.ReadQrels(qrelsPath)
	if err != nil {
		return err
	}
	search := func(ctx context.Context, q string) ([]string, error) {
		ps, err := ret.Retrieve(ctx, q, retrieve.Options{K: 100, Mode: mode, PerPaper: 1})
		if err != nil {
			return nil, err
		}
		ids := make([]string, len(ps))
		for i, p := range ps {
			ids[i] = p.PaperID
		}
		return ids, nil
	}
	if _, err := search(ctx, "warm up"); err != nil {
		return err
	}
	rep, err := eval.Run(ctx, search, qs, rel, nil)
	if err != nil {
		return err
	}
	return report(map[string]any{"op": "eval", "mode": mode, "feedback": !noFB, "ndcg@10": rep.NDCG10, "recall@100": rep.Recall100,
		"mrr@10": rep.MRR10, "latency_mean_ms": rep.Latency.Mean, "latency_p95_ms": rep.Latency.P95})
}

// timeSearch opens the index and runs the query runs times (BM25 with
// feedback, top 300 as hybrid retrieval asks), reporting the first (cold
// in this process) and the median of the rest.
func timeSearch(idxPath, q string, runs int, noFB bool) error {
	start := time.Now()
	idx, r, err := openBleve(idxPath)
	if err != nil {
		return err
	}
	defer idx.Close()
	n, err := idx.DocCount()
	if err != nil {
		return err
	}
	b := &bleveIndex{idx: idx, reader: r, live: float64(n)}
	fb := retrieve.DefaultFeedback
	if noFB {
		fb = store.Feedback{}
	}
	opened := time.Since(start)
	var times []float64
	for i := range runs {
		t0 := time.Now()
		hits, err := b.SearchText(context.Background(), q, 300, store.Filter{}, fb)
		if err != nil {
			return err
		}
		if i == 0 && len(hits) == 0 {
			return errors.New("no hits")
		}
		times = append(times, float64(time.Since(t0).Microseconds())/1e3)
	}
	first := times[0]
	rest := slices.Clone(times[1:])
	slices.Sort(rest)
	p50 := first
	if len(rest) > 0 {
		p50 = rest[len(rest)/2]
	}
	return report(map[string]any{"op": "search", "feedback": !noFB, "docs": n, "open_ms": float64(opened.Microseconds()) / 1e3, "first_ms": first, "warm_p50_ms": p50})
}

func put(idxPath string) error {
	t0 := time.Now()
	idx, err := bleve.Open(idxPath)
	if err != nil {
		return err
	}
	opened := time.Since(t0)
	id := fmt.Sprintf("proto-put-%d#0", time.Now().UnixNano())
	t1 := time.Now()
	err = idx.Index(id, doc("A new paper about reward models", "We train agents with reinforcement learning and planning."))
	indexed := time.Since(t1)
	if cerr := idx.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	return report(map[string]any{"op": "put", "id": id, "open_ms": ms(opened), "index_ms": ms(indexed), "total_ms": ms(time.Since(t0))})
}

func rm(idxPath, id string) error {
	t0 := time.Now()
	idx, err := bleve.Open(idxPath)
	if err != nil {
		return err
	}
	opened := time.Since(t0)
	t1 := time.Now()
	err = idx.Delete(id)
	deleted := time.Since(t1)
	if cerr := idx.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	return report(map[string]any{"op": "rm", "id": id, "open_ms": ms(opened), "delete_ms": ms(deleted), "total_ms": ms(time.Since(t0))})
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1e3 }
