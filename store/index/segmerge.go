package index

import (
	"context"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"

	"github.com/papers-cli/papers/internal/diskfile"
	"github.com/papers-cli/papers/internal/leview"
	"github.com/papers-cli/papers/internal/sections"
	"github.com/papers-cli/papers/store/fts"
)

// The merge policy is tiered, as Lucene's: a segment's level is the number
// of times mergeFactor goes into its live chunks over mergeFloor (chunks
// below the floor count as the floor), and whenever a level holds
// mergeFactor segments they are merged into one, a level up. So a library
// of n chunks has at most mergeFactor-1 segments per level, about
// log10(n/1000) levels (9 x 4 at a million chunks, typically far fewer),
// and every chunk is rewritten about once per level it climbs. A segment
// more than reclaimShare deleted is rewritten on its own, dropping the
// deleted chunks.
var (
	mergeFactor  = 10
	mergeFloor   = 1000
	reclaimShare = 0.3
)

// level is the merge level of a segment of live chunks.
func level(live int) int {
	n, lv := max(live, mergeFloor), 0
	for n >= mergeFloor*mergeFactor {
		n /= mergeFactor
		lv++
	}
	return lv
}

// pickMerge returns the segments of x to merge next (indexes into
// x.segs, in x's order), or nil if the policy wants none.
func pickMerge(x *View) []int {
	byLevel := map[int][]int{}
	lowest := -1
	for i, s := range x.segs {
		lv := level(s.n - s.del.Len())
		byLevel[lv] = append(byLevel[lv], i)
		if len(byLevel[lv]) >= mergeFactor && (lowest < 0 || lv < lowest) {
			lowest = lv
		}
	}
	if lowest >= 0 {
		return byLevel[lowest]
	}
	for i, s := range x.segs {
		if float64(s.del.Len()) > reclaimShare*float64(s.n) {
			return []int{i}
		}
	}
	return nil
}

// mergeIndex merges segments for as long as the merge policy asks for it.
// One process merges at a time (the merge lock); if another is merging,
// it returns at once. A merge holds the write lock only to pick its
// segments and to commit, so refreshes (and searches, which take no lock)
// go on meanwhile; deletions committed in the merged segments while it
// ran are carried over to the merged one.
func (d *Dir) mergeIndex(ctx context.Context) error {
	dir := d.dir
	for {
		release, err := lockIndex(ctx, dir, mergeLockName, 0)
		if errors.Is(err, errLockBusy) {
			return nil
		} else if err != nil {
			return err
		}
		merged, err := d.mergeOnce(ctx)
		release()
		if err != nil || !merged {
			return err
		}
	}
}

