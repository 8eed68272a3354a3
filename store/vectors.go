package store

import (
	"container/heap"
	"context"
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"sync"
	"time"
	"unsafe"
)

// SidecarName is the vector cache file in the library directory. It may be
// deleted at any time; the next search rebuilds it from the database.
const SidecarName = "vectors.f32"

// Hit is one dense or lexical search result.
type Hit struct {
	ChunkID string  `json:"chunk"` // ChunkID(PaperID, Seq)
	PaperID string  `json:"id"`
	Seq     int     `json:"seq"`
	Score   float32 `json:"score"` // cosine similarity (dense) or -bm25 (text); higher is better
}

// vecIndex is every vector of the library in one contiguous slice, in the
// order of chunk ordinal i: vecs[i*dims:(i+1)*dims] belongs to chunk
// (papers[paperOf[i]], seqs[i]). papers is sorted, so comparing paper
// indexes compares paper ids.
type vecIndex struct {
	libraryID string
	gen       int64
	dims      int
	papers    []string
	paperOf   []uint32
	seqs      []uint32
	vecs      []float32
	unmap     func() error // releases the mapped sidecar; nil when on the heap
}

func (x *vecIndex) len() int { return len(x.seqs) }

// SearchVectors returns the k chunks whose vectors are most similar (dot
// product; cosine, as stored vectors are normalised and q is normalised
// here) to q, among the chunks of the papers f selects (f.Limit is
// ignored), best first, ties by (paper id, seq) ascending. k is clamped to
// the number of chunks; k <= 0 returns no hits.
//
// The first call loads every vector into memory (from the sidecar file, or
// from the database when the sidecar is missing or stale, rewriting it);
// later calls reload only when the library changed since. Filters pre-select
// the allowed papers with one SQL query, then the scan skips the others, so a
// filter never returns fewer than k hits while k matching chunks exist.
func (l *Library) SearchVectors(ctx context.Context, q []float32, k int, f Filter) ([]Hit, error) {
	idx, err := l.vectorIndex(ctx)
	if err != nil {
		return nil, fmt.Errorf("search vectors: %w", err)
	}
	if k <= 0 || idx.len() == 0 {
		return nil, nil
	}
	if len(q) != idx.dims {
		return nil, fmt.Errorf("search vectors: query has %d dimensions, the library's vectors %d", len(q), idx.dims)
	}
	var allowed []bool
	if !f.empty() {
		if allowed, err = l.allowedPapers(ctx, idx, f); err != nil {
			return nil, fmt.Errorf("search vectors: %w", err)
		}
		if allowed == nil {
			return nil, nil
		}
	}
	return idx.search(ctx, normalized(q), k, allowed)
}

// allowedPapers returns a mask over idx.papers of the papers f selects, or
// nil when it selects none.
func (l *Library) allowedPapers(ctx context.Context, idx *vecIndex, f Filter) ([]bool, error) {
	cond, args := f.where("")
	rows, err := l.db.QueryContext(ctx, "SELECT id FROM papers WHERE "+cond, args...)
	if err != nil {
		return nil, wrapBusy(err)
	}
	defer rows.Close()
	var mask []bool
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		if i, ok := slices.BinarySearch(idx.papers, id); ok {
			if mask == nil {
				mask = make([]bool, len(idx.papers))
			}
			mask[i] = true
		}
	}
	return mask, rows.Err()
}

type scored struct {
	score float32
	i     int32 // chunk ordinal
}

// topK is a min-heap of the best hits so far: its root is the worst kept.
type topK struct {
	x *vecIndex
	h []scored
}

// better orders hits: higher score first, then paper id, then seq.
func (x *vecIndex) better(a, b scored) bool {
	if a.score != b.score {
		return a.score > b.score
	}
	pa, pb := x.paperOf[a.i], x.paperOf[b.i]
	if pa != pb {
		return pa < pb
	}
	return x.seqs[a.i] < x.seqs[b.i]
}

func (t *topK) Len() int           { return len(t.h) }
func (t *topK) Less(i, j int) bool { return t.x.better(t.h[j], t.h[i]) }
func (t *topK) Swap(i, j int)      { t.h[i], t.h[j] = t.h[j], t.h[i] }
func (t *topK) Push(v any)         { t.h = append(t.h, v.(scored)) }
func (t *topK) Pop() any           { v := t.h[len(t.h)-1]; t.h = t.h[:len(t.h)-1]; return v }

