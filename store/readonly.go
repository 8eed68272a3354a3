package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"strconv"
	"time"

	"github.com/papers-cli/papers/internal/sqlitefile"
	"modernc.org/sqlite"
)

var (
	// ErrReadOnly is wrapped by the error of a write to a library that
	// cannot be written: on a read-only medium, in files this user may not
	// write, on a full disk when it was opened (Open then opens it
	// read-only). The library is left as it was.
	ErrReadOnly = errors.New("the library cannot be written")
	// ErrDiskFull is wrapped by the error of a write that found the disk
	// holding the library full (SQLITE_FULL). The write was rolled back.
	ErrDiskFull = errors.New("the disk holding the library is full")
)

// ReadOnly says why the library was opened read-only ("it is on a
// read-only file system", "the disk holding it is full", ...), or "" when
// it can be written. Reads work either way; writes fail with ErrReadOnly.
func (l *Library) ReadOnly() string { return l.readOnly }

// errReadOnly is the error of a write to a read-only library.
func (l *Library) errReadOnly() error {
	if l.damaged {
		return fmt.Errorf("%w (%w): %s", ErrReadOnly, ErrDamaged, l.readOnly)
	}
	if l.readOnly == diskFull {
		return fmt.Errorf("%w (%w): opened read-only", ErrReadOnly, ErrDiskFull)
	}
	return fmt.Errorf("%w: %s", ErrReadOnly, l.readOnly)
}

// diskFull is the reason writeProblem gives for a full disk.
const diskFull = "the disk holding it is full"

// cannotWrite reports whether opening failed because the library's files
// cannot be written or created (SQLite's CANTOPEN, READONLY, PERM, FULL
// and I/O errors such as IOERR_SHMSIZE: the -shm file of a WAL database is
// created and sized even to read).
func cannotWrite(err error) bool {
	var se *sqlite.Error
	if !errors.As(err, &se) {
		return false
	}
	switch se.Code() & 0xff {
	case 3, 8, 10, 13, 14: // PERM, READONLY, IOERR, FULL, CANTOPEN
		return true
	}
	return false
}

// openReadOnly opens the database at path for reading only: mode=ro, and
// if even that cannot read it (a WAL database needs its -shm file, which a
// read-only medium or a full disk cannot take), immutable=1, which reads
// the database file alone and takes no locks: right for a medium nobody
// can write; changes left in a -wal file by an unclean close are then not
// seen, and the returned note says so.
func openReadOnly(ctx context.Context, path string) (*sql.DB, string, error) {
	base := sqlitefile.URI(path) + "?mode=ro" +
		"&_pragma=busy_timeout(" + strconv.Itoa(int(busyTimeout/time.Millisecond)) + ")" +
		"&_pragma=query_only(1)" +
		"&_pragma=temp_store(MEMORY)" +
		"&_pragma=cache_size(-16384)" +
		"&_pragma=mmap_size(" + strconv.Itoa(mmapSize) + ")"
	var firstErr error
	for _, extra := range []string{"", "&immutable=1"} {
		db, err := sql.Open("sqlite", base+extra)
		if err == nil {
			var v int
			if err = db.QueryRowContext(ctx, "PRAGMA user_version").Scan(&v); err == nil {
				note := ""
				if st, serr := os.Stat(path + "-wal"); extra != "" && serr == nil && st.Size() > 0 {
					note = "the changes left in " + FileName + "-wal by a process that did not close it are not seen"
				}
				return db, note, nil
			}
			db.Close()
		}
		if firstErr == nil {
			firstErr = err
		}
	}
	return nil, "", firstErr
}
