// Package diskfile holds the file primitives the library's stores share:
// advisory locks that the kernel drops when their process dies (TryLock),
// read-only memory maps (Map), and temporary files locked by their writer
// until renamed into place, so that those of a killed writer can be told
// apart and removed (HoldTemp, RemoveStaleTemps).
package diskfile

import "errors"

// ErrWouldBlock is TryLock's error when another process holds the lock in
// a conflicting mode.
var ErrWouldBlock = errors.New("lock held by another process")
