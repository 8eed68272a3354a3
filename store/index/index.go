package index

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime/debug"
	"sort"
	"sync"
	"syscall"
	"time"

	"github.com/papers-cli/papers/internal/diskfile"
	"github.com/papers-cli/papers/internal/leview"
	"github.com/papers-cli/papers/internal/sections"
	"github.com/papers-cli/papers/store/fts"
)

// segmentChunks is how many chunks a refresh puts in one new segment at
// most: its full-text index is built in memory (about 1.5 KB per chunk of
// ~100 words, so ~100 MB at this size) before it is written.
var segmentChunks = 65536

// Version is what an index holds: the library (its random id), the
// vectors' dimensions and epoch (bumped when all of them are replaced),
// and the position in the library's change log (a log of every paper
// inserted, deleted or retitled) up to which the index has taken the
// changes in. An index of another library, dimensions or epoch is rebuilt
// from nothing; one behind in the log takes in the papers logged since.
type Version struct {
	LibraryID string
	Dims      int
	Epoch     int64
	Pos       int64
}

func (v Version) internal() indexVersion {
	return indexVersion{libraryID: v.LibraryID, dims: v.Dims, epoch: v.Epoch, pos: v.Pos}
}

// indexVersion is Version as the index keeps it.
type indexVersion struct {
	libraryID string
	dims      int
	epoch     int64
	pos       int64
}

// sameVectors reports whether an index of version v can be brought up to
// date with w by taking in the changes since v.
func (v indexVersion) sameVectors(w indexVersion) bool {
	return v.libraryID == w.libraryID && v.dims == w.dims && v.epoch == w.epoch
}

// liveSeg is a segment as one view of the index has it: with the chunks
// deleted from it by then.
type liveSeg struct {
	*segment
	del     *fts.Deleted
	delName string // the deletion file del was read from or written to ("" if none or in memory)
}

// View is one consistent view of the index, for searches: live
// segments, one after the other. Chunk i of the view is chunk i-base[s]
// of segment s. It is read-only and safe for concurrent use while held
// (Dir.Acquire).
type View struct {
	indexVersion
	segs  []liveSeg
	base  []int
	total int
	text  *fts.Set
	refs  int    // guarded by indexState.mu: holders, plus one while it is the current view
	gen   uint64 // the commit it is (or would be)

	rebuilt bool // refreshLocked built it from nothing
}

func (x *View) len() int { return x.total }

// live is the number of chunks not deleted.
func (x *View) live() int { return x.text.Live() }

// locate returns the segment and the segment's chunk of view chunk i.
func (x *View) locate(i int) (int, int) {
	s := sort.Search(len(x.base), func(j int) bool { return x.base[j] > i }) - 1
	return s, i - x.base[s]
}

// chunkAt returns chunk i's paper id (a view of the mapped segment) and seq.
func (x *View) chunkAt(i int) (string, int) {
	s, d := x.locate(i)
	seg := x.segs[s]
	return seg.paperID(int(seg.paperOf[d])), int(seg.seqs[d])
}

func newView(v indexVersion, gen uint64, segs []liveSeg) *View {
	x := &View{indexVersion: v, gen: gen, segs: segs, base: make([]int, len(segs))}
	parts := make([]fts.Part, len(segs))
	for i, s := range segs {
		x.base[i] = x.total
		x.total += s.n
		parts[i] = fts.Part{X: s.text, Del: s.del}
	}
	x.text = fts.NewSet(parts...)
	return x
}

// indexState is a Dir's hold on the search index: the current view and
// the segments mapped for it and for views still in use.
type indexState struct {
	mu   sync.Mutex
	cur  *View
	open map[string]*segment // by name; memory segments are not in it
	// loading is held by the search of this process that is bringing the
	// view up to date (acquireIndex): the others wait for its view rather
	// than build the same in memory, as they would while it holds the
	// index's write lock (a hybrid search's two rankings at once on a
	// library without an index: 1.2 GB at 100k chunks instead of 0.2).
	loading chan struct{}
}

// drop releases one hold on view x; the last one releases its segments
// that no other view holds.
func (st *indexState) drop(x *View) {
	if x == nil {
		return
	}
	if x.refs--; x.refs > 0 {
		return
	}
	for _, s := range x.segs {
		if s.views--; s.views > 0 {
			continue
		}
		if st.open[s.name] == s.segment {
			delete(st.open, s.name)
		}
		s.release()
	}
}

