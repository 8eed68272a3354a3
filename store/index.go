package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime/debug"
	"sort"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/papers-cli/papers/internal/leview"
	"github.com/papers-cli/papers/internal/sections"
	"github.com/papers-cli/papers/store/fts"
)

// legacySidecars are the whole-library search caches of earlier versions
// (index.bin, and vectors.f32 before it), deleted once the index directory
// holds a commit.
var legacySidecars = []string{"index.bin", "vectors.f32"}

// segmentChunks is how many chunks a refresh puts in one new segment at
// most: its full-text index is built in memory (about 1.5 KB per chunk of
// ~100 words, so ~100 MB at this size) before it is written.
var segmentChunks = 65536

// indexVersion is what an index holds: the library (its random id), the
// vectors' dimensions and epoch (bumped when Reindex replaces them all),
// and the position in the library's change log (the index_log table, to
// which a trigger adds every paper inserted, deleted or retitled) up to
// which the index has taken the changes in. An index of another library,
// dimensions or epoch is rebuilt from nothing; one behind in the log takes
// in the papers logged since.
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

// libraryVersion reads the version of the library in q's snapshot, and how
// far the change log was pruned (log rows up to it are gone). The log's
// position is its AUTOINCREMENT counter, which pruning leaves alone (and
// which is absent until the first row: position 0).
func libraryVersion(ctx context.Context, q querier) (v indexVersion, pruned int64, err error) {
	rows, err := q.QueryContext(ctx, `SELECT key, value FROM manifest WHERE key IN (?, ?, ?, ?)
		UNION ALL SELECT 'index_log', seq FROM sqlite_sequence WHERE name = 'index_log'`,
		keyLibraryID, keyDimensions, keyVectorsEpoch, keyIndexPruned)
	if err != nil {
		return v, 0, wrapBusy(err)
	}
	defer rows.Close()
	for rows.Next() {
		var k, val string
		if err := rows.Scan(&k, &val); err != nil {
			return v, 0, err
		}
		switch k {
		case keyLibraryID:
			v.libraryID = val
		case keyDimensions:
			v.dims, _ = strconv.Atoi(val)
		case keyVectorsEpoch:
			v.epoch, _ = strconv.ParseInt(val, 10, 64)
		case keyIndexPruned:
			pruned, _ = strconv.ParseInt(val, 10, 64)
		case "index_log":
			v.pos, _ = strconv.ParseInt(val, 10, 64)
		}
	}
	if err := rows.Err(); err != nil {
		return v, 0, err
	}
	if len(v.libraryID) != 32 {
		return v, 0, errors.New("library id is not 32 hex digits")
	}
	return v, pruned, nil
}

// indexLogSchema is the library's change log (schema 4): every paper
// inserted, deleted or retitled (or renumbered) adds its id, so that the
// search index can take in exactly the papers that changed since it was
// committed. Chunks change only with their paper's row (Put replaces the
// row, its chunks go by ON DELETE CASCADE) or all at once by Reindex
// (which bumps vectors_epoch, and the index is rebuilt). AUTOINCREMENT
// keeps ids growing after the log is pruned. Schema 4 also gave Count a
// covering index.
const indexLogSchema = `
CREATE TABLE IF NOT EXISTS index_log (
	id       INTEGER PRIMARY KEY AUTOINCREMENT,
	paper_id TEXT NOT NULL
);
CREATE TRIGGER IF NOT EXISTS index_log_insert AFTER INSERT ON papers BEGIN
	INSERT INTO index_log (paper_id) VALUES (new.id);
END;
CREATE TRIGGER IF NOT EXISTS index_log_delete AFTER DELETE ON papers BEGIN
	INSERT INTO index_log (paper_id) VALUES (old.id);
END;
CREATE TRIGGER IF NOT EXISTS index_log_update AFTER UPDATE OF id, title, chunks ON papers BEGIN
	INSERT INTO index_log (paper_id) VALUES (old.id);
	INSERT INTO index_log (paper_id) SELECT new.id WHERE new.id != old.id;
END;
-- Count's sum of chunks from an index (2 MB at 100k papers) instead of a
-- scan of the papers table with its abstracts (700 MB, all of it mapped).
CREATE INDEX IF NOT EXISTS papers_chunks ON papers (chunks);
`

// keyIndexPruned is the manifest key recording up to which id the change
// log was pruned.
const keyIndexPruned = "index_log_pruned"

