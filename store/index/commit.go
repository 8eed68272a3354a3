package index

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/papers-cli/papers/internal/diskfile"
	"github.com/papers-cli/papers/store/fts"
)

// The commit file (index/commit) is the index's only mutable file: it
// names the live segments and, for each, its deletion file. A new commit
// is written to a temporary file, fsynced and renamed over the old one,
// and the directory fsynced, so a reader sees the old commit or the new
// one, and a commit names only files that were durable before it was.
//
// Layout, little-endian: magic | crc32c of what follows u32 | length of
// what follows u32 | library id (32 hex digits) | dims u32 | epoch i64 |
// log position i64 | generation u64 | segments u32 | per segment: name
// length u16, name, chunks u32, deletion file name length u16, name.
const commitMagic = "PAPCMT01"

const commitName = "commit"

// commitInfo is a commit: the version of the library the index holds and
// its segments.
type commitInfo struct {
	indexVersion
	gen  uint64 // bumped by every commit; names new files
	segs []commitSeg
}

// commitSeg is one live segment of a commit.
type commitSeg struct {
	name string
	docs int
	del  string // its deletion file, "" if nothing was deleted from it
}

func (c *commitInfo) encode() []byte {
	le := binary.LittleEndian
	var b []byte
	b = append(b, c.libraryID...)
	b = le.AppendUint32(b, uint32(c.dims))
	b = le.AppendUint64(b, uint64(c.epoch))
	b = le.AppendUint64(b, uint64(c.pos))
	b = le.AppendUint64(b, c.gen)
	b = le.AppendUint32(b, uint32(len(c.segs)))
	for _, s := range c.segs {
		b = le.AppendUint16(b, uint16(len(s.name)))
		b = append(b, s.name...)
		b = le.AppendUint32(b, uint32(s.docs))
		b = le.AppendUint16(b, uint16(len(s.del)))
		b = append(b, s.del...)
	}
	return b
}

var errBadCommit = errors.New("search index commit is torn or not ours")

func decodeCommit(b []byte) (*commitInfo, error) {
	le := binary.LittleEndian
	if len(b) < 32+4+8+8+8+4 {
		return nil, errBadCommit
	}
	c := &commitInfo{indexVersion: indexVersion{
		libraryID: string(b[:32]),
		dims:      int(le.Uint32(b[32:])),
		epoch:     int64(le.Uint64(b[36:])),
		pos:       int64(le.Uint64(b[44:])),
	}, gen: le.Uint64(b[52:])}
	n := int(le.Uint32(b[60:]))
	b = b[64:]
	str := func() (string, bool) {
		if len(b) < 2 || len(b) < 2+int(le.Uint16(b)) {
			return "", false
		}
		l := int(le.Uint16(b))
		s := string(b[2 : 2+l])
		b = b[2+l:]
		return s, true
	}
	for range n {
		var s commitSeg
		var ok bool
		if s.name, ok = str(); !ok || !validFileName(s.name) || len(b) < 4 {
			return nil, errBadCommit
		}
		s.docs = int(le.Uint32(b))
		b = b[4:]
		if s.del, ok = str(); !ok || s.del != "" && !validFileName(s.del) {
			return nil, errBadCommit
		}
		c.segs = append(c.segs, s)
	}
	if len(b) != 0 {
		return nil, errBadCommit
	}
	return c, nil
}

