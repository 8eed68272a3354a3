package store

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"unicode"
)

// SearchText ranks chunks by SQLite FTS5's BM25 over the chunk text and the
// paper title (indexed with every chunk of the paper; porter stemming,
// unicode61 folding), among the papers f selects (f.Limit is ignored). The
// query is free text: its words are ORed, FTS5 syntax is not interpreted.
// Hits come best first with Score = -bm25 (higher is better), ties by
// (paper id, seq) (at the k-th place, by insertion order); at most k. A
// query with no words returns no hits.
//
// FTS5 scores every matching chunk, so the cost grows with the number of
// matches: a query whose words occur in nearly every chunk costs about a
// second at 100k chunks (see BENCHMARKS.md).
func (l *Library) SearchText(ctx context.Context, query string, k int, f Filter) ([]Hit, error) {
	match := ftsQuery(query)
	if match == "" || k <= 0 {
		return nil, nil
	}
	// Rank inside the FTS table first and join the chunks of the k best
	// only: joining every match before the LIMIT costs a row lookup per match.
	sub := `SELECT rowid, bm25(chunks_fts) AS s FROM chunks_fts WHERE chunks_fts MATCH ?`
	all := []any{match}
	if !f.empty() {
		cond, args := f.where("p.")
		sub += ` AND rowid IN (SELECT c.id FROM chunks c JOIN papers p ON p.id = c.paper_id WHERE ` + cond + `)`
		all = append(all, args...)
	}
	sub += ` ORDER BY s, rowid LIMIT ?`
	all = append(all, k)
	q := `SELECT c.paper_id, c.seq, f.s FROM (` + sub + `) f JOIN chunks c ON c.id = f.rowid
		ORDER BY f.s, c.paper_id, c.seq`
	rows, err := l.db.QueryContext(ctx, q, all...)
	if err != nil {
		return nil, fmt.Errorf("search text %q: %w", query, wrapBusy(err))
	}
	defer rows.Close()
	var hits []Hit
	for rows.Next() {
		var h Hit
		var s float64
		if err := rows.Scan(&h.PaperID, &h.Seq, &s); err != nil {
			return nil, fmt.Errorf("search text %q: %w", query, err)
		}
		h.ChunkID = ChunkID(h.PaperID, h.Seq)
		h.Score = float32(-s)
		hits = append(hits, h)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("search text %q: %w", query, err)
	}
	return hits, nil
}

// ftsQuery turns free text into an FTS5 query that ORs its words, each
// quoted so that FTS5 operators and punctuation in the text mean nothing.
func ftsQuery(s string) string {
	words := strings.FieldsFunc(s, func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
	seen := map[string]bool{}
	var terms []string
	for _, w := range words {
		w = strings.ToLower(w)
		if seen[w] {
			continue
		}
		seen[w] = true
		terms = append(terms, `"`+w+`"`)
	}
	return strings.Join(terms, " OR ")
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
