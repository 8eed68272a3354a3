package pgstore

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/papers-cli/papers/store"
)

// DefaultSchema is the schema a library lives in when the URL names none.
const DefaultSchema = "papers"

// SchemaParam is the URL query parameter naming the library's schema, so
// that one database can hold several libraries (postgres://db/lab?schema=nlp).
// It is read here and never sent to the server.
const SchemaParam = "schema"

// IsURL reports whether s names a PostgreSQL library rather than a
// directory: it starts with postgres:// or postgresql://.
func IsURL(s string) bool {
	return strings.HasPrefix(s, "postgres://") || strings.HasPrefix(s, "postgresql://")
}

// Store is a library in one schema of a PostgreSQL database. It is safe for
// concurrent use, and several processes on several machines may use the
// same library at once: every write is one transaction, and the server's
// locks order them.
type Store struct {
	pool   *pgxpool.Pool
	schema string // as given, e.g. papers
	ident  string // quoted, for SQL
	where  string // the URL without its password, for messages
	// textIndex is set when the server has pg_textsearch and the library
	// its BM25 index: SearchText ranks with it (see rankIndexed).
	textIndex bool
}

var schemaName = regexp.MustCompile(`^[a-z_][a-z0-9_]{0,62}$`)

// Open connects to the library rawURL names, creating its schema (and the
// vector extension, when it is not there and the user may create it) or
// migrating it to SchemaVersion. A library whose schema is newer than this
// papers is refused.
func Open(ctx context.Context, rawURL string) (*Store, error) {
	cfg, schema, where, err := parseURL(rawURL)
	if err != nil {
		return nil, err
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("connect to %s: %w", where, err)
	}
	s := &Store{pool: pool, schema: schema, ident: pgx.Identifier{schema}.Sanitize(), where: where}
	if err := pool.Ping(ctx); err != nil {
		pool.Close()
		return nil, fmt.Errorf("connect to %s: %w", where, err)
	}
	if err := s.migrate(ctx); err != nil {
		pool.Close()
		return nil, fmt.Errorf("open the library at %s: %w", where, err)
	}
	if err := s.ensureVectorIndex(ctx); err != nil {
		pool.Close()
		return nil, fmt.Errorf("open the library at %s: %w", where, err)
	}
	if s.textIndex, err = s.ensureTextIndex(ctx); err != nil {
		pool.Close()
		return nil, fmt.Errorf("open the library at %s: %w", where, err)
	}
	return s, nil
}

// parseURL splits the library's URL into the server's configuration, the
// schema and a form fit for messages (no password).
func parseURL(rawURL string) (*pgxpool.Config, string, string, error) {
	u, err := url.Parse(rawURL)
	if err != nil || !IsURL(rawURL) {
		return nil, "", "", fmt.Errorf("%q is not a PostgreSQL URL (postgres://user@host:port/database?schema=name)", Redact(rawURL))
	}
	q := u.Query()
	schema := q.Get(SchemaParam)
	if schema == "" {
		schema = DefaultSchema
	}
	if !schemaName.MatchString(schema) {
		return nil, "", "", fmt.Errorf("schema %q in the library URL: use lower-case letters, digits and _ (starting with a letter or _)", schema)
	}
	q.Del(SchemaParam)
	u.RawQuery = q.Encode()
	cfg, err := pgxpool.ParseConfig(u.String())
	if err != nil {
		return nil, "", "", fmt.Errorf("the library URL %s: %w", Redact(rawURL), err)
	}
	return cfg, schema, Redact(rawURL), nil
}

// Redact returns a library URL without its password, for messages.
func Redact(rawURL string) string {
	u, err := url.Parse(rawURL)
	if err != nil {
		return "the library URL"
	}
	if _, ok := u.User.Password(); ok {
		u.User = url.UserPassword(u.User.Username(), "xxxxx")
	}
	return u.String()
}

// Close releases the connections.
func (s *Store) Close() error {
	s.pool.Close()
	return nil
}

// String names the library for messages: its URL without the password.
func (s *Store) String() string { return s.where }

