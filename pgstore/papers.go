package pgstore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/papers-cli/papers/store"
)

const paperColumns = `id, version, title, abstract, authors, affiliations, published, updated,
	categories, comment, journal_ref, doi, url, source, pages, chunks, content_hash, text_error, added_at,
	arxiv_id, type, venue, volume, issue, page_range, publisher, issued, meta_source`

// Item is one paper with its chunks, for PutBatch.
type Item struct {
	Paper  store.Paper
	Chunks []store.Chunk
}

// Put stores p with exactly the given chunks, replacing the paper's
// previous row and chunks, in one transaction. Chunks must carry vectors
// of the library's dimensions (EnsureEmbedder first). It returns Added or
// Updated.
func (s *Store) Put(ctx context.Context, p store.Paper, chunks []store.Chunk) (store.PutResult, error) {
	rs, err := s.PutBatch(ctx, []Item{{Paper: p, Chunks: chunks}})
	if err != nil {
		return 0, err
	}
	return rs[0], nil
}

// PutBatch stores several papers as Put does, all in one transaction.
func (s *Store) PutBatch(ctx context.Context, items []Item) ([]store.PutResult, error) {
	man, err := s.Manifest(ctx)
	if err != nil {
		return nil, err
	}
	for _, it := range items {
		if it.Paper.ID == "" {
			return nil, errors.New("put paper: empty id")
		}
		for _, c := range it.Chunks {
			if c.PaperID != "" && c.PaperID != it.Paper.ID {
				return nil, fmt.Errorf("put paper %s: chunk %d belongs to paper %q", it.Paper.ID, c.Seq, c.PaperID)
			}
			if man.Dimensions == 0 {
				return nil, fmt.Errorf("put paper %s: %w", it.Paper.ID, store.ErrNoEmbedder)
			}
			if len(c.Vector) != man.Dimensions {
				return nil, fmt.Errorf("put paper %s: chunk %d has a vector of %d dimensions, the library's are %d: %w",
					it.Paper.ID, c.Seq, len(c.Vector), man.Dimensions, store.ErrDimensions)
			}
		}
	}
	results := make([]store.PutResult, len(items))
	err = s.tx(ctx, func(tx pgx.Tx) error { return s.put(ctx, tx, items, results) })
	if err != nil {
		return nil, fmt.Errorf("put %d papers: %w", len(items), err)
	}
	return results, nil
}

