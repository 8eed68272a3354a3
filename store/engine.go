package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
)

// A library's record can live in a database server rather than in
// library.db: PostgreSQL with pgvector (package pgstore), which a lab
// shares from several machines. The record is the same tables and this
// package's same SQL, which is kept to what both databases read alike
// (the server's connections translate the few textual differences left:
// placeholders, LIKE's case, where NULL sorts); what differs is the
// search, which the server does itself, and a few things the SQLite file
// does with files beside it (the segment index, the paper vectors'
// sidecar, the embedder's lock file). Engine is that part.

// Engine is the part of a library in a database server that is the
// server's own: its search, what it derives from chunks to search them,
// its vectors' form and its locks. Package pgstore implements it for
// PostgreSQL.
type Engine interface {
	// TermColumns names columns of chunks the engine derives from a
	// chunk's text and its paper's title (its terms, for text search), and
	// Terms returns their values, in that order.
	TermColumns() []string
	Terms(title, text string) []any
	// Retitle derives again, in tx, the terms of paper id's chunks from its
	// title now: after a Put that kept or moved chunks under a new title.
	Retitle(ctx context.Context, tx *sql.Tx, id string) error

	// EncodeVector is a chunk's (normalised) vector as the vector column
	// takes it; DecodeVector reads what the column gives back.
	EncodeVector(v []float32) any
	DecodeVector(b []byte) ([]float32, error)
	// MeanVectors calls fn, in tx, with each paper that has chunk vectors
	// and the mean of them (not normalised), by paper id.
	MeanVectors(ctx context.Context, tx *sql.Tx, fn func(id string, mean []float32) error) error

	// Lock takes, in tx, the library's write lock (held until tx ends),
	// waiting at most the busy timeout (then an error wrapping ErrBusy):
	// writers take turns as they do on the SQLite file.
	Lock(ctx context.Context, tx *sql.Tx) error
	// HoldEmbedder holds the embedder lock (see Library.HoldEmbedder),
	// shared or exclusive, calling waiting once if it must wait.
	HoldEmbedder(ctx context.Context, exclusive bool, waiting func()) (release func(), err error)

	// SearchText and SearchVectors are Library.SearchText and
	// SearchVectors over the papers sel selects.
	SearchText(ctx context.Context, terms []string, k int, sel Selection, fb Feedback) ([]Hit, error)
	SearchVectors(ctx context.Context, q []float32, k int, sel Selection) ([]Hit, error)
	// Refresh brings the engine's indexes up to date after writes (e.g.
	// an approximate vector index once the library is large enough).
	Refresh(ctx context.Context) error
	// Close releases the engine's connections.
	Close() error
}

// Selection is the papers a Filter selects, as a condition on the papers
// table aliased p with its arguments (? placeholders). An empty Cond
// selects every paper.
type Selection struct {
	Cond string
	Args []any
}

// OpenServer returns the library whose record is in db, a database the
// engine's server holds with this package's tables (the engine made
// them), searched by the engine. dir is a directory of this machine for
// what the library keeps locally (downloaded PDFs; see Dir); it is
// created if missing. Closing the library closes the engine, which owns
// db.
func OpenServer(ctx context.Context, db *sql.DB, eng Engine, dir string) (*Library, error) {
	if dir == "" {
		return nil, errors.New("open library: no local directory given")
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("open library: %w", err)
	}
	l := &Library{dir: dir, db: db, eng: eng}
	if _, err := l.Manifest(ctx); err != nil {
		return nil, err
	}
	return l, nil
}

// OnServer reports whether the library lives in a database server (see
// OpenServer) rather than in library.db.
func (l *Library) OnServer() bool { return l.eng != nil }

// filterSelection is f as the engine's Selection.
func (l *Library) filterSelection(f Filter) Selection {
	if f.empty() {
		return Selection{}
	}
	cond, args := f.where("p.", l.eng != nil)
	return Selection{Cond: cond, Args: args}
}

// encodeVec is v as the library's vector column takes it.
func (l *Library) encodeVec(v []float32) any {
	if v == nil {
		return nil
	}
	if l.eng != nil {
		return l.eng.EncodeVector(v)
	}
	return encodeVector(v)
}

// decodeVec reads what the vector column gave (nil: no vector).
func (l *Library) decodeVec(b []byte) ([]float32, error) {
	if b == nil {
		return nil, nil
	}
	if l.eng != nil {
		return l.eng.DecodeVector(b)
	}
	return decodeVector(b), nil
}
