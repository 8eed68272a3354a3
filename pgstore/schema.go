package pgstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
)

// SchemaVersion is the version of the library's tables this package writes;
// the manifest's "schema" records a library's. Version 1 was a development
// build's, which kept chunks and papers in its own way: such a library is
// refused with the way out (copy it again). Version 3 added chunks.role
// (store's schema 7).
const SchemaVersion = 3

// schema creates a library's tables at SchemaVersion; {s} is its schema.
// They are store's tables (see store's schema), column for column, with
// its encodings (times in Unix nanoseconds UTC, lists and maps as JSON
// text), so that its SQL reads and writes them as it does library.db's,
// and a copy moves them exactly both ways:
//
//   - text compares byte by byte (COLLATE "C"), as SQLite's BINARY does,
//     so ids order alike in both stores;
//   - the names SQLite compares with COLLATE NOCASE (categories, tags,
//     topics) are citext, compared without regard to case;
//   - a chunk's vector is pgvector's vector, of any dimensions (the
//     manifest says which), so that a reindex to another embedder is one
//     transaction of updates; the HNSW index, built once the library is
//     large enough (see Refresh), covers the vectors of the manifest's
//     dimensions.
//
// Chunks also hold their terms for text search: tsv has the stems of the
// paper's title and of the chunk's text as package fts tokenizes and stems
// them, each with as many positions as its BM25 term frequency (see
// termVector), so that BM25 here scores what the embedded library scores;
// len is the chunk's length in tokens (title and text), BM25's |d|; stems
// is the same terms as text (the title's HeadWeight times), for
// pg_textsearch's BM25 index where the server has it. terms and
// text_stats are BM25's statistics, kept by triggers in the transaction
// that writes the chunks: each term's document frequency, the number of
// chunks and their total length.
const schema = `
CREATE TABLE {s}.manifest (
	key   text COLLATE "C" PRIMARY KEY,
	value text NOT NULL
);

CREATE TABLE {s}.papers (
	id           text COLLATE "C" PRIMARY KEY,
	version      integer NOT NULL DEFAULT 0,
	title        text NOT NULL DEFAULT '',
	abstract     text NOT NULL DEFAULT '',
	authors      text NOT NULL DEFAULT '[]',
	affiliations text NOT NULL DEFAULT '[]',
	published    bigint,
	updated      bigint,
	categories   text NOT NULL DEFAULT '[]',
	comment      text NOT NULL DEFAULT '',
	journal_ref  text NOT NULL DEFAULT '',
	doi          text NOT NULL DEFAULT '',
	url          text NOT NULL DEFAULT '',
	source       text COLLATE "C" NOT NULL DEFAULT '',
	pages        integer NOT NULL DEFAULT 0,
	chunks       integer NOT NULL DEFAULT 0,
	content_hash text COLLATE "C" NOT NULL DEFAULT '',
	text_error   text NOT NULL DEFAULT '',
	added_at     bigint,
	fingerprint  text COLLATE "C" NOT NULL DEFAULT '',
	arxiv_id     text COLLATE "C" NOT NULL DEFAULT '',
	type         text NOT NULL DEFAULT '',
	venue        text NOT NULL DEFAULT '',
	volume       text NOT NULL DEFAULT '',
	issue        text NOT NULL DEFAULT '',
	page_range   text NOT NULL DEFAULT '',
	publisher    text NOT NULL DEFAULT '',
	issued       text NOT NULL DEFAULT '',
	meta_source  text NOT NULL DEFAULT '{}'
);
CREATE INDEX papers_published ON {s}.papers (published DESC NULLS LAST, id);
CREATE INDEX papers_content_hash ON {s}.papers (content_hash) WHERE content_hash <> '';

CREATE TABLE {s}.paper_categories (
	paper_id text COLLATE "C" NOT NULL REFERENCES {s}.papers (id) ON DELETE CASCADE,
	category citext COLLATE "C" NOT NULL,
	PRIMARY KEY (category, paper_id)
);
CREATE INDEX paper_categories_paper ON {s}.paper_categories (paper_id);

CREATE TABLE {s}.paper_tags (
	paper_id text COLLATE "C" NOT NULL,
	tag      citext COLLATE "C" NOT NULL,
	source   text COLLATE "C" NOT NULL,
	PRIMARY KEY (paper_id, source, tag)
);
CREATE INDEX paper_tags_tag ON {s}.paper_tags (tag, paper_id);

CREATE TABLE {s}.paper_identifiers (
	kind     text COLLATE "C" NOT NULL,
	value    text COLLATE "C" NOT NULL,
	paper_id text COLLATE "C" NOT NULL,
	stamp    text NOT NULL DEFAULT '',
	PRIMARY KEY (kind, value)
);
CREATE INDEX paper_identifiers_paper ON {s}.paper_identifiers (paper_id);

CREATE TABLE {s}.saved_papers (
	paper_id text COLLATE "C" PRIMARY KEY,
	saved_at bigint NOT NULL
);

CREATE TABLE {s}.topics (
	name        citext COLLATE "C" PRIMARY KEY,
	query       text NOT NULL,
	description text NOT NULL DEFAULT '',
	created     bigint NOT NULL,
	last_update bigint,
	cursor      bigint
);
CREATE TABLE {s}.topic_papers (
	topic     citext COLLATE "C" NOT NULL REFERENCES {s}.topics (name) ON DELETE CASCADE ON UPDATE CASCADE,
	paper_id  text COLLATE "C" NOT NULL,
	added_at  bigint NOT NULL,
	brought   integer NOT NULL DEFAULT 1,
	stored_at bigint,
	PRIMARY KEY (topic, paper_id)
);
CREATE INDEX topic_papers_paper ON {s}.topic_papers (paper_id);

CREATE TABLE {s}.review_cells (
	paper_id    text COLLATE "C" NOT NULL,
	question    text COLLATE "C" NOT NULL,
	answerer    text COLLATE "C" NOT NULL,
	fingerprint text NOT NULL,
	cell        text NOT NULL,
	computed_at bigint NOT NULL,
	PRIMARY KEY (paper_id, question, answerer)
);
CREATE TABLE {s}.reviews (
	name       text COLLATE "C" PRIMARY KEY,
	spec       text NOT NULL,
	created_at bigint NOT NULL,
	updated_at bigint NOT NULL
);

CREATE TABLE {s}.chunks (
	id          bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
	paper_id    text COLLATE "C" NOT NULL REFERENCES {s}.papers (id) ON DELETE CASCADE,
	seq         integer NOT NULL,
	page_start  integer NOT NULL DEFAULT 0,
	page_end    integer NOT NULL DEFAULT 0,
	section     text NOT NULL DEFAULT '',
	role        text NOT NULL DEFAULT 'body',
	vector      vector,
	text        text NOT NULL,
	page_breaks text NOT NULL DEFAULT '',
	tsv         tsvector NOT NULL,
	len         integer NOT NULL,
	stems       text NOT NULL,
	UNIQUE (paper_id, seq)
);
CREATE INDEX chunks_tsv ON {s}.chunks USING gin (tsv);

CREATE TABLE {s}.terms (
	term text COLLATE "C" PRIMARY KEY,
	df   integer NOT NULL
);
CREATE TABLE {s}.text_stats (
	one    boolean PRIMARY KEY DEFAULT true CHECK (one),
	chunks bigint NOT NULL,
	tokens bigint NOT NULL
);
INSERT INTO {s}.text_stats VALUES (true, 0, 0);

CREATE FUNCTION {s}.chunks_added() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	-- In term order, so that concurrent writers lock shared terms in one
	-- order and never deadlock.
	INSERT INTO {s}.terms AS t (term, df)
		SELECT u.lexeme, count(*) FROM added, unnest(added.tsv) u GROUP BY u.lexeme ORDER BY u.lexeme
		ON CONFLICT (term) DO UPDATE SET df = t.df + excluded.df;
	UPDATE {s}.text_stats SET chunks = chunks + (SELECT count(*) FROM added),
		tokens = tokens + (SELECT coalesce(sum(len), 0) FROM added);
	RETURN NULL;
END $$;
CREATE FUNCTION {s}.chunks_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	UPDATE {s}.terms AS t SET df = t.df - d.n
		FROM (SELECT u.lexeme, count(*) AS n FROM deleted, unnest(deleted.tsv) u GROUP BY u.lexeme ORDER BY u.lexeme) d
		WHERE t.term = d.lexeme;
	UPDATE {s}.text_stats SET chunks = chunks - (SELECT count(*) FROM deleted),
		tokens = tokens - (SELECT coalesce(sum(len), 0) FROM deleted);
	RETURN NULL;
END $$;
-- A chunk's terms derived again (Retitle): a row trigger, as PostgreSQL
-- gives no transition tables to a trigger on some columns.
CREATE FUNCTION {s}.chunk_retermed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	UPDATE {s}.terms AS t SET df = t.df - 1
		FROM (SELECT u.lexeme FROM unnest(OLD.tsv) u ORDER BY 1) d WHERE t.term = d.lexeme;
	INSERT INTO {s}.terms AS t (term, df) SELECT u.lexeme, 1 FROM unnest(NEW.tsv) u ORDER BY 1
		ON CONFLICT (term) DO UPDATE SET df = t.df + 1;
	UPDATE {s}.text_stats SET tokens = tokens - OLD.len + NEW.len;
	RETURN NULL;
END $$;
CREATE TRIGGER chunks_added AFTER INSERT ON {s}.chunks
	REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION {s}.chunks_added();
CREATE TRIGGER chunks_deleted AFTER DELETE ON {s}.chunks
	REFERENCING OLD TABLE AS deleted FOR EACH STATEMENT EXECUTE FUNCTION {s}.chunks_deleted();
CREATE TRIGGER chunk_retermed AFTER UPDATE OF tsv ON {s}.chunks
	FOR EACH ROW EXECUTE FUNCTION {s}.chunk_retermed();
`