// put writes items in tx, a few statements for the whole batch (each
// statement is a round trip, a few milliseconds on PGlite), and says in
// results whether each paper was added or updated.
func (s *Store) put(ctx context.Context, tx pgx.Tx, items []Item, results []store.PutResult) error {
	ids := make([]string, len(items))
	keys := make([]string, len(items))
	for i, it := range items {
		ids[i] = it.Paper.ID
		keys[i] = "papers:" + s.schema + ":paper:" + it.Paper.ID
	}
	// Writers of the same paper take turns: without the lock two first
	// Puts of one id both find no row and both insert its chunks. The
	// locks are taken in one order, so two batches never wait for each
	// other in a circle.
	if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock(hashtextextended(k, 0)) FROM (SELECT DISTINCT k FROM unnest($1::text[]) k ORDER BY k) x", keys); err != nil {
		return err
	}
	rows, err := tx.Query(ctx, s.sql("SELECT id, added_at FROM {s}.papers WHERE id = ANY($1::text[]) FOR UPDATE"), ids)
	if err != nil {
		return err
	}
	held := map[string]*int64{}
	var id string
	var added *int64
	if _, err := pgx.ForEachRow(rows, []any{&id, &added}, func() error { held[id] = added; return nil }); err != nil {
		return err
	}
	if len(held) > 0 {
		old := make([]string, 0, len(held))
		for id := range held {
			old = append(old, id)
		}
		for _, q := range []string{"DELETE FROM {s}.chunks WHERE paper_id = ANY($1::text[])", "DELETE FROM {s}.paper_categories WHERE paper_id = ANY($1::text[])"} {
			if _, err := tx.Exec(ctx, s.sql(q), old); err != nil {
				return err
			}
		}
	}
	now := time.Now().UTC()
	var (
		cols       [28][]any
		catPaper   []string
		catName    []string
		chunks     chunkRows
		seenInThis = map[string]int{}
	)
	for i, it := range items {
		p := it.Paper
		results[i] = store.Added
		if a, ok := held[p.ID]; ok {
			results[i] = store.Updated
			if a != nil {
				p.AddedAt = time.Unix(0, *a).UTC()
			}
		}
		if _, ok := seenInThis[p.ID]; ok {
			// the same paper twice in one batch: the last one wins, as
			// two Puts in a row would leave it
			results[i] = store.Updated
		}
		seenInThis[p.ID] = i
		if p.AddedAt.IsZero() {
			p.AddedAt = now
		}
		p.Chunks = len(it.Chunks)
		meta := "{}"
		if len(p.MetadataSource) > 0 {
			b, _ := json.Marshal(p.MetadataSource)
			meta = string(b)
		}
		for c, v := range []any{p.ID, p.Version, p.Title, p.Abstract, jsonList(p.Authors), jsonList(p.Affiliations), nanos(p.Published), nanos(p.Updated),
			jsonList(p.Categories), p.Comment, p.JournalRef, p.DOI, p.URL, p.Source, p.Pages, p.Chunks, p.ContentHash, p.TextError, nanos(p.AddedAt),
			p.ArxivID, p.Type, p.Venue, p.Volume, p.Issue, p.PageRange, p.Publisher, p.Issued, meta} {
			cols[c] = append(cols[c], v)
		}
		for _, cat := range p.Categories {
			catPaper, catName = append(catPaper, p.ID), append(catName, cat)
		}
	}
	for i, it := range items {
		if seenInThis[it.Paper.ID] != i {
			continue
		}
		for _, c := range it.Chunks {
			c.PaperID = it.Paper.ID
			chunks.add(it.Paper.Title, c)
		}
	}
	// Paper rows: the last of one id in the batch wins.
	_, err = tx.Exec(ctx, s.sql(`INSERT INTO {s}.papers AS p (`+paperColumns+`)
SELECT DISTINCT ON (id) `+paperColumns+` FROM unnest($1::text[], $2::int[], $3::text[], $4::text[], $5::text[], $6::text[], $7::bigint[], $8::bigint[],
	$9::text[], $10::text[], $11::text[], $12::text[], $13::text[], $14::text[], $15::int[], $16::int[], $17::text[], $18::text[], $19::bigint[],
	$20::text[], $21::text[], $22::text[], $23::text[], $24::text[], $25::text[], $26::text[], $27::text[], $28::text[])
	WITH ORDINALITY AS r(`+paperColumns+`, n) ORDER BY id, n DESC
ON CONFLICT (id) DO UPDATE SET version = excluded.version, title = excluded.title, abstract = excluded.abstract,
	authors = excluded.authors, affiliations = excluded.affiliations, published = excluded.published,
	updated = excluded.updated, categories = excluded.categories, comment = excluded.comment,
	journal_ref = excluded.journal_ref, doi = excluded.doi, url = excluded.url, source = excluded.source,
	pages = excluded.pages, chunks = excluded.chunks, content_hash = excluded.content_hash,
	text_error = excluded.text_error, added_at = excluded.added_at, arxiv_id = excluded.arxiv_id,
	type = excluded.type, venue = excluded.venue, volume = excluded.volume, issue = excluded.issue,
	page_range = excluded.page_range, publisher = excluded.publisher, issued = excluded.issued,
	meta_source = excluded.meta_source`), columnArgs(cols[:])...)
	if err != nil {
		return err
	}
	if len(catPaper) > 0 {
		if _, err := tx.Exec(ctx, s.sql("INSERT INTO {s}.paper_categories (paper_id, category) SELECT * FROM unnest($1::text[], $2::text[]) ON CONFLICT DO NOTHING"),
			catPaper, catName); err != nil {
			return err
		}
	}
	return chunks.insert(ctx, tx, s)
}

// chunkRows collects chunks, with their terms and vectors in the forms the
// server reads, for one INSERT.
type chunkRows struct {
	paper, section, text, tsv, stems []string
	vec                              []*string // nil: no vector
	seq, start, end, length          []int32
}

// add adds chunk c of the paper titled title (its title's terms are the
// chunk's too).
func (r *chunkRows) add(title string, c store.Chunk) {
	tsv, l, st := termVector(title, c.Text)
	var vec *string
	if c.Vector != nil {
		lit := vectorLiteral(normalized(c.Vector))
		vec = &lit
	}
	r.paper, r.seq, r.start, r.end = append(r.paper, c.PaperID), append(r.seq, int32(c.Seq)), append(r.start, int32(c.PageStart)), append(r.end, int32(c.PageEnd))
	r.section, r.text, r.vec = append(r.section, c.Section), append(r.text, c.Text), append(r.vec, vec)
	r.tsv, r.length, r.stems = append(r.tsv, tsv), append(r.length, int32(l)), append(r.stems, st)
}

