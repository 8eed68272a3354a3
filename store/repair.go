package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/papers-cli/papers/internal/diskfile"
	"github.com/papers-cli/papers/internal/sqlitefile"
)

// RepairReport is what Repair did.
type RepairReport struct {
	// Recovered are the papers the new library file holds: every paper
	// whose row and chunks could all be read.
	Recovered int `json:"recovered"`
	// Lost are the papers of the damaged file that are not in the new one
	// (their row or a chunk could not be read), by id, as far as the
	// damaged file still names them.
	Lost []string `json:"lost"`
	// Unreadable counts the rows of the damaged file that could not be
	// read at all (a damaged page): their papers may be among Lost, or
	// not named anywhere any more.
	Unreadable int `json:"unreadable_rows"`
	// Damaged is where the damaged file was kept, beside the new one.
	Damaged string `json:"damaged_file"`
}

// Repair makes a new library file in dir from what can be read of its
// damaged one: every paper whose row and chunks can all be read, with its
// tags, identifiers, categories, topic memberships and saved mark, the
// topics and the manifest (the embedder, the chunker), each table read in
// ranges of rows that narrow around the damaged pages. The damaged file
// is kept beside the new one (library.db.damaged-YYYYMMDD-HHMMSS, with its
// -wal and -shm files), the search index and the paper vectors are
// deleted (the next command rebuilds them from the new file) and the
// damage record is cleared. No other papers process may use the library
// meanwhile: what one wrote into the old file would be left there.
func Repair(ctx context.Context, dir string) (*RepairReport, error) {
	src := filepath.Join(dir, FileName)
	if _, err := os.Stat(src); err != nil {
		return nil, fmt.Errorf("repair: %w", err)
	}
	old, _, err := openReadOnly(ctx, src)
	if err != nil {
		return nil, fmt.Errorf("repair: open the damaged library file: %w", err)
	}
	defer old.Close()
	old.SetMaxOpenConns(1)
	if v, err := readUserVersion(ctx, old); err == nil && v != SchemaVersion {
		return nil, fmt.Errorf("repair: the damaged library has schema %d; this papers repairs schema %d (use the papers that wrote it)", v, SchemaVersion)
	}

	tmp, err := os.MkdirTemp(dir, ".repair-")
	if err != nil {
		return nil, fmt.Errorf("repair: %w", err)
	}
	defer os.RemoveAll(tmp)
	fresh, err := Open(ctx, tmp) // the schema, and the tables of every version
	if err != nil {
		return nil, fmt.Errorf("repair: make the new library file: %w", err)
	}
	fresh.Close()
	dst := filepath.Join(tmp, FileName)
	nw, err := sql.Open("sqlite", sqlitefile.URI(dst)+"?_pragma=foreign_keys(0)&_pragma=busy_timeout(5000)&_pragma=synchronous(OFF)")
	if err != nil {
		return nil, fmt.Errorf("repair: %w", err)
	}
	defer nw.Close()
	nw.SetMaxOpenConns(1)

	rep := &RepairReport{}
	tables, err := queryStrings(ctx, nw, "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name != 'index_log' ORDER BY name")
	if err != nil {
		return nil, fmt.Errorf("repair: %w", err)
	}
	for _, t := range tables {
		n, err := copyTable(ctx, old, nw, t)
		if err != nil {
			return nil, fmt.Errorf("repair: table %s: %w", t, err)
		}
		rep.Unreadable += n
	}
	// Papers some of whose chunks were not read are not whole: they go,
	// and so does what refers to a paper that is not there.
	if err := dropIncomplete(ctx, nw, tables); err != nil {
		return nil, fmt.Errorf("repair: %w", err)
	}
	if err := nw.QueryRowContext(ctx, "SELECT count(*) FROM papers").Scan(&rep.Recovered); err != nil {
		return nil, fmt.Errorf("repair: %w", err)
	}
	kept, err := queryStrings(ctx, nw, "SELECT id FROM papers ORDER BY id")
	if err != nil {
		return nil, fmt.Errorf("repair: %w", err)
	}
	for _, id := range namedPapers(ctx, old) {
		if _, ok := slices.BinarySearch(kept, id); !ok {
			rep.Lost = append(rep.Lost, id)
		}
	}
	// One file, whole, before it replaces the damaged one.
	var problem string
	if err := nw.QueryRowContext(ctx, "PRAGMA integrity_check").Scan(&problem); err != nil || problem != "ok" {
		return nil, fmt.Errorf("repair: the new library file does not check out: %v %s", err, problem)
	}
	if _, err := nw.ExecContext(ctx, "PRAGMA journal_mode = DELETE"); err != nil {
		return nil, fmt.Errorf("repair: %w", err)
	}
	nw.Close()
	old.Close()

	stamp := time.Now().UTC().Format("20060102-150405")
	rep.Damaged = src + ".damaged-" + stamp
	for _, ext := range []string{"", "-wal", "-shm"} {
		if err := os.Rename(src+ext, rep.Damaged+ext); err != nil && !errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("repair: keep the damaged file: %w", err)
		}
	}
	if err := os.Rename(dst, src); err != nil {
		return nil, fmt.Errorf("repair: put the new library file in place (the damaged one is at %s): %w", rep.Damaged, err)
	}
	diskfile.SyncDir(dir)
	os.RemoveAll(filepath.Join(dir, IndexDir)) // derived from the old file
	os.Remove(filepath.Join(dir, PaperVectorsName))
	_ = clearDamaged(dir)
	return rep, nil
}

