//go:build !unix

package localfile

import "os"

// openNonBlocking opens path read-only; where there are no named pipes
// of the Unix kind, an ordinary open does not wait.
func openNonBlocking(path string) (*os.File, error) {
	return os.Open(path)
}