// insert writes the chunks added; the triggers count their terms.
func (r *chunkRows) insert(ctx context.Context, tx pgx.Tx, s *Store) error {
	if len(r.paper) == 0 {
		return nil
	}
	_, err := tx.Exec(ctx, s.sql(`INSERT INTO {s}.chunks (paper_id, seq, page_start, page_end, section, text, embedding, tsv, len, stems)
SELECT paper_id, seq, ps, pe, sec, txt, emb::vector, tsv::tsvector, len, stems
FROM unnest($1::text[], $2::int[], $3::int[], $4::int[], $5::text[], $6::text[], $7::text[], $8::text[], $9::int[], $10::text[])
	AS c(paper_id, seq, ps, pe, sec, txt, emb, tsv, len, stems)`),
		r.paper, r.seq, r.start, r.end, r.section, r.text, r.vec, r.tsv, r.length, r.stems)
	return err
}

// columnArgs turns per-column value lists into typed arrays pgx encodes.
func columnArgs(cols [][]any) []any {
	out := make([]any, len(cols))
	for i, col := range cols {
		switch col[0].(type) {
		case string:
			a := make([]string, len(col))
			for j, v := range col {
				a[j] = v.(string)
			}
			out[i] = a
		case int:
			a := make([]int32, len(col))
			for j, v := range col {
				a[j] = int32(v.(int))
			}
			out[i] = a
		case *int64:
			a := make([]*int64, len(col))
			for j, v := range col {
				a[j] = v.(*int64)
			}
			out[i] = a
		}
	}
	return out
}

// Delete removes a paper and its chunks (store.ErrNotFound if absent).
func (s *Store) Delete(ctx context.Context, id string) error {
	return s.tx(ctx, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, s.sql("DELETE FROM {s}.papers WHERE id = $1"), id)
		if err != nil {
			return fmt.Errorf("delete paper %s: %w", id, err)
		}
		if tag.RowsAffected() == 0 {
			return fmt.Errorf("delete paper %s: %w", id, store.ErrNotFound)
		}
		return nil
	})
}

// Get returns one paper (store.ErrNotFound if absent).
func (s *Store) Get(ctx context.Context, id string) (store.Paper, error) {
	ps, err := s.queryPapers(ctx, s.sql("SELECT "+paperColumns+" FROM {s}.papers WHERE id = $1"), id)
	if err != nil {
		return store.Paper{}, fmt.Errorf("get paper %s: %w", id, err)
	}
	if len(ps) == 0 {
		return store.Paper{}, fmt.Errorf("get paper %s: %w", id, store.ErrNotFound)
	}
	return ps[0], nil
}

// List returns the papers f selects, newest published first (no date
// last), ties by id, as store.Library.List does.
func (s *Store) List(ctx context.Context, f store.Filter) ([]store.Paper, error) {
	var args []any
	cols := paperColumns
	if f.Brief {
		cols = strings.Replace(cols, "abstract,", "'',", 1)
	}
	q := "SELECT " + cols + " FROM {s}.papers WHERE id IN (" + s.filterSQL(f, &args) + ") ORDER BY published DESC NULLS LAST, id"
	if f.Limit > 0 {
		q += " LIMIT " + strconv.Itoa(f.Limit)
	}
	if f.Offset > 0 {
		q += " OFFSET " + strconv.Itoa(f.Offset)
	}
	ps, err := s.queryPapers(ctx, s.sql(q), args...)
	if err != nil {
		return nil, fmt.Errorf("list papers: %w", err)
	}
	return ps, nil
}

