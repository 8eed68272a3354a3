//go:build unix

package store

import (
	"errors"
	"syscall"
)

// writeProblem says why the library at dir (database at path) cannot be
// written, or "" if nothing prevents it that this can see.
func writeProblem(dir, path string) string {
	for _, p := range []string{dir, path} {
		switch err := syscall.Access(p, 2 /* W_OK */); {
		case errors.Is(err, syscall.EROFS):
			return "it is on a read-only file system"
		case errors.Is(err, syscall.EACCES), errors.Is(err, syscall.EPERM):
			return "this user may not write its files"
		}
	}
	var st syscall.Statfs_t
	if syscall.Statfs(dir, &st) == nil && st.Bavail == 0 {
		return diskFull
	}
	return ""
}
