//go:build !unix && !windows

package store

import "os"

// tryLock: these systems (js, wasip1, plan9) run one papers process at a
// time, which needs no lock.
func tryLock(f *os.File) (bool, error) { return true, nil }

func unlock(f *os.File) {}
