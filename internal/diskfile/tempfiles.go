package diskfile

import (
	"errors"
	"os"
	"path/filepath"
	"time"
)

// Temporary files (a sidecar being written) are locked by their writer
// (HoldTemp) until renamed into place; the kernel drops the lock when the
// writer dies, kill -9 included. So a temporary file nobody holds is left
// over from a killed process, and RemoveStaleTemps deletes it at once, at
// the next Open or write of the index. Where advisory locks do not exist,
// only files untouched for a minute are taken as left over.

// HoldTemp locks the temporary file at path for its writer and returns the
// release; it is best effort (no lock, no error).
func HoldTemp(path string) (release func()) {
	f, err := os.Open(path)
	if err != nil {
		return func() {}
	}
	if TryLock(f, true) != nil {
		f.Close()
		return func() {}
	}
	return func() { Unlock(f); f.Close() }
}

// RemoveStaleTemps deletes the temporary sidecars (path + ".tmp*") that no
// live process is writing: a killed rebuild leaves one of up to the index's
// size (30 MB at 20k chunks) behind.
func RemoveStaleTemps(path string) {
	old, _ := filepath.Glob(path + ".tmp*")
	for _, name := range old {
		if fi, err := os.Stat(name); err != nil || !HaveLocks && time.Since(fi.ModTime()) < time.Minute {
			continue
		}
		f, err := os.Open(name)
		if err != nil {
			continue
		}
		if TryLock(f, true) == nil {
			os.Remove(name) // while locked: its writer cannot be mid-way
			Unlock(f)
		}
		f.Close()
	}
}

// SyncDir makes the directory's entries (renames) durable.
func SyncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	if err := d.Sync(); err != nil && !errors.Is(err, os.ErrInvalid) {
		return err
	}
	return nil
}
