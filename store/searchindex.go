package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/papers-cli/papers/store/fts"
	"github.com/papers-cli/papers/store/index"
)

// The library's side of the search index (package index, the engine): the
// change log the index is brought up to date from, the snapshots it reads
// the chunks in, and the searches, which select the papers a Filter allows
// here and rank them there.

// IndexDir is the search index's directory inside the library directory:
// segments, their deletion files and the commit that names the live ones.
// Everything in it is derived from library.db; deleting the directory is
// always safe (the next search or Refresh rebuilds it).
const IndexDir = "index"

// legacySidecars are the whole-library search caches of earlier versions
// (index.bin, and vectors.f32 before it), deleted once the index directory
// holds a commit.
var legacySidecars = []string{"index.bin", "vectors.f32"}

// openIndex opens the library's search index (nothing is read until a
// search needs it).
func (l *Library) openIndex() {
	l.ix = index.Open(index.Config{
		Dir:       filepath.Join(l.dir, IndexDir),
		ReadOnly:  l.readOnly != "",
		Wait:      busyTimeout,
		Snapshot:  l.snapshot,
		Committed: l.indexCommitted,
	})
}

// snapshot runs fn with the library in one read snapshot, on a connection
// that does not map the database (an index rebuild reads every chunk).
func (l *Library) snapshot(ctx context.Context, fn func(index.Source) error) error {
	return l.readLarge(ctx, func(tx *sql.Tx) error {
		return fn(txSource{ctx: ctx, tx: tx})
	})
}

// indexCommitted is told by the index that the changes up to pos are in a
// durable commit: the whole-library caches of earlier versions go, and the
// change log is pruned.
func (l *Library) indexCommitted(ctx context.Context, pos int64) {
	for _, f := range legacySidecars {
		os.Remove(filepath.Join(l.dir, f))
	}
	l.pruneLog(ctx, pos)
}

// txSource is the library in the snapshot of tx, as the index reads it.
type txSource struct {
	ctx context.Context
	tx  *sql.Tx
}

func (s txSource) Version() (index.Version, int64, error) { return libraryVersion(s.ctx, s.tx) }

func (s txSource) Changed(pos int64) ([]string, error) {
	return queryStrings(s.ctx, s.tx, "SELECT DISTINCT paper_id FROM index_log WHERE id > ? ORDER BY paper_id", pos)
}

func (s txSource) All(fn func(index.Chunk) error) error {
	rows, err := s.tx.QueryContext(s.ctx, `SELECT c.paper_id, p.title, c.seq, c.vector, c.text
		FROM chunks c JOIN papers p ON p.id = c.paper_id ORDER BY c.paper_id, c.seq`)
	if err != nil {
		return err
	}
	defer rows.Close()
	var c index.Chunk
	var blob sql.RawBytes
	for rows.Next() {
		if err := rows.Scan(&c.PaperID, &c.Title, &c.Seq, &blob, &c.Text); err != nil {
			return err
		}
		c.Vector = blob
		if err := fn(c); err != nil {
			return err
		}
	}
	return rows.Err()
}