// sql returns q with every {s} replaced by the library's quoted schema.
func (s *Store) sql(q string) string { return strings.ReplaceAll(q, "{s}", s.ident) }

// tx runs fn in one transaction, retried (from the start) when the server
// aborts it for a serialization failure or a deadlock, which concurrent
// writers of the same rows cause and which the next attempt resolves.
func (s *Store) tx(ctx context.Context, fn func(tx pgx.Tx) error) error {
	for attempt := 0; ; attempt++ {
		err := pgx.BeginFunc(ctx, s.pool, fn)
		var pe *pgconn.PgError
		if attempt < 8 && errors.As(err, &pe) && (pe.Code == "40001" || pe.Code == "40P01") {
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(time.Duration(attempt+1) * 10 * time.Millisecond):
			}
			continue
		}
		return err
	}
}

// Manifest returns what the library records about itself.
func (s *Store) Manifest(ctx context.Context) (store.Manifest, error) {
	rows, err := s.pool.Query(ctx, s.sql("SELECT key, value FROM {s}.manifest"))
	if err != nil {
		return store.Manifest{}, fmt.Errorf("read the manifest: %w", err)
	}
	m := map[string]string{}
	var k, v string
	if _, err := pgx.ForEachRow(rows, []any{&k, &v}, func() error { m[k] = v; return nil }); err != nil {
		return store.Manifest{}, fmt.Errorf("read the manifest: %w", err)
	}
	var man store.Manifest
	man.Schema, _ = strconv.Atoi(m["schema"])
	man.Embedder = m["embedder"]
	man.Dimensions, _ = strconv.Atoi(m["dimensions"])
	man.Chunker = m["chunker"]
	man.Created, _ = time.Parse(time.RFC3339Nano, m["created"])
	return man, nil
}

func setManifest(ctx context.Context, tx pgx.Tx, s *Store, key, value string) error {
	_, err := tx.Exec(ctx, s.sql("INSERT INTO {s}.manifest (key, value) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET value = excluded.value"), key, value)
	return err
}

// EnsureEmbedder records the embedder (name and vector dimensions) on first
// use; afterwards another one is an error wrapping store.ErrEmbedderMismatch
// unless the library holds no chunks yet. Recording dimensions sets the
// vector column's type and builds its HNSW index.
func (s *Store) EnsureEmbedder(ctx context.Context, name string, dims int) error {
	if name == "" || dims <= 0 {
		return fmt.Errorf("ensure embedder: invalid embedder %q with %d dimensions", name, dims)
	}
	man, err := s.Manifest(ctx)
	if err != nil {
		return err
	}
	if man.Embedder == name && man.Dimensions == dims {
		return nil
	}
	return s.tx(ctx, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock(hashtext($1))", "papers:"+s.schema); err != nil {
			return err
		}
		var emb, dimsNow string
		if err := tx.QueryRow(ctx, s.sql("SELECT coalesce((SELECT value FROM {s}.manifest WHERE key = 'embedder'), ''), coalesce((SELECT value FROM {s}.manifest WHERE key = 'dimensions'), '')")).Scan(&emb, &dimsNow); err != nil {
			return err
		}
		if emb == name && dimsNow == strconv.Itoa(dims) {
			return nil
		}
		if emb != "" {
			var any bool
			if err := tx.QueryRow(ctx, s.sql("SELECT EXISTS (SELECT 1 FROM {s}.chunks)")).Scan(&any); err != nil {
				return err
			}
			if any {
				return fmt.Errorf("%w: the library was built with embedder %q (%s dimensions) but this run uses %q (%d dimensions)",
					store.ErrEmbedderMismatch, emb, dimsNow, name, dims)
			}
		}
		if err := setVectorType(ctx, tx, s, dims); err != nil {
			return err
		}
		if err := setManifest(ctx, tx, s, "embedder", name); err != nil {
			return err
		}
		return setManifest(ctx, tx, s, "dimensions", strconv.Itoa(dims))
	})
}

