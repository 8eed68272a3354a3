package store

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/papers-cli/papers/internal/localfile"
	"github.com/papers-cli/papers/internal/sqlitefile"
	"modernc.org/sqlite"

	"github.com/papers-cli/papers/internal/diskfile"
	"github.com/papers-cli/papers/store/index"
)

// FileName is the name of the SQLite file inside the library directory.
const FileName = "library.db"

// SchemaVersion is the schema this package writes (PRAGMA user_version).
// Version 2 dropped version 1's FTS5 table chunks_fts: the full-text index
// lives in the search index (package fts), built from chunks.text.
// Version 3 added bibliographic columns, tags and identifiers, and merged
// the duplicates earlier versions made (see migrate3.go). Version 4 added
// the change log the search index is updated from (index_log, filled by
// triggers; see index.go). Version 5 made the topic tables part of the
// schema (they were made on a topic's first use). Version 6 added
// chunks.page_breaks (Chunk.PageBreaks). Version 7 added each chunk's
// role (see migrate7.go).
const SchemaVersion = 7

// mmapSize is how much of the database file SQLite reads in place: the
// pages it reads there count in the process's resident memory for as
// long as the connection lives, so a long import or a pass over a large
// library grew by the file's size (1 GiB before: a 50k-item Zotero import
// peaked at 463 MB, 199 MB of it the mapped library file; with 128 MiB,
// 352 MB). Pages past it are read into SQLite's page cache.
const mmapSize = 128 << 20

// busyTimeout is how long a write waits for another connection or process
// that holds the write lock before giving up with ErrBusy. Ingest commits one
// paper at a time, so a concurrent ingest never holds the lock for long;
// Reindex holds it for the whole re-embedding.
var busyTimeout = 30 * time.Second // a variable so tests can shorten it

var (
	// ErrNotFound is returned when a paper (or chunk) is not in the library.
	ErrNotFound = errors.New("not in the library")
	// ErrEmbedderMismatch is returned when the vectors of the library were
	// made by another embedder (name or dimensions) than the one in use.
	ErrEmbedderMismatch = errors.New("embedder mismatch")
	// ErrBusy is returned when another process (or Library handle) held the
	// library's write lock for longer than the busy timeout (30 s).
	ErrBusy = errors.New("another papers process holds the library")
	// ErrNoEmbedder is returned by Put when chunks carry vectors but
	// EnsureEmbedder was never called on the library.
	ErrNoEmbedder = errors.New("the library has no embedder recorded")
)

// Library is an open library directory. It is safe for concurrent use by
// multiple goroutines; several processes may open the same library at once
// (readers never wait; writers wait up to 30 s for each other).
type Library struct {
	dir string
	db  *sql.DB

	notes []string // what Open's migration did, for MigrationNotes
	// readOnly says why the library was opened read-only, "" when it can
	// be written (see ReadOnly).
	readOnly string
	// damaged is set when the library file was found damaged before (see
	// MarkDamaged): it is open read-only, and writes say why.
	damaged bool

	ix *index.Dir // the search index, read by the first search (searchindex.go)
	// eng is the search of a library in a database server (OpenServer):
	// nil for library.db, whose search is ix.
	eng Engine

	mu sync.Mutex // guards embedder
	// embedder is the name EnsureEmbedder last agreed to on this handle:
	// PutBatch refuses vectors once the manifest names another.
	embedder string
}

// Manifest describes how the library's contents were made.
type Manifest struct {
	Schema     int       `json:"schema"`
	Embedder   string    `json:"embedder"`   // "" until EnsureEmbedder
	Dimensions int       `json:"dimensions"` // 0 until EnsureEmbedder
	Chunker    string    `json:"chunker"`    // "" until SetChunker
	Created    time.Time `json:"created"`
}

// manifest keys
const (
	keySchema     = "schema"
	keyEmbedder   = "embedder"
	keyDimensions = "dimensions"
	keyChunker    = "chunker"
	keyCreated    = "created"
	keyLibraryID  = "library_id" // random, identifies this database for the vector sidecar
	// keyVectorsGen is bumped by every transaction that changes chunks or
	// writes or deletes a paper's row (Put of a paper not Unchanged,
	// Delete, Reindex, a topic's purge): PaperVectors takes its sidecar
	// of the same generation as current.
	keyVectorsGen = "vectors_gen"
	// keyVectorsEpoch is bumped by Reindex, which replaces every vector
	// without changing the papers' fingerprints (absent: 0).
	keyVectorsEpoch = "vectors_epoch"
)

