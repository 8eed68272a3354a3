package pgstore

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/papers-cli/papers/store"
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
func (s *Store) SearchVectors(ctx context.Context, q []float32, k int, f store.Filter) ([]store.Hit, error) {
	if k <= 0 {
		return nil, nil
	}
	man, err := s.Manifest(ctx)
	if err != nil {
		return nil, fmt.Errorf("search vectors: %w", err)
	}
	if man.Dimensions == 0 {
		return nil, nil // no embedder recorded: no vectors
	}
	if len(q) != man.Dimensions {
		return nil, fmt.Errorf("search vectors: query has %d dimensions, the library's vectors %d: %w", len(q), man.Dimensions, store.ErrDimensions)
	}
	cand := k + k/2 + 64
	expr, _ := indexed(man.Dimensions)
	var approx bool
	if err := s.pool.QueryRow(ctx, s.sql("SELECT chunks >= $1 FROM {s}.text_stats"), approxFrom).Scan(&approx); err != nil {
		return nil, fmt.Errorf("search vectors: %w", err)
	}
	approx = approx && expr != ""
	args := []any{vectorLiteral(normalized(q)), k}
	if approx {
		args = append(args, cand)
	}
	from := "{s}.chunks c WHERE c.embedding IS NOT NULL"
	if !filterEmpty(f) {
		from += " AND c.paper_id IN (" + s.filterSQL(f, &args) + ")"
	}
	if approx {
		// The index's order (distance ascending from the query), limited:
		// the candidates.
		from = "(SELECT c.paper_id, c.seq, c.embedding FROM " + from + `
	ORDER BY ` + strings.Replace(expr, "embedding", "c.embedding", 1) + " <=> " + strings.Replace(expr, "embedding", "$1::vector", 1) + `
	LIMIT $3) c`
	}
	// The outer ORDER BY is not the index's, so it is an exact sort of
	// what FROM gives: every vector, or the index's candidates.
	// A zero vector (a chunk with no word the embedder knows, such as an
	// equation's lone "√") is at distance NaN from everything, and NaN
	// sorts above every number: it scores 0, as the embedded index's dot
	// product gives it.
	query := s.sql(`SELECT paper_id, seq, COALESCE(NULLIF(1 - (embedding <=> $1::vector), 'NaN'::float8), 0) AS score FROM ` + from + `
ORDER BY score DESC, paper_id, seq
LIMIT $2`)
	var hits []store.Hit
	err = s.tx(ctx, func(tx pgx.Tx) error {
		hits = hits[:0]
		// ef_search bounds what one HNSW scan returns; iterative scans
		// (pgvector 0.8) go on past it when a filter drops candidates.
		if _, err := tx.Exec(ctx, "SELECT set_config('hnsw.ef_search', $1, true), set_config('hnsw.iterative_scan', 'relaxed_order', true)",
			strconv.Itoa(min(max(cand, 40), 1000))); err != nil {
			return err
		}
		rows, err := tx.Query(ctx, query, args...)
		if err != nil {
			return err
		}
		var h store.Hit
		var score float64
		_, err = pgx.ForEachRow(rows, []any{&h.PaperID, &h.Seq, &score}, func() error {
			h.ChunkID = store.ChunkID(h.PaperID, h.Seq)
			h.Score = float32(score)
			hits = append(hits, h)
			return nil
		})
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("search vectors: %w", err)
	}
	return hits, nil
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

// normalized returns v scaled to unit length (a copy), as the embedded
// library normalises query vectors.
func normalized(v []float32) []float32 {
	var s float64
	for _, f := range v {
		s += float64(f) * float64(f)
	}
	out := make([]float32, len(v))
	copy(out, v)
	if s == 0 || math.Abs(s-1) < 1e-6 {
		return out
	}
	inv := 1 / math.Sqrt(s)
	for i := range out {
		out[i] = float32(float64(out[i]) * inv)
	}
	return out
}
