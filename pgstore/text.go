package pgstore

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/papers-cli/papers/store"
	"github.com/papers-cli/papers/store/fts"
)

// maxPositions is how many positions PostgreSQL keeps for one lexeme of a
// tsvector (MAXNUMPOS - 1): a term's frequency in a chunk is counted up to
// it, where the embedded index counts up to 65,535; chunks of a few
// hundred words rarely reach it.
const maxPositions = 255

// maxLexeme is the longest lexeme a tsvector holds, in bytes (MAXSTRLEN - 1).
const maxLexeme = 2046

// termVector returns the tsvector literal of a chunk and its length in
// tokens: every stem of head (the paper's title) and body (the chunk's
// text) as package fts finds them, with as many positions as the stem's
// term frequency for BM25, fts.HeadWeight per head occurrence and one per
// body occurrence, as the embedded index counts it. The positions carry no
// order (no phrase search uses them): a frequency is read back as the
// number of positions of the query's lexemes alone (see bm25), without
// unnesting the whole vector.
func termVector(head, body string) (string, int) {
	tf := map[string]int{}
	n := 0
	var buf [64]byte
	add := func(s string, weight int) {
		for w := range fts.Words(s) {
			n++
			tf[string(fts.Stem(w, buf[:0]))] += weight
		}
	}
	add(head, fts.HeadWeight)
	add(body, 1)
	stems := make([]string, 0, len(tf))
	for st := range tf {
		if len(st) <= maxLexeme {
			stems = append(stems, st)
		}
	}
	slices.Sort(stems)
	var b strings.Builder
	for _, st := range stems {
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteByte('\'')
		for i := 0; i < len(st); i++ {
			switch st[i] {
			case '\'':
				b.WriteString("''")
			case '\\':
				b.WriteString(`\\`)
			default:
				b.WriteByte(st[i])
			}
		}
		b.WriteString("':")
		for p := 1; p <= min(tf[st], maxPositions); p++ {
			if p > 1 {
				b.WriteByte(',')
			}
			b.WriteString(strconv.Itoa(p))
		}
	}
	return b.String(), n
}