// liveSeg is a segment as one view of the index has it: with the chunks
// deleted from it by then.
type liveSeg struct {
	*segment
	del     *fts.Deleted
	delName string // the deletion file del was read from or written to ("" if none or in memory)
}

// searchIndex is one consistent view of the index, for searches: live
// segments, one after the other. Chunk i of the view is chunk i-base[s]
// of segment s. It is read-only and safe for concurrent use while held
// (Library.acquireIndex).
type searchIndex struct {
	indexVersion
	segs  []liveSeg
	base  []int
	total int
	text  *fts.Set
	refs  int    // guarded by indexState.mu: holders, plus one while it is the current view
	gen   uint64 // the commit it is (or would be)

	rebuilt bool // refreshLocked built it from nothing
}

func (x *searchIndex) len() int { return x.total }

// live is the number of chunks not deleted.
func (x *searchIndex) live() int { return x.text.Live() }

// locate returns the segment and the segment's chunk of view chunk i.
func (x *searchIndex) locate(i int) (int, int) {
	s := sort.Search(len(x.base), func(j int) bool { return x.base[j] > i }) - 1
	return s, i - x.base[s]
}

// chunkAt returns chunk i's paper id (a view of the mapped segment) and seq.
func (x *searchIndex) chunkAt(i int) (string, int) {
	s, d := x.locate(i)
	seg := x.segs[s]
	return seg.paperID(int(seg.paperOf[d])), int(seg.seqs[d])
}

func newView(v indexVersion, gen uint64, segs []liveSeg) *searchIndex {
	x := &searchIndex{indexVersion: v, gen: gen, segs: segs, base: make([]int, len(segs))}
	parts := make([]fts.Part, len(segs))
	for i, s := range segs {
		x.base[i] = x.total
		x.total += s.n
		parts[i] = fts.Part{X: s.text, Del: s.del}
	}
	x.text = fts.NewSet(parts...)
	return x
}

