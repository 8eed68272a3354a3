//go:build !unix

package diskfile

import "os"

// Map reads the file onto the heap where mmap is not available.
func Map(path string) ([]byte, func() error, error) {
	b, err := os.ReadFile(path)
	return b, func() error { return nil }, err
}

// DropPages does nothing where files are read onto the heap.
func DropPages(b []byte) {}