// readUserVersion is PRAGMA user_version of db.
func readUserVersion(ctx context.Context, db *sql.DB) (int, error) {
	var v int
	err := db.QueryRowContext(ctx, "PRAGMA user_version").Scan(&v)
	return v, err
}

// copyTable copies the rows of table t that can be read from old into nw
// (columns both have; a row of the new file with the same key, such as the
// fresh file's manifest, is replaced), and returns how many rows or ranges of rows could
// not be read. A table with rowids is read in ranges of them, a range
// that fails split in two until the rows that cannot be read are found;
// one without (keyed by paper, small) is read whole, then paper by paper
// for the papers copied when that fails.
func copyTable(ctx context.Context, old, nw *sql.DB, t string) (int, error) {
	cols, err := sharedColumns(ctx, old, nw, t)
	if err != nil || len(cols) == 0 {
		return 0, nil // not in the damaged file (an older layout): nothing to copy
	}
	list := strings.Join(cols, ", ")
	ins, err := nw.PrepareContext(ctx, "INSERT OR REPLACE INTO "+t+" ("+list+") VALUES ("+placeholders(len(cols))+")")
	if err != nil {
		return 0, err
	}
	defer ins.Close()
	tx, err := nw.BeginTx(ctx, nil)
	if err != nil {
		return 0, err
	}
	defer tx.Rollback()
	insert := tx.StmtContext(ctx, ins)
	read := func(q string, args ...any) (int, error) {
		rows, err := old.QueryContext(ctx, q, args...)
		if err != nil {
			return 0, err
		}
		defer rows.Close()
		n := 0
		for rows.Next() {
			vals := make([]any, len(cols))
			ptrs := make([]any, len(cols))
			for i := range vals {
				ptrs[i] = &vals[i]
			}
			if err := rows.Scan(ptrs...); err != nil {
				return n, err
			}
			if _, err := insert.ExecContext(ctx, vals...); err != nil {
				return n, errWrite{err}
			}
			n++
		}
		return n, rows.Err()
	}
	unreadable := 0
	if hasRowid(ctx, old, t) {
		top, err := maxRowid(ctx, old, t)
		if err != nil {
			return 0, err
		}
		var span func(lo, hi int64) error
		span = func(lo, hi int64) error {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			_, err := read("SELECT "+list+" FROM "+t+" WHERE rowid BETWEEN ? AND ?", lo, hi)
			var we errWrite
			switch {
			case err == nil:
				return nil
			case errors.As(err, &we):
				return we.err
			case lo == hi:
				unreadable++
				return nil
			}
			// INSERT OR REPLACE: rows read before the failure are not
			// copied twice when the halves are read again
			mid := lo + (hi-lo)/2
			if err := span(lo, mid); err != nil {
				return err
			}
			return span(mid+1, hi)
		}
		const step = 4096
		for lo := int64(1); lo <= top; lo += step {
			if err := span(lo, min(top, lo+step-1)); err != nil {
				return 0, err
			}
		}
	} else if _, err := read("SELECT " + list + " FROM " + t); err != nil {
		var we errWrite
		if errors.As(err, &we) {
			return 0, we.err
		}
		unreadable++
		if slices.Contains(cols, "paper_id") {
			ids, err := queryStrings(ctx, tx, "SELECT id FROM papers")
			if err != nil {
				return 0, err
			}
			for _, id := range ids {
				if _, err := read("SELECT "+list+" FROM "+t+" WHERE paper_id = ?", id); err != nil {
					if errors.As(err, &we) {
						return 0, we.err
					}
					unreadable++
				}
			}
		}
	}
	return unreadable, tx.Commit()
}