// close releases everything; holders must have released their views.
func (st *indexState) close() {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.drop(st.cur)
	st.cur = nil
	for _, s := range st.open {
		s.release()
	}
	st.open = nil
}

// Acquire returns a view of the search index as up to date as the library
// at version lv, held until Release. The check costs one small query; when
// the library changed since the current view, the new view comes from the
// index directory if it is current, else the index is brought up to date
// (by this process if it can take the write lock at once, else in memory:
// searches never wait for other processes' writers; a library opened
// read-only is always caught up in memory). Searches of this process wait
// for the one of them already bringing the view up to date, and share it.
func (d *Dir) Acquire(ctx context.Context, lv Version) (*View, error) {
	v := lv.internal()
	st := &d.st
	current := func() *View {
		st.mu.Lock()
		defer st.mu.Unlock()
		if x := st.cur; x != nil && x.indexVersion == v {
			x.refs++
			return x
		}
		return nil
	}
	if x := current(); x != nil {
		return x, nil
	}
	st.mu.Lock()
	if st.loading == nil {
		st.loading = make(chan struct{}, 1)
	}
	loading := st.loading
	st.mu.Unlock()
	select {
	case loading <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	defer func() { <-loading }()
	if x := current(); x != nil { // brought up to date while this waited
		return x, nil
	}
	x, err := d.loadIndex(ctx, v, true)
	if err != nil {
		return nil, err
	}
	return d.install(x), nil
}

// install makes x the current view if it is newer than the current one,
// and returns the view the caller holds (x, or the current one if it is
// as new; one hold on x is given up then).
func (d *Dir) install(x *View) *View {
	st := &d.st
	st.mu.Lock()
	defer st.mu.Unlock()
	if cur := st.cur; cur != nil && cur.indexVersion == x.indexVersion && cur.gen >= x.gen {
		cur.refs++
		st.drop(x)
		return cur
	}
	st.drop(st.cur)
	x.refs++
	st.cur = x
	return x
}

// Release gives up a hold on view x.
func (d *Dir) Release(x *View) {
	d.st.mu.Lock()
	defer d.st.mu.Unlock()
	d.st.drop(x)
}

// loadIndex returns a view at version v or later with one hold, from the
// index directory: as committed if the commit is at v, else updated (on
// disk if refresh and the write lock is free, in memory otherwise).
func (d *Dir) loadIndex(ctx context.Context, v indexVersion, refresh bool) (*View, error) {
	dir := d.dir
	for attempt := 0; ; attempt++ {
		c, err := readCommit(dir)
		if err == nil && c != nil && c.indexVersion == v {
			x, err := d.openView(c)
			if err == nil {
				if refresh {
					d.addSignCodes(ctx, x)
				}
				return x, nil
			}
			if !errors.Is(err, fs.ErrNotExist) || attempt >= 5 {
				// Damaged: rebuilt below, from nothing.
				c = nil
			} else {
				continue // a merge committed and deleted a file meanwhile
			}
		} else if err != nil {
			c = nil
		}
		if refresh && !d.readOnly {
			release, lerr := d.lockWrite(ctx, 0)
			if lerr == nil {
				x, err := d.refreshLocked(ctx)
				release()
				if err == nil && x.rebuilt {
					// The rebuild's full-text builders (~200 MB at 100k
					// chunks) are garbage now; the Go runtime would give
					// their pages back to the system only slowly, while
					// the new segments' pages get mapped as they are
					// searched: a long-lived process (papers mcp) peaked
					// at both, 327 MB. Give them back at once.
					debug.FreeOSMemory()
					// A rebuild from nothing leaves many segments of one
					// size: merge them now, in the command that is slow
					// anyway, not in the next ingest of one paper.
					return d.mergedView(ctx, x), nil
				}
				if err == nil || ctx.Err() != nil {
					return x, err
				}
			}
		}
		// In memory: from the commit's segments if they can be opened.
		var base *View
		if c != nil && c.sameVectors(v) {
			if base, err = d.openView(c); err != nil {
				if errors.Is(err, fs.ErrNotExist) && attempt < 5 {
					continue
				}
				base = nil
			}
		}
		x, err := d.updateInMemory(ctx, base)
		if errors.Is(err, errLogPruned) && attempt < 5 {
			continue // a newer commit is there
		}
		return x, err
	}
}

// lockWrite takes the index's write lock (creating the directory).
func (d *Dir) lockWrite(ctx context.Context, wait time.Duration) (func(), error) {
	if err := os.MkdirAll(d.dir, 0o700); err != nil {
		return nil, err
	}
	return lockIndex(ctx, d.dir, writeLockName, wait)
}

// openView opens the segments and deletion files commit c names, reusing
// those this Dir has open. The view has one hold.
func (d *Dir) openView(c *commitInfo) (*View, error) {
	dir := d.dir
	st := &d.st
	segs := make([]liveSeg, 0, len(c.segs))
	// Segments already open are pinned (a view released meanwhile could
	// otherwise unmap them); new ones join the map, unless another
	// goroutine opened the same one meanwhile.
	pin := func(s *segment) *segment {
		st.mu.Lock()
		defer st.mu.Unlock()
		if st.open == nil {
			st.open = map[string]*segment{}
		}
		if o := st.open[s.name]; o != nil && o != s {
			s.release()
			s = o
		} else {
			st.open[s.name] = s
		}
		s.views++
		return s
	}
	fail := func(err error) (*View, error) {
		st.mu.Lock()
		defer st.mu.Unlock()
		st.drop(&View{segs: segs, refs: 1})
		return nil, err
	}
	for _, cs := range c.segs {
		st.mu.Lock()
		s := st.open[cs.name]
		if s != nil {
			s.views++
		}
		st.mu.Unlock()
		if s == nil {
			var err error
			if s, err = openSegment(dir, cs.name, !d.readOnly); err != nil {
				return fail(err)
			}
			s = pin(s)
		}
		segs = append(segs, liveSeg{segment: s, delName: cs.del})
		if s.n != cs.docs || s.dims != c.dims {
			return fail(fmt.Errorf("segment %s: %w", cs.name, errBadSegment))
		}
		if cs.del != "" {
			del, err := d.deletions(s, cs.del)
			if err != nil {
				return fail(err)
			}
			segs[len(segs)-1].del = del
		}
	}
	x := newView(c.indexVersion, c.gen, segs)
	x.refs = 1
	return x, nil
}

// deletions reads deletion file name of segment s, or takes it from the
// last one read.
func (d *Dir) deletions(s *segment, name string) (*fts.Deleted, error) {
	d.st.mu.Lock()
	if s.lastDelName == name {
		del := s.lastDel
		d.st.mu.Unlock()
		return del, nil
	}
	d.st.mu.Unlock()
	del, err := readDeleted(d.dir, name, s.text)
	if err != nil {
		return nil, err
	}
	d.st.mu.Lock()
	s.lastDelName, s.lastDel = name, del
	d.st.mu.Unlock()
	return del, nil
}

// Refresh brings the search index up to date with the library now, so
// that the next search (in this or another process) does not pay for it,
// then merges segments if the merge policy asks for it (see merge.go).
// Ingest calls it after its last Put. Taking in a change costs about what
// the changed papers cost (their chunks are read, tokenized and written
// as a new segment; the chunks they replace are marked deleted), not what
// the library costs. It waits up to the busy timeout for another process
// writing the index.
//
// The index is a cache of the library: when its directory cannot be
// written (a full disk, a read-only medium, no permission), or another
// process held its write lock for the whole busy timeout (a refresh on a
// saturated machine, a reindex), Refresh leaves it behind and returns nil:
// the changes stay in the change log, searches take them in in memory,
// and the next refresh indexes them.
func (d *Dir) Refresh(ctx context.Context) error {
	if d.readOnly {
		return nil // nothing can be written: searches take the changes in in memory
	}
	release, err := d.lockWrite(ctx, d.wait)
	if err != nil {
		if cannotWriteIndex(err) || errors.Is(err, errLockBusy) {
			return nil
		}
		return fmt.Errorf("refresh the search index: %w", err)
	}
	x, err := d.refreshLocked(ctx)
	release()
	if err != nil {
		if cannotWriteIndex(err) {
			return nil
		}
		return fmt.Errorf("refresh the search index: %w", err)
	}
	d.Release(d.install(x))
	if err := d.mergeIndex(ctx); err != nil && !cannotWriteIndex(err) {
		return fmt.Errorf("merge search index segments: %w", err)
	}
	return nil
}

// cannotWriteIndex reports whether err says the index directory cannot
// be written now.
func cannotWriteIndex(err error) bool {
	return errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EROFS) || errors.Is(err, fs.ErrPermission)
}