// setVectorType makes the vector column vector(dims) with an HNSW index
// (cosine) over what indexed(dims) says.
func setVectorType(ctx context.Context, tx pgx.Tx, s *Store, dims int) error {
	for _, q := range []string{
		"DROP INDEX IF EXISTS {s}.chunks_embedding",
		"ALTER TABLE {s}.chunks ALTER COLUMN embedding TYPE vector(" + strconv.Itoa(dims) + ") USING NULL",
	} {
		if _, err := tx.Exec(ctx, s.sql(q)); err != nil {
			return fmt.Errorf("set the vectors to %d dimensions: %w", dims, err)
		}
	}
	return createVectorIndex(ctx, tx, s, dims)
}

// createVectorIndex builds the HNSW index of a library of dims dimensions
// if it is missing, with a quarter of a gigabyte of maintenance memory:
// pgvector builds fastest when the graph fits in it.
func createVectorIndex(ctx context.Context, tx pgx.Tx, s *Store, dims int) error {
	expr, ops := indexed(dims)
	if expr == "" {
		return nil
	}
	if _, err := tx.Exec(ctx, "SELECT set_config('maintenance_work_mem', '256MB', true)"); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, s.sql("CREATE INDEX IF NOT EXISTS chunks_embedding ON {s}.chunks USING hnsw (("+expr+") "+ops+")")); err != nil {
		return fmt.Errorf("build the vector index: %w", err)
	}
	return nil
}

// DeferVectorIndex drops the HNSW index for a bulk load (library copy):
// pgvector builds an index over loaded vectors several times faster than
// it inserts them one by one. The returned function builds it again; a
// load that never calls it (killed) leaves searches exact until the next
// Open, which builds the index.
func (s *Store) DeferVectorIndex(ctx context.Context) (build func(context.Context) error, err error) {
	if _, err := s.pool.Exec(ctx, s.sql("DROP INDEX IF EXISTS {s}.chunks_embedding")); err != nil {
		return nil, fmt.Errorf("drop the vector index: %w", err)
	}
	return s.ensureVectorIndex, nil
}

// ensureVectorIndex builds the HNSW index if the library has dimensions
// and no index.
func (s *Store) ensureVectorIndex(ctx context.Context) error {
	man, err := s.Manifest(ctx)
	if err != nil || man.Dimensions == 0 {
		return err
	}
	var exists bool
	if err := s.pool.QueryRow(ctx, "SELECT to_regclass($1) IS NOT NULL", s.ident+".chunks_embedding").Scan(&exists); err != nil || exists {
		return err
	}
	return s.tx(ctx, func(tx pgx.Tx) error { return createVectorIndex(ctx, tx, s, man.Dimensions) })
}

// indexed returns the expression the HNSW index orders chunks by, and its
// operator class: the vectors themselves up to 2,000 dimensions (pgvector's
// limit for vector), their half-precision copies up to 4,000 (halfvec's),
// nothing beyond (searches then scan every vector). The vectors rather than
// halfvec copies below 2,000 because PGlite, PostgreSQL compiled to
// WebAssembly, converts half floats in software: an insert into a
// halfvec index of 768 dimensions took 46-73 ms there, 6.5 ms into a
// vector index.
func indexed(dims int) (expr, ops string) {
	switch {
	case dims <= 2000:
		return "embedding", "vector_cosine_ops"
	case dims <= 4000:
		return "embedding::halfvec(" + strconv.Itoa(dims) + ")", "halfvec_cosine_ops"
	}
	return "", ""
}

// SetChunker records the chunker's version string.
func (s *Store) SetChunker(ctx context.Context, version string) error {
	return s.tx(ctx, func(tx pgx.Tx) error { return setManifest(ctx, tx, s, "chunker", version) })
}

// Count returns the number of papers and chunks.
func (s *Store) Count(ctx context.Context) (papers, chunks int, err error) {
	err = s.pool.QueryRow(ctx, s.sql("SELECT (SELECT count(*) FROM {s}.papers), (SELECT count(*) FROM {s}.chunks)")).Scan(&papers, &chunks)
	if err != nil {
		return 0, 0, fmt.Errorf("count papers: %w", err)
	}
	return papers, chunks, nil
}
