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
	err = s.tx(ctx, func(tx pgx.Tx) error {
		for i, it := range items {
			r, err := s.put(ctx, tx, it.Paper, it.Chunks)
			if err != nil {
				return fmt.Errorf("put paper %s: %w", it.Paper.ID, err)
			}
			results[i] = r
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return results, nil
}

func (s *Store) put(ctx context.Context, tx pgx.Tx, p store.Paper, chunks []store.Chunk) (store.PutResult, error) {
	// Writers of the same paper take turns: without the lock two first
	// Puts of one id both find no row and both insert its chunks.
	if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock(hashtextextended($1, 0))", "papers:"+s.schema+":paper:"+p.ID); err != nil {
		return 0, err
	}
	var added *int64
	err := tx.QueryRow(ctx, s.sql("SELECT added_at FROM {s}.papers WHERE id = $1 FOR UPDATE"), p.ID).Scan(&added)
	result := store.Updated
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		result = store.Added
	case err != nil:
		return 0, err
	}
	if result == store.Updated {
		if _, err := tx.Exec(ctx, s.sql("DELETE FROM {s}.chunks WHERE paper_id = $1"), p.ID); err != nil {
			return 0, err
		}
		if _, err := tx.Exec(ctx, s.sql("DELETE FROM {s}.paper_categories WHERE paper_id = $1"), p.ID); err != nil {
			return 0, err
		}
		if added != nil {
			p.AddedAt = time.Unix(0, *added).UTC()
		}
	}
	if p.AddedAt.IsZero() {
		p.AddedAt = time.Now().UTC()
	}
	p.Chunks = len(chunks)
	meta := "{}"
	if len(p.MetadataSource) > 0 {
		b, _ := json.Marshal(p.MetadataSource)
		meta = string(b)
	}
	_, err = tx.Exec(ctx, s.sql(`INSERT INTO {s}.papers (`+paperColumns+`)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22, $23, $24, $25, $26, $27, $28)
ON CONFLICT (id) DO UPDATE SET version = excluded.version, title = excluded.title, abstract = excluded.abstract,
	authors = excluded.authors, affiliations = excluded.affiliations, published = excluded.published,
	updated = excluded.updated, categories = excluded.categories, comment = excluded.comment,
	journal_ref = excluded.journal_ref, doi = excluded.doi, url = excluded.url, source = excluded.source,
	pages = excluded.pages, chunks = excluded.chunks, content_hash = excluded.content_hash,
	text_error = excluded.text_error, added_at = excluded.added_at, arxiv_id = excluded.arxiv_id,
	type = excluded.type, venue = excluded.venue, volume = excluded.volume, issue = excluded.issue,
	page_range = excluded.page_range, publisher = excluded.publisher, issued = excluded.issued,
	meta_source = excluded.meta_source`),
		p.ID, p.Version, p.Title, p.Abstract, jsonList(p.Authors), jsonList(p.Affiliations), nanos(p.Published), nanos(p.Updated),
		jsonList(p.Categories), p.Comment, p.JournalRef, p.DOI, p.URL, p.Source, p.Pages, p.Chunks, p.ContentHash, p.TextError, nanos(p.AddedAt),
		p.ArxivID, p.Type, p.Venue, p.Volume, p.Issue, p.PageRange, p.Publisher, p.Issued, meta)
	if err != nil {
		return 0, err
	}
	if len(p.Categories) > 0 {
		if _, err := tx.Exec(ctx, s.sql("INSERT INTO {s}.paper_categories (paper_id, category) SELECT $1, c FROM unnest($2::text[]) c ON CONFLICT DO NOTHING"),
			p.ID, p.Categories); err != nil {
			return 0, err
		}
	}
	if len(chunks) == 0 {
		return result, nil
	}
	n := len(chunks)
	seqs, starts, ends := make([]int32, n), make([]int32, n), make([]int32, n)
	sections, texts, vecs, tsvs := make([]string, n), make([]string, n), make([]string, n), make([]string, n)
	lens := make([]int32, n)
	for i, c := range chunks {
		seqs[i], starts[i], ends[i] = int32(c.Seq), int32(c.PageStart), int32(c.PageEnd)
		sections[i], texts[i] = c.Section, c.Text
		vecs[i] = vectorLiteral(normalized(c.Vector))
		tsv, l := termVector(p.Title, c.Text)
		tsvs[i], lens[i] = tsv, int32(l)
	}
	_, err = tx.Exec(ctx, s.sql(`INSERT INTO {s}.chunks (paper_id, seq, page_start, page_end, section, text, embedding, tsv, len)
SELECT $1, seq, ps, pe, sec, txt, emb::vector, tsv::tsvector, len
FROM unnest($2::int[], $3::int[], $4::int[], $5::text[], $6::text[], $7::text[], $8::text[], $9::int[]) AS c(seq, ps, pe, sec, txt, emb, tsv, len)`),
		p.ID, seqs, starts, ends, sections, texts, vecs, tsvs, lens)
	return result, err
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