// indexState is a Library's hold on the search index: the current view and
// the segments mapped for it and for views still in use.
type indexState struct {
	mu   sync.Mutex
	cur  *searchIndex
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
func (st *indexState) drop(x *searchIndex) {
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

// acquireIndex returns a view of the search index as up to date as the
// library, held until releaseIndex. The check costs one small query; when
// the library changed since the current view, the new view comes from the
// index directory if it is current, else the index is brought up to date
// (by this process if it can take the write lock at once, else in memory:
// searches never wait for other processes' writers; a library opened
// read-only is always caught up in memory). Searches of this process wait
// for the one of them already bringing the view up to date, and share it.
func (l *Library) acquireIndex(ctx context.Context) (*searchIndex, error) {
	v, _, err := libraryVersion(ctx, l.db)
	if err != nil {
		return nil, err
	}
	st := &l.ix
	current := func() *searchIndex {
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
	x, err := l.loadIndex(ctx, v, true)
	if err != nil {
		return nil, err
	}
	return l.install(x), nil
}

// install makes x the current view if it is newer than the current one,
// and returns the view the caller holds (x, or the current one if it is
// as new; one hold on x is given up then).
func (l *Library) install(x *searchIndex) *searchIndex {
	st := &l.ix
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

func (l *Library) releaseIndex(x *searchIndex) {
	l.ix.mu.Lock()
	defer l.ix.mu.Unlock()
	l.ix.drop(x)
}

func (l *Library) indexDir() string { return filepath.Join(l.dir, IndexDir) }

// loadIndex returns a view at version v or later with one hold, from the
// index directory: as committed if the commit is at v, else updated (on
// disk if refresh and the write lock is free, in memory otherwise).
func (l *Library) loadIndex(ctx context.Context, v indexVersion, refresh bool) (*searchIndex, error) {
	dir := l.indexDir()
	for attempt := 0; ; attempt++ {
		c, err := readCommit(dir)
		if err == nil && c != nil && c.indexVersion == v {
			x, err := l.openView(c)
			if err == nil {
				if refresh {
					l.addSignCodes(ctx, x)
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
		if refresh && l.readOnly == "" {
			release, lerr := l.lockWrite(ctx, 0)
			if lerr == nil {
				x, err := l.refreshLocked(ctx)
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
					return l.mergedView(ctx, x), nil
				}
				if err == nil || ctx.Err() != nil {
					return x, err
				}
			}
		}
		// In memory: from the commit's segments if they can be opened.
		var base *searchIndex
		if c != nil && c.sameVectors(v) {
			if base, err = l.openView(c); err != nil {
				if errors.Is(err, fs.ErrNotExist) && attempt < 5 {
					continue
				}
				base = nil
			}
		}
		x, err := l.updateInMemory(ctx, base)
		if errors.Is(err, errLogPruned) && attempt < 5 {
			continue // a newer commit is there
		}
		return x, err
	}
}

// lockWrite takes the index's write lock (creating the directory).
func (l *Library) lockWrite(ctx context.Context, wait time.Duration) (func(), error) {
	if err := os.MkdirAll(l.indexDir(), 0o700); err != nil {
		return nil, err
	}
	return lockIndex(ctx, l.indexDir(), writeLockName, wait)
}

// openView opens the segments and deletion files commit c names, reusing
// those this Library has open. The view has one hold.
func (l *Library) openView(c *commitInfo) (*searchIndex, error) {
	dir := l.indexDir()
	st := &l.ix
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
	fail := func(err error) (*searchIndex, error) {
		st.mu.Lock()
		defer st.mu.Unlock()
		st.drop(&searchIndex{segs: segs, refs: 1})
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
			if s, err = openSegment(dir, cs.name, l.readOnly == ""); err != nil {
				return fail(err)
			}
			s = pin(s)
		}
		segs = append(segs, liveSeg{segment: s, delName: cs.del})
		if s.n != cs.docs || s.dims != c.dims {
			return fail(fmt.Errorf("segment %s: %w", cs.name, errBadSegment))
		}
		if cs.del != "" {
			d, err := l.deletions(s, cs.del)
			if err != nil {
				return fail(err)
			}
			segs[len(segs)-1].del = d
		}
	}
	x := newView(c.indexVersion, c.gen, segs)
	x.refs = 1
	return x, nil
}

// deletions reads deletion file name of segment s, or takes it from the
// last one read.
func (l *Library) deletions(s *segment, name string) (*fts.Deleted, error) {
	l.ix.mu.Lock()
	if s.lastDelName == name {
		d := s.lastDel
		l.ix.mu.Unlock()
		return d, nil
	}
	l.ix.mu.Unlock()
	d, err := readDeleted(l.indexDir(), name, s.text)
	if err != nil {
		return nil, err
	}
	l.ix.mu.Lock()
	s.lastDelName, s.lastDel = name, d
	l.ix.mu.Unlock()
	return d, nil
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
func (l *Library) Refresh(ctx context.Context) error {
	if l.readOnly != "" {
		return fmt.Errorf("refresh the search index: %w", l.errReadOnly())
	}
	release, err := l.lockWrite(ctx, busyTimeout)
	if err != nil {
		if cannotWriteIndex(err) || errors.Is(err, errLockBusy) {
			return nil
		}
		return fmt.Errorf("refresh the search index: %w", err)
	}
	x, err := l.refreshLocked(ctx)
	release()
	if err != nil {
		if cannotWriteIndex(err) {
			return nil
		}
		return fmt.Errorf("refresh the search index: %w", wrapBusy(err))
	}
	l.releaseIndex(l.install(x))
	if err := l.mergeIndex(ctx); err != nil && !cannotWriteIndex(err) {
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
func (l *Library) mergedView(ctx context.Context, x *searchIndex) *searchIndex {
	if err := l.mergeIndex(ctx); err != nil {
		return x
	}
	c, err := readCommit(l.indexDir())
	if err != nil || c == nil || c.indexVersion != x.indexVersion {
		return x
	}
	y, err := l.openView(c)
	if err != nil {
		return x
	}
	l.releaseIndex(x)
	return y
}

// refreshLocked brings the index directory up to date with the library
// and returns a view of the new commit with one hold. The caller holds the
// write lock.
func (l *Library) refreshLocked(ctx context.Context) (*searchIndex, error) {
	dir := l.indexDir()
	c, err := readCommit(dir)
	var base *searchIndex
	if err == nil && c != nil {
		if base, err = l.openView(c); err != nil {
			base = nil // damaged: rebuilt from nothing
		}
	}
	if base != nil {
		defer l.releaseIndex(base)
	}
	gen := uint64(1)
	if c != nil {
		gen = c.gen + 1
	}
	u, err := l.update(ctx, base, segSink{dir: dir, gen: gen})
	if err != nil {
		return nil, err
	}
	if base != nil && u.v == base.indexVersion {
		x := base
		l.ix.mu.Lock()
		x.refs++
		l.ix.mu.Unlock()
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
	for _, f := range legacySidecars {
		os.Remove(filepath.Join(l.dir, f))
	}
	l.pruneLog(ctx, nc.pos)
	u.abort() // the new segments are opened again, from their files, as the commit's
	x, err := l.openView(nc)
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
func (l *Library) addSignCodes(ctx context.Context, x *searchIndex) {
	if l.readOnly != "" || !x.lacksSignCodes() {
		return
	}
	release, err := l.lockWrite(ctx, 0)
	if err != nil {
		return
	}
	defer release()
	writeMissingSignCodes(l.indexDir(), x)
}

// lacksSignCodes reports whether a segment of x on disk has no sign codes.
func (x *searchIndex) lacksSignCodes() bool {
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
func writeMissingSignCodes(dir string, x *searchIndex) {
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
func (l *Library) updateInMemory(ctx context.Context, base *searchIndex) (*searchIndex, error) {
	if base != nil {
		defer l.releaseIndex(base)
	}
	u, err := l.update(ctx, base, segSink{mem: true})
	if err != nil {
		return nil, err
	}
	return l.memoryView(u, base), nil
}

// memoryView is the view of an update made in memory, with one hold.
func (l *Library) memoryView(u *pendingUpdate, base *searchIndex) *searchIndex {
	var gen uint64
	if base != nil {
		gen = base.gen
	}
	x := newView(u.v, gen, u.segs.liveSegs())
	l.ix.mu.Lock()
	for _, s := range x.segs {
		s.views++
	}
	x.refs = 1
	l.ix.mu.Unlock()
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
func (l *Library) update(ctx context.Context, base *searchIndex, sink segSink) (*pendingUpdate, error) {
	var u *pendingUpdate
	err := l.readLarge(ctx, func(tx *sql.Tx) error {
		var err error
		u, err = updateTx(ctx, tx, base, sink)
		return err
	})
	return u, err
}

// updateTx is update in the snapshot of tx.
func updateTx(ctx context.Context, tx *sql.Tx, base *searchIndex, sink segSink) (*pendingUpdate, error) {
	u := &pendingUpdate{}
	err := func() error {
		v, pruned, err := libraryVersion(ctx, tx)
		if err != nil {
			return err
		}
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
			return w.all(tx)
		}
		for _, s := range base.segs {
			u.segs = append(u.segs, pendingSeg{liveSeg: s})
		}
		if base.pos == v.pos {
			return nil
		}
		changed, err := changedPapers(ctx, tx, base.pos)
		if err != nil {
			return err
		}
		if err := u.segs.deletePapers(changed); err != nil {
			return err
		}
		return w.papers(tx, changed)
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

// changedPapers returns the ids of the papers logged after pos, ascending.
func changedPapers(ctx context.Context, tx *sql.Tx, pos int64) ([]string, error) {
	return queryStrings(ctx, tx, "SELECT DISTINCT paper_id FROM index_log WHERE id > ? ORDER BY paper_id", pos)
}

// queryStrings returns the one text column of what a query selects.
func queryStrings(ctx context.Context, q querier, query string, args ...any) ([]string, error) {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, wrapBusy(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, rows.Err()
}

// readLarge runs fn in a read-only transaction on a connection that does
// not map the database: a scan of the whole chunks table through SQLite's
// mmap would add the file (GBs at a million chunks) to the process's
// resident memory.
func (l *Library) readLarge(ctx context.Context, fn func(tx *sql.Tx) error) error {
	conn, release, err := l.unmappedConn(ctx)
	if err != nil {
		return err
	}
	defer release()
	return readOn(ctx, conn, fn)
}

// unmappedConn returns a connection of its own that reads the database
// through SQLite's page cache (at most cache_size) rather than its memory
// map, for a pass over a large part of the file; release gives it back
// with the map restored.
func (l *Library) unmappedConn(ctx context.Context) (conn *sql.Conn, release func(), err error) {
	conn, err = l.db.Conn(ctx)
	if err != nil {
		return nil, nil, wrapBusy(err)
	}
	if _, err := conn.ExecContext(ctx, "PRAGMA mmap_size = 0"); err != nil {
		conn.Close()
		return nil, nil, wrapBusy(err)
	}
	return conn, func() {
		conn.ExecContext(context.WithoutCancel(ctx), "PRAGMA mmap_size = "+strconv.Itoa(mmapSize))
		conn.Close()
	}, nil
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

func (w *segmentsWriter) add(id, title string, seq int, blob []byte, body string) error {
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
	return w.w.add(id, title, seq, blob, body)
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

// all writes every chunk of the library.
func (w *segmentsWriter) all(tx *sql.Tx) error {
	defer w.stop()
	rows, err := tx.QueryContext(w.ctx, `SELECT c.paper_id, p.title, c.seq, c.vector, c.text
		FROM chunks c JOIN papers p ON p.id = c.paper_id ORDER BY c.paper_id, c.seq`)
	if err != nil {
		return err
	}
	defer rows.Close()
	var id, title, body string
	var seq int
	var blob sql.RawBytes
	for rows.Next() {
		if err := rows.Scan(&id, &title, &seq, &blob, &body); err != nil {
			return err
		}
		if err := w.add(id, title, seq, blob, body); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return err
	}
	return w.finish()
}

// papers writes the chunks of the given papers (ascending ids; those no
// longer in the library have none).
func (w *segmentsWriter) papers(tx *sql.Tx, ids []string) error {
	defer w.stop()
	title, err := tx.PrepareContext(w.ctx, "SELECT title FROM papers WHERE id = ?")
	if err != nil {
		return err
	}
	defer title.Close()
	chunks, err := tx.PrepareContext(w.ctx, "SELECT seq, vector, text FROM chunks WHERE paper_id = ? ORDER BY seq")
	if err != nil {
		return err
	}
	defer chunks.Close()
	for _, id := range ids {
		var t string
		if err := title.QueryRowContext(w.ctx, id).Scan(&t); errors.Is(err, sql.ErrNoRows) {
			continue // deleted
		} else if err != nil {
			return err
		}
		rows, err := chunks.QueryContext(w.ctx, id)
		if err != nil {
			return err
		}
		var seq int
		var blob sql.RawBytes
		var body string
		for rows.Next() {
			if err = rows.Scan(&seq, &blob, &body); err != nil {
				break
			}
			if err = w.add(id, t, seq, blob, body); err != nil {
				break
			}
		}
		rows.Close()
		if err == nil {
			err = rows.Err()
		}
		if err != nil {
			return err
		}
	}
	return w.finish()
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
		holds = append(holds, holdTemp(f.Name()))
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

// pruneLog deletes the change log up to pos, which a durable commit
// holds, once there is enough of it to be worth a write; it never waits
// for the database's write lock.
func (l *Library) pruneLog(ctx context.Context, pos int64) {
	var pruned int64
	var s string
	if err := l.db.QueryRowContext(ctx, "SELECT value FROM manifest WHERE key = ?", keyIndexPruned).Scan(&s); err == nil {
		pruned, _ = strconv.ParseInt(s, 10, 64)
	}
	if pos-pruned < pruneEvery {
		return
	}
	conn, err := l.db.Conn(ctx)
	if err != nil {
		return
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "PRAGMA busy_timeout = 0"); err != nil {
		return
	}
	defer conn.ExecContext(context.WithoutCancel(ctx), "PRAGMA busy_timeout = "+strconv.Itoa(int(busyTimeout/time.Millisecond)))
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, "DELETE FROM index_log WHERE id <= ?", pos); err != nil {
		return
	}
	if err := setManifest(ctx, tx, keyIndexPruned, strconv.FormatInt(pos, 10)); err != nil {
		return
	}
	tx.Commit()
}

// pruneEvery is how many change log rows a refresh lets pile up before it
// prunes them.
var pruneEvery int64 = 1000

// discardIndex deletes the index directory's commit and segments and
// forgets the current view, so that the next search rebuilds the index
// from the database.
func (l *Library) discardIndex(ctx context.Context) error {
	release, err := l.lockWrite(ctx, busyTimeout)
	if err != nil {
		return err
	}
	defer release()
	dir := l.indexDir()
	if err := os.Remove(filepath.Join(dir, commitName)); err != nil && !os.IsNotExist(err) {
		return err
	}
	removeUnused(dir, &commitInfo{})
	l.ix.mu.Lock()
	defer l.ix.mu.Unlock()
	l.ix.drop(l.ix.cur)
	l.ix.cur = nil
	return nil
}
