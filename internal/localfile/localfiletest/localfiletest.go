//go:build unix

// Package localfiletest makes the files tests of local input need: a
// named pipe and a socket (what a user may give where a file is wanted),
// and copies of directory trees.
package localfiletest

import (
	"net"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// Specials makes, in a new directory of the test's, a named pipe called
// x.pdf with no writer (an ordinary open of it waits for ever) and a
// listening socket called s.pdf; both go with the test.
func Specials(t testing.TB) (fifo, socket string) {
	t.Helper()
	dir := t.TempDir()
	fifo = filepath.Join(dir, "x.pdf")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	socket = filepath.Join(dir, "s.pdf")
	l, err := net.Listen("unix", socket)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return fifo, socket
}

// CopyTree copies the regular files under src into dst (made as needed),
// keeping their relative paths; other files are left out.
func CopyTree(t testing.TB, src, dst string) {
	t.Helper()
	err := filepath.Walk(src, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if fi.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o700)
		}
		if !fi.Mode().IsRegular() {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o600)
	})
	if err != nil {
		t.Fatal(err)
	}
}