// Open opens the library in dir, creating the directory (0700) and the
// database (with its schema) if they do not exist, and migrating an older
// schema. It reads no papers, chunks or vectors: opening costs the same at
// any library size. The caller must Close the library.
//
// A library written by a newer papers (higher schema) is refused.
//
// A library that cannot be written (on a read-only medium, in files this
// user may not write, on a disk too full for SQLite to create the file it
// reads a WAL database with) is opened read-only instead: ReadOnly says
// why, reads work, writes fail with ErrReadOnly and leave it as it was.
func Open(ctx context.Context, dir string) (*Library, error) {
	if dir == "" {
		return nil, errors.New("open library: no directory given")
	}
	if st, err := os.Stat(dir); err == nil && !st.IsDir() {
		return nil, fmt.Errorf("open library: %s is %s, not a directory", dir, localfile.Kind(st.Mode()))
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("open library: %w", err)
	}
	path := filepath.Join(dir, FileName)
	// SQLite would open a named pipe or a device in the library file's
	// place and wait on it, or read it for ever.
	if _, err := localfile.Check(path); errors.Is(err, localfile.ErrNotRegular) {
		return nil, fmt.Errorf("open library: %w", err)
	}
	// A library file that is not there or empty is a library to create:
	// if it cannot be, that is what the error says (not "schema 0"), and
	// the empty file is not left behind to say it again.
	fresh := true
	if st, err := os.Stat(path); err == nil && st.Size() > 0 {
		fresh = false
	}
	// synchronous=FULL: in WAL mode a commit is fsynced, so a paper whose Put
	// returned survives power loss too, not only kill -9 (NORMAL would suffice
	// for kill -9 but may lose the last commits on power loss). It costs one
	// fsync per Put, i.e. per paper, which is small next to embedding it.
	dsn := sqlitefile.URI(path) +
		"?_pragma=busy_timeout(" + strconv.Itoa(int(busyTimeout/time.Millisecond)) + ")" +
		"&_pragma=journal_mode(WAL)" +
		"&_pragma=synchronous(FULL)" +
		"&_pragma=foreign_keys(1)" +
		"&_pragma=temp_store(MEMORY)" + // sorts and FTS scratch never spill to temp files
		"&_pragma=cache_size(-16384)" + // 16 MiB of page cache per connection, used as needed
		"&_pragma=mmap_size(" + strconv.Itoa(mmapSize) + ")" + // read pages in place from the OS cache: no copy into the page cache
		"&_txlock=immediate"
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("open library %s: %w", path, err)
	}
	if why := Damaged(dir); why != "" {
		// Found damaged before: read what can be read, write nothing into
		// it (papers check --repair makes a whole one).
		db.Close()
		return openDamaged(ctx, dir, path, why)
	}
	l := &Library{dir: dir, db: db}
	err = l.openWritable(ctx)
	if err == nil {
		l.openIndex()
		return l, nil
	}
	if IsDamaged(err) {
		db.Close()
		MarkDamaged(dir, err)
		return nil, fmt.Errorf("open library %s: %w", path, damaged(err))
	}
	db.Close()
	why := ""
	if cannotWrite(err) {
		why = writeProblem(dir, path)
	}
	if why == "" {
		return nil, fmt.Errorf("open library %s: %w", path, err)
	}
	if fresh {
		removeEmpty(path)
		cause := fmt.Errorf("%w: %s", ErrReadOnly, why)
		if why == diskFull {
			cause = ErrDiskFull
		}
		return nil, fmt.Errorf("create the library %s: %w", path, cause)
	}
	// Readable all the same: a read-only medium, files of another user, a
	// full disk (SQLite cannot even create the -shm file it reads with).
	rodb, note, rerr := openReadOnly(ctx, path)
	if rerr != nil {
		return nil, fmt.Errorf("open library %s: %w (%s; read-only, it does not open either: %v)", path, err, why, rerr)
	}
	if note != "" {
		why += "; " + note
	}
	l = &Library{dir: dir, db: rodb, readOnly: why}
	if v, err := l.userVersion(ctx); err != nil || v != SchemaVersion {
		rodb.Close()
		if err == nil {
			err = fmt.Errorf("the library has schema %d and this papers reads schema %d: it must be migrated, which needs writing (%s)", v, SchemaVersion, why)
		}
		return nil, fmt.Errorf("open library %s: %w", path, err)
	}
	l.openIndex()
	return l, nil
}

