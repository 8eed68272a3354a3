package pgstore

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// SchemaVersion is the version of the library's tables this package writes;
// the manifest's "schema" records a library's.
const SchemaVersion = 1

// migrations[v] brings a library at version v to v+1. {s} is the library's
// schema. Every step runs in the transaction that records the new version,
// under an advisory lock on the schema, so that two processes opening a new
// library at once create it once.
var migrations = []string{
	0: `
CREATE TABLE {s}.manifest (
	key   text PRIMARY KEY,
	value text NOT NULL
);

-- The columns are the SQLite library's (store), with its encodings: times
-- in Unix nanoseconds UTC, lists and maps as JSON text.
CREATE TABLE {s}.papers (
	id           text PRIMARY KEY,
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
	source       text NOT NULL DEFAULT '',
	pages        integer NOT NULL DEFAULT 0,
	chunks       integer NOT NULL DEFAULT 0,
	content_hash text NOT NULL DEFAULT '',
	text_error   text NOT NULL DEFAULT '',
	added_at     bigint,
	fingerprint  text NOT NULL DEFAULT '',
	arxiv_id     text NOT NULL DEFAULT '',
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

CREATE TABLE {s}.paper_categories (
	paper_id text NOT NULL REFERENCES {s}.papers (id) ON DELETE CASCADE,
	category text NOT NULL,
	PRIMARY KEY (category, paper_id)
);
CREATE INDEX paper_categories_paper ON {s}.paper_categories (paper_id);

-- Names compared without regard to case (SQLite's COLLATE NOCASE there)
-- are compared by lower() here, with unique indexes on lower().
CREATE TABLE {s}.paper_tags (
	paper_id text NOT NULL,
	tag      text NOT NULL,
	source   text NOT NULL,
	PRIMARY KEY (paper_id, source, tag)
);
CREATE UNIQUE INDEX paper_tags_nocase ON {s}.paper_tags (paper_id, source, lower(tag));
CREATE INDEX paper_tags_tag ON {s}.paper_tags (lower(tag), paper_id);

CREATE TABLE {s}.paper_identifiers (
	kind     text NOT NULL,
	value    text NOT NULL,
	paper_id text NOT NULL,
	stamp    text NOT NULL DEFAULT '',
	PRIMARY KEY (kind, value)
);
CREATE INDEX paper_identifiers_paper ON {s}.paper_identifiers (paper_id);

CREATE TABLE {s}.saved_papers (
	paper_id text PRIMARY KEY,
	saved_at bigint NOT NULL
);

CREATE TABLE {s}.topics (
	name        text PRIMARY KEY,
	query       text NOT NULL,
	description text NOT NULL DEFAULT '',
	created     bigint NOT NULL,
	last_update bigint,
	cursor      bigint
);
CREATE UNIQUE INDEX topics_nocase ON {s}.topics (lower(name));
CREATE TABLE {s}.topic_papers (
	topic     text NOT NULL REFERENCES {s}.topics (name) ON DELETE CASCADE ON UPDATE CASCADE,
	paper_id  text NOT NULL,
	added_at  bigint NOT NULL,
	brought   integer NOT NULL DEFAULT 1,
	stored_at bigint,
	PRIMARY KEY (topic, paper_id)
);
CREATE INDEX topic_papers_paper ON {s}.topic_papers (paper_id);

-- A chunk's vector (its type becomes vector(N) when the library records its
-- embedder, with an HNSW index) and its terms: tsv holds the stems of the
-- paper's title and of the chunk's text as package fts tokenizes and stems
-- them, each with as many positions as its BM25 term frequency (see
-- termVector), so that BM25 here scores what the embedded library scores;
-- len is the chunk's length in tokens (title and text), BM25's |d|; stems
-- is the same terms as text (the title's HeadWeight times), for the BM25
-- index of pg_textsearch where the server has it.
CREATE TABLE {s}.chunks (
	paper_id   text NOT NULL REFERENCES {s}.papers (id) ON DELETE CASCADE,
	seq        integer NOT NULL,
	page_start integer NOT NULL DEFAULT 0,
	page_end   integer NOT NULL DEFAULT 0,
	section    text NOT NULL DEFAULT '',
	text       text NOT NULL,
	embedding  vector,
	tsv        tsvector NOT NULL,
	len        integer NOT NULL,
	stems      text NOT NULL,
	PRIMARY KEY (paper_id, seq)
);
CREATE INDEX chunks_tsv ON {s}.chunks USING gin (tsv);

-- BM25's statistics, kept by the triggers below in the transaction that
-- writes the chunks: each term's document frequency, the number of chunks
-- and their total length.
CREATE TABLE {s}.terms (
	term text PRIMARY KEY,
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
CREATE TRIGGER chunks_added AFTER INSERT ON {s}.chunks
	REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION {s}.chunks_added();
CREATE TRIGGER chunks_deleted AFTER DELETE ON {s}.chunks
	REFERENCING OLD TABLE AS deleted FOR EACH STATEMENT EXECUTE FUNCTION {s}.chunks_deleted();
`,
}