func (s *Store) queryPapers(ctx context.Context, q string, args ...any) ([]store.Paper, error) {
	rows, err := s.pool.Query(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	var ps []store.Paper
	var p store.Paper
	var authors, affs, cats, meta string
	var pub, upd, added *int64
	_, err = pgx.ForEachRow(rows, []any{&p.ID, &p.Version, &p.Title, &p.Abstract, &authors, &affs, &pub, &upd,
		&cats, &p.Comment, &p.JournalRef, &p.DOI, &p.URL, &p.Source, &p.Pages, &p.Chunks,
		&p.ContentHash, &p.TextError, &added,
		&p.ArxivID, &p.Type, &p.Venue, &p.Volume, &p.Issue, &p.PageRange, &p.Publisher, &p.Issued, &meta}, func() error {
		q := p
		q.MetadataSource = nil
		if meta != "{}" && meta != "" {
			_ = json.Unmarshal([]byte(meta), &q.MetadataSource)
		}
		q.Authors, q.Affiliations, q.Categories = parseList(authors), parseList(affs), parseList(cats)
		q.Published, q.Updated, q.AddedAt = timeOf(pub), timeOf(upd), timeOf(added)
		ps = append(ps, q)
		return nil
	})
	return ps, err
}

// ChunkTexts returns the chunks with the given ChunkIDs (without vectors),
// keyed by ChunkID; ids of no chunk are left out.
func (s *Store) ChunkTexts(ctx context.Context, ids []string) (map[string]store.Chunk, error) {
	papers, seqs := make([]string, 0, len(ids)), make([]int32, 0, len(ids))
	for _, id := range ids {
		i := strings.LastIndexByte(id, '#')
		if i < 0 {
			continue
		}
		n, err := strconv.Atoi(id[i+1:])
		if err != nil {
			continue
		}
		papers, seqs = append(papers, id[:i]), append(seqs, int32(n))
	}
	rows, err := s.pool.Query(ctx, s.sql(`SELECT c.paper_id, c.seq, c.page_start, c.page_end, c.section, c.text
FROM unnest($1::text[], $2::int[]) AS d(paper_id, seq) JOIN {s}.chunks c ON c.paper_id = d.paper_id AND c.seq = d.seq`), papers, seqs)
	if err != nil {
		return nil, fmt.Errorf("read chunks: %w", err)
	}
	out := make(map[string]store.Chunk, len(ids))
	var c store.Chunk
	_, err = pgx.ForEachRow(rows, []any{&c.PaperID, &c.Seq, &c.PageStart, &c.PageEnd, &c.Section, &c.Text}, func() error {
		out[store.ChunkID(c.PaperID, c.Seq)] = c
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read chunks: %w", err)
	}
	return out, nil
}

// Chunks returns a paper's chunks in seq order, with their vectors when
// withVectors is set (store.ErrNotFound if the paper is absent).
func (s *Store) Chunks(ctx context.Context, paperID string, withVectors bool) ([]store.Chunk, error) {
	vcol := "NULL::text"
	if withVectors {
		vcol = "embedding::text"
	}
	var cs []store.Chunk
	err := s.tx(ctx, func(tx pgx.Tx) error {
		cs = cs[:0]
		var ok bool
		if err := tx.QueryRow(ctx, s.sql("SELECT EXISTS (SELECT 1 FROM {s}.papers WHERE id = $1)"), paperID).Scan(&ok); err != nil {
			return err
		}
		if !ok {
			return store.ErrNotFound
		}
		rows, err := tx.Query(ctx, s.sql("SELECT seq, page_start, page_end, section, text, "+vcol+" FROM {s}.chunks WHERE paper_id = $1 ORDER BY seq"), paperID)
		if err != nil {
			return err
		}
		var c store.Chunk
		var vec *string
		_, err = pgx.ForEachRow(rows, []any{&c.Seq, &c.PageStart, &c.PageEnd, &c.Section, &c.Text, &vec}, func() error {
			c.PaperID, c.Vector = paperID, nil
			if vec != nil {
				v, err := parseVector(*vec)
				if err != nil {
					return err
				}
				c.Vector = v
			}
			cs = append(cs, c)
			return nil
		})
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("read the chunks of %s: %w", paperID, err)
	}
	return cs, nil
}

func jsonList(s []string) string {
	if s == nil {
		s = []string{}
	}
	b, _ := json.Marshal(s)
	return string(b)
}

func parseList(s string) []string {
	var out []string
	if err := json.Unmarshal([]byte(s), &out); err != nil || len(out) == 0 {
		return nil
	}
	return out
}

func nanos(t time.Time) *int64 {
	if t.IsZero() {
		return nil
	}
	n := t.UnixNano()
	return &n
}

func timeOf(v *int64) time.Time {
	if v == nil {
		return time.Time{}
	}
	return time.Unix(0, *v).UTC()
}