// tsquery returns the tsquery literal that matches a chunk holding any of
// terms.
func tsquery(terms []string) string {
	var b strings.Builder
	for i, t := range terms {
		if i > 0 {
			b.WriteString(" | ")
		}
		b.WriteByte('\'')
		b.WriteString(strings.NewReplacer(`'`, `''`, `\`, `\\`).Replace(t))
		b.WriteByte('\'')
	}
	return b.String()
}

// bm25 scores the chunks holding any of terms, with FTS5's formula and
// constants as package fts has them (k1 1.2, b 0.75, idf floored at 1e-6,
// a term's query weight multiplying its idf, a term listed twice counting
// twice), from the statistics the triggers keep: the same scores as the
// embedded library's for the same chunks. $1 terms, $2 their weights,
// $3 the tsquery, $4 k; the filter's arguments follow.
const bm25 = `
WITH st AS (SELECT chunks::float8 AS n, tokens::float8 / greatest(chunks, 1) AS avgdl FROM {s}.text_stats),
q AS (
	SELECT t.term, sum(q.w) * greatest(ln((st.n - t.df + 0.5) / (t.df + 0.5)), 1e-6) AS wi
	FROM unnest($1::text[], $2::float8[]) AS q(term, w) JOIN {s}.terms t ON t.term = q.term CROSS JOIN st
	WHERE t.df > 0
	GROUP BY t.term, t.df, st.n
)
SELECT c.paper_id, c.seq, sum(q.wi * f.tf * 2.2 / (f.tf + 1.2 * (0.25 + 0.75 * c.len / st.avgdl))) AS score
FROM {s}.chunks c
	CROSS JOIN st
	CROSS JOIN LATERAL (
		SELECT u.lexeme, cardinality(u.positions) AS tf
		FROM unnest(ts_filter(setweight(c.tsv, 'A', $1::text[]), '{a}')) u
	) f
	JOIN q ON q.term = f.lexeme
WHERE c.tsv @@ $3::tsquery %s
GROUP BY c.paper_id, c.seq
ORDER BY score DESC, c.paper_id, c.seq
LIMIT $4`

// SearchText ranks chunks by BM25 over their text and their paper's
// title among the papers f selects, as store.Library.SearchText does:
// the same tokens, stems, statistics and formula, so the same scores (to
// floating-point rounding), with the pseudo-relevance feedback fb. The
// candidates are the chunks the GIN index finds for any query term; each is
// scored from its tsvector. Hits come best first, ties by (paper id, seq).
func (s *Store) SearchText(ctx context.Context, query string, k int, f store.Filter, fb store.Feedback) ([]store.Hit, error) {
	terms := fts.QueryTerms(query)
	if len(terms) == 0 || k <= 0 {
		return nil, nil
	}
	weights := make([]float64, len(terms))
	for i := range weights {
		weights[i] = 1
	}
	hits, err := s.rankText(ctx, terms, weights, max(k, fb.Docs), f)
	if err != nil || fb.Docs <= 0 || len(hits) == 0 {
		return hits[:min(k, len(hits))], err
	}
	exp, err := s.expand(ctx, hits[:min(fb.Docs, len(hits))], terms, fb)
	if err != nil {
		return nil, err
	}
	if len(exp) == 0 {
		return hits[:min(k, len(hits))], nil
	}
	for i := range weights {
		weights[i] = fb.QueryWeight
	}
	for range exp {
		weights = append(weights, 1)
	}
	return s.rankText(ctx, append(terms, exp...), weights, k, f)
}

func (s *Store) rankText(ctx context.Context, terms []string, weights []float64, k int, f store.Filter) ([]store.Hit, error) {
	args := []any{terms, weights, tsquery(terms), k}
	cond := ""
	if !filterEmpty(f) {
		cond = "AND c.paper_id IN (" + s.filterSQL(f, &args) + ")"
	}
	rows, err := s.pool.Query(ctx, s.sql(fmt.Sprintf(bm25, cond)), args...)
	if err != nil {
		return nil, fmt.Errorf("search text: %w", err)
	}
	var hits []store.Hit
	var h store.Hit
	var score float64
	_, err = pgx.ForEachRow(rows, []any{&h.PaperID, &h.Seq, &score}, func() error {
		h.ChunkID = store.ChunkID(h.PaperID, h.Seq)
		h.Score = float32(score)
		hits = append(hits, h)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("search text: %w", err)
	}
	return hits, nil
}

// expand returns the feedback terms of the best hits, as fts.Set.Expand
// picks them: each hit weighs exp(score - best score), normalised.
func (s *Store) expand(ctx context.Context, top []store.Hit, terms []string, fb store.Feedback) ([]string, error) {
	ids := make([]string, len(top))
	seqs := make([]int32, len(top))
	weight := map[string]float64{}
	var z float64
	for i, h := range top {
		ids[i], seqs[i] = h.PaperID, int32(h.Seq)
		w := math.Exp(float64(h.Score - top[0].Score))
		weight[h.ChunkID] = w
		z += w
	}
	rows, err := s.pool.Query(ctx, s.sql(`
SELECT c.paper_id, c.seq, c.len, u.lexeme, cardinality(u.positions), t.df,
	(SELECT chunks FROM {s}.text_stats)
FROM unnest($1::text[], $2::int[]) AS d(paper_id, seq)
	JOIN {s}.chunks c ON c.paper_id = d.paper_id AND c.seq = d.seq
	CROSS JOIN LATERAL unnest(c.tsv) u
	JOIN {s}.terms t ON t.term = u.lexeme`), ids, seqs)
	if err != nil {
		return nil, fmt.Errorf("search text: feedback: %w", err)
	}
	e := fts.NewExpansion(terms)
	df := map[string]int{}
	var (
		paper, term     string
		seq, n, tf, dfT int
		total           int64
	)
	_, err = pgx.ForEachRow(rows, []any{&paper, &seq, &n, &term, &tf, &dfT, &total}, func() error {
		e.Add(term, tf, n, weight[store.ChunkID(paper, seq)]/z)
		df[term] = dfT
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("search text: feedback: %w", err)
	}
	return e.Top(fb.Terms, fb.MinIDF, func(t string) float64 {
		if df[t] <= 0 {
			return 0
		}
		return fts.IDF(float64(total), float64(df[t]))
	}), nil
}
