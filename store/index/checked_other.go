//go:build !unix

package index

import "os"

// stateOf is fi's state where change times and inodes are not had: size
// and modification time.
func stateOf(fi os.FileInfo) fileState {
	return fileState{size: fi.Size(), mtime: fi.ModTime().UnixNano()}
}
