package pgstore

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"
	"strings"

	"github.com/papers-cli/papers/store"
	"github.com/papers-cli/papers/store/index"
)

// approxFrom is the number of chunks from which SearchVectors asks the
// HNSW index for candidates; below it every vector is compared, as the
// embedded library compares every vector below the same number
// (store's approxFrom). An HNSW graph over the local embedder's vectors,
// whose neighbours barely stand out of the crowd, missed one of the exact
// top 10 for 2 of 30 SciFact claims at 1,000 chunks
// (TestSearchVectorsAgreesWithEmbedded with approxFrom 0).
var approxFrom int64 = 250000

// SearchVectors returns the k chunks whose vectors are most similar to q
// (cosine; q is normalised here) among the papers f selects, best first,
// ties by (paper id, seq), as store.Library.SearchVectors does. Below
// approxFrom chunks every vector is compared. From it on, the HNSW index
// proposes k + k/2 + 64 candidates (ef_search at least that, iterative
// scans so that a filter still yields them), which are re-scored exactly
// with the stored vectors: the scores are exact, the candidates
// approximate (the graph may miss a neighbour; over 2,000 dimensions it
// also ranks them by their half-precision copies).
func (e *engine) SearchVectors(ctx context.Context, q []float32, k int, sel store.Selection) ([]store.Hit, error) {
	dims, n, err := e.vectorStats(ctx, e.db)
	if err != nil {
		return nil, fmt.Errorf("search vectors: %w", err)
	}
	if dims == 0 {
		return nil, nil // no embedder recorded: no vectors
	}
	if len(q) != dims {
		return nil, fmt.Errorf("search vectors: query has %d dimensions, the library's vectors %d: %w", len(q), dims, store.ErrDimensions)
	}
	cand := k + k/2 + 64
	expr, _ := indexed(dims)
	approx := n >= approxFrom && expr != ""
	args := []any{vectorLiteral(index.Normalized(q)), k} // the query normalised as the embedded library does
	from := "chunks c WHERE c.vector IS NOT NULL"
	if approx {
		args = append(args, cand)
		from += " AND vector_dims(c.vector) = " + strconv.Itoa(dims)
	}
	if sel.Cond != "" {
		from += " AND c.paper_id IN (SELECT p.id FROM papers p WHERE " + sel.Cond + ")"
	}
	if approx {
		// The index's order (distance ascending from the query), limited:
		// the candidates.
		from = "(SELECT c.paper_id, c.seq, c.vector FROM " + from + `
	ORDER BY ` + strings.ReplaceAll(expr, "vector::", "c.vector::") + " <=> " + strings.ReplaceAll(expr, "vector::", "$1::vector::") + `
	LIMIT $3) c`
	}
	// The outer ORDER BY is not the index's, so it is an exact sort of
	// what FROM gives: every vector, or the index's candidates. The
	// filter's ? parameters are numbered after the $n ones (translate).
	// A zero vector (a chunk with no word the embedder knows, such as an
	// equation's lone "√") is at distance NaN from everything, and NaN
	// sorts above every number: it scores 0, as the embedded index's dot
	// product gives it.
	query := `SELECT paper_id, seq, COALESCE(NULLIF(1 - (vector <=> $1::vector), 'NaN'::float8), 0) AS score FROM ` + from + `
ORDER BY score DESC, paper_id, seq
LIMIT $2`
	tx, err := e.db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return nil, fmt.Errorf("search vectors: %w", err)
	}
	defer tx.Rollback()
	if approx {
		// ef_search bounds what one HNSW scan returns; iterative scans
		// (pgvector 0.8) go on past it when a filter drops candidates.
		if _, err := tx.ExecContext(ctx, "SELECT set_config('hnsw.ef_search', $1, true), set_config('hnsw.iterative_scan', 'relaxed_order', true)",
			strconv.Itoa(min(max(cand, 40), 1000))); err != nil {
			return nil, fmt.Errorf("search vectors: %w", err)
		}
	}
	rows, err := tx.QueryContext(ctx, query, append(args, sel.Args...)...)
	if err != nil {
		return nil, fmt.Errorf("search vectors: %w", err)
	}
	hits, err := collectHits(rows)
	if err != nil {
		return nil, fmt.Errorf("search vectors: %w", err)
	}
	return hits, nil
}

// vectorStats returns the manifest's dimensions (0: no embedder yet) and
// the number of chunks.
func (e *engine) vectorStats(ctx context.Context, q interface {
	QueryRowContext(context.Context, string, ...any) *sql.Row
}) (dims int, chunks int64, err error) {
	var d string
	err = q.QueryRowContext(ctx, `SELECT coalesce((SELECT value FROM manifest WHERE key = 'dimensions'), '0'),
	(SELECT chunks FROM text_stats)`).Scan(&d, &chunks)
	if err != nil {
		return 0, 0, err
	}
	dims, _ = strconv.Atoi(d)
	return dims, chunks, nil
}