// errWrite is an error of writing the new file, as opposed to reading
// the damaged one: it stops the repair.
type errWrite struct{ err error }

func (e errWrite) Error() string { return e.err.Error() }

// sharedColumns are the columns of table t in both files, in nw's order.
func sharedColumns(ctx context.Context, old, nw *sql.DB, t string) ([]string, error) {
	have, err := queryStrings(ctx, old, "SELECT name FROM pragma_table_info(?)", t)
	if err != nil {
		return nil, err
	}
	want, err := queryStrings(ctx, nw, "SELECT name FROM pragma_table_info(?)", t)
	if err != nil {
		return nil, err
	}
	var cols []string
	for _, c := range want {
		if slices.Contains(have, c) {
			cols = append(cols, `"`+c+`"`)
		}
	}
	return cols, nil
}

// hasRowid reports whether table t of db has rowids (it was not made
// WITHOUT ROWID).
func hasRowid(ctx context.Context, db *sql.DB, t string) bool {
	var sqlText string
	if err := db.QueryRowContext(ctx, "SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?", t).Scan(&sqlText); err != nil {
		return false
	}
	return !strings.Contains(strings.ToUpper(sqlText), "WITHOUT ROWID")
}

// maxRowid is the table's largest rowid; when the way to it is damaged,
// the largest that can be found by looking in ranges below a bound.
func maxRowid(ctx context.Context, db *sql.DB, t string) (int64, error) {
	var top sql.NullInt64
	if err := db.QueryRowContext(ctx, "SELECT max(rowid) FROM "+t).Scan(&top); err == nil {
		return top.Int64, nil
	}
	// Probe upward in growing windows; a window that fails counts as
	// holding rows. 2^40 rowids is more than any library has.
	best := int64(0)
	for lo := int64(1); lo < 1<<40; lo *= 2 {
		var n int
		err := db.QueryRowContext(ctx, "SELECT count(*) FROM "+t+" WHERE rowid BETWEEN ? AND ?", lo, 2*lo-1).Scan(&n)
		if err != nil || n > 0 {
			best = 2*lo - 1
		} else if best > 0 && lo > 4*best {
			break
		}
		if ctx.Err() != nil {
			return 0, ctx.Err()
		}
	}
	return best, nil
}

// dropIncomplete deletes from nw the papers whose chunks were not all
// copied (the count on the paper's row says how many it has), then every
// row of tables that refer to a paper that is not there.
func dropIncomplete(ctx context.Context, nw *sql.DB, tables []string) error {
	if _, err := nw.ExecContext(ctx, "DELETE FROM papers WHERE chunks != (SELECT count(*) FROM chunks c WHERE c.paper_id = papers.id)"); err != nil {
		return err
	}
	for _, t := range tables {
		cols, err := queryStrings(ctx, nw, "SELECT name FROM pragma_table_info(?)", t)
		if err != nil {
			return err
		}
		if t != "papers" && slices.Contains(cols, "paper_id") {
			if _, err := nw.ExecContext(ctx, "DELETE FROM "+t+" WHERE paper_id NOT IN (SELECT id FROM papers)"); err != nil {
				return err
			}
		}
	}
	var n int
	if err := nw.QueryRowContext(ctx, "SELECT count(*) FROM pragma_foreign_key_check").Scan(&n); err != nil {
		return err
	}
	if n > 0 {
		return fmt.Errorf("%d rows of the new file still refer to missing rows", n)
	}
	return nil
}

// namedPapers are the ids of the papers a damaged file still names: its
// papers table, else its id index (another b-tree, maybe whole), else the
// ids its chunks give; as many as can be read.
func namedPapers(ctx context.Context, db *sql.DB) []string {
	seen := map[string]bool{}
	for _, q := range []string{
		"SELECT id FROM papers ORDER BY id", // the primary key's index
		"SELECT id FROM papers NOT INDEXED",
		"SELECT DISTINCT paper_id FROM chunks",
	} {
		rows, err := db.QueryContext(ctx, q)
		if err != nil {
			continue
		}
		for rows.Next() {
			var id string
			if rows.Scan(&id) == nil {
				seen[id] = true
			}
		}
		rows.Close()
	}
	ids := make([]string, 0, len(seen))
	for id := range seen {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids
}
