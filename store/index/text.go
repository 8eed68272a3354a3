package index

import (
	"math"
	"runtime"
	"sync"
)

// SearchText ranks chunks by BM25 over their text and their paper's title
// for the query terms (fts.QueryTerms), among the papers sel allows (nil:
// all), with the pseudo-relevance feedback fb (zero: plain BM25, FTS5's
// scores). Hits come best first with Score = -bm25, ties by (paper id,
// seq); at most k. A damaged posting list is an error wrapping
// fts.ErrCorrupt.
func (x *View) SearchText(terms []string, k int, sel Selection, fb Feedback) ([]Hit, error) {
	if len(terms) == 0 || k <= 0 {
		return nil, nil
	}
	acc := scores.get(x.len())
	defer scores.put(acc)
	ranked, err := x.rankText(terms, nil, max(k, fb.Docs), sel, acc)
	if err != nil || fb.Docs <= 0 || len(ranked) == 0 {
		return x.hits(ranked, k), err
	}
	docs := make([]int, min(fb.Docs, len(ranked)))
	weights := make([]float64, len(docs))
	var z float64
	for i := range docs {
		docs[i] = int(ranked[i].i)
		weights[i] = math.Exp(float64(ranked[i].score - ranked[0].score))
		z += weights[i]
	}
	for i := range weights {
		weights[i] /= z
	}
	exp, err := x.text.Expand(docs, weights, terms, fb.Terms, fb.MinIDF)
	if err != nil {
		return nil, err
	}
	if len(exp) == 0 {
		return x.hits(ranked, k), nil
	}
	qw := make([]float64, len(terms), len(terms)+len(exp))
	for i := range qw {
		qw[i] = fb.QueryWeight
	}
	for range exp {
		qw = append(qw, 1)
	}
	ranked, err = x.rankText(append(terms, exp...), qw, k, sel, acc)
	return x.hits(ranked, k), err
}

// rankText scores terms into acc (zeroed first) and returns the best k
// allowed chunks, best first. The pass over acc that picks them is split
// over the CPUs (acc has one score per chunk: 8 MB at a million), each
// worker keeping its own best k.
func (idx *View) rankText(terms []string, weights []float64, k int, allowed selection, acc []float64) ([]scored, error) {
	clear(acc)
	if err := idx.text.Score(terms, weights, acc); err != nil {
		return nil, err
	}
	workers := min(runtime.GOMAXPROCS(0), max(1, idx.total/(1<<16)))
	parts := make([]topK, workers)
	var wg sync.WaitGroup
	for w, spans := range idx.spans(workers) {
		top := &parts[w]
		top.x, top.h = idx, make([]scored, 0, min(k, 1024))
		wg.Add(1)
		go func() {
			defer wg.Done()
			for _, sp := range spans {
				seg, base := idx.segs[sp.seg], idx.base[sp.seg]
				var mask []bool
				if allowed != nil {
					mask = allowed[sp.seg]
				}
				// Once k are kept, a score under the worst kept cannot
				// enter: most chunks are decided by that one comparison.
				thr := float32(0)
				for d, v := range acc[base+sp.lo : base+sp.hi] {
					// The comparison with thr first: it is almost always
					// true, where v <= 0 holds for about half the chunks in
					// an order no branch predictor guesses (first, it took
					// half the CPU of a text search at 1M chunks).
					if float32(v) < thr || v <= 0 || mask != nil && !mask[seg.paperOf[sp.lo+d]] {
						continue
					}
					top.offer(scored{float32(v), int32(base + sp.lo + d)}, k)
					if len(top.h) == k {
						thr = top.h[0].score
					}
				}
			}
		}()
	}
	wg.Wait()
	all := parts[0].h
	for _, p := range parts[1:] {
		all = append(all, p.h...)
	}
	idx.sort(all)
	return all[:min(k, len(all))], nil
}

// Feedback configures pseudo-relevance feedback for SearchText (RM3-like):
// the best Docs chunks of a first BM25 ranking are taken as relevant, and
// the Terms terms most typical of them (see fts.Index.Expand; the chunks
// weigh exp(score - best score), normalised; terms with an idf under MinIDF,
// common everywhere, are skipped) are added to the query with weight 1, the
// query's own terms weighing QueryWeight. The zero value is plain BM25.
type Feedback struct {
	Docs, Terms int
	QueryWeight float64
	MinIDF      float64
}

// scores recycles the per-chunk score arrays of text searches (800 KB at
// 100k chunks); rankText zeroes them before use.
var scores scorePool

type scorePool struct{ p sync.Pool }

func (sp *scorePool) get(n int) []float64 {
	if v, ok := sp.p.Get().(*[]float64); ok && len(*v) == n {
		return *v
	}
	return make([]float64, n)
}

func (sp *scorePool) put(acc []float64) { sp.p.Put(&acc) }
