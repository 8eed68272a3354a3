//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package diskfile

import "os"

// HaveLocks says whether TryLock excludes other processes: not here, where
// there are no advisory locks (HoldEmbedder and Reindex then do not
// exclude each other; PutBatch still refuses vectors of an embedder the
// manifest no longer names).
const HaveLocks = false

// TryLock does nothing without advisory locks.

func TryLock(*os.File, bool) error { return nil }

// Unlock does nothing without advisory locks.
func Unlock(*os.File) {}
