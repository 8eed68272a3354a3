package store

import (
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"

	"github.com/papers-cli/papers/internal/leview"
	"github.com/papers-cli/papers/store/fts"
)

// SidecarName is the search index cache in the library directory: every
// chunk's vector and the full-text index. It may be deleted at any time;
// the next search rebuilds it from the database.
const SidecarName = "index.bin"

// legacySidecar is the vectors-only cache of earlier versions, deleted when
// the new one is written.
const legacySidecar = "vectors.f32"

// chunkTable numbers the chunks of the library: chunk ordinal i is chunk
// (papers[paperOf[i]], seqs[i]). papers is sorted, so comparing paper
// indexes compares paper ids.
type chunkTable struct {
	papers  []string
	paperOf []uint32
	seqs    []uint32
}

func (x *chunkTable) len() int { return len(x.seqs) }

// searchIndex is everything searches need in memory, for one generation of
// the library: the chunk table, every vector in one contiguous slice
// (chunk i at vecs[i*dims:(i+1)*dims]) and the full-text index (document i
// is chunk i: its paper's title and its text).
type searchIndex struct {
	indexVersion
	chunkTable
	vecs  []float32
	q8    []int8    // vecs quantised: chunk i at q8[i*dims:(i+1)*dims] ...
	scale []float32 // ... times scale[i]
	text  *fts.Index
	fps   []byte       // the papers' fingerprints (fingerprintSize bytes each), to tell what a refresh can copy
	raw   []byte       // the sidecar all this is a view of
	unmap func() error // releases the mapped sidecar; nil when on the heap

	reused int // chunks copied from the previous index when this one was built
}

// indexVersion is what a search index was built from: the library, its
// vectors generation (bumped by every transaction that changes chunks), the
// vectors' dimensions and their epoch (bumped when Reindex replaces them
// all). An index of another version is stale; one of another library,
// dimensions or epoch has nothing a refresh can copy.
type indexVersion struct {
	libraryID string
	gen       int64
	dims      int
	epoch     int64
}

func versionOf(m map[string]string) indexVersion {
	v := indexVersion{libraryID: m[keyLibraryID]}
	v.gen, _ = strconv.ParseInt(m[keyVectorsGen], 10, 64)
	v.dims, _ = strconv.Atoi(m[keyDimensions])
	v.epoch, _ = strconv.ParseInt(m[keyVectorsEpoch], 10, 64)
	return v
}

// Refresh brings the search index and its sidecar file up to date with the
// library now, so that the next search (in this or another process) does
// not pay for it. Ingest calls it after its last Put. The papers that did
// not change are copied from the previous index rather than read and
// tokenized again; at 100k chunks a build from nothing takes a few seconds
// of CPU, mapping a current sidecar a few milliseconds.
func (l *Library) Refresh(ctx context.Context) error {
	if _, err := l.searchIndex(ctx); err != nil {
		return fmt.Errorf("refresh the search index: %w", err)
	}
	return nil
}

// searchIndex returns the in-memory index, loading it if there is none or
// the library changed since it was loaded (another Put, here or in another
// process). The check costs one indexed read of the manifest.
func (l *Library) searchIndex(ctx context.Context) (*searchIndex, error) {
	m, err := readManifest(ctx, l.db)
	if err != nil {
		return nil, err
	}
	v := versionOf(m)

	l.mu.Lock()
	defer l.mu.Unlock()
	if x := l.idx; x != nil && x.indexVersion == v {
		return x, nil
	}
	prev := l.idx // what the new index can copy
	if l.idx != nil {
		// Searches in flight may still use the old index: unmap it at Close.
		l.retired = append(l.retired, l.idx)
		l.idx = nil
	}
	path := filepath.Join(l.dir, SidecarName)
	if x, unmap, err := readSidecar(path); err == nil {
		x.unmap = unmap
		if x.indexVersion == v {
			l.idx = x
			return x, nil
		}
		if prev == nil || prev.gen < x.gen {
			prev = x
			defer unmap() // after the build has copied what it needs
		} else {
			unmap()
		}
	}
	x, err := l.writeIndex(ctx, prev, path)
	if err == nil {
		os.Remove(filepath.Join(l.dir, legacySidecar))
	} else if ctx.Err() == nil {
		// Best effort: a library on a read-only medium or a full disk still
		// searches, only slower at each start.
		x, err = l.loadIndex(ctx, prev)
	}
	if err != nil {
		return nil, err
	}
	l.idx = x
	return x, nil
}