// mergedView merges the segments of x's commit as the merge policy asks
// and returns a view of the commit after, giving up the hold on x (or x
// itself, if merging or reading the result fails).
func (d *Dir) mergedView(ctx context.Context, x *View) *View {
	if err := d.mergeIndex(ctx); err != nil {
		return x
	}
	c, err := readCommit(d.dir)
	if err != nil || c == nil || c.indexVersion != x.indexVersion {
		return x
	}
	y, err := d.openView(c)
	if err != nil {
		return x
	}
	d.Release(x)
	return y
}

// refreshLocked brings the index directory up to date with the library
// and returns a view of the new commit with one hold. The caller holds the
// write lock.
func (d *Dir) refreshLocked(ctx context.Context) (*View, error) {
	dir := d.dir
	c, err := readCommit(dir)
	var base *View
	if err == nil && c != nil {
		if base, err = d.openView(c); err != nil {
			base = nil // damaged: rebuilt from nothing
		}
	}
	if base != nil {
		defer d.Release(base)
	}
	gen := uint64(1)
	if c != nil {
		gen = c.gen + 1
	}
	u, err := d.update(ctx, base, segSink{dir: dir, gen: gen})
	if err != nil {
		return nil, err
	}
	if base != nil && u.v == base.indexVersion {
		x := base
		d.st.mu.Lock()
		x.refs++
		d.st.mu.Unlock()
		removeUnused(dir, c)
		return x, nil
	}
	nc := &commitInfo{indexVersion: u.v, gen: gen}
	for i := range u.segs {
		s := &u.segs[i]
		if s.del.Len() == s.n {
			continue // nothing left in it
		}
		if s.changed {
			s.delName = delFileName(s.name, gen)
			if err := writeDurable(dir, s.delName, frame(delMagic, s.del.AppendBinary(nil))); err != nil {
				u.abort()
				return nil, fmt.Errorf("write deletions: %w", err)
			}
		}
		nc.segs = append(nc.segs, commitSeg{name: s.name, docs: s.n, del: s.delName})
	}
	if err := writeCommit(dir, nc); err != nil {
		u.abort()
		return nil, err
	}
	removeUnused(dir, nc)
	if d.committed != nil {
		d.committed(ctx, nc.pos)
	}
	u.abort() // the new segments are opened again, from their files, as the commit's
	x, err := d.openView(nc)
	if err == nil {
		x.rebuilt = u.rebuilt
		writeMissingSignCodes(dir, x)
	}
	return x, err
}