// removeEmpty removes the library file at path, and its -wal and -shm
// files, each only if it is empty: what a library that could not be
// created leaves.
func removeEmpty(path string) {
	for _, p := range []string{path + "-wal", path + "-shm", path} {
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() && st.Size() == 0 {
			os.Remove(p)
		}
	}
}

// OpenReadOnly opens the library in dir for reading only: nothing in dir
// is ever written, created or removed, not the database (no migration: a
// library of another schema is refused, saying how to migrate it), not
// the search index (a search whose index is missing or behind takes the
// changes in in memory), not papers.vec. Writes fail with ErrReadOnly.
// An absent library is an error wrapping fs.ErrNotExist.
func OpenReadOnly(ctx context.Context, dir string) (*Library, error) {
	path := filepath.Join(dir, FileName)
	if _, err := localfile.Check(path); err != nil {
		return nil, fmt.Errorf("open library: %w", err)
	}
	db, note, err := openReadOnly(ctx, path)
	if err != nil {
		return nil, fmt.Errorf("open library %s: %w", path, err)
	}
	why := readOnlyAsked
	if note != "" {
		why += "; " + note
	}
	l := &Library{dir: dir, db: db, readOnly: why}
	if v, err := l.userVersion(ctx); err != nil || v != SchemaVersion {
		db.Close()
		if err == nil && v < SchemaVersion {
			err = fmt.Errorf("the library has schema %d and this papers reads schema %d: it must be migrated, which a read-only open does not do (run any papers command on it without --read-only once)", v, SchemaVersion)
		} else if err == nil {
			err = fmt.Errorf("the library has schema %d, newer than this papers reads (%d): use the papers that wrote it", v, SchemaVersion)
		}
		return nil, fmt.Errorf("open library %s: %w", path, err)
	}
	l.openIndex()
	return l, nil
}

// readOnlyAsked is ReadOnly's reason for a library OpenReadOnly opened.
const readOnlyAsked = "opened read-only as asked"