// discardIndex forgets the loaded index and deletes the sidecar, so that
// the next search rebuilds both from the database.
func (l *Library) discardIndex() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.idx != nil {
		l.retired = append(l.retired, l.idx)
		l.idx = nil
	}
	if err := os.Remove(filepath.Join(l.dir, SidecarName)); err != nil && !os.IsNotExist(err) {
		return err
	}
	return nil
}

// loadIndex builds the index in memory, for a library whose directory
// cannot take a sidecar (and for tests); see buildSidecar.
func (l *Library) loadIndex(ctx context.Context, prev *searchIndex) (*searchIndex, error) {
	var m memFile
	reused, err := l.buildSidecar(ctx, prev, &m)
	if err != nil {
		return nil, err
	}
	x, err := parseSidecar(m.b)
	if err != nil {
		return nil, fmt.Errorf("load the search index: %w", err)
	}
	x.reused = reused
	return x, nil
}

// writeIndex builds the index into a new sidecar file (see buildSidecar),
// makes it durable, maps it and renames it into place as path.
//
// The vectors and postings are not checksummed (that would cost a pass
// over hundreds of MB at every start): instead the file is durable before
// it is renamed, so a crash leaves the old sidecar or the complete new one.
func (l *Library) writeIndex(ctx context.Context, prev *searchIndex, path string) (*searchIndex, error) {
	removeStaleTemps(path)
	tmp, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".tmp*")
	if err != nil {
		return nil, err
	}
	defer os.Remove(tmp.Name())  // no-op after the rename
	defer holdTemp(tmp.Name())() // until renamed: removeStaleTemps leaves it alone
	reused, err := l.buildSidecar(ctx, prev, tmp)
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, err
	}
	// Mapped before the rename: another process may put a sidecar of its
	// own at path at any moment.
	x, unmap, err := readSidecar(tmp.Name())
	if err != nil {
		return nil, fmt.Errorf("load the search index: %w", err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		unmap()
		return nil, err
	}
	x.unmap, x.reused = unmap, reused
	return x, nil
}

// memFile is a file in memory, for buildSidecar.
type memFile struct{ b []byte }

func (m *memFile) WriteAt(p []byte, off int64) (int, error) {
	if end := int(off) + len(p); end > len(m.b) {
		m.b = slices.Grow(m.b, end-len(m.b))[:end]
	}
	return copy(m.b[off:], p), nil
}