// migrate brings the library's tables to SchemaVersion: nothing to do is
// one read; otherwise it takes the schema's advisory lock and reads again.
func (s *Store) migrate(ctx context.Context) error {
	v, err := s.version(ctx, s.pool)
	if err != nil {
		return err
	}
	if v == SchemaVersion {
		return nil
	}
	if v > SchemaVersion {
		return fmt.Errorf("the library has schema %d, newer than this papers understands (%d): upgrade papers", v, SchemaVersion)
	}
	if err := s.ensureVector(ctx); err != nil {
		return err
	}
	return s.tx(ctx, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock(hashtext($1))", "papers:"+s.schema); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, "CREATE SCHEMA IF NOT EXISTS "+s.ident); err != nil {
			return fmt.Errorf("create schema %s: %w", s.schema, err)
		}
		v, err := s.version(ctx, tx)
		if err != nil {
			return err
		}
		if v == 0 && len(migrations) > 0 {
			if _, err := tx.Exec(ctx, s.sql(migrations[0])); err != nil {
				return fmt.Errorf("create the library's tables: %w", err)
			}
			if err := setManifest(ctx, tx, s, "created", time.Now().UTC().Format(time.RFC3339Nano)); err != nil {
				return err
			}
			v = 1
		}
		for ; v < SchemaVersion; v++ {
			if _, err := tx.Exec(ctx, s.sql(migrations[v])); err != nil {
				return fmt.Errorf("migrate schema %d to %d: %w", v, v+1, err)
			}
		}
		return setManifest(ctx, tx, s, "schema", strconv.Itoa(SchemaVersion))
	})
}

// version reads the library's schema version: 0 when it has no tables yet.
func (s *Store) version(ctx context.Context, q interface {
	QueryRow(context.Context, string, ...any) pgx.Row
}) (int, error) {
	var exists bool
	if err := q.QueryRow(ctx, "SELECT to_regclass($1) IS NOT NULL", s.ident+".manifest").Scan(&exists); err != nil {
		return 0, err
	}
	if !exists {
		return 0, nil
	}
	var v string
	err := q.QueryRow(ctx, s.sql("SELECT value FROM {s}.manifest WHERE key = 'schema'")).Scan(&v)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	return strconv.Atoi(v)
}

// ErrNoVector is Open's error when the server lacks pgvector.
var ErrNoVector = errors.New("the database has no vector extension (pgvector)")

// ensureVector creates the vector extension if it is missing, which needs
// the right to create extensions in the database.
func (s *Store) ensureVector(ctx context.Context) error {
	var installed bool
	if err := s.pool.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'vector')").Scan(&installed); err != nil {
		return err
	}
	if installed {
		return nil
	}
	_, err := s.pool.Exec(ctx, "CREATE EXTENSION IF NOT EXISTS vector")
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		switch pe.Code {
		case "0A000", "58P01": // feature_not_supported, undefined_file: not installed on the server
			return fmt.Errorf("%w: install pgvector on the server (Debian: apt-get install postgresql-16-pgvector), then run CREATE EXTENSION vector in the database: %v", ErrNoVector, pe.Message)
		case "42501": // insufficient_privilege
			return fmt.Errorf("%w, and this user may not create it: ask the database's owner to run CREATE EXTENSION vector: %v", ErrNoVector, pe.Message)
		}
	}
	return err
}
