package index

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"hash/crc32"
	"io/fs"
	"path/filepath"

	"github.com/papers-cli/papers/internal/leview"
	"github.com/papers-cli/papers/store/fts"
)

// Check verifies the search index: the commit and every file it names
// (all their checksums, which opening a segment does not read), and that
// the index, with the changes since its commit taken in (in memory), holds
// exactly the library's chunks, with their vectors, int8 copies and token
// counts, in one snapshot of the library. It writes nothing. A library
// with no index yet passes.
func (d *Dir) Check(ctx context.Context) error {
	dir := d.dir
	var base *View
	for attempt := 0; ; attempt++ {
		c, err := readCommit(dir)
		if err != nil {
			return fmt.Errorf("search index: %w", err)
		}
		if c == nil {
			break
		}
		base, err = d.openView(c)
		if errors.Is(err, fs.ErrNotExist) && attempt < 5 {
			continue // merged meanwhile
		}
		if err != nil {
			return fmt.Errorf("search index: %w", err)
		}
		break
	}
	if base != nil {
		defer d.Release(base)
		for _, s := range base.segs {
			if err := s.verify(dir, true); err != nil {
				return fmt.Errorf("search index: segment %s: %w", s.name, err)
			}
		}
	}
	return d.snapshot(ctx, func(src Source) error {
		u, err := updateFrom(ctx, src, base, segSink{mem: true})
		if errors.Is(err, errLogPruned) {
			return nil // a newer commit came meanwhile; it is checked next time
		}
		if err != nil {
			return fmt.Errorf("search index: %w", err)
		}
		x := d.memoryView(u, base)
		defer d.Release(x)
		if err := x.agrees(src); err != nil {
			return fmt.Errorf("search index: %w", err)
		}
		return nil
	})
}

// verify checks everything in a segment's files against their checksums,
// and the tables' order; deep also computes the sign codes again from the
// int8 vectors (a pass that costs more than all the checksums).
func (s *segment) verify(dir string, deep bool) error {
	lay := layoutSegment(s.n, s.dims, s.papers(), len(s.ids))
	if crc32.Checksum(s.raw[lay.q8:lay.q8+int64(s.n*s.dims)], CRC32C()) != s.sums.q8 {
		return errors.New("int8 vectors do not match their checksum")
	}
	if crc32.Checksum(s.raw[lay.fts:], CRC32C()) != s.sums.text {
		return errors.New("full-text index does not match its checksum")
	}
	if s.vecs.f != nil {
		sum, err := crcFile(filepath.Join(dir, s.name+".vec")) // in pieces: four times the int8 vectors' size
		if err != nil {
			return err
		}
		if sum != s.sums.vec {
			return errors.New("vectors do not match their checksum")
		}
	}
	if c := s.codes.Load(); c != nil {
		if err := verifySignSums(dir, s); err != nil {
			return err
		}
		if deep {
			if err := verifySignCodes(c, s); err != nil {
				return err
			}
		}
	}
	for p := range s.papers() {
		if p > 0 && s.paperID(p-1) >= s.paperID(p) {
			return errors.New("papers out of order")
		}
		for d := s.start[p]; d < s.start[p+1]; d++ {
			if s.paperOf[d] != uint32(p) || d > s.start[p] && s.seqs[d] <= s.seqs[d-1] {
				return fmt.Errorf("chunk %d out of place", d)
			}
		}
	}
	return nil
}

// agrees checks that x's live chunks are the library's (in src's
// snapshot), each with its vector, the int8 copy of it and its text's
// token count.
func (x *View) agrees(src Source) error {
	// x's live chunks in (paper id, seq) order: a merge of its segments'.
	cur := make([]int, len(x.segs))
	readers := make([]*vecReader, len(x.segs))
	for i := range x.segs {
		readers[i] = &vecReader{src: &x.segs[i].vecs, dims: x.dims}
	}
	next := func() (int, int) {
		best := -1
		var bp string
		var bq uint32
		for i, s := range x.segs {
			for cur[i] < s.n && s.del.Has(cur[i]) {
				cur[i]++
			}
			if cur[i] == s.n {
				continue
			}
			p, q := s.paperID(int(s.paperOf[cur[i]])), s.seqs[cur[i]]
			if best < 0 || p < bp || p == bp && q < bq {
				best, bp, bq = i, p, q
			}
		}
		if best < 0 {
			return -1, -1
		}
		cur[best]++
		return best, cur[best] - 1
	}
	var qbuf []int8
	n := 0
	err := src.All(func(c Chunk) error {
		id, seq, blob := c.PaperID, c.Seq, c.Vector
		s, d := next()
		if s < 0 {
			return fmt.Errorf("chunk %s is not in the index", chunkName(id, seq))
		}
		seg := x.segs[s]
		if got := chunkName(seg.paperID(int(seg.paperOf[d])), int(seg.seqs[d])); got != chunkName(id, seq) {
			return fmt.Errorf("the index holds chunk %s where the library holds %s", got, chunkName(id, seq))
		}
		v, err := readers[s].read(d)
		if err != nil {
			return err
		}
		if !bytes.Equal(v, blob) {
			return fmt.Errorf("chunk %s: the index's vector differs from the library's", chunkName(id, seq))
		}
		var scale float32
		if len(blob) == 4*x.dims {
			qbuf, scale = quantize(qbuf[:0], leview.Of[float32](blob, x.dims))
		}
		if scale != seg.scale[d] || !bytes.Equal(leview.Bytes(qbuf), leview.Bytes(seg.q8[d*x.dims:(d+1)*x.dims])) {
			return fmt.Errorf("chunk %s: the index's int8 vector is not the library's vector's", chunkName(id, seq))
		}
		if want := fts.Length(c.Title, c.Text); seg.text.DocLen(d) != want {
			return fmt.Errorf("chunk %s: the index counts %d tokens, its text has %d", chunkName(id, seq), seg.text.DocLen(d), want)
		}
		n++
		return nil
	})
	if err != nil {
		return err
	}
	if s, d := next(); s >= 0 {
		seg := x.segs[s]
		return fmt.Errorf("the index holds chunk %s, which the library does not", chunkName(seg.paperID(int(seg.paperOf[d])), int(seg.seqs[d])))
	}
	if x.live() != n {
		return fmt.Errorf("the index counts %d live chunks, the library holds %d", x.live(), n)
	}
	return nil
}

// chunkName names chunk seq of paper id in messages.
func chunkName(id string, seq int) string { return fmt.Sprintf("%d of paper %s", seq, id) }