// openWritable brings a read-write library up: removes what a killed
// index rebuild left and migrates the schema.
func (l *Library) openWritable(ctx context.Context) error {
	diskfile.RemoveStaleTemps(filepath.Join(l.dir, legacySidecars[0])) // left by a killed index write of an earlier version
	// A new connection's journal_mode=WAL can fail with SQLITE_BUSY without
	// SQLite's busy handler waiting, while another process is turning a new
	// database to WAL (two first ingests at once): retry for as long as the
	// busy timeout would have waited.
	deadline := time.Now().Add(busyTimeout)
	for {
		err := l.migrate(ctx)
		if err == nil {
			l.ensureSaved(ctx) // a library of this schema made before saves existed
			return nil
		}
		if !errors.Is(err, ErrBusy) || time.Now().After(deadline) || ctx.Err() != nil {
			return err
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// Close releases the database and the vector index. Searches in flight
// must have returned; hits already returned stay valid.
func (l *Library) Close() error {
	if l.eng != nil {
		return l.eng.Close()
	}
	if l.ix != nil {
		l.ix.Close()
	}
	return l.db.Close()
}

// MigrationNotes says what Open did to bring an older library up to date
// (e.g. duplicates merged), one sentence each; nil when nothing was
// migrated. It is said once: the next Open finds nothing to do.
func (l *Library) MigrationNotes() []string { return l.notes }

// Dir returns the library directory given to Open (for a library in a
// database server, the local directory given to OpenServer).
func (l *Library) Dir() string { return l.dir }

// schema creates a library at SchemaVersion.
const schema = `
CREATE TABLE manifest (
	key   TEXT PRIMARY KEY,
	value TEXT NOT NULL
) WITHOUT ROWID;

CREATE TABLE papers (
	id           TEXT PRIMARY KEY,
	version      INTEGER NOT NULL DEFAULT 0,
	title        TEXT NOT NULL DEFAULT '',
	abstract     TEXT NOT NULL DEFAULT '',
	authors      TEXT NOT NULL DEFAULT '[]', -- JSON array of strings
	affiliations TEXT NOT NULL DEFAULT '[]', -- JSON array of strings
	published    INTEGER,                    -- Unix nanoseconds UTC; NULL when unknown
	updated      INTEGER,
	categories   TEXT NOT NULL DEFAULT '[]', -- JSON array, primary first; also in paper_categories
	comment      TEXT NOT NULL DEFAULT '',
	journal_ref  TEXT NOT NULL DEFAULT '',
	doi          TEXT NOT NULL DEFAULT '',
	url          TEXT NOT NULL DEFAULT '',
	source       TEXT NOT NULL DEFAULT '',
	pages        INTEGER NOT NULL DEFAULT 0,
	chunks       INTEGER NOT NULL DEFAULT 0,
	content_hash TEXT NOT NULL DEFAULT '',
	text_error   TEXT NOT NULL DEFAULT '',
	added_at     INTEGER,
	fingerprint  TEXT NOT NULL DEFAULT ''    -- SHA-256 of metadata and chunks, for Unchanged
);
CREATE INDEX papers_published ON papers (published DESC, id);
CREATE INDEX papers_content_hash ON papers (content_hash) WHERE content_hash != '';

CREATE TABLE paper_categories (
	paper_id TEXT NOT NULL REFERENCES papers (id) ON DELETE CASCADE,
	category TEXT NOT NULL COLLATE NOCASE,
	PRIMARY KEY (category, paper_id)
) WITHOUT ROWID;
CREATE INDEX paper_categories_paper ON paper_categories (paper_id);

-- The vector comes before the text so that a scan of vectors reads less of
-- each row.
CREATE TABLE chunks (
	id         INTEGER PRIMARY KEY,
	paper_id   TEXT NOT NULL REFERENCES papers (id) ON DELETE CASCADE,
	seq        INTEGER NOT NULL,
	page_start INTEGER NOT NULL DEFAULT 0,
	page_end   INTEGER NOT NULL DEFAULT 0,
	section    TEXT NOT NULL DEFAULT '',
	vector     BLOB,                        -- little-endian float32 x manifest dimensions
	text       TEXT NOT NULL,
	UNIQUE (paper_id, seq)
);
`

// migrate brings the schema to SchemaVersion. It takes the write lock only
// when there is something to do, so opening a library never waits for a
// running ingest.
func (l *Library) migrate(ctx context.Context) error {
	v, err := l.userVersion(ctx)
	if err != nil {
		return err
	}
	if v == SchemaVersion {
		return nil
	}
	if v > SchemaVersion {
		return fmt.Errorf("the library has schema %d, newer than this papers understands (%d): upgrade papers", v, SchemaVersion)
	}
	return l.write(ctx, func(tx *sql.Tx) error {
		var v int
		if err := tx.QueryRowContext(ctx, "PRAGMA user_version").Scan(&v); err != nil {
			return err
		}
		if v == SchemaVersion { // another process migrated while we waited
			return nil
		}
		l.notes = nil // a retried migration says what the last attempt did
		// Migrations delete papers, and with them their saves.
		if _, err := tx.ExecContext(ctx, savedSchema); err != nil {
			return err
		}
		for v < SchemaVersion {
			switch v {
			case 0:
				if err := createSchema(ctx, tx); err != nil {
					return err
				}
				v = 2 // schema is version 2's; later steps follow
				continue
			case 1:
				// The FTS5 table is derived data; the search index replaces it.
				if _, err := tx.ExecContext(ctx, "DROP TABLE IF EXISTS chunks_fts"); err != nil {
					return fmt.Errorf("migrate schema 1 to 2: %w", err)
				}
			case 2:
				notes, err := l.migrate3(ctx, tx)
				if err != nil {
					return fmt.Errorf("migrate schema 2 to 3: %w", err)
				}
				l.notes = append(l.notes, notes...)
			case 3:
				// The index of schema 3 (index.bin) is rebuilt as segments.
				if _, err := tx.ExecContext(ctx, indexLogSchema); err != nil {
					return fmt.Errorf("migrate schema 3 to 4: %w", err)
				}
			case 4:
				if err := migrateTopics(ctx, tx); err != nil {
					return fmt.Errorf("migrate schema 4 to 5: %w", err)
				}
			case 5:
				// Where each page starts in a chunk that spans pages: comma-
				// separated byte offsets; '' for the chunks stored before.
				var has int
				if err := tx.QueryRowContext(ctx, "SELECT count(*) FROM pragma_table_info('chunks') WHERE name = 'page_breaks'").Scan(&has); err != nil {
					return fmt.Errorf("migrate schema 5 to 6: %w", err)
				}
				if has == 0 {
					if _, err := tx.ExecContext(ctx, "ALTER TABLE chunks ADD COLUMN page_breaks TEXT NOT NULL DEFAULT ''"); err != nil {
						return fmt.Errorf("migrate schema 5 to 6: %w", err)
					}
				}
			case 6:
				if err := migrateRoles(ctx, tx); err != nil {
					return fmt.Errorf("migrate schema 6 to 7: %w", err)
				}
			default:
				return fmt.Errorf("no migration from schema %d", v)
			}
			v++
		}
		if err := setManifest(ctx, tx, keySchema, strconv.Itoa(SchemaVersion)); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, "PRAGMA user_version = "+strconv.Itoa(SchemaVersion))
		return err
	})
}

// createSchema creates the tables of a new library and its manifest.
func createSchema(ctx context.Context, tx *sql.Tx) error {
	if _, err := tx.ExecContext(ctx, schema+fingerprintIndexSchema); err != nil {
		return fmt.Errorf("create schema: %w", err)
	}
	id := make([]byte, 16)
	if _, err := rand.Read(id); err != nil {
		return err
	}
	for k, val := range map[string]string{
		keyCreated:    time.Now().UTC().Format(time.RFC3339Nano),
		keyLibraryID:  hex.EncodeToString(id),
		keyVectorsGen: "0",
	} {
		if err := setManifest(ctx, tx, k, val); err != nil {
			return err
		}
	}
	return nil
}

func (l *Library) userVersion(ctx context.Context) (int, error) {
	var v int
	err := l.db.QueryRowContext(ctx, "PRAGMA user_version").Scan(&v)
	return v, wrapBusy(err)
}

// write runs fn in one IMMEDIATE transaction (the write lock is taken at
// BEGIN, waiting up to the busy timeout) and commits it, or rolls it back if
// fn or the commit fails: a failed write (disk full, I/O error, cancelled
// context) leaves the previous state intact.
func (l *Library) write(ctx context.Context, fn func(tx *sql.Tx) error) error {
	if l.readOnly != "" {
		return l.errReadOnly()
	}
	tx, err := l.db.BeginTx(ctx, nil)
	if err != nil {
		return wrapBusy(err)
	}
	if l.eng != nil {
		if err := l.eng.Lock(ctx, tx); err != nil {
			tx.Rollback()
			return err
		}
	}
	if err := fn(tx); err != nil {
		tx.Rollback()
		return wrapBusy(err)
	}
	return wrapBusy(tx.Commit())
}

// wrapBusy turns SQLite's BUSY (the busy timeout expired) into ErrBusy,
// FULL into ErrDiskFull and READONLY into ErrReadOnly, keeping SQLite's
// message.
func wrapBusy(err error) error {
	var se *sqlite.Error
	if !errors.As(err, &se) {
		if errors.Is(err, syscall.ENOSPC) && !errors.Is(err, ErrDiskFull) {
			return fmt.Errorf("%w: %w", ErrDiskFull, err) // a file of the index, not SQLite's
		}
		return err
	}
	switch se.Code() & 0xff {
	case 5: // SQLITE_BUSY
		return fmt.Errorf("%w (waited %s): %v", ErrBusy, busyTimeout, err)
	case 13: // SQLITE_FULL
		return fmt.Errorf("%w: %w", ErrDiskFull, err)
	case 8: // SQLITE_READONLY
		return fmt.Errorf("%w: %w", ErrReadOnly, err)
	}
	return damaged(err)
}

func setManifest(ctx context.Context, tx *sql.Tx, key, value string) error {
	_, err := tx.ExecContext(ctx, "INSERT INTO manifest (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value", key, value)
	return err
}

type querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

func readManifest(ctx context.Context, q querier) (map[string]string, error) {
	rows, err := q.QueryContext(ctx, "SELECT key, value FROM manifest")
	if err != nil {
		return nil, wrapBusy(err)
	}
	defer rows.Close()
	m := map[string]string{}
	for rows.Next() {
		var k, v string
		if err := rows.Scan(&k, &v); err != nil {
			return nil, err
		}
		m[k] = v
	}
	return m, rows.Err()
}

// Manifest returns what the library records about how it was made.
func (l *Library) Manifest(ctx context.Context) (Manifest, error) {
	m, err := readManifest(ctx, l.db)
	if err != nil {
		return Manifest{}, fmt.Errorf("read manifest: %w", err)
	}
	return parseManifest(m), nil
}

func parseManifest(m map[string]string) Manifest {
	var man Manifest
	man.Schema, _ = strconv.Atoi(m[keySchema])
	man.Embedder = m[keyEmbedder]
	man.Dimensions, _ = strconv.Atoi(m[keyDimensions])
	man.Chunker = m[keyChunker]
	man.Created, _ = time.Parse(time.RFC3339Nano, m[keyCreated])
	return man
}

// EnsureEmbedder records the embedder (name and vector dimensions) on first
// use. Afterwards a different name or dimensions returns an error wrapping
// ErrEmbedderMismatch that names both, unless the library holds no chunks
// yet, in which case the new embedder is recorded.
func (l *Library) EnsureEmbedder(ctx context.Context, name string, dims int) error {
	if name == "" || dims <= 0 {
		return fmt.Errorf("ensure embedder: invalid embedder %q with %d dimensions", name, dims)
	}
	man, err := l.Manifest(ctx)
	if err != nil {
		return err
	}
	if man.Embedder == name && man.Dimensions == dims {
		l.agree(name)
		return nil // fast path: no write lock
	}
	err = l.write(ctx, func(tx *sql.Tx) error {
		m, err := readManifest(ctx, tx)
		if err != nil {
			return err
		}
		man := parseManifest(m)
		if man.Embedder == name && man.Dimensions == dims {
			return nil
		}
		if man.Embedder != "" {
			var n int
			if err := tx.QueryRowContext(ctx, "SELECT CASE WHEN EXISTS (SELECT 1 FROM chunks) THEN 1 ELSE 0 END").Scan(&n); err != nil {
				return err
			}
			if n != 0 {
				return fmt.Errorf("%w: the library was built with embedder %q (%d dimensions) but this run uses %q (%d dimensions)",
					ErrEmbedderMismatch, man.Embedder, man.Dimensions, name, dims)
			}
		}
		if err := setManifest(ctx, tx, keyEmbedder, name); err != nil {
			return err
		}
		return setManifest(ctx, tx, keyDimensions, strconv.Itoa(dims))
	})
	if err == nil {
		l.agree(name)
	}
	return err
}

// agree records the embedder this handle's writes embed with.
func (l *Library) agree(name string) {
	l.mu.Lock()
	l.embedder = name
	l.mu.Unlock()
}

// SetChunker records the version of the chunker that cut the library's
// chunks. It does not touch chunks already stored.
func (l *Library) SetChunker(ctx context.Context, version string) error {
	man, err := l.Manifest(ctx)
	if err != nil {
		return err
	}
	if man.Chunker == version {
		return nil
	}
	return l.write(ctx, func(tx *sql.Tx) error {
		return setManifest(ctx, tx, keyChunker, version)
	})
}

// Check verifies the library: SQLite's integrity_check and
// foreign_key_check, that every paper's chunk count matches its chunks,
// that the paper vectors (PaperVectorsName) match their checksum, and
// that the search index is whole and holds exactly the library's chunks
// (see checkIndex). It returns nil when all hold.
func (l *Library) Check(ctx context.Context) error {
	if err := l.checkRecord(ctx); err != nil || l.eng != nil {
		return err
	}
	if err := l.checkPaperVectors(ctx); err != nil {
		return err
	}
	return l.checkIndex(ctx)
}