// migrations[v] brings a library at version v to v+1; schema makes a new
// library at SchemaVersion. Every step runs in the transaction that
// records the new version, under an advisory lock on the schema, so that
// two processes opening a new library at once create it once.
var migrations = map[int]string{
	2: `ALTER TABLE {s}.chunks ADD COLUMN role text NOT NULL DEFAULT 'body';`,
}

// migrate brings the library's tables to SchemaVersion: nothing to do is
// one read; otherwise it takes the schema's advisory lock and reads again.
func (e *engine) migrate(ctx context.Context) error {
	v, err := e.version(ctx, e.db)
	if err != nil {
		return err
	}
	if v == SchemaVersion {
		return nil
	}
	if v > SchemaVersion {
		return fmt.Errorf("the library has schema %d, newer than this papers understands (%d): upgrade papers", v, SchemaVersion)
	}
	if err := e.ensureExtensions(ctx); err != nil {
		return err
	}
	tx, err := e.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, "SELECT pg_advisory_xact_lock(hashtextextended($1, 0))", e.lockKey("schema")); err != nil {
		return err
	}
	ident := quoteIdent(e.schema)
	if _, err := tx.ExecContext(ctx, "CREATE SCHEMA IF NOT EXISTS "+ident); err != nil {
		return fmt.Errorf("create schema %s: %w", e.schema, err)
	}
	if v, err = e.version(ctx, tx); err != nil {
		return err
	}
	switch {
	case v == 0:
		if _, err := tx.ExecContext(ctx, strings.ReplaceAll(schema, "{s}", ident)); err != nil {
			return fmt.Errorf("create the library's tables: %w", err)
		}
		if _, err := tx.ExecContext(ctx, "INSERT INTO manifest (key, value) VALUES ($1, $2)", "created", time.Now().UTC().Format(time.RFC3339Nano)); err != nil {
			return err
		}
	case v == 1:
		return fmt.Errorf("the library has schema 1, made by a development build of papers: drop it (DROP SCHEMA %s CASCADE) and copy the library there again with papers library copy", ident)
	}
	for ; v > 0 && v < SchemaVersion; v++ {
		if _, err := tx.ExecContext(ctx, strings.ReplaceAll(migrations[v], "{s}", ident)); err != nil {
			return fmt.Errorf("migrate schema %d to %d: %w", v, v+1, err)
		}
	}
	if _, err := tx.ExecContext(ctx, "INSERT INTO manifest (key, value) VALUES ('schema', $1) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
		strconv.Itoa(SchemaVersion)); err != nil {
		return err
	}
	return tx.Commit()
}

