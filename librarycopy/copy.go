// Package librarycopy moves a library from one store to another: from the
// embedded library (a directory) to PostgreSQL and back, or between two of
// either. It copies the record table by table (store.Tables: every paper,
// chunk, vector, category, tag, identifier, topic with its members, and
// saved mark, with every column), then checks that the destination holds
// as many rows of each table as the source.
package librarycopy

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/papers-cli/papers/store"
)

// Library is a store a library can be copied from and to; *store.Library
// satisfies it, in a directory or in PostgreSQL (package pgstore).
type Library interface {
	// Dump calls fn with every row of every table of store.Tables, in
	// order, from one snapshot.
	Dump(ctx context.Context, fn func(t store.Table, row []any) error) error
	// Load inserts rows of one table in one transaction.
	Load(ctx context.Context, t store.Table, rows [][]any) error
	// Counts returns the rows of each table, and "vectors".
	Counts(ctx context.Context) (map[string]int64, error)
	// Refresh brings the search indexes up to date after the load.
	Refresh(ctx context.Context) error
}

// ErrNotEmpty is Copy's error for a destination that holds papers already:
// a copy never merges two libraries.
var ErrNotEmpty = errors.New("the destination library is not empty")

// ErrMismatch is Copy's error when a table of the destination does not hold
// as many rows as the source's after the copy.
var ErrMismatch = errors.New("the copy does not hold what the library holds")

// batch is how many rows go in one transaction of the destination.
const batch = 1000

// Counts are a library's rows per table (store.Tables' names and
// "vectors"), as Copy found them in the source and the destination.
type Counts map[string]int64

// Keys returns the counts' names in store.Tables' order, "vectors" after
// "chunks".
func (c Counts) Keys() []string {
	var out []string
	for _, t := range store.Tables {
		out = append(out, t.Name)
		if t.Name == "chunks" {
			out = append(out, "vectors")
		}
	}
	return out
}

// Copy copies from into to, which must hold no paper and no chunk (else
// ErrNotEmpty), and checks the counts (else ErrMismatch, naming the tables
// that differ). progress, if not nil, is called after each batch with the
// table and the rows of it copied so far. It returns the source's and the
// destination's counts. A copy that fails part way leaves the destination
// partly filled: empty it (or make another) before copying again.
func Copy(ctx context.Context, from, to Library, progress func(table string, rows int64)) (src, dst Counts, err error) {
	before, err := to.Counts(ctx)
	if err != nil {
		return nil, nil, err
	}
	if before["papers"] > 0 || before["chunks"] > 0 {
		return nil, nil, fmt.Errorf("%w: it holds %d papers and %d chunks", ErrNotEmpty, before["papers"], before["chunks"])
	}
	var (
		cur  store.Table
		rows [][]any
		done int64
	)
	flush := func() error {
		if len(rows) == 0 {
			return nil
		}
		if err := to.Load(ctx, cur, rows); err != nil {
			return fmt.Errorf("copy table %s: %w", cur.Name, err)
		}
		done += int64(len(rows))
		rows = rows[:0]
		if progress != nil {
			progress(cur.Name, done)
		}
		return nil
	}
	err = from.Dump(ctx, func(t store.Table, row []any) error {
		if t.Name != cur.Name {
			if err := flush(); err != nil {
				return err
			}
			cur, done = t, 0
		}
		rows = append(rows, row)
		if len(rows) == batch {
			return flush()
		}
		return nil
	})
	if err == nil {
		err = flush()
	}
	if err == nil {
		// The search indexes are built once, after the load: the embedded
		// library's segments, the server's vector index when the library is
		// large enough for one.
		err = to.Refresh(ctx)
	}
	if err != nil {
		return nil, nil, err
	}
	if src, err = from.Counts(ctx); err != nil {
		return nil, nil, err
	}
	if dst, err = to.Counts(ctx); err != nil {
		return nil, nil, err
	}
	var differ []string
	for _, k := range Counts(src).Keys() {
		if src[k] != dst[k] {
			differ = append(differ, fmt.Sprintf("%s %d, copied %d", k, src[k], dst[k]))
		}
	}
	if len(differ) > 0 {
		slices.Sort(differ)
		return src, dst, fmt.Errorf("%w: %s", ErrMismatch, strings.Join(differ, "; "))
	}
	return src, dst, nil
}
