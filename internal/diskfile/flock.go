//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package diskfile

import (
	"errors"
	"os"
	"syscall"
)

// HaveLocks says whether TryLock excludes other processes here.
const HaveLocks = true

// TryLock takes an advisory lock on f, exclusive or shared, without
// waiting: ErrWouldBlock when another process holds it in a conflicting
// mode. The kernel drops it when the process dies.

func TryLock(f *os.File, exclusive bool) error {
	how := syscall.LOCK_SH
	if exclusive {
		how = syscall.LOCK_EX
	}
	for {
		err := syscall.Flock(int(f.Fd()), how|syscall.LOCK_NB)
		switch {
		case errors.Is(err, syscall.EINTR):
			continue
		case errors.Is(err, syscall.EWOULDBLOCK):
			return ErrWouldBlock
		}
		return err
	}
}

// Unlock releases TryLock's lock.
func Unlock(f *os.File) { syscall.Flock(int(f.Fd()), syscall.LOCK_UN) }
