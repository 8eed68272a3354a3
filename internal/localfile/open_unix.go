//go:build unix

package localfile

import (
	"os"
	"syscall"
)

// openNonBlocking opens path read-only without waiting: a named pipe with
// no writer opens at once (and is then refused by its type) instead of
// blocking the open. Reads of a regular file ignore the flag.
func openNonBlocking(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
}