// mergeOnce makes one merge the policy picks, if any, and reports whether
// it did. The caller holds the merge lock.
func (d *Dir) mergeOnce(ctx context.Context) (bool, error) {
	dir := d.dir
	release, err := d.lockWrite(ctx, d.wait)
	if err != nil {
		return false, err
	}
	c, err := readCommit(dir)
	var x *View
	if err == nil && c != nil {
		x, err = d.openView(c)
	}
	if err != nil || c == nil {
		release()
		return false, err
	}
	defer d.Release(x)
	pick := pickMerge(x)
	if pick == nil {
		release()
		return false, nil
	}
	inputs := make([]liveSeg, len(pick))
	for i, p := range pick {
		inputs[i] = x.segs[p]
	}
	if d.merging != nil {
		d.merging()
	}
	// Created under the write lock (see removeIndexTemps), written without.
	dest, err := segSink{dir: dir, prefix: mergeTmpPrefix, gen: c.gen + 1}.create()
	release()
	if err != nil {
		return false, err
	}
	remap, err := writeMerged(ctx, dest, inputs, x.dims)
	if err != nil {
		dest.abort()
		return false, err
	}
	release, err = d.lockWrite(ctx, d.wait)
	if err != nil {
		dest.abort()
		return false, err
	}
	defer release()
	c2, err := readCommit(dir)
	if err != nil || c2 == nil || !c2.sameVectors(x.indexVersion) {
		dest.abort()
		return false, err
	}
	at := map[string]int{} // input name -> position in c2
	for i, s := range c2.segs {
		at[s.name] = i
	}
	for _, in := range inputs {
		if _, ok := at[in.name]; !ok {
			dest.abort() // replaced meanwhile (a rebuild): nothing to commit
			return true, nil
		}
	}
	out, err := dest.done()
	if err != nil {
		return false, err
	}
	// Deletions committed in the inputs since they were picked.
	var gone []uint32
	for i, in := range inputs {
		now := c2.segs[at[in.name]].del
		if now == in.delName {
			continue
		}
		d, err := readDeleted(dir, now, in.text)
		if err != nil {
			out.release()
			return false, err
		}
		for _, doc := range d.Docs() {
			if !in.del.Has(int(doc)) && remap[i][doc] >= 0 {
				gone = append(gone, uint32(remap[i][doc]))
			}
		}
	}
	seg := commitSeg{name: out.name, docs: out.n}
	if len(gone) > 0 {
		d, err := out.text.Delete(nil, gone)
		if err == nil {
			seg.del = delFileName(out.name, c2.gen+1)
			err = writeDurable(dir, seg.del, frame(delMagic, d.AppendBinary(nil)))
		}
		if err != nil {
			out.release()
			return false, err
		}
	}
	nc := &commitInfo{indexVersion: c2.indexVersion, gen: c2.gen + 1}
	placed := false
	for _, s := range c2.segs {
		if _, merged := indexOf(inputs, s.name); merged {
			if !placed && out.n > len(gone) {
				nc.segs = append(nc.segs, seg)
			}
			placed = true
			continue
		}
		nc.segs = append(nc.segs, s)
	}
	out.release()
	if err := writeCommit(dir, nc); err != nil {
		return false, err
	}
	removeUnused(dir, nc)
	return true, nil
}

func indexOf(segs []liveSeg, name string) (int, bool) {
	for i, s := range segs {
		if s.name == name {
			return i, true
		}
	}
	return -1, false
}

