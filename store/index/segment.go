package index

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/papers-cli/papers/internal/diskfile"
	"github.com/papers-cli/papers/internal/leview"
	"github.com/papers-cli/papers/internal/sections"
	"github.com/papers-cli/papers/store/fts"
)

// A segment is one immutable part of the search index: the chunks of some
// papers, in (paper id, seq) order, with their vectors and their full-text
// index. It is two files in the index directory, written once, made
// durable and only then named in a commit (see commit.go):
//
//	<name>.seg   mapped by searches: int8 vectors, the chunk table, the
//	             papers and the full-text index
//	<name>.vec   the float32 vectors, read with ReadAt for the exact
//	             re-scoring of a dense search's candidates (a few KB per
//	             query) and never mapped, so that they cost no memory
//	<name>.bits  the sign codes of the int8 vectors, mapped by searches
//	             (signcodes.go): derived from the .seg alone, and optional
//	             (a segment written before them is scanned with its int8
//	             vectors until writeSignCodes adds them)
//
// .seg layout, little-endian:
//
//	header (64 bytes): magic | crc32c of the header's bytes 12-64 and the
//	tables | dims u32 | docs u32 | papers u32 | id bytes u32 | 0 u32
//	| full-text size u64 | crc32c of the int8 vectors u32 | crc32c of the
//	.vec file u32 | crc32c of the full-text index u32 | zeros
//	| int8 vectors [docs*dims] | zeros to 4 bytes
//	| the tables: scales [docs]f32 | paperOf [docs]u32 | seqs [docs]u32
//	| start [papers+1]u32 | idEnd [papers]u32 | ids (ascending, concatenated)
//	| zeros to 8 bytes | the full-text index (package fts)
//
// Chunk d's vector is scales[d] times its int8 one; it is chunk seqs[d] of
// paper paperOf[d]; paper p's id is ids[idEnd[p-1]:idEnd[p]] and its chunks
// are start[p] to start[p+1]-1. Opening a segment checks the header, the
// lengths and the tables' checksum; the vectors' and postings' checksums
// are checked by Dir.Check (a pass over everything).
const segMagic = "PAPSEG01"

const segHeader = 64

// CRC32C returns the CRC-32C (Castagnoli) table of the files that carry
// checksums: segments, commits and the library's paper vectors. It is made
// on first use; its slicing tables cost every start of the binary a third
// of a millisecond otherwise.
var CRC32C = sync.OnceValue(func() *crc32.Table { return crc32.MakeTable(crc32.Castagnoli) })

// segLayout is where a .seg file's sections start.
type segLayout struct {
	q8, scales, paperOf, seqs, start, idEnd, ids, fts int64
}

func layoutSegment(docs, dims, papers, idBytes int) segLayout {
	var l segLayout
	l.q8 = segHeader
	l.scales = (l.q8 + int64(docs)*int64(dims) + 3) &^ 3
	l.paperOf = l.scales + 4*int64(docs)
	l.seqs = l.paperOf + 4*int64(docs)
	l.start = l.seqs + 4*int64(docs)
	l.idEnd = l.start + 4*int64(papers+1)
	l.ids = l.idEnd + 4*int64(papers)
	l.fts = (l.ids + int64(idBytes) + 7) &^ 7
	return l
}

// segment is a segment opened for searching. It is read-only and safe for
// concurrent use until release.
type segment struct {
	name    string
	dims, n int
	ids     []byte   // the papers' ids, ascending, concatenated
	idEnd   []uint32 // paper p's id ends at idEnd[p]
	start   []uint32 // paper p's chunks are start[p] .. start[p+1]-1
	paperOf []uint32
	seqs    []uint32
	scale   []float32
	q8      []int8
	text    *fts.Index
	sums    segSums
	vecs    vectorSource
	codes   atomic.Pointer[signCodes] // nil until there are sign codes
	raw     []byte                    // the .seg file
	unmap   func() error              // releases raw; nil when on the heap

	views       int          // how many index views hold it (guarded by indexState.mu)
	lastDel     *fts.Deleted // the deletions last read for it ...
	lastDelName string       // ... from this file (guarded by indexState.mu)
}

// segSums are the checksums a .seg header records.
type segSums struct{ q8, vec, text uint32 }

func (s *segment) papers() int { return len(s.idEnd) }

// paperID returns paper p's id as a view of the mapped file: clone it
// before it outlives the segment.
func (s *segment) paperID(p int) string {
	var lo uint32
	if p > 0 {
		lo = s.idEnd[p-1]
	}
	b := s.ids[lo:s.idEnd[p]]
	return unsafe.String(unsafe.SliceData(b), len(b))
}

