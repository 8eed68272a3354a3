//go:build unix

package localfile

import (
	"errors"
	"os"
	"syscall"
)

// Map maps the open file f read-only, whole, without copying it onto the
// heap (an empty file is an empty slice); the mapping outlives f, and the
// returned function releases it. Reading a page of a file cut short
// meanwhile is a fault (SIGBUS): map only files nothing else truncates, or
// read them in a process that may die of it.
func Map(f *os.File) ([]byte, func() error, error) {
	fi, err := f.Stat()
	if err != nil {
		return nil, nil, err
	}
	size := fi.Size()
	if size == 0 {
		return nil, func() error { return nil }, nil
	}
	if size != int64(int(size)) {
		return nil, nil, errors.New("file too large to map")
	}
	b, err := syscall.Mmap(int(f.Fd()), 0, int(size), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return nil, nil, err
	}
	return b, func() error { return syscall.Munmap(b) }, nil
}
