package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"runtime"
	"sync"

	"github.com/papers-cli/papers/store/fts"
)

// SearchText ranks chunks by BM25 over the chunk text and the paper title
// (indexed with every chunk of the paper), among the papers f selects
// (f.Limit is ignored). The query is free text: its distinct words are
// ORed, with no operators. With a zero Feedback, tokens, stems and scores
// are those of an SQLite FTS5 table (title, text) with the porter tokenizer
// over unicode61 and its bm25(table, fts.HeadWeight, 1) (see package fts);
// otherwise the query is expanded as fb says. Hits come best first with
// Score = -bm25 (higher is better), ties by (paper id, seq); at most k. A
// query with no words returns no hits.
//
// The cost is a few nanoseconds per posting of the query's terms plus a
// pass over one score per chunk (about a millisecond at 100k chunks), twice
// with feedback.
func (l *Library) SearchText(ctx context.Context, query string, k int, f Filter, fb Feedback) ([]Hit, error) {
	terms := fts.QueryTerms(query)
	if len(terms) == 0 || k <= 0 {
		return nil, nil
	}
	for attempt := 0; ; attempt++ {
		idx, err := l.acquireIndex(ctx)
		if err != nil {
			return nil, fmt.Errorf("search text: %w", err)
		}
		hits, err := l.searchText(ctx, idx, terms, k, f, fb)
		l.releaseIndex(idx)
		if errors.Is(err, fts.ErrCorrupt) && attempt == 0 {
			// Postings are checksummed but not checked at every start (that
			// would cost a pass over them): an index found damaged is
			// rebuilt from the database, once.
			if err := l.discardIndex(ctx); err != nil {
				return nil, fmt.Errorf("search text: %w", err)
			}
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("search text: %w", err)
		}
		return hits, nil
	}
}

func (l *Library) searchText(ctx context.Context, idx *searchIndex, terms []string, k int, f Filter, fb Feedback) ([]Hit, error) {
	var allowed selection
	if !f.empty() {
		var err error
		if allowed, err = l.allowedPapers(ctx, idx, f); err != nil {
			return nil, err
		}
		if allowed == nil {
			return nil, nil
		}
	}
	acc := scores.get(idx.len())
	defer scores.put(acc)
	ranked, err := idx.rankText(terms, nil, max(k, fb.Docs), allowed, acc)
	if err != nil || fb.Docs <= 0 || len(ranked) == 0 {
		return idx.hits(ranked, k), err
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
	exp, err := idx.text.Expand(docs, weights, terms, fb.Terms, fb.MinIDF)
	if err != nil {
		return nil, err
	}
	if len(exp) == 0 {
		return idx.hits(ranked, k), nil
	}
	qw := make([]float64, len(terms), len(terms)+len(exp))
	for i := range qw {
		qw[i] = fb.QueryWeight
	}
	for range exp {
		qw = append(qw, 1)
	}
	ranked, err = idx.rankText(append(terms, exp...), qw, k, allowed, acc)
	return idx.hits(ranked, k), err
}

// rankText scores terms into acc (zeroed first) and returns the best k
// allowed chunks, best first. The pass over acc that picks them is split
// over the CPUs (acc has one score per chunk: 8 MB at a million), each
// worker keeping its own best k.
func (idx *searchIndex) rankText(terms []string, weights []float64, k int, allowed selection, acc []float64) ([]scored, error) {
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

// ForEachChunk calls fn for every chunk of the library in (paper id, seq)
// order, from one consistent snapshot, streaming (one chunk in memory at a
// time). Vectors are filled only when withVectors is set. fn must not write
// to the library (it would wait for itself on a single-connection pool and
// cannot see a snapshot taken before it). An error from fn stops the walk and
// is returned.
func (l *Library) ForEachChunk(ctx context.Context, withVectors bool, fn func(Chunk) error) error {
	vcol := "NULL"
	if withVectors {
		vcol = "vector"
	}
	return l.read(ctx, func(tx *sql.Tx) error {
		rows, err := tx.QueryContext(ctx, "SELECT paper_id, seq, page_start, page_end, section, role, text, "+vcol+" FROM chunks ORDER BY paper_id, seq")
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var c Chunk
			var blob []byte
			if err := rows.Scan(&c.PaperID, &c.Seq, &c.PageStart, &c.PageEnd, &c.Section, &c.Role, &c.Text, &blob); err != nil {
				return err
			}
			if blob != nil {
				c.Vector = decodeVector(blob)
			}
			if err := fn(c); err != nil {
				return err
			}
		}
		return rows.Err()
	})
}
