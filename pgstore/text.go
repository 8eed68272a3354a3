package pgstore

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

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

// termVector returns the tsvector literal of a chunk, its length in tokens
// and its terms as text for pg_textsearch's BM25 index (see rankIndexed): every stem of head (the paper's title) and body (the chunk's
// text) as package fts finds them, with as many positions as the stem's
// term frequency for BM25, fts.HeadWeight per head occurrence and one per
// body occurrence, as the embedded index counts it. The positions carry no
// order (no phrase search uses them): a frequency is read back as the
// number of positions of the query's lexemes alone (see bm25), without
// unnesting the whole vector.
func termVector(head, body string) (tsv string, length int, stems string) {
	tf := map[string]int{}
	n := 0
	var buf [64]byte
	var text strings.Builder
	add := func(s string, weight int) {
		for w := range fts.Words(s) {
			n++
			st := fts.Stem(w, buf[:0])
			tf[string(st)] += weight
			for range weight {
				if text.Len() > 0 {
					text.WriteByte(' ')
				}
				text.Write(st)
			}
		}
	}
	add(head, fts.HeadWeight)
	add(body, 1)
	lexemes := make([]string, 0, len(tf))
	for st := range tf {
		if len(st) <= maxLexeme {
			lexemes = append(lexemes, st)
		}
	}
	slices.Sort(lexemes)
	var b strings.Builder
	for _, st := range lexemes {
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
	return b.String(), n, text.String()
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

// bm25 scores the candidate chunks (cand, a query of paper_id and seq)
// with FTS5's formula and constants as package fts has them (k1 1.2, b
// 0.75, idf floored at 1e-6, a term's query weight multiplying its idf, a
// term listed twice counting twice), from the statistics the triggers
// keep: the same scores as the embedded library's for the same chunks.
// A chunk's frequency of each query term is the number of positions of
// that lexeme (termVector), read from the tsvector cut down to the query's
// lexemes (setweight marks them, ts_filter keeps them) rather than from
// every lexeme of the chunk. $1 terms, $2 their weights, $3 k.
const bm25 = `
WITH st AS (SELECT chunks::float8 AS n, tokens::float8 / greatest(chunks, 1) AS avgdl FROM text_stats),
q AS (
	SELECT t.term, sum(q.w) * greatest(ln((st.n - t.df + 0.5) / (t.df + 0.5)), 1e-6) AS wi
	FROM unnest($1::text[], $2::float8[]) AS q(term, w) JOIN terms t ON t.term = q.term CROSS JOIN st
	WHERE t.df > 0
	GROUP BY t.term, t.df, st.n
),
cand AS (%s)
SELECT c.paper_id, c.seq, sum(q.wi * f.tf * 2.2 / (f.tf + 1.2 * (0.25 + 0.75 * c.len / st.avgdl))) AS score
FROM cand JOIN chunks c ON c.paper_id = cand.paper_id AND c.seq = cand.seq
	CROSS JOIN st
	CROSS JOIN LATERAL (
		SELECT u.lexeme, cardinality(u.positions) AS tf
		FROM unnest(ts_filter(setweight(c.tsv, 'A', $1::text[]), '{a}')) u
	) f
	JOIN q ON q.term = f.lexeme
GROUP BY c.paper_id, c.seq
ORDER BY score DESC, c.paper_id, c.seq
LIMIT $3`

// SearchText ranks chunks by BM25 over their text and their paper's
// title among the papers sel selects, as store.Library.SearchText does:
// the same tokens, stems, statistics and formula, so the same scores (to
// floating-point rounding), with the pseudo-relevance feedback fb. Hits
// come best first, ties by (paper id, seq).
//
// Which chunks are scored: every chunk holding a query term (the GIN
// index finds them), so the ranking is exactly the embedded library's,
// when the server has no pg_textsearch or the library (or the filter)
// holds at most exactUpTo chunks; the cost grows with the chunks matched
// (every chunk of the library for a long query). Otherwise the k + k/2 +
// 64 best of pg_textsearch's BM25 index among the selected chunks, which
// reads only the postings that can reach its top and ranks with Lucene's
// idf (see indexCandidates): the scores stay exact, the candidates are
// approximate, as for dense search.
func (e *engine) SearchText(ctx context.Context, terms []string, k int, sel store.Selection, fb store.Feedback) ([]store.Hit, error) {
	weights := make([]float64, len(terms))
	for i := range weights {
		weights[i] = 1
	}
	exact, err := e.exactText(ctx, sel)
	if err != nil {
		return nil, fmt.Errorf("search text: %w", err)
	}
	hits, err := e.rankText(ctx, terms, weights, max(k, fb.Docs), sel, exact)
	if err != nil || fb.Docs <= 0 || len(hits) == 0 {
		return hits[:min(k, len(hits))], err
	}
	exp, err := e.expand(ctx, hits[:min(fb.Docs, len(hits))], terms, fb)
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
	return e.rankText(ctx, append(terms, exp...), weights, k, sel, exact)
}

// ensureTextIndex reports whether the library's text can be ranked by
// pg_textsearch's BM25 index: the server has the extension (created here
// when it is available and the user may), and the index exists (built here
// the first time, over the chunks' stems). Only a failure to ask is an
// error: without the extension or its index, text is ranked from the
// tsvectors.
func (e *engine) ensureTextIndex(ctx context.Context) (bool, error) {
	var available, installed bool
	err := e.db.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM pg_available_extensions WHERE name = 'pg_textsearch'),
	EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'pg_textsearch')`).Scan(&available, &installed)
	if err != nil || !available {
		return false, err
	}
	if !installed {
		if _, err := e.db.ExecContext(ctx, "CREATE EXTENSION IF NOT EXISTS pg_textsearch"); err != nil {
			return false, nil // not ours to install: the tsvector ranking serves
		}
	}
	var exists bool
	if err := e.db.QueryRowContext(ctx, "SELECT to_regclass($1) IS NOT NULL", quoteIdent(e.schema)+".chunks_bm25").Scan(&exists); err != nil {
		return false, err
	}
	if !exists {
		// 'simple': the stems are package fts's, lower-cased already, and
		// must not be stemmed again or lose stop words. An index the
		// server will not build (the extension not loaded, no right to)
		// leaves the tsvector ranking, which needs nothing more.
		if _, err := e.db.ExecContext(ctx, "CREATE INDEX IF NOT EXISTS chunks_bm25 ON "+quoteIdent(e.schema)+".chunks USING bm25 (stems) WITH (text_config = 'simple')"); err != nil {
			return false, nil
		}
	}
	return true, nil
}

// indexCandidates returns the query of the n best chunks by
// pg_textsearch's BM25 index over the chunks' stems: k1 1.2 and b 0.75
// as FTS5, but Lucene's idf, ln(1 + (N - n + 0.5)/(n + 0.5)), which never
// falls to FTS5's floor for terms in most chunks; a title occurrence
// counts fts.HeadWeight times in the chunk's length too; a term's query
// weight is its repetitions (rounded). The index reads the postings of
// the query's terms in blocks and skips those that cannot reach its top n.
// Its score is not selected: the operator in a select list scores the row
// again from its text (2 ms a row on PGlite), where the ORDER BY reads it
// from the index.
func (e *engine) indexCandidates(terms []string, weights []float64, n int, filter string, args *[]any) string {
	var q strings.Builder
	for i, t := range terms {
		for range max(1, int(math.Round(weights[i]))) {
			if q.Len() > 0 {
				q.WriteByte(' ')
			}
			q.WriteString(t)
		}
	}
	*args = append(*args, q.String(), e.schema+".chunks_bm25", n)
	m := len(*args)
	bq := fmt.Sprintf("to_bm25query($%d, $%d)", m-2, m-1)
	where := ""
	if filter != "" {
		where = " WHERE " + filter
	}
	return "SELECT c.paper_id, c.seq FROM chunks c" + where + " ORDER BY c.stems <@> " + bq + fmt.Sprintf(" LIMIT $%d", m)
}

// collectHits reads rows of (paper id, seq, score).
func collectHits(rows *sql.Rows) ([]store.Hit, error) {
	defer rows.Close()
	var hits []store.Hit
	for rows.Next() {
		var h store.Hit
		var score float64
		if err := rows.Scan(&h.PaperID, &h.Seq, &score); err != nil {
			return nil, err
		}
		h.ChunkID = store.ChunkID(h.PaperID, h.Seq)
		h.Score = float32(score)
		hits = append(hits, h)
	}
	return hits, rows.Err()
}

// exactUpTo is the number of chunks a filter may select for a text search
// with pg_textsearch to score every one of them that holds a query term
// (from the GIN index) rather than take the index's candidates: scoring a
// chunk from its tsvector costs tens of microseconds of the server's CPU,
// so a long query over a whole library of 20,000 chunks took 8 s, native
// and PGlite alike (load 30).
var exactUpTo = 5000

// exactText reports whether text searches among the papers sel selects
// score every chunk holding a query term (see SearchText).
func (e *engine) exactText(ctx context.Context, sel store.Selection) (bool, error) {
	if !e.textIndex {
		return true, nil
	}
	var n int64
	var err error
	if sel.Cond == "" {
		err = e.db.QueryRowContext(ctx, "SELECT chunks FROM text_stats").Scan(&n)
	} else {
		err = e.db.QueryRowContext(ctx, "SELECT count(*) FROM (SELECT 1 FROM chunks c WHERE c.paper_id IN (SELECT p.id FROM papers p WHERE "+
			sel.Cond+") LIMIT "+strconv.Itoa(exactUpTo+1)+") x", sel.Args...).Scan(&n)
	}
	return n <= int64(exactUpTo), err
}

// rankText returns the k best chunks for terms (weighted) among the papers
// sel selects, from the candidates exact says.
func (e *engine) rankText(ctx context.Context, terms []string, weights []float64, k int, sel store.Selection, exact bool) ([]store.Hit, error) {
	args := []any{terms, weights, k}
	var filter string
	if sel.Cond != "" {
		filter = "c.paper_id IN (SELECT p.id FROM papers p WHERE " + sel.Cond + ")"
	}
	var cand string
	if exact {
		args = append(args, tsquery(terms))
		cand = "SELECT c.paper_id, c.seq FROM chunks c WHERE c.tsv @@ $" + strconv.Itoa(len(args)) + "::tsquery"
		if filter != "" {
			cand += " AND " + filter
		}
	} else {
		cand = e.indexCandidates(terms, weights, k+k/2+64, filter, &args)
	}
	// The filter's ? parameters are numbered after the $n ones (translate).
	rows, err := e.db.QueryContext(ctx, fmt.Sprintf(bm25, cand), append(args, sel.Args...)...)
	if err != nil {
		return nil, fmt.Errorf("search text: %w", err)
	}
	hits, err := collectHits(rows)
	if err != nil {
		return nil, fmt.Errorf("search text: %w", err)
	}
	return hits, nil
}

// expand returns the feedback terms of the best hits, as fts.Set.Expand
// picks them: each hit weighs exp(score - best score), normalised.
func (e *engine) expand(ctx context.Context, top []store.Hit, terms []string, fb store.Feedback) ([]string, error) {
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
	rows, err := e.db.QueryContext(ctx, `
SELECT c.paper_id, c.seq, c.len, u.lexeme, cardinality(u.positions), t.df,
	(SELECT chunks FROM text_stats)
FROM unnest($1::text[], $2::int[]) AS d(paper_id, seq)
	JOIN chunks c ON c.paper_id = d.paper_id AND c.seq = d.seq
	CROSS JOIN LATERAL unnest(c.tsv) u
	JOIN terms t ON t.term = u.lexeme`, ids, seqs)
	if err != nil {
		return nil, fmt.Errorf("search text: feedback: %w", err)
	}
	defer rows.Close()
	ex := fts.NewExpansion(terms)
	df := map[string]int{}
	var (
		paper, term     string
		seq, n, tf, dfT int
		total           int64
	)
	for rows.Next() {
		if err := rows.Scan(&paper, &seq, &n, &term, &tf, &dfT, &total); err != nil {
			return nil, fmt.Errorf("search text: feedback: %w", err)
		}
		ex.Add(term, tf, n, weight[store.ChunkID(paper, seq)]/z)
		df[term] = dfT
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("search text: feedback: %w", err)
	}
	return ex.Top(fb.Terms, fb.MinIDF, func(t string) float64 {
		if df[t] <= 0 {
			return 0
		}
		return fts.IDF(float64(total), float64(df[t]))
	}), nil
}

// TermColumns are the columns of chunks Terms fills.
func (e *engine) TermColumns() []string { return []string{"tsv", "len", "stems"} }

// Terms returns a chunk's terms (see termVector) for TermColumns.
func (e *engine) Terms(title, text string) []any {
	tsv, n, stems := termVector(title, text)
	return []any{tsv, n, stems}
}

// Retitle derives the terms of paper id's chunks again from its title
// now (a row trigger keeps the statistics).
func (e *engine) Retitle(ctx context.Context, tx *sql.Tx, id string) error {
	rows, err := tx.QueryContext(ctx, "SELECT c.id, c.text, p.title FROM chunks c JOIN papers p ON p.id = c.paper_id WHERE c.paper_id = $1", id)
	if err != nil {
		return err
	}
	var ids []int64
	var tsvs, stems []string
	var lens []int32
	for rows.Next() {
		var cid int64
		var text, title string
		if err := rows.Scan(&cid, &text, &title); err != nil {
			rows.Close()
			return err
		}
		tsv, n, st := termVector(title, text)
		ids, tsvs, lens, stems = append(ids, cid), append(tsvs, tsv), append(lens, int32(n)), append(stems, st)
	}
	rows.Close()
	if err := rows.Err(); err != nil || len(ids) == 0 {
		return err
	}
	_, err = tx.ExecContext(ctx, `UPDATE chunks AS c SET tsv = n.tsv::tsvector, len = n.len, stems = n.stems
FROM unnest($1::bigint[], $2::text[], $3::int[], $4::text[]) AS n(id, tsv, len, stems) WHERE c.id = n.id`, ids, tsvs, lens, stems)
	return err
}
