package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"modernc.org/sqlite"
)

// ErrDamaged is wrapped by the errors of a library whose database file is
// damaged: SQLite found a page it cannot make sense of ("database disk
// image is malformed", "file is not a database"). What can be read still
// reads; papers check --repair copies every paper it can read into a new
// library file (Repair).
var ErrDamaged = errors.New("the library file is damaged")

// IsDamaged reports whether err says that a library's database file is
// damaged: it wraps ErrDamaged, or SQLite's CORRUPT or NOTADB.
func IsDamaged(err error) bool {
	if errors.Is(err, ErrDamaged) {
		return true
	}
	var se *sqlite.Error
	if errors.As(err, &se) {
		switch se.Code() & 0xff {
		case 11, 26: // SQLITE_CORRUPT, SQLITE_NOTADB
			return true
		}
	}
	return false
}

// damaged wraps err with ErrDamaged when it says the file is damaged (and
// does not already).
func damaged(err error) error {
	if err == nil || errors.Is(err, ErrDamaged) || !IsDamaged(err) {
		return err
	}
	return fmt.Errorf("%w: %w", ErrDamaged, err)
}

// DamagedName is the file, beside the library's, that records that the
// library file was found damaged: every later command says so (and writes
// nothing) until papers check finds the file whole again or papers check
// --repair replaces it.
const DamagedName = FileName + ".damaged"

// MarkDamaged records in the library directory dir that its file was found
// damaged, and how (err), unless that is recorded already. It writes
// nothing when the directory cannot be written.
func MarkDamaged(dir string, err error) {
	path := filepath.Join(dir, DamagedName)
	if _, serr := os.Stat(path); serr == nil {
		return
	}
	msg := fmt.Sprintf("%s %s\n", time.Now().UTC().Format(time.RFC3339), strings.ReplaceAll(err.Error(), "\n", " "))
	_ = os.WriteFile(path, []byte(msg), 0o600)
}

// Damaged returns what the damage record of the library in dir says (when
// and what was found), or "" when there is none.
func Damaged(dir string) string {
	b, err := os.ReadFile(filepath.Join(dir, DamagedName))
	if err != nil {
		return ""
	}
	s := strings.TrimSpace(string(b))
	if s == "" {
		return "found damaged"
	}
	return s
}

// clearDamaged removes the damage record of the library in dir.
func clearDamaged(dir string) error {
	err := os.Remove(filepath.Join(dir, DamagedName))
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	return err
}

// Problem is one thing Diagnose found wrong with a library, and its fix.
type Problem struct {
	// What is wrong, in a sentence: "the library file is damaged:
	// integrity check: ...", "search index: segment s000004: ...".
	What string
	// Part is what is damaged: "library", "index" or "vectors". The index
	// and the paper vectors are derived from the library file: Repair
	// rebuilds them; a damaged library file is copied, what can be read.
	Part string
	Err  error
}

// The parts of a library Diagnose checks.
const (
	PartLibrary = "library"
	PartIndex   = "index"
	PartVectors = "vectors"
)

// Diagnose checks the whole library, as Check does, and returns every
// problem it finds rather than the first: the library file (SQLite's
// integrity_check and foreign_key_check, every paper's chunk count), the
// paper vectors' checksums, and the search index against the library (all
// its checksums, the chunks it holds). A damaged library file is recorded
// (MarkDamaged); a library file that checks out clears an earlier record.
// It writes nothing else.
func (l *Library) Diagnose(ctx context.Context) []Problem {
	var ps []Problem
	if err := l.checkRecord(ctx); err != nil {
		if ctx.Err() != nil {
			return nil
		}
		ps = append(ps, Problem{What: damaged(err).Error(), Part: PartLibrary, Err: damaged(err)})
		if l.readOnly != readOnlyAsked {
			MarkDamaged(l.dir, err)
		}
		return ps // the derived parts are checked against a whole library
	}
	if Damaged(l.dir) != "" && l.readOnly != readOnlyAsked {
		_ = clearDamaged(l.dir) // restored, or the damage was elsewhere
	}
	if err := l.checkPaperVectors(ctx); err != nil {
		ps = append(ps, Problem{What: err.Error(), Part: PartVectors, Err: err})
	}
	if err := l.checkIndex(ctx); err != nil && ctx.Err() == nil {
		ps = append(ps, Problem{What: err.Error(), Part: PartIndex, Err: err})
	}
	return ps
}

// checkRecord is the library file's part of Check: SQLite's own checks
// (a database server checks its pages itself), then that every paper's
// chunk count matches its chunks.
func (l *Library) checkRecord(ctx context.Context) error {
	return l.read(ctx, func(tx *sql.Tx) error {
		if l.eng == nil {
			if err := sqliteIntegrity(ctx, tx); err != nil {
				return err
			}
		}
		var bad string
		err := tx.QueryRowContext(ctx, `SELECT p.id FROM papers p
			WHERE p.chunks != (SELECT count(*) FROM chunks c WHERE c.paper_id = p.id) LIMIT 1`).Scan(&bad)
		if err == nil {
			return fmt.Errorf("%w: paper %s: chunk count does not match its chunks", ErrDamaged, bad)
		} else if !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		return nil
	})
}

// sqliteIntegrity runs SQLite's integrity_check and foreign_key_check in
// tx: ErrDamaged, saying what they found, when either finds a problem.
func sqliteIntegrity(ctx context.Context, tx *sql.Tx) error {
	rows, err := tx.QueryContext(ctx, "PRAGMA integrity_check")
	if err != nil {
		return fmt.Errorf("integrity check: %w", err)
	}
	var problems []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			rows.Close()
			return fmt.Errorf("integrity check: %w", err)
		}
		if s != "ok" {
			problems = append(problems, s)
		}
	}
	if err := rows.Err(); err != nil {
		rows.Close()
		return fmt.Errorf("integrity check: %w", err)
	}
	rows.Close()
	if len(problems) > 0 {
		if len(problems) > 3 {
			problems = append(problems[:3], fmt.Sprintf("and %d more", len(problems)-3))
		}
		return fmt.Errorf("%w: integrity check: %s", ErrDamaged, strings.Join(problems, "; "))
	}
	var n int
	if err := tx.QueryRowContext(ctx, "SELECT count(*) FROM pragma_foreign_key_check").Scan(&n); err != nil {
		return fmt.Errorf("foreign key check: %w", err)
	}
	if n > 0 {
		return fmt.Errorf("%w: foreign key check: %d rows refer to missing papers", ErrDamaged, n)
	}
	return nil
}

// openDamaged opens a library found damaged (why: its damage record) for
// reading only: ReadOnly says so, writes fail with ErrReadOnly and
// ErrDamaged.
func openDamaged(ctx context.Context, dir, path, why string) (*Library, error) {
	db, _, err := openReadOnly(ctx, path)
	if err != nil {
		return nil, fmt.Errorf("open library %s: %w (%s)", path, ErrDamaged, err)
	}
	l := &Library{dir: dir, db: db, damaged: true, readOnly: "its file was found damaged (" + why + "); papers check --repair recovers what can be read"}
	if v, err := l.userVersion(ctx); err != nil || v != SchemaVersion {
		db.Close()
		if err == nil {
			err = fmt.Errorf("the library has schema %d and this papers reads schema %d", v, SchemaVersion)
		}
		return nil, fmt.Errorf("open library %s: %w: %w", path, ErrDamaged, err)
	}
	l.openIndex()
	return l, nil
}