// addSignCodes gives the segments of x that have no sign codes theirs
// (segments written before sign codes existed: the upgrade of an existing
// index, on its first open by a process that may write it), if the write
// lock is free now; otherwise, or if the directory cannot be written,
// they stay without and dense searches scan their int8 vectors. It costs
// a pass over those segments' int8 vectors (about a second per million
// chunks of 768 dimensions, once).
func (d *Dir) addSignCodes(ctx context.Context, x *View) {
	if d.readOnly || !x.lacksSignCodes() {
		return
	}
	release, err := d.lockWrite(ctx, 0)
	if err != nil {
		return
	}
	defer release()
	writeMissingSignCodes(d.dir, x)
}

// lacksSignCodes reports whether a segment of x on disk has no sign codes.
func (x *View) lacksSignCodes() bool {
	for _, s := range x.segs {
		if s.vecs.f != nil && s.codes.Load() == nil {
			return true
		}
	}
	return false
}

// writeMissingSignCodes writes the sign codes of x's segments on disk that
// have none, best effort (an error leaves the segment without). The caller
// holds the write lock.
func writeMissingSignCodes(dir string, x *View) {
	for _, s := range x.segs {
		if s.vecs.f == nil || s.codes.Load() != nil {
			continue
		}
		c, err := writeSignCodes(dir, s.segment)
		if err != nil {
			return
		}
		if !s.codes.CompareAndSwap(nil, c) {
			c.release()
		}
	}
}

// updateInMemory returns a view of the library now: base (nil for none)
// with the changes since taken in, in memory, for a process that cannot
// write the index. The view has one hold.
func (d *Dir) updateInMemory(ctx context.Context, base *View) (*View, error) {
	if base != nil {
		defer d.Release(base)
	}
	u, err := d.update(ctx, base, segSink{mem: true})
	if err != nil {
		return nil, err
	}
	return d.memoryView(u, base), nil
}

