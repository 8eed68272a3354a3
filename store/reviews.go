package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"
)

// Literature reviews (package review) keep two things in the library: the
// cells they computed, so that a re-run computes only what is new, and the
// reviews saved by name. Both tables are created by the first write that
// needs them (a library that never ran a review has neither), and a read of
// a library without them finds nothing. Neither refers to papers by a
// foreign key: a cell names the paper's state it was computed on
// (Fingerprints), and a cell of an older state is simply not found.
const reviewSchema = `
CREATE TABLE IF NOT EXISTS review_cells (
	paper_id    TEXT NOT NULL,
	question    TEXT NOT NULL,
	answerer    TEXT NOT NULL,
	fingerprint TEXT NOT NULL,     -- the paper's state (Fingerprints) the cell was computed on
	cell        TEXT NOT NULL,     -- JSON, package review's
	computed_at INTEGER NOT NULL,  -- Unix nanoseconds UTC
	PRIMARY KEY (paper_id, question, answerer)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS reviews (
	name       TEXT PRIMARY KEY,
	spec       TEXT NOT NULL,      -- JSON, package review's
	created_at INTEGER NOT NULL,
	updated_at INTEGER NOT NULL
) WITHOUT ROWID;
`

// ReviewCell is one cached cell of a review: the answer Answerer gave to
// Question about the paper PaperID in the state Fingerprint. Cell is the
// caller's encoding; the store keeps it as it is.
type ReviewCell struct {
	PaperID     string
	Question    string
	Answerer    string
	Fingerprint string
	Cell        []byte
}