// Refresh builds the HNSW index of the library's vectors once it holds
// approxFrom chunks (below, searches compare every vector and need none),
// for the manifest's dimensions (an index for other dimensions, left by a
// reindex to another embedder, is dropped): one build, with a quarter of
// a gigabyte of maintenance memory (pgvector builds fastest when the graph
// fits in it), which writers wait for and readers do not; minutes at a
// quarter of a million chunks. Another process building it meanwhile is
// left to it.
func (e *engine) Refresh(ctx context.Context) error {
	dims, n, err := e.vectorStats(ctx, e.db)
	if err != nil {
		return fmt.Errorf("refresh the vector index: %w", err)
	}
	expr, ops := indexed(dims)
	if n < approxFrom || expr == "" {
		return nil
	}
	name := "chunks_vector_" + strconv.Itoa(dims)
	var exists bool
	if err := e.db.QueryRowContext(ctx, "SELECT to_regclass($1) IS NOT NULL", quoteIdent(e.schema)+"."+name).Scan(&exists); err != nil || exists {
		return err
	}
	tx, err := e.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	var mine bool
	if err := tx.QueryRowContext(ctx, "SELECT pg_try_advisory_xact_lock(hashtextextended($1, 0))", e.lockKey("vector index")).Scan(&mine); err != nil || !mine {
		return err
	}
	rows, err := tx.QueryContext(ctx, "SELECT indexname FROM pg_indexes WHERE schemaname = $1 AND indexname LIKE 'chunks\\_vector\\_%'", e.schema)
	if err != nil {
		return err
	}
	var old []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			rows.Close()
			return err
		}
		old = append(old, s)
	}
	rows.Close()
	for _, o := range old {
		if _, err := tx.ExecContext(ctx, "DROP INDEX IF EXISTS "+quoteIdent(e.schema)+"."+quoteIdent(o)); err != nil {
			return err
		}
	}
	if _, err := tx.ExecContext(ctx, "SELECT set_config('maintenance_work_mem', '256MB', true)"); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, "CREATE INDEX IF NOT EXISTS "+name+" ON "+quoteIdent(e.schema)+".chunks USING hnsw (("+expr+") "+ops+
		") WHERE vector_dims(vector) = "+strconv.Itoa(dims)); err != nil {
		return fmt.Errorf("build the vector index: %w", err)
	}
	return tx.Commit()
}

// indexed returns the expression the HNSW index orders chunks by, and its
// operator class: the vectors as vector(dims) up to 2,000 dimensions
// (pgvector's limit for vector), their half-precision copies up to 4,000
// (halfvec's), nothing beyond (searches then compare every vector). The
// vectors rather than halfvec copies below 2,000 because PGlite,
// PostgreSQL compiled to WebAssembly, converts half floats in software:
// an insert into a halfvec index of 768 dimensions took 46-73 ms there,
// 6.5 ms into a vector index.
func indexed(dims int) (expr, ops string) {
	d := strconv.Itoa(dims)
	switch {
	case dims <= 0:
		return "", ""
	case dims <= 2000:
		return "vector::vector(" + d + ")", "vector_cosine_ops"
	case dims <= 4000:
		return "vector::halfvec(" + d + ")", "halfvec_cosine_ops"
	}
	return "", ""
}

// EncodeVector is v in pgvector's text form.
func (e *engine) EncodeVector(v []float32) any { return vectorLiteral(v) }

// DecodeVector reads pgvector's text form.
func (e *engine) DecodeVector(b []byte) ([]float32, error) { return parseVector(string(b)) }

// MeanVectors computes every paper's mean chunk vector on the server
// (pgvector's avg), by paper id.
func (e *engine) MeanVectors(ctx context.Context, tx *sql.Tx, fn func(id string, mean []float32) error) error {
	rows, err := tx.QueryContext(ctx, "SELECT paper_id, avg(vector)::text FROM chunks WHERE vector IS NOT NULL GROUP BY paper_id ORDER BY paper_id")
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var id, lit string
		if err := rows.Scan(&id, &lit); err != nil {
			return err
		}
		v, err := parseVector(lit)
		if err != nil {
			return fmt.Errorf("mean vector of %s: %w", id, err)
		}
		if err := fn(id, v); err != nil {
			return err
		}
	}
	return rows.Err()
}

// vectorLiteral is pgvector's text form of v: [x,y,...], each float32 in
// the fewest digits that read back exactly.
func vectorLiteral(v []float32) string {
	b := make([]byte, 0, 2+len(v)*12)
	b = append(b, '[')
	for i, x := range v {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendFloat(b, float64(x), 'g', -1, 32)
	}
	return string(append(b, ']'))
}

// parseVector reads pgvector's text form.
func parseVector(s string) ([]float32, error) {
	s = strings.TrimSpace(s)
	if len(s) < 2 || s[0] != '[' || s[len(s)-1] != ']' {
		return nil, fmt.Errorf("not a vector: %.40q", s)
	}
	s = s[1 : len(s)-1]
	if s == "" {
		return nil, nil
	}
	out := make([]float32, 0, strings.Count(s, ",")+1)
	for f := range strings.SplitSeq(s, ",") {
		x, err := strconv.ParseFloat(f, 32)
		if err != nil {
			return nil, fmt.Errorf("not a vector: %w", err)
		}
		out = append(out, float32(x))
	}
	return out, nil
}