// buildSidecar builds the search index from the database, in one snapshot,
// and writes it to w laid out as a sidecar (see sidecarMagic), returning
// how many chunks it copied from prev. The chunks of papers that prev
// holds as they are now (the same fingerprint, library, dimensions and
// vectors epoch) are copied from it, tokens and vectors alike; the others
// are read from the database and their text tokenized on a second
// goroutine. Either way the result is the one a build from nothing gives,
// byte for byte. prev may be nil; it must stay mapped until buildSidecar
// returns. The vectors go to w as they come: the only large allocation is
// the full-text index's.
func (l *Library) buildSidecar(ctx context.Context, prev *searchIndex, w io.WriterAt) (reused int, err error) {
	// doc is one chunk for the tokenizer: chunk from of prev, or a text.
	type doc struct {
		paper uint32
		from  int32
		text  string
	}
	batches := make(chan []doc, 4)
	text := fts.NewBuilder()
	var titles []string
	built := make(chan error, 1)
	go func() {
		var err error
		for b := range batches {
			for _, d := range b {
				if d.from >= 0 {
					err = cmp.Or(err, text.AddFrom(prev.text, int(d.from)))
				} else {
					text.Add(titles[d.paper], d.text)
				}
			}
		}
		built <- err
	}()
	var x searchIndex // the chunk table, fingerprints and version
	var lay sidecarLayout
	var vecs, q8 sectionWriter
	err = l.read(ctx, func(tx *sql.Tx) error {
		defer close(batches)
		m, err := readManifest(ctx, tx)
		if err != nil {
			return err
		}
		x.indexVersion = versionOf(m)
		if len(x.libraryID) != 32 {
			return errors.New("library id is not 32 hex digits")
		}
		if prev != nil && (prev.libraryID != x.libraryID || prev.dims != x.dims || prev.epoch != x.epoch) {
			prev = nil
		}
		var n int
		if err := tx.QueryRowContext(ctx, "SELECT coalesce(sum(chunks), 0) FROM papers").Scan(&n); err != nil {
			return err
		}
		rows, err := tx.QueryContext(ctx, "SELECT id, title, fingerprint FROM papers WHERE chunks > 0 ORDER BY id")
		if err != nil {
			return err
		}
		pos := map[string]uint32{}
		for rows.Next() {
			var id, title, fp string
			if err := rows.Scan(&id, &title, &fp); err != nil {
				rows.Close()
				return err
			}
			pos[id] = uint32(len(x.papers))
			x.papers = append(x.papers, id)
			titles = append(titles, title)
			x.fps = appendFingerprint(x.fps, fp)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		lay = layoutSidecar(x.papers, n, x.dims)
		x.paperOf = make([]uint32, 0, n)
		x.seqs = make([]uint32, 0, n)
		x.scale = make([]float32, 0, n)
		vecs = sectionWriter{w: w, off: int64(lay.vecs)}
		q8 = sectionWriter{w: w, off: int64(lay.q8)}
		batch := make([]doc, 0, 256)
		emit := func(d doc) {
			if batch = append(batch, d); len(batch) == cap(batch) {
				batches <- batch
				batch = make([]doc, 0, 256)
			}
		}
		var qbuf []int8
		// add appends chunk (pid, seq) with vector blob and text body.
		add := func(pid string, seq int, blob []byte, body string) error {
			if len(blob) != 4*x.dims {
				return fmt.Errorf("chunk %s has a vector of %d bytes, want %d", ChunkID(pid, seq), len(blob), 4*x.dims)
			}
			p, ok := pos[pid]
			if !ok || len(x.paperOf) == n {
				return fmt.Errorf("chunk %s of a paper with no chunks counted", ChunkID(pid, seq))
			}
			x.paperOf = append(x.paperOf, p)
			x.seqs = append(x.seqs, uint32(seq))
			var scale float32
			qbuf, scale = quantize(qbuf[:0], leview.Of[float32](blob, x.dims))
			x.scale = append(x.scale, scale)
			vecs.write(blob)
			q8.write(leview.Bytes(qbuf))
			emit(doc{paper: p, from: -1, text: body})
			return nil
		}
		copied := func(p uint32, seq uint32, c int) error {
			if len(x.paperOf) == n {
				return fmt.Errorf("chunk %s of a paper with no chunks counted", ChunkID(x.papers[p], int(seq)))
			}
			d := x.dims
			x.paperOf = append(x.paperOf, p)
			x.seqs = append(x.seqs, seq)
			x.scale = append(x.scale, prev.scale[c])
			vecs.write(leview.Bytes(prev.vecs[c*d : (c+1)*d]))
			q8.write(leview.Bytes(prev.q8[c*d : (c+1)*d]))
			reused++
			emit(doc{paper: p, from: int32(c)})
			return nil
		}
		if reuse := x.reusable(prev); len(reuse) > n/2 {
			// The new index will be about the size of the old one. (The
			// tokenizer touches text only once it has a batch.)
			text.Grow(n, prev.text.Postings()*n/max(prev.len(), 1))
			err = copyOrRead(ctx, tx, reuse, pos, add, copied)
		} else {
			err = scanChunks(ctx, tx, add)
		}
		if err != nil {
			return err
		}
		if len(x.paperOf) != n {
			return fmt.Errorf("the papers table counts %d chunks, the chunks table holds %d", n, len(x.paperOf))
		}
		batches <- batch
		return nil
	})
	if berr := <-built; err == nil {
		err = berr
	}
	if err == nil {
		err = cmp.Or(vecs.flush(), q8.flush())
	}
	if err == nil {
		err = x.writeSidecar(w, lay, text.AppendBinary(nil))
	}
	if err != nil {
		return 0, fmt.Errorf("load the search index: %w", err)
	}
	return reused, nil
}

// sectionWriter writes a run of bytes to w from off on, in large writes.
type sectionWriter struct {
	w   io.WriterAt
	off int64
	buf []byte
	err error
}

func (s *sectionWriter) write(p []byte) {
	if len(s.buf)+len(p) > cap(s.buf) {
		s.flush()
		if s.buf == nil {
			s.buf = make([]byte, 0, 1<<20)
		}
	}
	s.buf = append(s.buf, p...)
}

func (s *sectionWriter) flush() error {
	if len(s.buf) > 0 && s.err == nil {
		_, s.err = s.w.WriteAt(s.buf, s.off)
		s.off += int64(len(s.buf))
	}
	s.buf = s.buf[:0]
	return s.err
}

// scanChunks calls add for every chunk, in rowid order: sequential reads of
// the table, and a paper's chunks together (they are inserted in one
// transaction).
func scanChunks(ctx context.Context, tx *sql.Tx, add func(pid string, seq int, blob []byte, body string) error) error {
	rows, err := tx.QueryContext(ctx, "SELECT paper_id, seq, vector, text FROM chunks ORDER BY id")
	if err != nil {
		return err
	}
	defer rows.Close()
	var pid, body string
	var seq int
	var blob sql.RawBytes
	for rows.Next() {
		if err := rows.Scan(&pid, &seq, &blob, &body); err != nil {
			return err
		}
		if err := add(pid, seq, blob, body); err != nil {
			return err
		}
	}
	return rows.Err()
}

// reusable maps each chunk of prev whose paper x holds unchanged (the same
// fingerprint) to its ordinal in prev.
func (x *searchIndex) reusable(prev *searchIndex) map[chunkKey]int32 {
	if prev == nil {
		return nil
	}
	same := make([]int32, len(prev.papers)) // prev paper -> x paper + 1, 0 if changed
	for i, id := range prev.papers {
		if j, ok := slices.BinarySearch(x.papers, id); ok && x.fingerprint(j) != nil && bytes.Equal(x.fingerprint(j), prev.fingerprint(i)) {
			same[i] = int32(j) + 1
		}
	}
	reuse := map[chunkKey]int32{}
	for c, p := range prev.paperOf {
		if same[p] > 0 {
			reuse[chunkKey{uint32(same[p] - 1), prev.seqs[c]}] = int32(c)
		}
	}
	return reuse
}

type chunkKey struct{ paper, seq uint32 }

// copyOrRead goes through the chunks in rowid order, as scanChunks does,
// handing those in reuse (their ordinal in the previous index) to copied
// and reading the others for add.
func copyOrRead(ctx context.Context, tx *sql.Tx, reuse map[chunkKey]int32, pos map[string]uint32,
	add func(pid string, seq int, blob []byte, body string) error, copied func(paper, seq uint32, from int) error) error {
	type row struct {
		id       int64
		pid      string
		key      chunkKey
		prevFrom int32
	}
	// The (paper_id, seq) index covers this: a few MB, not the table.
	rows, err := tx.QueryContext(ctx, "SELECT id, paper_id, seq FROM chunks")
	if err != nil {
		return err
	}
	var order []row
	for rows.Next() {
		var r row
		if err := rows.Scan(&r.id, &r.pid, &r.key.seq); err != nil {
			rows.Close()
			return err
		}
		r.prevFrom = -1
		if p, ok := pos[r.pid]; ok {
			r.key.paper = p
			if c, ok := reuse[r.key]; ok {
				r.prevFrom = c
			}
		}
		order = append(order, r)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	slices.SortFunc(order, func(a, b row) int { return cmp.Compare(a.id, b.id) })
	read, err := tx.PrepareContext(ctx, "SELECT vector, text FROM chunks WHERE id = ?")
	if err != nil {
		return err
	}
	defer read.Close()
	for _, r := range order {
		if r.prevFrom >= 0 {
			if err := copied(r.key.paper, r.key.seq, int(r.prevFrom)); err != nil {
				return err
			}
			continue
		}
		var blob []byte
		var body string
		if err := read.QueryRowContext(ctx, r.id).Scan(&blob, &body); err != nil {
			return err
		}
		if err := add(r.pid, int(r.key.seq), blob, body); err != nil {
			return err
		}
	}
	return nil
}

// fingerprintSize is the length of a paper's fingerprint in the index (a
// SHA-256; see fingerprint).
const fingerprintSize = sha256.Size

// appendFingerprint appends the fingerprint fp (hex) to fps, or zeros if fp
// is not one (a paper then never counts as unchanged).
func appendFingerprint(fps []byte, fp string) []byte {
	b, err := hex.DecodeString(fp)
	if err != nil || len(b) != fingerprintSize {
		b = make([]byte, fingerprintSize)
	}
	return append(fps, b...)
}

// fingerprint returns paper i's fingerprint, or nil if it has none.
func (x *searchIndex) fingerprint(i int) []byte {
	fp := x.fps[i*fingerprintSize : (i+1)*fingerprintSize]
	if bytes.Count(fp, []byte{0}) == fingerprintSize {
		return nil
	}
	return fp
}

// Sidecar layout, little-endian:
//
//	magic "PAPIDX03" | crc32c of the bytes from the end of the header to the
//	start of the vectors (u32) |
//	dims u32 | gen i64 | papers u32 | chunks u32 | library id (32 bytes hex)
//	| epoch i64
//	| papers x (len u32, bytes) | zero padding to 4 bytes
//	| fingerprints [papers][32]byte
//	| paperOf [chunks]u32 | seqs [chunks]u32 | vectors [chunks*dims]f32
//	| scales [chunks]f32 | int8 vectors [chunks*dims]i8 | zero padding to 4
//	| the full-text index (fts.Builder.AppendBinary), to the end
//
// It is written to a temporary file, fsynced and renamed into place; the
// length, the header (library id, generation, dimensions), a CRC of the ids
// and the full-text index's offsets are checked when it is mapped, and any
// mismatch rebuilds it from the database.
const sidecarMagic = "PAPIDX03" // 03: epoch and fingerprints

const sidecarHeader = 8 + 4 + 4 + 8 + 4 + 4 + 32 + 8

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// sidecarLayout is where a sidecar's sections start.
type sidecarLayout struct {
	fps, table, vecs, scales, q8, fts int
}

func layoutSidecar(papers []string, chunks, dims int) sidecarLayout {
	var lay sidecarLayout
	o := sidecarHeader
	for _, p := range papers {
		o += 4 + len(p)
	}
	lay.fps = (o + 3) &^ 3
	lay.table = lay.fps + fingerprintSize*len(papers)
	lay.vecs = lay.table + 8*chunks
	lay.scales = lay.vecs + 4*chunks*dims
	lay.q8 = lay.scales + 4*chunks
	lay.fts = (lay.q8 + chunks*dims + 3) &^ 3
	return lay
}

// writeSidecar writes to w what buildSidecar has not written yet: the
// header, the papers and chunk table, the scales and the full-text index
// enc (the vectors are already there).
func (x *searchIndex) writeSidecar(w io.WriterAt, lay sidecarLayout, enc []byte) error {
	b := make([]byte, lay.vecs)
	copy(b, sidecarMagic)
	le := binary.LittleEndian
	le.PutUint32(b[12:], uint32(x.dims))
	le.PutUint64(b[16:], uint64(x.gen))
	le.PutUint32(b[24:], uint32(len(x.papers)))
	le.PutUint32(b[28:], uint32(x.len()))
	copy(b[32:], x.libraryID)
	le.PutUint64(b[64:], uint64(x.epoch))
	o := sidecarHeader
	for _, p := range x.papers {
		le.PutUint32(b[o:], uint32(len(p)))
		o += 4 + copy(b[o+4:], p)
	}
	copy(b[lay.fps:], x.fps)
	o = lay.table
	for _, v := range x.paperOf {
		le.PutUint32(b[o:], v)
		o += 4
	}
	for _, v := range x.seqs {
		le.PutUint32(b[o:], v)
		o += 4
	}
	le.PutUint32(b[8:], crc32.Checksum(b[sidecarHeader:], castagnoli))
	if _, err := w.WriteAt(leview.Bytes(x.scale), int64(lay.scales)); err != nil {
		return err
	}
	// The zero padding between the int8 vectors and enc is written too, so
	// that a file's length is the sidecar's.
	pad := make([]byte, lay.fts-(lay.q8+x.len()*x.dims))
	if _, err := w.WriteAt(pad, int64(lay.fts-len(pad))); err != nil {
		return err
	}
	if _, err := w.WriteAt(enc, int64(lay.fts)); err != nil {
		return err
	}
	_, err := w.WriteAt(b, 0)
	return err
}

var errBadSidecar = errors.New("search index sidecar is torn or not ours")

// readSidecar maps the sidecar and checks it; the caller owns the returned
// unmap function (nil on error).
func readSidecar(path string) (x *searchIndex, unmap func() error, err error) {
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

func parseSidecar(b []byte) (*searchIndex, error) {
	if len(b) < sidecarHeader || string(b[:8]) != sidecarMagic {
		return nil, errBadSidecar
	}
	x := &searchIndex{indexVersion: indexVersion{
		dims:      int(binary.LittleEndian.Uint32(b[12:])),
		gen:       int64(binary.LittleEndian.Uint64(b[16:])),
		libraryID: string(b[32:64]),
		epoch:     int64(binary.LittleEndian.Uint64(b[64:])),
	}}
	np := int(binary.LittleEndian.Uint32(b[24:]))
	n := int(binary.LittleEndian.Uint32(b[28:]))
	// Bound the counts by the file before allocating or multiplying: each
	// paper takes at least 4 bytes, each chunk at least 8 and each dimension
	// of each chunk 5.
	if (4+fingerprintSize)*np > len(b) || 8*n > len(b) || x.dims > len(b) || n*x.dims > len(b) {
		return nil, errBadSidecar
	}
	o := sidecarHeader
	x.papers = make([]string, np)
	for i := range x.papers {
		if o+4 > len(b) {
			return nil, errBadSidecar
		}
		l := int(binary.LittleEndian.Uint32(b[o:]))
		o += 4
		if l < 0 || o+l > len(b) {
			return nil, errBadSidecar
		}
		x.papers[i] = string(b[o : o+l])
		o += l
	}
	o = (o + 3) &^ 3
	if o+fingerprintSize*np > len(b) {
		return nil, errBadSidecar
	}
	x.fps = b[o : o+fingerprintSize*np]
	o += fingerprintSize * np
	vecEnd := o + 8*n + 4*n*x.dims
	q8 := vecEnd + 4*n
	ftsAt := q8 + (n*x.dims+3)&^3
	if n < 0 || x.dims < 0 || ftsAt > len(b) || fts.Size(b[ftsAt:]) != len(b)-ftsAt {
		return nil, errBadSidecar
	}
	if crc32.Checksum(b[sidecarHeader:o+8*n], castagnoli) != binary.LittleEndian.Uint32(b[8:]) {
		return nil, errBadSidecar
	}
	x.paperOf = leview.Of[uint32](b[o:], n)
	x.seqs = leview.Of[uint32](b[o+4*n:], n)
	x.vecs = leview.Of[float32](b[o+8*n:], n*x.dims)
	x.scale = leview.Of[float32](b[vecEnd:], n)
	x.q8 = leview.Of[int8](b[q8:], n*x.dims)
	for _, p := range x.paperOf {
		if int(p) >= np {
			return nil, errBadSidecar
		}
	}
	text, err := fts.Parse(b[ftsAt:])
	if err != nil || text.Docs() != n {
		return nil, errBadSidecar
	}
	x.text = text
	x.raw = b
	return x, nil
}