// writeMerged writes to dest the live chunks of inputs as one segment, in
// (paper id, seq) order, and returns the renumbering: remap[i][d] is input
// i's chunk d's number in the merged segment, -1 if deleted. It streams:
// vectors are copied through buffers, the full-text index by fts.Merge,
// and the inputs' mapped pages are released as it goes, so that a merge of
// GBs of segments takes a few bytes per chunk of memory.
func writeMerged(ctx context.Context, dest *segDest, inputs []liveSeg, dims int) ([][]int32, error) {
	// The order: the inputs' live papers, by id (a paper is live in one
	// segment at most; ties would go to the earlier input).
	type cursor struct{ in, p int }
	cur := make([]int, len(inputs))
	next := func(i int) {
		s := inputs[i]
		for cur[i] < s.papers() && s.del.Has(int(s.start[cur[i]])) {
			cur[i]++
		}
	}
	for i := range inputs {
		next(i)
	}
	remap := make([][]int32, len(inputs))
	for i, s := range inputs {
		remap[i] = make([]int32, s.n)
		for d := range remap[i] {
			remap[i][d] = -1
		}
	}
	var order []cursor
	var n, idBytes int
	for {
		best := -1
		for i, s := range inputs {
			if cur[i] < s.papers() && (best < 0 || s.paperID(cur[i]) < inputs[best].paperID(cur[best])) {
				best = i
			}
		}
		if best < 0 {
			break
		}
		s, p := inputs[best], cur[best]
		order = append(order, cursor{best, p})
		idBytes += len(s.paperID(p))
		for d := s.start[p]; d < s.start[p+1]; d++ {
			remap[best][d] = int32(n)
			n++
		}
		cur[best]++
		next(best)
	}
	lay := layoutSegment(n, dims, len(order), idBytes)
	var tab segTables
	var sums segSums
	q8 := sections.New(dest.seg, lay.q8, 1<<20)
	vec := sections.New(dest.vec, 0, 1<<20)
	signs := newSignWriter(dest.bits, dims)
	readers := make([]*vecReader, len(inputs))
	for i, s := range inputs {
		readers[i] = &vecReader{src: &s.vecs, dims: dims}
	}
	drop := func() {
		for _, s := range inputs {
			diskfile.DropPages(s.raw)
		}
	}
	copied := 0
	for k, o := range order {
		if k%1024 == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		s := inputs[o.in]
		id := s.paperID(o.p)
		for d := int(s.start[o.p]); d < int(s.start[o.p+1]); d++ {
			q := s.q8[d*dims : (d+1)*dims]
			b := leview.Bytes(q)
			q8.Write(b)
			sums.q8 = crc32.Update(sums.q8, CRC32C(), b)
			signs.add(q, s.scale[d])
			v, err := readers[o.in].read(d)
			if err != nil {
				return nil, err
			}
			vec.Write(v)
			sums.vec = crc32.Update(sums.vec, CRC32C(), v)
			tab.addChunk(id, int(s.seqs[d]), s.scale[d])
			if copied += dims; copied >= 64<<20 {
				drop()
				copied = 0
			}
		}
	}
	if err := q8.Flush(); err != nil {
		return nil, err
	}
	if err := vec.Flush(); err != nil {
		return nil, err
	}
	if err := signs.finish(); err != nil {
		return nil, err
	}
	parts := make([]fts.Part, len(inputs))
	for i, s := range inputs {
		parts[i] = fts.Part{X: s.text, Del: s.del}
	}
	size, err := fts.Merge(dest.seg, lay.fts, parts, remap, drop)
	if err != nil {
		return nil, err
	}
	drop()
	if sums.text, err = checksumAt(dest.seg, lay.fts, size); err != nil {
		return nil, err
	}
	if err := tab.write(dest.seg, dims, size, sums); err != nil {
		return nil, err
	}
	return remap, nil
}

// vecReader reads one segment's float32 vectors in ascending order through
// a buffer.
type vecReader struct {
	src      *vectorSource
	dims     int
	buf      []byte
	lo, next int // buf holds vectors lo .. next-1
}

func (r *vecReader) read(d int) ([]byte, error) {
	size := 4 * r.dims
	if r.src.f == nil {
		if (d+1)*r.dims > len(r.src.mem) {
			return nil, errBadSegment
		}
		return leview.Bytes(r.src.mem[d*r.dims : (d+1)*r.dims]), nil
	}
	if d < r.lo || d >= r.next {
		if r.buf == nil {
			r.buf = make([]byte, max(1, (1<<20)/size)*size)
		}
		n, err := r.src.f.ReadAt(r.buf, int64(d)*int64(size))
		if err != nil && !(errors.Is(err, io.EOF) && n >= size) {
			return nil, fmt.Errorf("read vectors: %w", err)
		}
		r.lo, r.next = d, d+n/size
	}
	o := (d - r.lo) * size
	return r.buf[o : o+size], nil
}

// checksumAt returns the crc32c of n bytes of w (a file or memory) from off.
func checksumAt(w io.WriterAt, off, n int64) (uint32, error) {
	switch f := w.(type) {
	case *sections.Mem:
		return crc32.Checksum(f.B[off:off+n], CRC32C()), nil
	case *os.File:
		var sum uint32
		buf := make([]byte, 1<<20)
		for done := int64(0); done < n; {
			m := min(int64(len(buf)), n-done)
			if _, err := f.ReadAt(buf[:m], off+done); err != nil {
				return 0, err
			}
			sum = crc32.Update(sum, CRC32C(), buf[:m])
			done += m
		}
		return sum, nil
	}
	return 0, fmt.Errorf("checksum: %T cannot be read back", w)
}