// version reads the library's schema version: 0 when it has no tables yet.
func (e *engine) version(ctx context.Context, q interface {
	QueryRowContext(context.Context, string, ...any) *sql.Row
}) (int, error) {
	var exists bool
	if err := q.QueryRowContext(ctx, "SELECT to_regclass($1) IS NOT NULL", quoteIdent(e.schema)+".manifest").Scan(&exists); err != nil {
		return 0, err
	}
	if !exists {
		return 0, nil
	}
	var v string
	err := q.QueryRowContext(ctx, "SELECT value FROM manifest WHERE key = 'schema'").Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	return strconv.Atoi(v)
}

// ErrNoExtension is Open's error when the database lacks an extension the
// library needs and it cannot be created: vector (pgvector) or citext
// (one of PostgreSQL's contrib modules).
var ErrNoExtension = errors.New("the database has no extension the library needs")

// ensureExtensions creates the extensions a library needs where they are
// missing, which needs the right to create extensions in the database:
// vector (pgvector) and citext.
func (e *engine) ensureExtensions(ctx context.Context) error {
	for _, ext := range []struct{ name, install string }{
		{"vector", "install pgvector on the server (Debian: apt-get install postgresql-16-pgvector)"},
		{"citext", "install PostgreSQL's contrib modules on the server (Debian's postgresql-16 package has them)"},
	} {
		var installed bool
		if err := e.db.QueryRowContext(ctx, "SELECT EXISTS (SELECT 1 FROM pg_extension WHERE extname = $1)", ext.name).Scan(&installed); err != nil {
			return err
		}
		if installed {
			continue
		}
		_, err := e.db.ExecContext(ctx, "CREATE EXTENSION IF NOT EXISTS "+ext.name)
		var pe *pgconn.PgError
		if errors.As(err, &pe) {
			switch pe.Code {
			case "0A000", "58P01": // feature_not_supported, undefined_file: not installed on the server
				return fmt.Errorf("%w: %s is not installed on the server: %s, then run CREATE EXTENSION %s in the database: %v", ErrNoExtension, ext.name, ext.install, ext.name, pe.Message)
			case "42501": // insufficient_privilege
				return fmt.Errorf("%w: %s, and this user may not create it: ask the database's owner to run CREATE EXTENSION %s: %v", ErrNoExtension, ext.name, ext.name, pe.Message)
			}
		}
		if err != nil {
			return err
		}
	}
	return nil
}