// memoryView is the view of an update made in memory, with one hold.
func (d *Dir) memoryView(u *pendingUpdate, base *View) *View {
	var gen uint64
	if base != nil {
		gen = base.gen
	}
	x := newView(u.v, gen, u.segs.liveSegs())
	d.st.mu.Lock()
	for _, s := range x.segs {
		s.views++
	}
	x.refs = 1
	d.st.mu.Unlock()
	return x
}

// pendingSeg is a segment of an update: one of the base's, maybe with new
// deletions, or a new one.
type pendingSeg struct {
	liveSeg
	changed bool // del is new (to be written)
	fresh   bool // a new segment
}

type pendingSegs []pendingSeg

func (ps pendingSegs) liveSegs() []liveSeg {
	out := make([]liveSeg, len(ps))
	for i, p := range ps {
		out[i] = p.liveSeg
	}
	return out
}

// pendingUpdate is an index update made but not committed: the version it
// brings the index to and its segments.
type pendingUpdate struct {
	v       indexVersion
	segs    pendingSegs
	rebuilt bool // from nothing: there was no usable base
}

// abort releases the update's new segments (if it was not committed,
// their files are deleted as unused by the next commit).
func (u *pendingUpdate) abort() {
	for _, s := range u.segs {
		if s.fresh {
			s.release()
		}
	}
}

// errLogPruned is update's error when base is older than what the change
// log still holds, so that a newer commit must be read first.
var errLogPruned = errors.New("the index is older than the change log")

// update reads, in one snapshot of the library, what changed since base
// (nil: everything) and returns base's segments with the chunks of changed
// papers deleted, followed by new segments (made through dest) holding
// the changed papers as they are now. A base of other vectors (library,
// dimensions, epoch) is ignored; one older than the pruned change log is
// an error (errLogPruned) unless the caller holds the write lock, for
// which such a base is rebuilt from nothing.
func (d *Dir) update(ctx context.Context, base *View, sink segSink) (*pendingUpdate, error) {
	var u *pendingUpdate
	err := d.snapshot(ctx, func(src Source) error {
		var err error
		u, err = updateFrom(ctx, src, base, sink)
		return err
	})
	return u, err
}

// updateFrom is update in the snapshot src.
func updateFrom(ctx context.Context, src Source, base *View, sink segSink) (*pendingUpdate, error) {
	u := &pendingUpdate{}
	err := func() error {
		lv, pruned, err := src.Version()
		if err != nil {
			return err
		}
		v := lv.internal()
		u.v = v
		if base != nil && (!base.sameVectors(v) || base.pos > v.pos) {
			base = nil
		}
		if base != nil && base.pos < pruned {
			if sink.mem {
				return errLogPruned
			}
			base = nil
		}
		w := &segmentsWriter{ctx: ctx, dims: v.dims, sink: sink, out: &u.segs}
		if base == nil {
			u.rebuilt = true
			defer w.stop()
			if err := src.All(w.add); err != nil {
				return err
			}
			return w.finish()
		}
		for _, s := range base.segs {
			u.segs = append(u.segs, pendingSeg{liveSeg: s})
		}
		if base.pos == v.pos {
			return nil
		}
		changed, err := src.Changed(base.pos)
		if err != nil {
			return err
		}
		if err := u.segs.deletePapers(changed); err != nil {
			return err
		}
		defer w.stop()
		if err := src.Papers(changed, w.add); err != nil {
			return err
		}
		return w.finish()
	}()
	if err != nil {
		u.abort()
		return nil, err
	}
	return u, nil
}

// deletePapers marks the chunks of the given papers deleted in every
// segment that holds them live.
func (ps pendingSegs) deletePapers(ids []string) error {
	for i := range ps {
		s := &ps[i]
		var docs []uint32
		for _, id := range ids {
			p := s.findPaper(id)
			if p < 0 || s.del.Has(int(s.start[p])) {
				continue
			}
			for d := s.start[p]; d < s.start[p+1]; d++ {
				docs = append(docs, d)
			}
		}
		if len(docs) == 0 {
			continue
		}
		del, err := s.text.Delete(s.del, docs)
		if err != nil {
			return fmt.Errorf("segment %s: %w", s.name, err)
		}
		s.del, s.changed, s.delName = del, true, ""
	}
	return nil
}

// segmentsWriter cuts chunks given in (paper id, seq) order into new
// segments of at most about segmentChunks chunks (a paper is never split).
type segmentsWriter struct {
	ctx  context.Context
	dims int
	sink segSink
	cur  *segDest
	w    *segmentWriter
	out  *pendingSegs
	last string
}

