package sqlitefile

import (
	"database/sql"
	"os"
	"path/filepath"
	"testing"

	_ "modernc.org/sqlite"
)

// TestURIOpensTheFileNamed: a database in a directory whose name holds
// '#', '?' and '%' is the one opened, with the parameters applied.
func TestURIOpensTheFileNamed(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "lib #2 ?x=1 %41")
	path := filepath.Join(dir, "library.db")
	if err := mkdir(dir); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", URI(path)+"?_pragma=user_version(7)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var file string
	var seq int
	var name string
	if err := db.QueryRow("PRAGMA database_list").Scan(&seq, &name, &file); err != nil {
		t.Fatal(err)
	}
	if file != path {
		t.Errorf("opened %q, want %q", file, path)
	}
	var v int
	if err := db.QueryRow("PRAGMA user_version").Scan(&v); err != nil || v != 7 {
		t.Errorf("user_version %d (%v): the parameters were not applied", v, err)
	}
}

func mkdir(dir string) error { return os.MkdirAll(dir, 0o700) }
