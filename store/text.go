package store

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"sync"

	"github.com/papers-cli/papers/store/fts"
)

// SearchText ranks chunks by BM25 over the chunk text and the paper title
// (indexed with every chunk of the paper), among the papers f selects
// (f.Limit is ignored). The query is free text: its distinct words are
// ORed, with no operators. Tokens, stems and scores are those of an SQLite
// FTS5 table with the porter tokenizer over unicode61 and its bm25() (see
// package fts), computed over the search index that SearchVectors uses too.
// Hits come best first with Score = -bm25 (higher is better), ties by
// (paper id, seq); at most k. A query with no words returns no hits.
//
// The cost is a few nanoseconds per posting of the query's terms plus a
// pass over one score per chunk: about a millisecond at 100k chunks.
func (l *Library) SearchText(ctx context.Context, query string, k int, f Filter) ([]Hit, error) {
	terms := fts.QueryTerms(query)
	if len(terms) == 0 || k <= 0 {
		return nil, nil
	}
	idx, err := l.searchIndex(ctx)
	if err != nil {
		return nil, fmt.Errorf("search text: %w", err)
	}
	var allowed []bool
	if !f.empty() {
		if allowed, err = l.allowedPapers(ctx, &idx.chunkTable, f); err != nil {
			return nil, fmt.Errorf("search text: %w", err)
		}
		if allowed == nil {
			return nil, nil
		}
	}
	acc := scores.get(idx.len())
	defer scores.put(acc)
	if err := idx.text.Score(terms, acc); err != nil {
		return nil, fmt.Errorf("search text: %w (delete %s to rebuild it)", err, filepath.Join(l.dir, SidecarName))
	}
	top := topK{x: &idx.chunkTable, h: make([]scored, 0, min(k, 1024))}
	for i, s := range acc {
		if s > 0 && (allowed == nil || allowed[idx.paperOf[i]]) {
			top.offer(scored{float32(s), int32(i)}, k)
		}
	}
	return idx.hits(top.h, k), nil
}

// scores recycles the per-chunk score arrays of text searches (800 KB at
// 100k chunks), which are handed out zeroed.
var scores scorePool

type scorePool struct{ p sync.Pool }

func (sp *scorePool) get(n int) []float64 {
	if v, ok := sp.p.Get().(*[]float64); ok && len(*v) == n {
		return *v
	}
	return make([]float64, n)
}

func (sp *scorePool) put(acc []float64) {
	clear(acc)
	sp.p.Put(&acc)
}

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
		rows, err := tx.QueryContext(ctx, "SELECT paper_id, seq, page_start, page_end, section, text, "+vcol+" FROM chunks ORDER BY paper_id, seq")
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var c Chunk
			var blob []byte
			if err := rows.Scan(&c.PaperID, &c.Seq, &c.PageStart, &c.PageEnd, &c.Section, &c.Text, &blob); err != nil {
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