// validFileName refuses names that would leave the index directory.
func validFileName(s string) bool {
	return s != "" && !strings.ContainsAny(s, `/\`) && s != "." && s != ".."
}

// frame wraps a payload with a magic, its checksum and its length, for the
// index's small files (the commit and deletion files).
func frame(magic string, payload []byte) []byte {
	b := make([]byte, 0, 16+len(payload))
	b = append(b, magic...)
	b = binary.LittleEndian.AppendUint32(b, crc32.Checksum(payload, CRC32C()))
	b = binary.LittleEndian.AppendUint32(b, uint32(len(payload)))
	return append(b, payload...)
}

// unframe returns the payload of a framed file, or an error if it is torn.
func unframe(magic string, b []byte) ([]byte, error) {
	if len(b) < 16 || string(b[:8]) != magic {
		return nil, errors.New("bad magic")
	}
	le := binary.LittleEndian
	p := b[16:]
	if int(le.Uint32(b[12:])) != len(p) || crc32.Checksum(p, CRC32C()) != le.Uint32(b[8:]) {
		return nil, errors.New("bad checksum or length")
	}
	return p, nil
}

// readCommit reads the index's commit; it returns nil and no error when
// there is none, and an error wrapping errBadCommit when it is damaged.
func readCommit(dir string) (*commitInfo, error) {
	b, err := os.ReadFile(filepath.Join(dir, commitName))
	if os.IsNotExist(err) {
		return nil, nil
	} else if err != nil {
		return nil, err
	}
	p, err := unframe(commitMagic, b)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", errBadCommit, err)
	}
	return decodeCommit(p)
}

// writeCommit makes c the index's commit, durably.
func writeCommit(dir string, c *commitInfo) error {
	if err := writeDurable(dir, commitName, frame(commitMagic, c.encode())); err != nil {
		return fmt.Errorf("write the search index commit: %w", err)
	}
	return syncDir(dir)
}

const delMagic = "PAPDLF01"

// delFileName is the name of a deletion file of segment seg written for
// commit generation gen.
func delFileName(seg string, gen uint64) string { return fmt.Sprintf("%s.%d.del", seg, gen) }

func readDeleted(dir, name string, x *fts.Index) (*fts.Deleted, error) {
	b, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		return nil, err
	}
	p, err := unframe(delMagic, b)
	if err != nil {
		return nil, fmt.Errorf("deletion file %s: %w", name, errBadSegment)
	}
	d, err := fts.ParseDeleted(p, x)
	if err != nil {
		return nil, fmt.Errorf("deletion file %s: %w", name, errBadSegment)
	}
	return d, nil
}

// writeDurable writes data to dir/name through a temporary file that is
// fsynced and renamed into place.
func writeDurable(dir, name string, data []byte) error {
	f, err := os.CreateTemp(dir, name+tmpMarker)
	if err != nil {
		return err
	}
	defer os.Remove(f.Name())           // no-op after the rename
	defer diskfile.HoldTemp(f.Name())() // until renamed: removeStaleTemps leaves it alone
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	return os.Rename(f.Name(), filepath.Join(dir, name))
}

// tmpMarker is in the name of every temporary file of the index: files
// being written, not yet renamed into place.
const tmpMarker = ".tmp-"

// mergeTmpPrefix starts the temporary files of a merge.
const mergeTmpPrefix = "m-"

// createTemp creates a temporary file in dir for a file that will be
// named name.
func createTemp(dir, prefix, name string) (*os.File, error) {
	return os.CreateTemp(dir, prefix+name+tmpMarker)
}

// syncFile fsyncs and closes f, returning the first error.
func syncFile(f *os.File) error {
	err := f.Sync()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// syncDir makes the directory's entries (renames) durable.
func syncDir(dir string) error { return diskfile.SyncDir(dir) }

func randomHex(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// Locks of the index directory, taken with flock (lock_unix.go): the write
// lock is held to add segments, write deletions, commit and delete unused
// files, which take milliseconds; the merge lock by the one process that
// merges segments, which may take minutes, without the write lock except
// at its start and its commit. Readers take no lock.
const (
	writeLockName = "write.lock"
	mergeLockName = "merge.lock"
)

// errLockBusy is lockIndex's error when another process or handle held the
// lock for longer than the wait.
var errLockBusy = errors.New("another papers process is writing the search index")

// lockIndex takes the lock file dir/name, waiting up to wait (0: not at
// all). The returned function releases it.
func lockIndex(ctx context.Context, dir, name string, wait time.Duration) (func(), error) {
	f, err := os.OpenFile(filepath.Join(dir, name), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	deadline := time.Now().Add(wait)
	for {
		err := diskfile.TryLock(f, true)
		if err == nil {
			return func() { diskfile.Unlock(f); f.Close() }, nil
		}
		if !errors.Is(err, diskfile.ErrWouldBlock) {
			f.Close()
			return nil, err
		}
		if !time.Now().Before(deadline) {
			f.Close()
			return nil, errLockBusy
		}
		select {
		case <-ctx.Done():
			f.Close()
			return nil, ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// removeUnused deletes the files of the index directory that commit c does
// not name: segments merged away or left by a killed writer, and temporary
// files no live writer holds (see holdTemp and removeIndexTemps). The
// caller holds the write lock, so no commit is being made. Readers that mapped a deleted file
// keep it until they release it.
func removeUnused(dir string, c *commitInfo) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	keep := map[string]bool{}
	for _, s := range c.segs {
		keep[s.name+".seg"], keep[s.name+".vec"], keep[s.name+".bits"] = true, true, true
		if s.del != "" {
			keep[s.del] = true
		}
	}
	for _, e := range entries {
		if name := e.Name(); isSegmentFile(name) && !strings.Contains(name, tmpMarker) && !keep[name] {
			os.Remove(filepath.Join(dir, name))
		}
	}
	diskfile.RemoveStaleTemps(filepath.Join(dir, "*"))
}

// removeIndexTemps deletes the temporary files of the index directory idx
// that no live process is writing: Open calls it. Index files are only
// created under the write lock, and held (diskfile.HoldTemp) from before it
// is released until renamed, so a cleanup under the write lock never meets
// a file created but not yet held; if a writer has the lock, it cleans up
// at its commit instead.
func removeIndexTemps(idx string) {
	if _, err := os.Stat(idx); err != nil {
		return
	}
	release, err := lockIndex(context.Background(), idx, writeLockName, 0)
	if err != nil {
		return
	}
	defer release()
	diskfile.RemoveStaleTemps(filepath.Join(idx, "*"))
}