// Fingerprints returns, for each of ids the library holds, a string that
// changes whenever the paper's text or record changes (a new version, a
// re-ingest with other text or chunks) and not otherwise: what a cached
// answer about the paper is valid for. Ids not held are left out.
func (l *Library) Fingerprints(ctx context.Context, ids []string) (map[string]string, error) {
	out := make(map[string]string, len(ids))
	err := l.read(ctx, func(tx *sql.Tx) error {
		for start := 0; start < len(ids); start += 500 {
			part := ids[start:min(len(ids), start+500)]
			args := make([]any, len(part))
			for i, id := range part {
				args[i] = id
			}
			rows, err := tx.QueryContext(ctx, "SELECT id, version, content_hash, fingerprint FROM papers WHERE id IN ("+placeholders(len(part))+")", args...)
			if err != nil {
				return err
			}
			for rows.Next() {
				var id, hash, fp string
				var version int
				if err := rows.Scan(&id, &version, &hash, &fp); err != nil {
					rows.Close()
					return err
				}
				if fp == "" { // a paper stored before fingerprints
					fp = fmt.Sprintf("v%d:%s", version, hash)
				}
				out[id] = fp
			}
			rows.Close()
			if err := rows.Err(); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read papers' fingerprints: %w", err)
	}
	return out, nil
}

// ReviewCells returns the cached cells of answerer for the papers ids and
// the questions, whatever their fingerprint (the caller compares it with
// Fingerprints). A library that never stored a cell returns none.
func (l *Library) ReviewCells(ctx context.Context, ids, questions []string, answerer string) ([]ReviewCell, error) {
	if len(ids) == 0 || len(questions) == 0 {
		return nil, nil
	}
	var out []ReviewCell
	err := l.read(ctx, func(tx *sql.Tx) error {
		qargs := make([]any, 0, len(questions)+1)
		qargs = append(qargs, answerer)
		for _, q := range questions {
			qargs = append(qargs, q)
		}
		for start := 0; start < len(ids); start += 400 {
			part := ids[start:min(len(ids), start+400)]
			args := append([]any(nil), qargs...)
			for _, id := range part {
				args = append(args, id)
			}
			rows, err := tx.QueryContext(ctx, "SELECT paper_id, question, fingerprint, cell FROM review_cells WHERE answerer = ? AND question IN ("+
				placeholders(len(questions))+") AND paper_id IN ("+placeholders(len(part))+")", args...)
			if err != nil {
				return err
			}
			for rows.Next() {
				c := ReviewCell{Answerer: answerer}
				if err := rows.Scan(&c.PaperID, &c.Question, &c.Fingerprint, &c.Cell); err != nil {
					rows.Close()
					return err
				}
				out = append(out, c)
			}
			rows.Close()
			if err := rows.Err(); err != nil {
				return err
			}
		}
		return nil
	})
	if noReviewTables(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read cached review cells: %w", err)
	}
	return out, nil
}

// PutReviewCells stores cells in one transaction, each replacing the cell
// of the same paper, question and answerer (of any fingerprint).
func (l *Library) PutReviewCells(ctx context.Context, cells []ReviewCell) error {
	if len(cells) == 0 {
		return nil
	}
	now := time.Now().UnixNano()
	err := l.write(ctx, func(tx *sql.Tx) error {
		if err := l.ensureReviewTables(ctx, tx); err != nil {
			return err
		}
		st, err := tx.PrepareContext(ctx, `INSERT INTO review_cells (paper_id, question, answerer, fingerprint, cell, computed_at) VALUES (?, ?, ?, ?, ?, ?)
			ON CONFLICT (paper_id, question, answerer) DO UPDATE SET fingerprint = excluded.fingerprint, cell = excluded.cell,
				computed_at = excluded.computed_at`)
		if err != nil {
			return err
		}
		defer st.Close()
		for _, c := range cells {
			if _, err := st.ExecContext(ctx, c.PaperID, c.Question, c.Answerer, c.Fingerprint, string(c.Cell), now); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("cache review cells: %w", err)
	}
	return nil
}

// SavedReview is a review kept by name: Spec is the caller's encoding of
// its papers and columns.
type SavedReview struct {
	Name    string
	Spec    []byte
	Created time.Time
	Updated time.Time
}

// SaveReview stores (or replaces) the review name. Names are compared as
// given (case-sensitive).
func (l *Library) SaveReview(ctx context.Context, name string, spec []byte) error {
	now := time.Now().UnixNano()
	err := l.write(ctx, func(tx *sql.Tx) error {
		if err := l.ensureReviewTables(ctx, tx); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO reviews (name, spec, created_at, updated_at) VALUES (?, ?, ?, ?)
			ON CONFLICT (name) DO UPDATE SET spec = excluded.spec, updated_at = excluded.updated_at`, name, string(spec), now, now)
		return err
	})
	if err != nil {
		return fmt.Errorf("save review %s: %w", name, err)
	}
	return nil
}

// Review returns the saved review name, or an error wrapping ErrNotFound.
func (l *Library) Review(ctx context.Context, name string) (SavedReview, error) {
	var r SavedReview
	var created, updated int64
	err := l.read(ctx, func(tx *sql.Tx) error {
		return tx.QueryRowContext(ctx, "SELECT name, spec, created_at, updated_at FROM reviews WHERE name = ?", name).Scan(&r.Name, &r.Spec, &created, &updated)
	})
	if errors.Is(err, sql.ErrNoRows) || noReviewTables(err) {
		return r, fmt.Errorf("review %q: %w", name, ErrNotFound)
	}
	if err != nil {
		return r, fmt.Errorf("read review %s: %w", name, err)
	}
	r.Created, r.Updated = time.Unix(0, created).UTC(), time.Unix(0, updated).UTC()
	return r, nil
}

// Reviews returns the saved reviews by name.
func (l *Library) Reviews(ctx context.Context) ([]SavedReview, error) {
	var out []SavedReview
	err := l.read(ctx, func(tx *sql.Tx) error {
		rows, err := tx.QueryContext(ctx, "SELECT name, spec, created_at, updated_at FROM reviews ORDER BY name")
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var r SavedReview
			var created, updated int64
			if err := rows.Scan(&r.Name, &r.Spec, &created, &updated); err != nil {
				return err
			}
			r.Created, r.Updated = time.Unix(0, created).UTC(), time.Unix(0, updated).UTC()
			out = append(out, r)
		}
		return rows.Err()
	})
	if noReviewTables(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read saved reviews: %w", err)
	}
	return out, nil
}

// RemoveReview deletes the saved review name (its cached cells stay: other
// reviews may ask the same questions). A name not saved is an error
// wrapping ErrNotFound.
func (l *Library) RemoveReview(ctx context.Context, name string) error {
	var n int64
	err := l.write(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, "DELETE FROM reviews WHERE name = ?", name)
		if err != nil {
			return err
		}
		n, err = res.RowsAffected()
		return err
	})
	if noReviewTables(err) || (err == nil && n == 0) {
		return fmt.Errorf("review %q: %w", name, ErrNotFound)
	}
	if err != nil {
		return fmt.Errorf("remove review %s: %w", name, err)
	}
	return nil
}

// ensureReviewTables creates the review tables in tx if the library has
// none yet (a library in a server has them from its creation).
func (l *Library) ensureReviewTables(ctx context.Context, tx *sql.Tx) error {
	if l.eng != nil {
		return nil
	}
	_, err := tx.ExecContext(ctx, reviewSchema)
	return err
}

// noReviewTables reports the error of reading a library whose review tables
// were never created.
func noReviewTables(err error) bool {
	return err != nil && strings.Contains(err.Error(), "no such table")
}
