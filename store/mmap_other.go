//go:build !unix

package store

import (
	"os"
)

// mapFile reads the file onto the heap where mmap is not available.
func mapFile(path string) ([]byte, func() error, error) {
	b, err := os.ReadFile(path)
	return b, func() error { return nil }, err
}

// dropPages does nothing where files are read onto the heap.
func dropPages(b []byte) {}
