// Package pgstore keeps a library in PostgreSQL with pgvector, which a lab
// shares from several machines: the record is package store's (its tables,
// its SQL, run here through connections that translate the little that
// differs, see translate), and the search is the server's (this package's
// Engine): BM25 computed from tsvectors as the embedded library computes
// it, exact or HNSW dense search, filters as SQL. Open gives a
// *store.Library like store.Open does, so every command works on either.
package pgstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/stdlib"

	"github.com/papers-cli/papers/internal/lazyre"
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

// busyTimeout is how long a write waits for another writer of the library
// (the store's, as on SQLite).
var busyTimeout = 30 * time.Second

// engine is a library's search and locks on the server (store.Engine).
type engine struct {
	db     *sql.DB
	schema string // as given, e.g. papers
	where  string // the URL without its password, for messages
	// textIndex is set when the server has pg_textsearch and the library
	// its BM25 index: SearchText may take candidates from it (see rankText).
	textIndex bool
}

var schemaName = lazyre.New(`^[a-z_][a-z0-9_]{0,62}$`)

// Open opens the library rawURL names, migrating its tables to
// SchemaVersion, or, with create, making them (and the extensions they
// need, when they are missing and the user may create them) if it has
// none; without create, a library that does not exist is an error
// wrapping ErrNoLibrary. A library whose schema is newer than this papers
// is refused. dir is a local directory for what the library keeps on this
// machine (downloaded PDFs). The caller closes the library.
func Open(ctx context.Context, rawURL, dir string, create bool) (*store.Library, error) {
	lib, _, err := open(ctx, rawURL, dir, create)
	return lib, err
}

// ErrNoLibrary is Open's error, without create, for a URL where no
// library is.
var ErrNoLibrary = errors.New("no library there")

func open(ctx context.Context, rawURL, dir string, create bool) (*store.Library, *engine, error) {
	cfg, schema, where, err := parseURL(rawURL)
	if err != nil {
		return nil, nil, err
	}
	e := &engine{schema: schema, where: where}
	e.db = sql.OpenDB(connector{pgx: stdlib.GetConnector(*cfg), schema: schema})
	e.db.SetMaxIdleConns(4)
	if err := e.db.PingContext(ctx); err != nil {
		e.db.Close()
		return nil, nil, fmt.Errorf("connect to %s: %w", where, err)
	}
	if !create {
		v, err := e.version(ctx, e.db)
		if err == nil && v == 0 {
			err = fmt.Errorf("%w (%s)", ErrNoLibrary, where)
		}
		if err != nil {
			e.db.Close()
			return nil, nil, err
		}
	}
	if err := e.migrate(ctx); err != nil {
		e.db.Close()
		return nil, nil, fmt.Errorf("open the library at %s: %w", where, err)
	}
	if e.textIndex, err = e.ensureTextIndex(ctx); err != nil {
		e.db.Close()
		return nil, nil, fmt.Errorf("open the library at %s: %w", where, err)
	}
	lib, err := store.OpenServer(ctx, e.db, e, dir)
	if err != nil {
		e.db.Close()
		return nil, nil, fmt.Errorf("open the library at %s: %w", where, err)
	}
	return lib, e, nil
}

// parseURL splits the library's URL into the server's configuration, the
// schema and a form fit for messages (no password).
func parseURL(rawURL string) (*pgx.ConnConfig, string, string, error) {
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
	cfg, err := pgx.ParseConfig(u.String())
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
func (e *engine) Close() error { return e.db.Close() }

// String names the library for messages: its URL without the password.
func (e *engine) String() string { return e.where }

// lockKey is the advisory lock key of one of the library's locks.
func (e *engine) lockKey(name string) string { return "papers:" + e.schema + ":" + name }

// Lock takes the library's write lock in tx: a transaction-scoped
// advisory lock, so that writers take turns as on the SQLite file (one
// paper's check-then-write never races another's), waiting at most
// busyTimeout. Readers never wait for it.
func (e *engine) Lock(ctx context.Context, tx *sql.Tx) error {
	_, err := tx.ExecContext(ctx, "SELECT set_config('lock_timeout', $1, true), pg_advisory_xact_lock(hashtextextended($2, 0))",
		fmt.Sprintf("%dms", busyTimeout.Milliseconds()), e.lockKey("write"))
	var pe *pgconn.PgError
	if errors.As(err, &pe) && pe.Code == "55P03" { // lock_not_available
		return fmt.Errorf("%w (waited %s): %v", store.ErrBusy, busyTimeout, err)
	}
	return err
}

// lockPoll is how often HoldEmbedder tries a lock held in a conflicting
// mode again.
const lockPoll = 100 * time.Millisecond

// HoldEmbedder holds the library's embedder lock, shared (ingests) or
// exclusive (a reindex), as a session-level advisory lock on a connection
// kept for the purpose until release: a process that dies loses its
// connection, and the server releases the lock.
func (e *engine) HoldEmbedder(ctx context.Context, exclusive bool, waiting func()) (func(), error) {
	conn, err := e.db.Conn(ctx)
	if err != nil {
		return nil, err
	}
	mode := "_shared"
	if exclusive {
		mode = ""
	}
	key := e.lockKey("embedder")
	for notified := false; ; {
		var ok bool
		if err := conn.QueryRowContext(ctx, "SELECT pg_try_advisory_lock"+mode+"(hashtextextended($1, 0))", key).Scan(&ok); err != nil {
			conn.Close()
			return nil, fmt.Errorf("lock the library's embedder: %w", err)
		}
		if ok {
			return func() {
				conn.ExecContext(context.WithoutCancel(ctx), "SELECT pg_advisory_unlock"+mode+"(hashtextextended($1, 0))", key)
				conn.Close()
			}, nil
		}
		if !notified && waiting != nil {
			waiting()
		}
		notified = true
		select {
		case <-ctx.Done():
			conn.Close()
			return nil, context.Cause(ctx)
		case <-time.After(lockPoll):
		}
	}
}

var _ store.Engine = (*engine)(nil)
