package index

import (
	"context"
	"time"
)

// Chunk is what the index holds of a chunk: its paper, the paper's title
// (indexed with every chunk of the paper), its number in the paper, its
// vector (little-endian float32, as the library stores it) and its text.
// The bytes of Vector may be reused once the function given them returns.
type Chunk struct {
	PaperID string
	Title   string
	Seq     int
	Vector  []byte
	Text    string
}

// Source is one consistent snapshot of the library the index is built
// from and brought up to date with.
type Source interface {
	// Version is the library's version in the snapshot, and how far its
	// change log was pruned (positions up to it are gone).
	Version() (v Version, pruned int64, err error)
	// Changed returns the ids of the papers logged after position pos,
	// ascending, each once.
	Changed(pos int64) ([]string, error)
	// All calls fn with every chunk of the library in (paper id, seq)
	// order; an error from fn stops it and is returned.
	All(fn func(Chunk) error) error
	// Papers calls fn with the chunks of the papers ids (ascending) in
	// (paper id, seq) order; a paper no longer in the library has none.
	Papers(ids []string, fn func(Chunk) error) error
}

// Snapshot runs fn with a Source on one snapshot of the library.
type Snapshot func(ctx context.Context, fn func(Source) error) error

// Config says where an index is and how it reaches its library.
type Config struct {
	// Dir is the index directory (created by the first write).
	Dir string
	// ReadOnly: the directory must not be written (a library opened
	// read-only): views are brought up to date in memory only.
	ReadOnly bool
	// Wait is how long a write waits for another process that holds the
	// index's write lock before giving up.
	Wait time.Duration
	// Snapshot reads the library.
	Snapshot Snapshot
	// Committed, if set, is called after a commit made durable the
	// library's changes up to position pos (the library may prune its
	// change log up to there).
	Committed func(ctx context.Context, pos int64)
	// Merging, if set, is called as a merge of segments starts (for logs
	// and for tests that interrupt merges).
	Merging func()
}

// Dir is the search index of one directory as one process holds it: the
// current view and the segments it maps. It is safe for concurrent use.
type Dir struct {
	dir       string
	readOnly  bool
	wait      time.Duration
	snapshot  Snapshot
	committed func(ctx context.Context, pos int64)
	merging   func()
	st        indexState
}

// Open returns the index of c.Dir. It reads nothing until a search needs
// a view; it removes the temporary files killed writers left behind.
func Open(c Config) *Dir {
	d := &Dir{dir: c.Dir, readOnly: c.ReadOnly, wait: c.Wait, snapshot: c.Snapshot, committed: c.Committed, merging: c.Merging}
	if !d.readOnly {
		removeIndexTemps(d.dir)
	}
	return d
}

// Close releases the index's maps; the views handed out must have been
// released.
func (d *Dir) Close() { d.st.close() }
