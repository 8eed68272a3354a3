//go:build unix

package index

import (
	"os"
	"syscall"
)

// stateOf is fi's state: size, modification and change times, inode. The
// change time moves with any write to the file, whatever its
// modification time is set to.
func stateOf(fi os.FileInfo) fileState {
	st := fileState{size: fi.Size(), mtime: fi.ModTime().UnixNano()}
	if sys, ok := fi.Sys().(*syscall.Stat_t); ok {
		st.ctime = sys.Ctim.Nano()
		st.ino = uint64(sys.Ino)
	}
	return st
}