// findPaper returns the index of the paper with the given id, or -1.
func (s *segment) findPaper(id string) int {
	lo, hi := 0, s.papers()
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if s.paperID(m) < id {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo < s.papers() && s.paperID(lo) == id {
		return lo
	}
	return -1
}

// release unmaps the segment and its sign codes and closes its vector
// file.
func (s *segment) release() {
	if s.unmap != nil {
		s.unmap()
	}
	s.codes.Load().release()
	s.vecs.close()
}

// int8Vector returns chunk d's int8 vector: read from the .seg file (that
// of codes, the segment's sign codes) into buf (dims bytes) rather than
// through the mapping, for the sign-code candidates of a dense search,
// which are scattered over the file: mapped, each would fault in (and
// keep resident) the pages around it.
func (s *segment) int8Vector(codes *signCodes, d int, buf []byte) ([]int8, error) {
	if codes == nil || codes.seg == nil {
		return s.q8[d*s.dims : (d+1)*s.dims : (d+1)*s.dims], nil
	}
	if _, err := codes.seg.ReadAt(buf[:s.dims], segHeader+int64(d)*int64(s.dims)); err != nil {
		return nil, fmt.Errorf("read int8 vector %d: %w", d, err)
	}
	return leview.Of[int8](buf, s.dims), nil
}

// vectorSource reads a segment's float32 vectors: from the .vec file, or
// from memory for a segment built in memory.
type vectorSource struct {
	f   *os.File
	mem []float32
}

// vector returns chunk d's vector (dims floats), reading into buf
// (4*dims bytes) when it comes from the file.
func (v *vectorSource) vector(d, dims int, buf []byte) ([]float32, error) {
	if v.f == nil {
		if (d+1)*dims > len(v.mem) {
			return nil, errBadSegment
		}
		return v.mem[d*dims : (d+1)*dims : (d+1)*dims], nil
	}
	if _, err := v.f.ReadAt(buf[:4*dims], int64(d)*int64(4*dims)); err != nil {
		return nil, fmt.Errorf("read vector %d: %w", d, err)
	}
	return leview.Of[float32](buf, dims), nil
}

func (v *vectorSource) close() {
	if v.f != nil {
		v.f.Close()
	}
}

var errBadSegment = errors.New("search index segment is torn or not ours")

// parseSegment reads a .seg file's bytes (mapped or not; they must outlive
// the segment).
func parseSegment(name string, b []byte) (*segment, error) {
	if len(b) < segHeader || string(b[:8]) != segMagic {
		return nil, errBadSegment
	}
	le := binary.LittleEndian
	dims, n, np, idBytes := int(le.Uint32(b[12:])), int(le.Uint32(b[16:])), int(le.Uint32(b[20:])), int(le.Uint32(b[24:]))
	textSize := le.Uint64(b[32:])
	// Bound the counts by the file before multiplying: each chunk takes at
	// least 12 bytes and a byte per dimension, each paper 8.
	if 12*n > len(b) || dims > len(b) || n*dims > len(b) || 8*np > len(b) || idBytes > len(b) || textSize > uint64(len(b)) {
		return nil, errBadSegment
	}
	lay := layoutSegment(n, dims, np, idBytes)
	if lay.fts+int64(textSize) != int64(len(b)) {
		return nil, errBadSegment
	}
	sum := crc32.Checksum(b[12:segHeader], CRC32C())
	if crc32.Update(sum, CRC32C(), b[lay.scales:lay.fts]) != le.Uint32(b[8:]) {
		return nil, errBadSegment
	}
	s := &segment{
		name: name, dims: dims, n: n,
		q8:      leview.Of[int8](b[lay.q8:], n*dims),
		scale:   leview.Of[float32](b[lay.scales:], n),
		paperOf: leview.Of[uint32](b[lay.paperOf:], n),
		seqs:    leview.Of[uint32](b[lay.seqs:], n),
		start:   leview.Of[uint32](b[lay.start:], np+1),
		idEnd:   leview.Of[uint32](b[lay.idEnd:], np),
		ids:     b[lay.ids : lay.ids+int64(idBytes)],
		sums:    segSums{q8: le.Uint32(b[40:]), vec: le.Uint32(b[44:]), text: le.Uint32(b[48:])},
		raw:     b,
	}
	if s.start[0] != 0 || s.start[np] != uint32(n) || np > 0 && s.idEnd[np-1] != uint32(idBytes) {
		return nil, errBadSegment
	}
	for p := range np {
		if s.start[p+1] <= s.start[p] || p > 0 && s.idEnd[p] <= s.idEnd[p-1] || p == 0 && s.idEnd[0] == 0 {
			return nil, errBadSegment // every paper has a chunk and an id
		}
	}
	for _, p := range s.paperOf {
		if int(p) >= np {
			return nil, errBadSegment
		}
	}
	text, err := fts.Parse(b[lay.fts:])
	if err != nil || text.Docs() != n || fts.Size(b[lay.fts:]) != int(textSize) {
		return nil, errBadSegment
	}
	s.text = text
	return s, nil
}

// openSegment maps dir/name.seg and opens dir/name.vec; files not yet
// verified in the state they are in are verified first (verifyOnce), and
// noted as verified when note is set (an index that may be written).
func openSegment(dir, name string, note bool) (*segment, error) {
	b, unmap, err := diskfile.Map(filepath.Join(dir, name+".seg"))
	if err != nil {
		return nil, err
	}
	s, err := parseSegment(name, b)
	if err != nil {
		unmap()
		return nil, fmt.Errorf("segment %s: %w", name, err)
	}
	s.unmap = unmap
	f, err := os.Open(filepath.Join(dir, name+".vec"))
	if err == nil {
		var fi os.FileInfo
		if fi, err = f.Stat(); err == nil && fi.Size() != int64(s.n)*int64(4*s.dims) {
			err = fmt.Errorf("segment %s: %w", name, errBadSegment)
		}
		if err != nil {
			f.Close()
		}
	}
	if err != nil {
		unmap()
		return nil, err
	}
	s.vecs.f = f
	if c := openSignCodes(dir, name, s.n, s.dims); c != nil {
		s.codes.Store(c)
	}
	if err := verifyOnce(dir, s, note); err != nil { // checked.go
		s.release()
		return nil, err
	}
	return s, nil
}

// segTables is what a segment writer collects for the tables, a few bytes
// per chunk and per paper.
type segTables struct {
	scale   []float32
	paperOf []uint32
	seqs    []uint32
	start   []uint32
	idEnd   []uint32
	ids     []byte
}

func (t *segTables) addChunk(id string, seq int, scale float32) {
	if np := len(t.idEnd); np == 0 || t.lastID() != id {
		t.start = append(t.start, uint32(len(t.seqs)))
		t.ids = append(t.ids, id...)
		t.idEnd = append(t.idEnd, uint32(len(t.ids)))
	}
	t.paperOf = append(t.paperOf, uint32(len(t.idEnd)-1))
	t.seqs = append(t.seqs, uint32(seq))
	t.scale = append(t.scale, scale)
}

func (t *segTables) lastID() string {
	np := len(t.idEnd)
	var lo uint32
	if np > 1 {
		lo = t.idEnd[np-2]
	}
	return string(t.ids[lo:t.idEnd[np-1]])
}

// writeTables writes the header and the tables of a segment whose int8
// vectors and full-text index (textSize bytes) are already in w.
func (t *segTables) write(w io.WriterAt, dims int, textSize int64, sums segSums) error {
	n, np := len(t.seqs), len(t.idEnd)
	lay := layoutSegment(n, dims, np, len(t.ids))
	tab := make([]byte, 0, lay.fts-lay.scales)
	tab = append(tab, leview.Bytes(t.scale)...)
	tab = append(tab, leview.Bytes(t.paperOf)...)
	tab = append(tab, leview.Bytes(t.seqs)...)
	tab = append(tab, leview.Bytes(append(t.start[:np:np], uint32(n)))...)
	tab = append(tab, leview.Bytes(t.idEnd)...)
	tab = append(tab, t.ids...)
	tab = append(tab, make([]byte, int(lay.fts-lay.ids)-len(t.ids))...)
	pad := make([]byte, lay.scales-(lay.q8+int64(n)*int64(dims)))
	if _, err := w.WriteAt(pad, lay.scales-int64(len(pad))); err != nil {
		return err
	}
	if _, err := w.WriteAt(tab, lay.scales); err != nil {
		return err
	}
	h := make([]byte, segHeader)
	copy(h, segMagic)
	le := binary.LittleEndian
	le.PutUint32(h[12:], uint32(dims))
	le.PutUint32(h[16:], uint32(n))
	le.PutUint32(h[20:], uint32(np))
	le.PutUint32(h[24:], uint32(len(t.ids)))
	le.PutUint64(h[32:], uint64(textSize))
	le.PutUint32(h[40:], sums.q8)
	le.PutUint32(h[44:], sums.vec)
	le.PutUint32(h[48:], sums.text)
	sum := crc32.Checksum(h[12:], CRC32C())
	le.PutUint32(h[8:], crc32.Update(sum, CRC32C(), tab))
	_, err := w.WriteAt(h, 0)
	return err
}

// segmentWriter writes a segment from chunks given in (paper id, seq)
// order, to a .seg and a .vec destination. The vectors go out as they
// come; the text is tokenized on a second goroutine into an in-memory
// full-text index, which bounds how many chunks one segment should take
// (segmentChunks).
type segmentWriter struct {
	dims     int
	seg      io.WriterAt
	q8, vec  *sections.Writer
	signs    *signWriter
	sums     segSums
	qbuf     []int8
	tab      segTables
	title    string // the current paper's
	batch    []textDoc
	batches  chan []textDoc
	built    chan error
	text     *fts.Builder
	finished bool
}

type textDoc struct{ head, body string }

func newSegmentWriter(dims int, seg, vec, signs io.WriterAt) *segmentWriter {
	w := &segmentWriter{
		dims: dims, seg: seg,
		q8:      sections.New(seg, segHeader, 1<<20),
		vec:     sections.New(vec, 0, 1<<20),
		signs:   newSignWriter(signs, dims),
		batches: make(chan []textDoc, 4),
		built:   make(chan error, 1),
		text:    fts.NewBuilder(),
	}
	go func() {
		for b := range w.batches {
			for _, d := range b {
				w.text.Add(d.head, d.body)
			}
		}
		w.built <- nil
	}()
	return w
}

func (w *segmentWriter) chunks() int { return len(w.tab.seqs) }

// add appends chunk seq of paper id (title) with its vector (little-endian
// float32 bytes) and text. Chunks must come in (id, seq) order.
func (w *segmentWriter) add(id, title string, seq int, blob []byte, body string) error {
	if len(blob) != 4*w.dims {
		return fmt.Errorf("chunk %s has a vector of %d bytes, want %d", chunkName(id, seq), len(blob), 4*w.dims)
	}
	if n := len(w.tab.idEnd); n > 0 {
		last := w.tab.lastID()
		if id < last || id == last && seq <= int(w.tab.seqs[len(w.tab.seqs)-1]) {
			return fmt.Errorf("chunk %s out of order", chunkName(id, seq))
		}
	}
	var scale float32
	w.qbuf, scale = quantize(w.qbuf[:0], leview.Of[float32](blob, w.dims))
	q := leview.Bytes(w.qbuf)
	w.q8.Write(q)
	w.sums.q8 = crc32.Update(w.sums.q8, CRC32C(), q)
	w.signs.add(w.qbuf, scale)
	w.vec.Write(blob)
	w.sums.vec = crc32.Update(w.sums.vec, CRC32C(), blob)
	w.tab.addChunk(id, seq, scale)
	if w.batch = append(w.batch, textDoc{title, body}); len(w.batch) == 256 {
		w.batches <- w.batch
		w.batch = make([]textDoc, 0, 256)
	}
	return nil
}

// finish writes the rest of the segment. The writer cannot be used after.
func (w *segmentWriter) finish() error {
	w.abort()
	<-w.built
	if err := w.q8.Flush(); err != nil {
		return err
	}
	if err := w.vec.Flush(); err != nil {
		return err
	}
	if err := w.signs.finish(); err != nil {
		return err
	}
	lay := layoutSegment(w.chunks(), w.dims, len(w.tab.idEnd), len(w.tab.ids))
	enc := w.text.AppendBinary(nil)
	w.text = nil
	w.sums.text = crc32.Checksum(enc, CRC32C())
	if _, err := w.seg.WriteAt(enc, lay.fts); err != nil {
		return err
	}
	return w.tab.write(w.seg, w.dims, int64(len(enc)), w.sums)
}

// abort stops the tokenizer; finish calls it, and a writer given up must.
func (w *segmentWriter) abort() {
	if !w.finished {
		w.finished = true
		if len(w.batch) > 0 {
			w.batches <- w.batch
		}
		close(w.batches)
	}
}

// segmentName is a new segment's name: the commit generation it is made
// for and a random suffix, so that files left by a killed writer never
// clash with a new one's.
func segmentName(gen uint64) string {
	return fmt.Sprintf("s%06d-%s", gen, randomHex(4))
}

// isSegmentFile reports whether name is one of a segment's files or
// deletion files (see commit.go).
func isSegmentFile(name string) bool {
	return strings.HasSuffix(name, ".seg") || strings.HasSuffix(name, ".vec") || strings.HasSuffix(name, ".bits") || strings.HasSuffix(name, ".del")
}