func (w *segmentsWriter) add(c Chunk) error {
	if err := w.ctx.Err(); err != nil {
		return err
	}
	id := c.PaperID
	if w.w != nil && id != w.last && w.w.chunks() >= segmentChunks {
		if err := w.finish(); err != nil {
			return err
		}
	}
	if w.w == nil {
		d, err := w.sink.create()
		if err != nil {
			return err
		}
		w.cur, w.w = d, newSegmentWriter(w.dims, d.seg, d.vec, d.bits)
	}
	w.last = id
	return w.w.add(id, c.Title, c.Seq, c.Vector, c.Text)
}

func (w *segmentsWriter) finish() error {
	if w.w == nil {
		return nil
	}
	err := w.w.finish()
	var s *segment
	if err == nil {
		s, err = w.cur.done()
	} else {
		w.cur.abort()
	}
	w.w, w.cur = nil, nil
	if err != nil {
		return fmt.Errorf("write a search index segment: %w", err)
	}
	*w.out = append(*w.out, pendingSeg{liveSeg: liveSeg{segment: s}, fresh: true})
	return nil
}

func (w *segmentsWriter) stop() {
	if w.w != nil {
		w.w.abort()
		w.cur.abort()
		w.w, w.cur = nil, nil
	}
}

// segDest is a new segment being written: to temporary files in the
// index directory, or to memory.
type segDest struct {
	name           string
	seg, vec, bits io.WriterAt
	done           func() (*segment, error) // makes it durable and opens it
	abort          func()
}

// segSink makes new segments: in memory when mem is set, else as files of
// dir whose temporary names start with prefix, for commit generation gen.
type segSink struct {
	mem    bool
	dir    string
	prefix string
	gen    uint64
}

func (k segSink) create() (*segDest, error) {
	if k.mem {
		var sm, vm, bm sections.Mem
		return &segDest{seg: &sm, vec: &vm, bits: &bm, abort: func() {}, done: func() (*segment, error) {
			s, err := parseSegment("", sm.B)
			if err != nil {
				return nil, err
			}
			s.vecs.mem = leview.Of[float32](vm.B, s.n*s.dims)
			if c, _, err := parseSignCodes(bm.B, s.n, s.dims); err == nil {
				s.codes.Store(c)
			}
			return s, nil
		}}, nil
	}
	name := segmentName(k.gen)
	// The three files, in the order they are renamed into place: the .seg
	// last, so that a segment whose .seg exists has its .vec (and, unless
	// renaming it failed, its .bits).
	exts := []string{".bits", ".vec", ".seg"}
	var files []*os.File
	var holds []func()
	cleanup := func() {
		for i, f := range files {
			f.Close()
			os.Remove(f.Name())
			holds[i]()
		}
	}
	for _, ext := range exts {
		f, err := createTemp(k.dir, k.prefix, name+ext)
		if err != nil {
			cleanup()
			return nil, err
		}
		files = append(files, f)
		// Held until renamed, so that removeStaleTemps leaves it alone.
		holds = append(holds, diskfile.HoldTemp(f.Name()))
	}
	bf, vf, sf := files[0], files[1], files[2]
	return &segDest{name: name, seg: sf, vec: vf, bits: bf, abort: cleanup, done: func() (*segment, error) {
		var err error
		for _, f := range files {
			if serr := syncFile(f); err == nil {
				err = serr
			}
		}
		for i := 0; i < len(files) && err == nil; i++ {
			err = os.Rename(files[i].Name(), filepath.Join(k.dir, name+exts[i]))
		}
		for i, f := range files {
			holds[i]()
			if err != nil {
				os.Remove(f.Name())
			}
		}
		if err != nil {
			return nil, err
		}
		checkedIn(k.dir).note(segmentFiles(k.dir, name)) // written from the checksums' data
		return openSegment(k.dir, name, true)
	}}, nil
}

// Discard deletes the index directory's commit and segments and forgets
// the current view, so that the next search rebuilds the index from the
// library.
func (d *Dir) Discard(ctx context.Context) error {
	release, err := d.lockWrite(ctx, d.wait)
	if err != nil {
		return err
	}
	defer release()
	dir := d.dir
	if err := os.Remove(filepath.Join(dir, commitName)); err != nil && !os.IsNotExist(err) {
		return err
	}
	removeUnused(dir, &commitInfo{})
	d.st.mu.Lock()
	defer d.st.mu.Unlock()
	d.st.drop(d.st.cur)
	d.st.cur = nil
	return nil
}