func (s txSource) Papers(ids []string, fn func(index.Chunk) error) error {
	title, err := s.tx.PrepareContext(s.ctx, "SELECT title FROM papers WHERE id = ?")
	if err != nil {
		return err
	}
	defer title.Close()
	chunks, err := s.tx.PrepareContext(s.ctx, "SELECT seq, vector, text FROM chunks WHERE paper_id = ? ORDER BY seq")
	if err != nil {
		return err
	}
	defer chunks.Close()
	for _, id := range ids {
		c := index.Chunk{PaperID: id}
		if err := title.QueryRowContext(s.ctx, id).Scan(&c.Title); errors.Is(err, sql.ErrNoRows) {
			continue // deleted
		} else if err != nil {
			return err
		}
		rows, err := chunks.QueryContext(s.ctx, id)
		if err != nil {
			return err
		}
		var blob sql.RawBytes
		for rows.Next() {
			if err = rows.Scan(&c.Seq, &blob, &c.Text); err != nil {
				break
			}
			c.Vector = blob
			if err = fn(c); err != nil {
				break
			}
		}
		rows.Close()
		if err == nil {
			err = rows.Err()
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// acquireIndex returns a view of the search index as up to date as the
// library, held until releaseIndex (see index.Dir.Acquire).
func (l *Library) acquireIndex(ctx context.Context) (*index.View, error) {
	v, _, err := libraryVersion(ctx, l.db)
	if err != nil {
		return nil, err
	}
	x, err := l.ix.Acquire(ctx, v)
	return x, wrapBusy(err)
}

func (l *Library) releaseIndex(x *index.View) { l.ix.Release(x) }

// Refresh brings the search index up to date with the library now, so
// that the next search (in this or another process) does not pay for it,
// then merges segments if the merge policy asks for it. Ingest calls it
// after its last Put. Taking in a change costs about what the changed
// papers cost, not what the library costs. It waits up to the busy
// timeout for another process writing the index.
//
// The index is a cache of the library: when its directory cannot be
// written (a full disk, a read-only medium, no permission), or another
// process held its write lock for the whole busy timeout, Refresh leaves
// it behind and returns nil: the changes stay in the change log, searches
// take them in in memory, and the next refresh indexes them.
func (l *Library) Refresh(ctx context.Context) error {
	if l.eng != nil {
		return l.eng.Refresh(ctx)
	}
	if l.readOnly != "" {
		return fmt.Errorf("refresh the search index: %w", l.errReadOnly())
	}
	return wrapBusy(l.ix.Refresh(ctx))
}

// discardIndex deletes the index so that the next search rebuilds it.
func (l *Library) discardIndex(ctx context.Context) error { return l.ix.Discard(ctx) }

// checkIndex verifies the search index against the library (index.Dir.Check).
func (l *Library) checkIndex(ctx context.Context) error { return l.ix.Check(ctx) }

// Hit is one dense or lexical search result.
type Hit struct {
	ChunkID string  `json:"chunk"` // ChunkID(PaperID, Seq)
	PaperID string  `json:"id"`
	Seq     int     `json:"seq"`
	Score   float32 `json:"score"` // cosine similarity (dense) or -bm25 (text); higher is better
}

func hitsOf(hs []index.Hit) []Hit {
	out := make([]Hit, len(hs))
	for i, h := range hs {
		out[i] = Hit{ChunkID: ChunkID(h.PaperID, h.Seq), PaperID: h.PaperID, Seq: h.Seq, Score: h.Score}
	}
	return out
}

// Feedback configures pseudo-relevance feedback for SearchText (see
// index.Feedback); the zero value is plain BM25.
type Feedback = index.Feedback

// ErrDimensions is SearchVectors' error for a query vector whose length is
// not the library's: made by another embedder than the library's, or by the
// one it had before a Reindex committed meanwhile.
var ErrDimensions = errors.New("the query vector is not of the library's embedder")

// SearchVectors returns the k chunks whose vectors are most similar (dot
// product; cosine, as stored vectors are normalised and q is normalised
// here) to q, among the chunks of the papers f selects (f.Limit is
// ignored), best first, ties by (paper id, seq) ascending. k is clamped to
// the number of chunks; k <= 0 returns no hits.
//
// The search reads the index's segments (see Refresh): the first call of
// a process maps them, later calls reopen only what changed since. Filters
// pre-select the allowed papers with one SQL query, then the scan skips
// the others, so a filter never returns fewer than k hits while k matching
// chunks exist.
func (l *Library) SearchVectors(ctx context.Context, q []float32, k int, f Filter) ([]Hit, error) {
	if l.eng != nil {
		if k <= 0 {
			return nil, nil
		}
		return l.eng.SearchVectors(ctx, q, k, l.filterSelection(f))
	}
	idx, err := l.acquireIndex(ctx)
	if err != nil {
		return nil, fmt.Errorf("search vectors: %w", err)
	}
	defer l.releaseIndex(idx)
	if k <= 0 || idx.Live() == 0 {
		return nil, nil
	}
	if len(q) != idx.Dims() {
		return nil, fmt.Errorf("search vectors: query has %d dimensions, the library's vectors %d: %w", len(q), idx.Dims(), ErrDimensions)
	}
	sel, ok, err := l.allowedPapers(ctx, idx, f)
	if err != nil || !ok {
		return nil, err
	}
	hits, err := idx.SearchVectors(ctx, index.Normalized(q), k, sel)
	if err != nil {
		return nil, fmt.Errorf("search vectors: %w", err)
	}
	return hitsOf(hits), nil
}

// allowedPapers returns the papers of idx that f selects (nil: every
// paper, for an empty filter), and whether it selects any.
func (l *Library) allowedPapers(ctx context.Context, idx *index.View, f Filter) (index.Selection, bool, error) {
	if f.empty() {
		return nil, true, nil
	}
	cond, args := f.where("", false)
	ids, err := queryStrings(ctx, l.db, "SELECT id FROM papers WHERE "+cond+" ORDER BY id", args...)
	if err != nil {
		return nil, false, fmt.Errorf("select papers: %w", err)
	}
	sel, any := idx.Select(ids)
	return sel, any, nil
}

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
	if l.eng != nil {
		return l.eng.SearchText(ctx, terms, k, l.filterSelection(f), fb)
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

// searchText is SearchText on the view idx.
func (l *Library) searchText(ctx context.Context, idx *index.View, terms []string, k int, f Filter, fb Feedback) ([]Hit, error) {
	sel, ok, err := l.allowedPapers(ctx, idx, f)
	if err != nil || !ok {
		return nil, err
	}
	hits, err := idx.SearchText(terms, k, sel, fb)
	return hitsOf(hits), err
}

// libraryVersion reads the version of the library in q's snapshot, and how
// far the change log was pruned (log rows up to it are gone). The log's
// position is its AUTOINCREMENT counter, which pruning leaves alone (and
// which is absent until the first row: position 0).
func libraryVersion(ctx context.Context, q querier) (v index.Version, pruned int64, err error) {
	rows, err := q.QueryContext(ctx, `SELECT key, value FROM manifest WHERE key IN (?, ?, ?, ?)
		UNION ALL SELECT 'index_log', seq FROM sqlite_sequence WHERE name = 'index_log'`,
		keyLibraryID, keyDimensions, keyVectorsEpoch, keyIndexPruned)
	if err != nil {
		return v, 0, wrapBusy(err)
	}
	defer rows.Close()
	for rows.Next() {
		var k, val string
		if err := rows.Scan(&k, &val); err != nil {
			return v, 0, err
		}
		switch k {
		case keyLibraryID:
			v.LibraryID = val
		case keyDimensions:
			v.Dims, _ = strconv.Atoi(val)
		case keyVectorsEpoch:
			v.Epoch, _ = strconv.ParseInt(val, 10, 64)
		case keyIndexPruned:
			pruned, _ = strconv.ParseInt(val, 10, 64)
		case "index_log":
			v.Pos, _ = strconv.ParseInt(val, 10, 64)
		}
	}
	if err := rows.Err(); err != nil {
		return v, 0, err
	}
	if len(v.LibraryID) != 32 {
		return v, 0, errors.New("library id is not 32 hex digits")
	}
	return v, pruned, nil
}

// indexLogSchema is the library's change log (schema 4): every paper
// inserted, deleted or retitled (or renumbered) adds its id, so that the
// search index can take in exactly the papers that changed since it was
// committed. Chunks change only with their paper's row (Put replaces the
// row, its chunks go by ON DELETE CASCADE) or all at once by Reindex
// (which bumps vectors_epoch, and the index is rebuilt). AUTOINCREMENT
// keeps ids growing after the log is pruned. Schema 4 also gave Count a
// covering index.
const indexLogSchema = `
CREATE TABLE IF NOT EXISTS index_log (
	id       INTEGER PRIMARY KEY AUTOINCREMENT,
	paper_id TEXT NOT NULL
);
CREATE TRIGGER IF NOT EXISTS index_log_insert AFTER INSERT ON papers BEGIN
	INSERT INTO index_log (paper_id) VALUES (new.id);
END;
CREATE TRIGGER IF NOT EXISTS index_log_delete AFTER DELETE ON papers BEGIN
	INSERT INTO index_log (paper_id) VALUES (old.id);
END;
CREATE TRIGGER IF NOT EXISTS index_log_update AFTER UPDATE OF id, title, chunks ON papers BEGIN
	INSERT INTO index_log (paper_id) VALUES (old.id);
	INSERT INTO index_log (paper_id) SELECT new.id WHERE new.id != old.id;
END;
-- Count's sum of chunks from an index (2 MB at 100k papers) instead of a
-- scan of the papers table with its abstracts (700 MB, all of it mapped).
CREATE INDEX IF NOT EXISTS papers_chunks ON papers (chunks);
`

// keyIndexPruned is the manifest key recording up to which id the change
// log was pruned.
const keyIndexPruned = "index_log_pruned"

// changedPapers returns the ids of the papers logged after pos, ascending.
func changedPapers(ctx context.Context, tx *sql.Tx, pos int64) ([]string, error) {
	return queryStrings(ctx, tx, "SELECT DISTINCT paper_id FROM index_log WHERE id > ? ORDER BY paper_id", pos)
}

// queryStrings returns the one text column of what a query selects.
func queryStrings(ctx context.Context, q querier, query string, args ...any) ([]string, error) {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, wrapBusy(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, rows.Err()
}

// readLarge runs fn in a read-only transaction on a connection that does
// not map the database: a scan of the whole chunks table through SQLite's
// mmap would add the file (GBs at a million chunks) to the process's
// resident memory.
func (l *Library) readLarge(ctx context.Context, fn func(tx *sql.Tx) error) error {
	if l.eng != nil {
		return l.read(ctx, fn)
	}
	conn, release, err := l.unmappedConn(ctx)
	if err != nil {
		return err
	}
	defer release()
	return l.readOn(ctx, conn, fn)
}

// unmappedConn returns a connection of its own that reads the database
// through SQLite's page cache (at most cache_size) rather than its memory
// map, for a pass over a large part of the file; release gives it back
// with the map restored.
func (l *Library) unmappedConn(ctx context.Context) (conn *sql.Conn, release func(), err error) {
	conn, err = l.db.Conn(ctx)
	if err != nil {
		return nil, nil, wrapBusy(err)
	}
	if _, err := conn.ExecContext(ctx, "PRAGMA mmap_size = 0"); err != nil {
		conn.Close()
		return nil, nil, wrapBusy(err)
	}
	return conn, func() {
		conn.ExecContext(context.WithoutCancel(ctx), "PRAGMA mmap_size = "+strconv.Itoa(mmapSize))
		conn.Close()
	}, nil
}

// pruneLog deletes the change log up to pos, which a durable commit
// holds, once there is enough of it to be worth a write; it never waits
// for the database's write lock.
func (l *Library) pruneLog(ctx context.Context, pos int64) {
	var pruned int64
	var s string
	if err := l.db.QueryRowContext(ctx, "SELECT value FROM manifest WHERE key = ?", keyIndexPruned).Scan(&s); err == nil {
		pruned, _ = strconv.ParseInt(s, 10, 64)
	}
	if pos-pruned < pruneEvery {
		return
	}
	conn, err := l.db.Conn(ctx)
	if err != nil {
		return
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "PRAGMA busy_timeout = 0"); err != nil {
		return
	}
	defer conn.ExecContext(context.WithoutCancel(ctx), "PRAGMA busy_timeout = "+strconv.Itoa(int(busyTimeout/time.Millisecond)))
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, "DELETE FROM index_log WHERE id <= ?", pos); err != nil {
		return
	}
	if err := setManifest(ctx, tx, keyIndexPruned, strconv.FormatInt(pos, 10)); err != nil {
		return
	}
	tx.Commit()
}

// pruneEvery is how many change log rows a refresh lets pile up before it
// prunes them.
var pruneEvery int64 = 1000

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
			var err error
			if c.Vector, err = l.decodeVec(blob); err != nil {
				return err
			}
			if err := fn(c); err != nil {
				return err
			}
		}
		return rows.Err()
	})
}