func (t *topK) offer(s scored, k int) {
	if len(t.h) < k {
		heap.Push(t, s)
		return
	}
	if t.x.better(s, t.h[0]) {
		t.h[0] = s
		heap.Fix(t, 0)
	}
}

// search scans all (allowed) vectors with one goroutine per CPU, each
// keeping its own top k, then merges them.
func (x *vecIndex) search(ctx context.Context, q []float32, k int, allowed []bool) ([]Hit, error) {
	n := x.len()
	k = min(k, n)
	workers := min(runtime.GOMAXPROCS(0), max(1, n/2048))
	parts := make([]topK, workers)
	var wg sync.WaitGroup
	for w := range workers {
		lo, hi := n*w/workers, n*(w+1)/workers
		t := &parts[w]
		t.x = x
		t.h = make([]scored, 0, k)
		wg.Add(1)
		go func() {
			defer wg.Done()
			d := x.dims
			for i := lo; i < hi; i++ {
				if i&4095 == 0 && ctx.Err() != nil {
					return
				}
				if allowed != nil && !allowed[x.paperOf[i]] {
					continue
				}
				s := dot(q, x.vecs[i*d:(i+1)*d:(i+1)*d])
				t.offer(scored{s, int32(i)}, k)
			}
		}()
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var all []scored
	for _, p := range parts {
		all = append(all, p.h...)
	}
	slices.SortFunc(all, func(a, b scored) int {
		if x.better(a, b) {
			return -1
		}
		if x.better(b, a) {
			return 1
		}
		return 0
	})
	all = all[:min(k, len(all))]
	hits := make([]Hit, len(all))
	for i, s := range all {
		pid, seq := x.papers[x.paperOf[s.i]], int(x.seqs[s.i])
		hits[i] = Hit{ChunkID: ChunkID(pid, seq), PaperID: pid, Seq: seq, Score: s.score}
	}
	return hits, nil
}

// dot is the dot product of two equally long vectors; on amd64 with AVX2
// and FMA it is replaced by an assembly version (dot_amd64.go).
var dot = dotGo

// dotGo is the portable dot product, unrolled by 8 with independent
// accumulators so the CPU can overlap the multiply-adds.
func dotGo(a, b []float32) float32 {
	b = b[:len(a)]
	var s0, s1, s2, s3, s4, s5, s6, s7 float32
	i := 0
	for ; i+8 <= len(a); i += 8 {
		aa, bb := a[i:i+8:i+8], b[i:i+8:i+8]
		s0 += aa[0] * bb[0]
		s1 += aa[1] * bb[1]
		s2 += aa[2] * bb[2]
		s3 += aa[3] * bb[3]
		s4 += aa[4] * bb[4]
		s5 += aa[5] * bb[5]
		s6 += aa[6] * bb[6]
		s7 += aa[7] * bb[7]
	}
	for ; i < len(a); i++ {
		s0 += a[i] * b[i]
	}
	return ((s0 + s1) + (s2 + s3)) + ((s4 + s5) + (s6 + s7))
}

// RefreshVectors brings the vector index and its sidecar file up to date
// with the library now, so that the next search (in this or another
// process) does not pay for it. Ingest calls it after its last Put: at 100k
// chunks rebuilding from the database takes about a second of CPU, mapping a
// current sidecar a few milliseconds.
func (l *Library) RefreshVectors(ctx context.Context) error {
	if _, err := l.vectorIndex(ctx); err != nil {
		return fmt.Errorf("refresh vectors: %w", err)
	}
	return nil
}

// vectorIndex returns the in-memory index, loading it if there is none or
// the library changed since it was loaded (another Put, here or in another
// process). The check costs one indexed read of the manifest.
func (l *Library) vectorIndex(ctx context.Context) (*vecIndex, error) {
	m, err := readManifest(ctx, l.db)
	if err != nil {
		return nil, err
	}
	libID := m[keyLibraryID]
	gen, _ := strconv.ParseInt(m[keyVectorsGen], 10, 64)
	dims, _ := strconv.Atoi(m[keyDimensions])

	l.mu.Lock()
	defer l.mu.Unlock()
	if x := l.idx; x != nil && x.gen == gen && x.libraryID == libID && x.dims == dims {
		return x, nil
	}
	if l.idx != nil {
		// Searches in flight may still scan the old index: unmap it at Close.
		l.retired = append(l.retired, l.idx)
		l.idx = nil
	}
	path := filepath.Join(l.dir, SidecarName)
	if x, unmap, err := readSidecar(path); err == nil {
		x.unmap = unmap
		if x.gen == gen && x.libraryID == libID && x.dims == dims {
			l.idx = x
			return x, nil
		}
		unmap()
	}
	x, err := l.loadVectors(ctx)
	if err != nil {
		return nil, err
	}
	// Best effort: a library on a read-only medium still searches, only
	// slower at each start.
	_ = writeSidecar(path, x)
	l.idx = x
	return x, nil
}

// loadVectors reads every vector from the database in one snapshot.
func (l *Library) loadVectors(ctx context.Context) (*vecIndex, error) {
	x := &vecIndex{}
	err := l.read(ctx, func(tx *sql.Tx) error {
		m, err := readManifest(ctx, tx)
		if err != nil {
			return err
		}
		x.libraryID = m[keyLibraryID]
		x.gen, _ = strconv.ParseInt(m[keyVectorsGen], 10, 64)
		x.dims, _ = strconv.Atoi(m[keyDimensions])
		var n int
		if err := tx.QueryRowContext(ctx, "SELECT coalesce(sum(chunks), 0) FROM papers").Scan(&n); err != nil {
			return err
		}
		rows, err := tx.QueryContext(ctx, "SELECT id FROM papers WHERE chunks > 0 ORDER BY id")
		if err != nil {
			return err
		}
		pos := map[string]uint32{}
		for rows.Next() {
			var id string
			if err := rows.Scan(&id); err != nil {
				rows.Close()
				return err
			}
			pos[id] = uint32(len(x.papers))
			x.papers = append(x.papers, id)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		x.paperOf = make([]uint32, 0, n)
		x.seqs = make([]uint32, 0, n)
		x.vecs = make([]float32, 0, n*x.dims)
		// rowid order: sequential reads of the table.
		rows, err = tx.QueryContext(ctx, "SELECT paper_id, seq, vector FROM chunks")
		if err != nil {
			return err
		}
		defer rows.Close()
		var pid string
		var seq int
		var blob sql.RawBytes
		for rows.Next() {
			if err := rows.Scan(&pid, &seq, &blob); err != nil {
				return err
			}
			if len(blob) != 4*x.dims {
				return fmt.Errorf("chunk %s has a vector of %d bytes, want %d", ChunkID(pid, seq), len(blob), 4*x.dims)
			}
			p, ok := pos[pid]
			if !ok {
				return fmt.Errorf("chunk %s of a paper with no chunks counted", ChunkID(pid, seq))
			}
			x.paperOf = append(x.paperOf, p)
			x.seqs = append(x.seqs, uint32(seq))
			x.vecs = append(x.vecs, f32s(blob, x.dims)...)
		}
		return rows.Err()
	})
	if err != nil {
		return nil, fmt.Errorf("load vectors: %w", err)
	}
	return x, nil
}

// Sidecar layout, little-endian:
//
//	magic "PAPVEC01" | crc32c of the bytes from the end of the header to the
//	start of the vectors (u32) |
//	dims u32 | gen i64 | papers u32 | chunks u32 | library id (32 bytes hex)
//	| papers x (len u32, bytes) | zero padding to 4 bytes
//	| paperOf [chunks]u32 | seqs [chunks]u32 | vectors [chunks*dims]f32
//
// It is written to a temporary file, fsynced and renamed into place; the
// length, the header (library id, generation, dimensions) and a CRC of the
// ids are checked when it is mapped, and any mismatch rebuilds it from the
// database.
const sidecarMagic = "PAPVEC01"

const sidecarHeader = 8 + 4 + 4 + 8 + 4 + 4 + 32

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

var littleEndian = func() bool {
	x := uint16(1)
	return *(*byte)(unsafe.Pointer(&x)) == 1
}()

func writeSidecar(path string, x *vecIndex) error {
	if len(x.libraryID) != 32 {
		return errors.New("library id is not 32 hex digits")
	}
	size := sidecarHeader
	for _, p := range x.papers {
		size += 4 + len(p)
	}
	size = (size + 3) &^ 3
	size += 8*x.len() + 4*len(x.vecs)
	b := make([]byte, size)
	copy(b, sidecarMagic)
	binary.LittleEndian.PutUint32(b[12:], uint32(x.dims))
	binary.LittleEndian.PutUint64(b[16:], uint64(x.gen))
	binary.LittleEndian.PutUint32(b[24:], uint32(len(x.papers)))
	binary.LittleEndian.PutUint32(b[28:], uint32(x.len()))
	copy(b[32:], x.libraryID)
	o := sidecarHeader
	for _, p := range x.papers {
		binary.LittleEndian.PutUint32(b[o:], uint32(len(p)))
		o += 4 + copy(b[o+4:], p)
	}
	o = (o + 3) &^ 3
	for _, v := range x.paperOf {
		binary.LittleEndian.PutUint32(b[o:], v)
		o += 4
	}
	for _, v := range x.seqs {
		binary.LittleEndian.PutUint32(b[o:], v)
		o += 4
	}
	for _, f := range x.vecs {
		binary.LittleEndian.PutUint32(b[o:], math.Float32bits(f))
		o += 4
	}
	binary.LittleEndian.PutUint32(b[8:], crc32.Checksum(b[sidecarHeader:o-4*len(x.vecs)], castagnoli))

	removeStaleTemps(path)
	tmp, err := os.CreateTemp(filepath.Dir(path), SidecarName+".tmp*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // no-op after the rename
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		return err
	}
	// The vectors are not checksummed (that would cost a pass over 150 MB
	// at every start): instead the file is durable before it is renamed
	// into place, so a crash leaves the old sidecar or the complete new one.
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

var errBadSidecar = errors.New("vector sidecar is torn or not ours")

// readSidecar maps the sidecar and checks it; the caller owns the returned
// unmap function (nil on error).
func readSidecar(path string) (x *vecIndex, unmap func() error, err error) {
	b, unmap, err := mapFile(path)
	if err != nil {
		return nil, nil, err
	}
	x, err = parseSidecar(b)
	if err != nil {
		unmap()
		return nil, nil, err
	}
	return x, unmap, nil
}

func parseSidecar(b []byte) (*vecIndex, error) {
	if len(b) < sidecarHeader || string(b[:8]) != sidecarMagic {
		return nil, errBadSidecar
	}
	x := &vecIndex{
		dims:      int(binary.LittleEndian.Uint32(b[12:])),
		gen:       int64(binary.LittleEndian.Uint64(b[16:])),
		libraryID: string(b[32:64]),
	}
	np := int(binary.LittleEndian.Uint32(b[24:]))
	n := int(binary.LittleEndian.Uint32(b[28:]))
	o := sidecarHeader
	x.papers = make([]string, np)
	for i := range x.papers {
		if o+4 > len(b) {
			return nil, errBadSidecar
		}
		l := int(binary.LittleEndian.Uint32(b[o:]))
		o += 4
		if o+l > len(b) {
			return nil, errBadSidecar
		}
		x.papers[i] = string(b[o : o+l])
		o += l
	}
	o = (o + 3) &^ 3
	if len(b)-o != 8*n+4*n*x.dims {
		return nil, errBadSidecar
	}
	if crc32.Checksum(b[sidecarHeader:o+8*n], castagnoli) != binary.LittleEndian.Uint32(b[8:]) {
		return nil, errBadSidecar
	}
	x.paperOf = u32s(b[o:o+4*n], n)
	x.seqs = u32s(b[o+4*n:o+8*n], n)
	x.vecs = f32s(b[o+8*n:], n*x.dims)
	for _, p := range x.paperOf {
		if int(p) >= np {
			return nil, errBadSidecar
		}
	}
	return x, nil
}

// u32s and f32s view little-endian bytes as numbers without copying when the
// machine is little-endian and the bytes are aligned (os.ReadFile's buffer
// is; the offsets are multiples of 4), and decode them otherwise.
func u32s(b []byte, n int) []uint32 {
	if n == 0 {
		return nil
	}
	if littleEndian && uintptr(unsafe.Pointer(&b[0]))%4 == 0 {
		return unsafe.Slice((*uint32)(unsafe.Pointer(&b[0])), n)
	}
	out := make([]uint32, n)
	for i := range out {
		out[i] = binary.LittleEndian.Uint32(b[4*i:])
	}
	return out
}

func f32s(b []byte, n int) []float32 {
	if n == 0 {
		return nil
	}
	if littleEndian && uintptr(unsafe.Pointer(&b[0]))%4 == 0 {
		return unsafe.Slice((*float32)(unsafe.Pointer(&b[0])), n)
	}
	out := make([]float32, n)
	for i := range out {
		out[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return out
}

// removeStaleTemps deletes temporary sidecars left by a process killed while
// writing one. Recent ones may belong to a process writing right now.
func removeStaleTemps(path string) {
	old, _ := filepath.Glob(path + ".tmp*")
	for _, f := range old {
		if fi, err := os.Stat(f); err == nil && time.Since(fi.ModTime()) > time.Minute {
			os.Remove(f)
		}
	}
}
