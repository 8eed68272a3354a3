package index

import (
	"context"
	"os"
	"strings"
	"time"
)

// What a library's checks, repairs and tests read of an index.

// Segment describes one segment of a view.
type Segment struct {
	Name    string // its files' name in the index directory; "" for a segment built in memory
	Chunks  int    // chunks written in it, deleted ones included
	Papers  int    // papers written in it
	Deleted int    // chunks deleted from it since
}

// Segments describes the view's segments, in order.
func (x *View) Segments() []Segment {
	out := make([]Segment, len(x.segs))
	for i, s := range x.segs {
		out[i] = Segment{Name: s.name, Chunks: s.n, Papers: s.papers(), Deleted: s.del.Len()}
	}
	return out
}

// Gen is the generation of the commit the view is (or, built in memory,
// is based on).
func (x *View) Gen() uint64 { return x.gen }

// Commit is what an index directory's commit names.
type Commit struct {
	Version  Version
	Gen      uint64
	Segments []string // the live segments' names, in order
}

// ReadCommit reads the commit of the index directory dir; nil (and no
// error) when there is none.
func ReadCommit(dir string) (*Commit, error) {
	c, err := readCommit(dir)
	if err != nil || c == nil {
		return nil, err
	}
	out := &Commit{Gen: c.gen, Version: Version{LibraryID: c.libraryID, Dims: c.dims, Epoch: c.epoch, Pos: c.pos}}
	for _, s := range c.segs {
		out.Segments = append(out.Segments, s.name)
	}
	return out, nil
}

// Scratch returns a view of the library built from nothing, in memory,
// and not committed: what the index must answer as (a check compares
// searches of both). It is held until Release.
func (d *Dir) Scratch(ctx context.Context) (*View, error) {
	return d.updateInMemory(ctx, nil)
}

// Knobs that tests of the packages that build indexes turn, so that a few
// papers exercise what millions of chunks do; each returns what restores
// it. Not for other code.

// SetSegmentChunks sets how many chunks a new segment holds at most.
func SetSegmentChunks(n int) (restore func()) {
	old := segmentChunks
	segmentChunks = n
	return func() { segmentChunks = old }
}

// SetMergePolicy sets how many segments of a level merge into one and the
// size of the lowest level.
func SetMergePolicy(factor, floor int) (restore func()) {
	f, fl := mergeFactor, mergeFloor
	mergeFactor, mergeFloor = factor, floor
	return func() { mergeFactor, mergeFloor = f, fl }
}

// SetApproximate sets from how many live chunks a dense search scans sign
// codes first (0: always; a huge number: never).
func SetApproximate(from int) (restore func()) {
	old := approxFrom
	approxFrom = from
	return func() { approxFrom = old }
}

// HoldWrite takes the index's write lock as a writer does, waiting up to
// wait; release gives it up. Tests hold it to be the other writer.
func (d *Dir) HoldWrite(ctx context.Context, wait time.Duration) (release func(), err error) {
	return d.lockWrite(ctx, wait)
}

// TempFiles lists the temporary files in the index directory dir (a
// writer killed mid-write leaves them until the next Open or commit): all
// of them, and those of merges among them.
func TempFiles(dir string) (all, merges []string) {
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if name := e.Name(); strings.Contains(name, tmpMarker) {
			all = append(all, name)
			if strings.HasPrefix(name, mergeTmpPrefix) {
				merges = append(merges, name)
			}
		}
	}
	return all, merges
}
