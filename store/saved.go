package store

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"
)

// Saved papers live in saved_papers, one row per saved paper with when it
// was saved. Like paper_tags it has no foreign key to papers: Put rewrites
// a paper's row on every re-ingest and never touches the table, so a save
// survives re-ingest and reindex; deletePaper removes it and absorb moves
// it to the paper that replaces a duplicate (moveTags).
//
// The table came after schema 3: new libraries create it with their
// schema, older ones on Open (ensureSaved), so readers may assume it.
const savedSchema = `
CREATE TABLE IF NOT EXISTS saved_papers (
	paper_id TEXT PRIMARY KEY,
	saved_at INTEGER NOT NULL              -- Unix nanoseconds UTC
) WITHOUT ROWID;
`

// ensureSaved creates saved_papers in a library made before it existed.
// The check is a read; the write happens once per library. A library that
// cannot be written keeps working without it, only --saved and save fail.
func (l *Library) ensureSaved(ctx context.Context) {
	var n int
	if err := l.db.QueryRowContext(ctx, "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'saved_papers'").Scan(&n); err != nil || n > 0 {
		return
	}
	_ = l.write(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, savedSchema)
		return err
	})
}

// Save marks the papers ids as saved (now, for those not saved yet), in one
// transaction. An id not in the library saves nothing and returns an error
// wrapping ErrNotFound that names it. It returns how many were newly saved.
func (l *Library) Save(ctx context.Context, ids []string) (int, error) {
	return l.setSaved(ctx, ids, true)
}

// Unsave removes the papers ids from the saved papers. An id not in the
// library is an error wrapping ErrNotFound, as for Save; a paper that was
// not saved is no error. It returns how many were saved before.
func (l *Library) Unsave(ctx context.Context, ids []string) (int, error) {
	return l.setSaved(ctx, ids, false)
}

func (l *Library) setSaved(ctx context.Context, ids []string, save bool) (int, error) {
	changed := 0
	now := time.Now().UnixNano()
	err := l.write(ctx, func(tx *sql.Tx) error {
		changed = 0
		for _, id := range ids {
			if err := paperExists(ctx, tx, id); err != nil {
				return err
			}
			var res sql.Result
			var err error
			if save {
				res, err = tx.ExecContext(ctx, "INSERT INTO saved_papers (paper_id, saved_at) VALUES (?, ?) ON CONFLICT DO NOTHING", id, now)
			} else {
				res, err = tx.ExecContext(ctx, "DELETE FROM saved_papers WHERE paper_id = ?", id)
			}
			if err != nil {
				return fmt.Errorf("paper %s: %w", id, err)
			}
			n, _ := res.RowsAffected()
			changed += int(n)
		}
		return nil
	})
	verb := "save"
	if !save {
		verb = "unsave"
	}
	if err != nil {
		return 0, fmt.Errorf("%s: %w", verb, err)
	}
	return changed, nil
}

// paperExists returns an error wrapping ErrNotFound, naming id, unless the
// library holds the paper.
func paperExists(ctx context.Context, tx *sql.Tx, id string) error {
	var n int
	if err := tx.QueryRowContext(ctx, "SELECT count(*) FROM papers WHERE id = ?", id).Scan(&n); err != nil {
		return err
	}
	if n == 0 {
		return fmt.Errorf("paper %s: %w", id, ErrNotFound)
	}
	return nil
}

// loadMarks fills the Tags and Saved of ps: what a paper read from the
// library carries besides its row.
func loadMarks(ctx context.Context, q querier, ps []Paper) error {
	if err := loadTags(ctx, q, ps); err != nil {
		return err
	}
	return loadSaved(ctx, q, ps)
}

// loadSaved fills the Saved of ps from saved_papers.
func loadSaved(ctx context.Context, q querier, ps []Paper) error {
	if len(ps) == 0 {
		return nil
	}
	rows, err := q.QueryContext(ctx, "SELECT paper_id, saved_at FROM saved_papers")
	if err != nil {
		if strings.Contains(err.Error(), "no such table") {
			return nil // a library ensureSaved could not write: nothing is saved
		}
		return wrapBusy(err)
	}
	defer rows.Close()
	saved := map[string]time.Time{}
	for rows.Next() {
		var id string
		var at int64
		if err := rows.Scan(&id, &at); err != nil {
			return err
		}
		saved[id] = time.Unix(0, at).UTC()
	}
	if err := rows.Err(); err != nil {
		return err
	}
	if len(saved) == 0 {
		return nil
	}
	for i := range ps {
		if at, ok := saved[ps[i].ID]; ok {
			ps[i].Saved = at
		}
	}
	return nil
}
