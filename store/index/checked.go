package index

import (
	"bufio"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/papers-cli/papers/internal/diskfile"
)

// A segment's files carry checksums of everything in them, but reading
// all of them is a pass over the whole index (its float32 vectors are
// four times its int8 ones), which no search should pay. So each file is
// verified once, when a process first opens it in the state it is in,
// and that state (size, modification and change times, inode) is noted in
// the index directory's file "checked": a later open of the same file in
// the same state skips the pass (a stat). A file changed since (a flipped
// byte written into it, a torn copy) has another change time: it is
// verified again on open, and one that fails makes the index be rebuilt
// from the library. The writer of a segment notes its files as it puts
// them in place: it wrote them from the checksums' data. Library.Check
// and papers check verify everything, whatever the notes say.

// checkedName is the file, in the index directory, of the notes.
const checkedName = "checked"

// fileState is what identifies one state of a file: written into, or
// replaced, it changes.
type fileState struct {
	size, mtime, ctime int64
	ino                uint64
}

func (s fileState) String() string {
	return fmt.Sprintf("%d %d %d %d", s.size, s.mtime, s.ctime, s.ino)
}

// checkedFiles are the notes of one index directory. Safe for concurrent
// use.
type checkedFiles struct {
	dir    string
	mu     sync.Mutex
	loaded bool
	m      map[string]fileState
}

// checkedDirs holds one checkedFiles per index directory per process.
var checkedDirs sync.Map // dir -> *checkedFiles

func checkedIn(dir string) *checkedFiles {
	v, _ := checkedDirs.LoadOrStore(dir, &checkedFiles{dir: dir})
	return v.(*checkedFiles)
}

// load reads the notes once (a missing or unreadable file notes nothing).
func (c *checkedFiles) load() {
	if c.loaded {
		return
	}
	c.loaded, c.m = true, map[string]fileState{}
	f, err := os.Open(filepath.Join(c.dir, checkedName))
	if err != nil {
		return
	}
	defer f.Close()
	sc := bufio.NewScanner(io.LimitReader(f, 16<<20))
	for sc.Scan() {
		fs := strings.Fields(sc.Text())
		if len(fs) != 5 || !validFileName(fs[0]) {
			continue
		}
		var st fileState
		var errs [4]error
		st.size, errs[0] = strconv.ParseInt(fs[1], 10, 64)
		st.mtime, errs[1] = strconv.ParseInt(fs[2], 10, 64)
		st.ctime, errs[2] = strconv.ParseInt(fs[3], 10, 64)
		st.ino, errs[3] = strconv.ParseUint(fs[4], 10, 64)
		if errors.Join(errs[:]...) == nil {
			c.m[fs[0]] = st
		}
	}
}

// states returns the states of the files names of the directory; ok is
// false when one cannot be had.
func (c *checkedFiles) states(names []string) ([]fileState, bool) {
	sts := make([]fileState, len(names))
	for i, n := range names {
		fi, err := os.Stat(filepath.Join(c.dir, n))
		if err != nil {
			return nil, false
		}
		sts[i] = stateOf(fi)
	}
	return sts, true
}

// verified reports whether every one of the files names was verified in
// the state it is in now.
func (c *checkedFiles) verified(names []string) bool {
	sts, ok := c.states(names)
	if !ok {
		return false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.load()
	for i, n := range names {
		if st, ok := c.m[n]; !ok || st != sts[i] {
			return false
		}
	}
	return true
}

// note notes the files names as verified in the state they are in now,
// and writes the notes of the files that still exist (a temporary file,
// then a rename; a directory that cannot be written keeps them in
// memory).
func (c *checkedFiles) note(names []string) {
	sts, ok := c.states(names)
	if !ok {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.load()
	for i, n := range names {
		c.m[n] = sts[i]
	}
	var b strings.Builder
	for n, st := range c.m {
		if _, err := os.Stat(filepath.Join(c.dir, n)); err != nil {
			delete(c.m, n) // merged away
			continue
		}
		fmt.Fprintf(&b, "%s %s\n", n, st)
	}
	tmp, err := createTemp(c.dir, "", checkedName)
	if err != nil {
		return
	}
	defer diskfile.HoldTemp(tmp.Name())()
	_, err = tmp.WriteString(b.String())
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), filepath.Join(c.dir, checkedName))
	}
	if err != nil {
		os.Remove(tmp.Name())
	}
}

// segmentFiles are the files of segment name that exist.
func segmentFiles(dir, name string) []string {
	files := []string{name + ".seg", name + ".vec"}
	if _, err := os.Stat(filepath.Join(dir, name+".bits")); err == nil {
		files = append(files, name+".bits")
	}
	return files
}

// verifyOnce verifies segment s (opened from dir) against all its
// checksums unless its files were verified in the state they are in, and
// notes them when note is set; a segment that fails is an error wrapping
// errBadSegment.
func verifyOnce(dir string, s *segment, note bool) error {
	ck := checkedIn(dir)
	files := segmentFiles(dir, s.name)
	if ck.verified(files) {
		return nil
	}
	if err := s.verify(dir, false); err != nil {
		return fmt.Errorf("segment %s: %w: %v", s.name, errBadSegment, err)
	}
	if len(s.raw) > 64<<20 {
		diskfile.DropPages(s.raw) // a pass over it need not keep it resident
	}
	if note {
		ck.note(files)
	}
	return nil
}

// crcFile is the crc32c (Castagnoli) of the file at path, read in pieces.
func crcFile(path string) (uint32, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	h := crc32.New(CRC32C())
	if _, err := io.CopyBuffer(h, f, make([]byte, 1<<20)); err != nil {
		return 0, err
	}
	return h.Sum32(), nil
}

// verifySignSums checks sign codes against the checksums of their file.
func verifySignSums(dir string, s *segment) error {
	b, err := os.ReadFile(filepath.Join(dir, s.name+".bits"))
	if err != nil {
		return err
	}
	_, sums, err := parseSignCodes(b, s.n, s.dims)
	if err != nil {
		return err
	}
	gOff, _ := bitsLayout(s.n, s.dims)
	if crc32.Checksum(b[bitsHeader:gOff], CRC32C()) != sums[0] || crc32.Checksum(b[gOff:], CRC32C()) != sums[1] {
		return errors.New("sign codes do not match their checksums")
	}
	return nil
}
