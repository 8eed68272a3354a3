package store

import (
	"bufio"
	"context"
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
	"unsafe"

	"github.com/papers-cli/papers/internal/diskfile"
	"github.com/papers-cli/papers/internal/leview"
	"github.com/papers-cli/papers/internal/localfile"
	"github.com/papers-cli/papers/store/index"
)

// PaperVectorsName is the file, inside the library directory, that keeps
// one vector per paper (see PaperVectors). It is derived data: deleting it
// is always safe, the next call rebuilds it.
const PaperVectorsName = "papers.vec"

// PaperVectors are the library's papers at the level of papers: one vector
// each, the mean of its chunk vectors (each normalised, as stored),
// normalised again, with what related papers filter on. Papers with no
// chunk vector are left out. It is a snapshot: it does not follow later
// changes to the library.
//
// The vectors may be a read-only mapping of the sidecar file: nothing may
// write to them, and they are valid until Close.
type PaperVectors struct {
	Embedder string // the library's embedder, as the manifest records it
	Dims     int
	Papers   []PaperMeta // by ID, ascending
	vecs     []float32   // len(Papers)*Dims; row i is Papers[i]
	unmap    func() error
	raw      []byte // the mapped file vecs is a view of; nil on the heap

	// Reused and Computed say how the vectors were had: taken from the
	// sidecar as they were, or computed from the chunks (new or changed
	// papers, or every paper of a new sidecar).
	Reused, Computed int
}

// PaperMeta is what PaperVectors keeps of a paper besides its vector.
type PaperMeta struct {
	ID         string
	Published  time.Time // zero when unknown
	Categories []string  // primary first; may be shared with other papers: do not modify
	Topics     []string  // the followed topics it belongs to, as named
}

// Vector returns paper i's vector (normalised, Dims long), a view into the
// PaperVectors: do not modify it.
func (pv *PaperVectors) Vector(i int) []float32 {
	return pv.vecs[i*pv.Dims : (i+1)*pv.Dims : (i+1)*pv.Dims]
}

// Index returns the position of paper id in Papers, or -1.
func (pv *PaperVectors) Index(id string) int {
	i, ok := slices.BinarySearchFunc(pv.Papers, id, func(m PaperMeta, id string) int { return strings.Compare(m.ID, id) })
	if !ok {
		return -1
	}
	return i
}

// Scan calls fn with each paper's position in Papers and its vector, in
// order, until fn returns false or ctx ends (its error); fn must not keep
// v. When the vectors are a mapping of the sidecar, the pages behind the
// scan are released as it goes, so that a pass over all of them (614 MB
// at 200k papers of 768 dimensions) stays out of the process's resident
// memory.
func (pv *PaperVectors) Scan(ctx context.Context, fn func(i int, v []float32) bool) error {
	step := max(1, (4<<20)/(4*max(1, pv.Dims))) // papers in 4 MB
	for lo := 0; lo < len(pv.Papers); lo += step {
		if err := ctx.Err(); err != nil {
			return err
		}
		hi := min(len(pv.Papers), lo+step)
		for i := lo; i < hi; i++ {
			if !fn(i, pv.Vector(i)) {
				return nil
			}
		}
		pv.release(lo, hi)
	}
	return nil
}

// release drops the mapped pages wholly within the vectors of papers lo
// to hi-1 from the process's resident memory (they stay in the page
// cache, and come back if read again).
func (pv *PaperVectors) release(lo, hi int) {
	if hi > lo {
		dropMapped(pv.raw, leview.Bytes(pv.vecs[lo*pv.Dims:hi*pv.Dims]))
	}
}

// Close releases the mapping of the sidecar, if the vectors are one.
// Vectors obtained from Vector must not be used afterwards.
func (pv *PaperVectors) Close() error {
	if pv.unmap == nil {
		return nil
	}
	err := pv.unmap()
	pv.unmap, pv.vecs, pv.raw = nil, nil, nil
	return err
}

// PaperVectors returns the library's paper vectors and their papers'
// topics, categories and dates, read in one snapshot. They come from the
// sidecar PaperVectorsName when it is current: of the library's vectors
// generation (vectors_gen, bumped by every transaction that writes or
// deletes a paper), or, when that changed, holding every paper at its
// fingerprint. Papers new or changed since (by their fingerprint, or all
// of them after a Reindex) are computed from their chunks, and the
// sidecar is then rewritten (temporary file, fsync, rename; a library
// that cannot be written only loses the cache). Topic memberships are
// always read from the database, so they are never stale. The caller must
// Close the result.
//
// A library in a server has no sidecar: its server computes the means of
// every paper's chunk vectors on each call.
func (l *Library) PaperVectors(ctx context.Context) (*PaperVectors, error) {
	if l.eng != nil {
		pv, err := l.serverPaperVectors(ctx)
		if err != nil {
			return nil, fmt.Errorf("paper vectors: %w", err)
		}
		return pv, nil
	}
	pv, err := l.paperVectors(ctx)
	if err != nil {
		return nil, fmt.Errorf("paper vectors: %w", err)
	}
	return pv, nil
}

// pvKey is what a paper vector was computed from.
type pvKey struct {
	libraryID string
	epoch     int64
	embedder  string
	dims      int
}

func (l *Library) paperVectors(ctx context.Context) (*PaperVectors, error) {
	path := filepath.Join(l.dir, PaperVectorsName)
	l.ensureFingerprintIndex(ctx)
	var pv *PaperVectors
	// On a connection that does not map the database: the chunks read to
	// compute vectors (and on a library without the fingerprint index, the
	// papers table with its abstracts) would otherwise be resident, the
	// whole file at 100k chunks.
	err := l.readLarge(ctx, func(tx *sql.Tx) error {
		m, err := readManifest(ctx, tx)
		if err != nil {
			return err
		}
		key := pvKey{libraryID: m[keyLibraryID], embedder: m[keyEmbedder]}
		key.epoch, _ = strconv.ParseInt(m[keyVectorsEpoch], 10, 64)
		key.dims, _ = strconv.Atoi(m[keyDimensions])
		gen, genErr := strconv.ParseUint(m[keyVectorsGen], 10, 64)
		pv = &PaperVectors{Embedder: key.embedder, Dims: key.dims}
		if key.dims <= 0 {
			return nil
		}
		old, _ := readPaperVectors(path, key) // missing, torn or of another key: computed anew
		if old != nil && old.verify() != nil {
			// A flipped byte in the vectors: computed anew, and the file
			// rewritten (a pass over the vectors, which related reads all
			// of anyway).
			old.close()
			old = nil
		}
		current := func() error {
			// The metadata the fingerprints cover comes with the vectors;
			// topic memberships, which they do not, are read.
			metas := old.metas()
			if err := paperTopics(ctx, tx, metas); err != nil {
				old.close()
				return err
			}
			pv.Papers, pv.vecs, pv.unmap, pv.raw, pv.Reused = metas, old.vecs, old.unmap, old.raw, len(old.metaIdx)
			return nil
		}
		// vectors_gen is bumped by every transaction that writes a paper
		// (its fingerprint changed) or deletes one: the sidecar of the
		// same generation is current without reading a row of papers.
		if old != nil && genErr == nil && old.gen == gen {
			return current()
		}
		ids, fps, err := paperFingerprints(ctx, tx)
		if err != nil || len(ids) == 0 {
			old.close()
			return err
		}
		if old != nil && genErr != nil && old.matches(ids, fps) {
			return current() // a library without vectors_gen: by the fingerprints
		}
		metas, err := paperMetas(ctx, tx, ids)
		if err != nil {
			old.close()
			return err
		}
		// Reuse what is current, compute the rest, streaming every vector
		// in order into a new sidecar, then map it: memory holds a paper's
		// chunk sums and the papers' metadata, never the vectors (614 MB
		// for 200k papers of 768 dimensions).
		defer old.close()
		dst, err := l.newSidecar(path)
		if err != nil {
			return err
		}
		s, err := streamPaperVectors(ctx, tx, dst, key, gen, metas, fps, old)
		if err != nil {
			dst.abort()
			return err
		}
		mapped, err := dst.commit(key)
		if err != nil {
			return err
		}
		pv.Papers, pv.vecs, pv.unmap, pv.raw = mapped.metasWith(metas), mapped.vecs, mapped.unmap, mapped.raw
		pv.Reused, pv.Computed = s.reused, s.computed
		return nil
	})
	if err != nil {
		return nil, err
	}
	return pv, nil
}

// fingerprintIndexSchema is the index that lets PaperVectors tell whether
// its sidecar is current by reading every paper's id and fingerprint (80
// bytes a paper) rather than every row of papers, abstracts included
// (fingerprint is its last column). Libraries are made with it; one made
// before gets it on its first PaperVectors (ensureFingerprintIndex). It
// is not part of a schema version: papers of any version 5 reads the
// library with or without it.
const fingerprintIndexSchema = `CREATE INDEX IF NOT EXISTS papers_fingerprint ON papers (id, fingerprint);`

// ensureFingerprintIndex creates the fingerprint index where it is
// missing and the library can be written (one pass over papers, on a
// connection that does not map the file); without it PaperVectors is
// right, only slower.
func (l *Library) ensureFingerprintIndex(ctx context.Context) {
	var n int
	if err := l.db.QueryRowContext(ctx, "SELECT count(*) FROM sqlite_master WHERE type = 'index' AND name = 'papers_fingerprint'").Scan(&n); err != nil || n > 0 || l.readOnly != "" {
		return
	}
	conn, release, err := l.unmappedConn(ctx)
	if err != nil {
		return
	}
	defer release()
	tx, err := conn.BeginTx(ctx, nil) // IMMEDIATE (the DSN's _txlock)
	if err != nil {
		return
	}
	if _, err := tx.ExecContext(ctx, fingerprintIndexSchema); err != nil {
		tx.Rollback()
		return
	}
	tx.Commit()
}

// paperFingerprints reads every paper's id and fingerprint, by id (from
// the fingerprint index where the library has it).
func paperFingerprints(ctx context.Context, tx *sql.Tx) (ids, fps []string, err error) {
	rows, err := tx.QueryContext(ctx, "SELECT id, fingerprint FROM papers ORDER BY id")
	if err != nil {
		return nil, nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var id, fp string
		if err := rows.Scan(&id, &fp); err != nil {
			return nil, nil, err
		}
		ids = append(ids, id)
		fps = append(fps, fp)
	}
	return ids, fps, rows.Err()
}

// paperMetas reads the metadata of the papers ids (ascending, every paper
// of the library, as paperFingerprints read them in the same transaction),
// in their order, topics included.
func paperMetas(ctx context.Context, tx *sql.Tx, ids []string) ([]PaperMeta, error) {
	rows, err := tx.QueryContext(ctx, "SELECT id, published, categories FROM papers ORDER BY id")
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	metas := make([]PaperMeta, 0, len(ids))
	for rows.Next() {
		var m PaperMeta
		var cats string
		var pub sql.NullInt64
		if err := rows.Scan(&m.ID, &pub, &cats); err != nil {
			return nil, err
		}
		m.Published, m.Categories = timeOf(pub), parseList(cats)
		metas = append(metas, m)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	rows.Close()
	if len(metas) != len(ids) {
		return nil, fmt.Errorf("read %d papers' metadata for %d papers", len(metas), len(ids))
	}
	for i := range metas {
		if metas[i].ID != ids[i] {
			return nil, fmt.Errorf("paper %s read in the place of %s", metas[i].ID, ids[i])
		}
	}
	return metas, paperTopics(ctx, tx, metas)
}

// paperTopics sets the Topics of metas (by ID, ascending) from the
// library's topic memberships.
func paperTopics(ctx context.Context, tx *sql.Tx, metas []PaperMeta) error {
	trows, err := tx.QueryContext(ctx, "SELECT tp.paper_id, t.name FROM topic_papers tp JOIN topics t ON t.name = tp.topic ORDER BY t.name")
	if err != nil {
		return err
	}
	defer trows.Close()
	for trows.Next() {
		var id, name string
		if err := trows.Scan(&id, &name); err != nil {
			return err
		}
		if i, ok := slices.BinarySearchFunc(metas, id, func(m PaperMeta, id string) int { return strings.Compare(m.ID, id) }); ok {
			metas[i].Topics = append(metas[i].Topics, name)
		}
	}
	return trows.Err()
}

// serverPaperVectors is PaperVectors of a library in a server: every
// paper's mean vector comes from the engine, normalised here.
func (l *Library) serverPaperVectors(ctx context.Context) (*PaperVectors, error) {
	var pv *PaperVectors
	err := l.read(ctx, func(tx *sql.Tx) error {
		m, err := readManifest(ctx, tx)
		if err != nil {
			return err
		}
		dims, _ := strconv.Atoi(m[keyDimensions])
		pv = &PaperVectors{Embedder: m[keyEmbedder], Dims: dims}
		if dims <= 0 {
			return nil
		}
		ids, _, err := paperFingerprints(ctx, tx)
		if err != nil || len(ids) == 0 {
			return err
		}
		metas, err := paperMetas(ctx, tx, ids)
		if err != nil {
			return err
		}
		pv.vecs = make([]float32, 0, len(metas)*dims)
		i := 0
		return l.eng.MeanVectors(ctx, tx, func(id string, mean []float32) error {
			for i < len(metas) && metas[i].ID < id {
				i++
			}
			if i == len(metas) || metas[i].ID != id || len(mean) != dims {
				return nil // a paper written since, or a vector of another embedder
			}
			pv.Papers = append(pv.Papers, metas[i])
			pv.vecs = append(pv.vecs, index.Normalized(mean)...)
			pv.Computed++
			return nil
		})
	})
	return pv, err
}

// The sidecar: an 80-byte header, then the embedder's name, an entry for
// each paper of the library by id (id and fingerprint, u32 length + bytes
// each; published, i64 Unix nanoseconds, pvUnknown when unknown; its
// categories as the library stores them, u32 length + JSON; one byte, 1
// when it has a vector), padding to 4 bytes and the vectors of the papers
// that have one, in their order, nvec x dims little-endian float32.
//
//	0  magic "PAPVEC02"   8  crc32c of the header from 12 and the entries
//	12 dims   16 n   20 nvec   24 epoch (u64)   32 library id (32 bytes)
//	64 vectors_gen (u64) of the snapshot it holds   72 crc32c of the vectors
//	76 (zero)
//
// Reading the sidecar checks the header and the entries, and the vectors
// against their checksum (a pass over them, 10 ms at 10k papers, next to
// related's own pass); a sidecar that fails is computed anew.
const (
	pvMagic  = "PAPVEC02"
	pvHeader = 80
)

// pvUnknown is the published time of a paper whose date is unknown.
const pvUnknown = math.MinInt64

var errBadPaperVectors = errors.New("paper vectors sidecar is torn or not ours")

// storedVectors is a parsed sidecar.
type storedVectors struct {
	gen     uint64 // the library's vectors_gen when it was written
	ids     []string
	fps     [][]byte // views of the file: valid until close
	pubs    []int64
	cats    [][]byte // the JSON lists, views of the file
	row     []int32  // the vector of entry i is row[i], -1 for none
	metaIdx []int    // the entries that have a vector, in order
	vecs    []float32
	vecSum  uint32 // crc32c of vecs, as written
	dims    int
	unmap   func() error
	raw     []byte // the mapped file
}

func readPaperVectors(path string, key pvKey) (*storedVectors, error) {
	b, unmap, err := diskfile.Map(path)
	if err != nil {
		return nil, err
	}
	s, err := parsePaperVectors(b, key)
	if err != nil {
		unmap()
		return nil, err
	}
	s.unmap, s.raw = unmap, b
	return s, nil
}

func parsePaperVectors(b []byte, key pvKey) (*storedVectors, error) {
	if len(b) < pvHeader || string(b[:8]) != pvMagic {
		return nil, errBadPaperVectors
	}
	dims := int(binary.LittleEndian.Uint32(b[12:]))
	n := int(binary.LittleEndian.Uint32(b[16:]))
	nvec := int(binary.LittleEndian.Uint32(b[20:]))
	if dims != key.dims || int64(binary.LittleEndian.Uint64(b[24:])) != key.epoch || string(b[32:64]) != libraryIDField(key.libraryID) {
		return nil, errBadPaperVectors // another library, embedder or epoch: nothing to reuse
	}
	if 21*n > len(b) || nvec > n || 4*nvec*dims > len(b) {
		return nil, errBadPaperVectors
	}
	o := pvHeader
	field := func() ([]byte, bool) { // a view of b
		if o+4 > len(b) {
			return nil, false
		}
		l := int(binary.LittleEndian.Uint32(b[o:]))
		o += 4
		if l < 0 || o+l > len(b) {
			return nil, false
		}
		f := b[o : o+l : o+l]
		o += l
		return f, true
	}
	emb, ok := field()
	if !ok || string(emb) != key.embedder {
		return nil, errBadPaperVectors
	}
	s := &storedVectors{gen: binary.LittleEndian.Uint64(b[64:]), ids: make([]string, n), fps: make([][]byte, n), pubs: make([]int64, n),
		cats: make([][]byte, n), row: make([]int32, n), metaIdx: make([]int, 0, nvec), dims: dims}
	for i := range n {
		id, ok := field()
		if !ok {
			return nil, errBadPaperVectors
		}
		s.ids[i] = string(id)
		if s.fps[i], ok = field(); !ok {
			return nil, errBadPaperVectors
		}
		if i > 0 && s.ids[i] <= s.ids[i-1] {
			return nil, errBadPaperVectors
		}
		if o+8 > len(b) {
			return nil, errBadPaperVectors
		}
		s.pubs[i] = int64(binary.LittleEndian.Uint64(b[o:]))
		o += 8
		if s.cats[i], ok = field(); !ok || o >= len(b) {
			return nil, errBadPaperVectors
		}
		s.row[i] = -1
		if b[o] == 1 {
			s.row[i] = int32(len(s.metaIdx))
			s.metaIdx = append(s.metaIdx, i)
		}
		o++
	}
	// The entries were read with every bound checked; they count only
	// when their checksum holds.
	if crc32.Update(crc32.Checksum(b[12:pvHeader], index.CRC32C()), index.CRC32C(), b[pvHeader:o]) != binary.LittleEndian.Uint32(b[8:]) {
		return nil, errBadPaperVectors
	}
	o = (o + 3) &^ 3
	if len(s.metaIdx) != nvec || o+4*nvec*dims != len(b) {
		return nil, errBadPaperVectors
	}
	s.vecs = leview.Of[float32](b[o:], nvec*dims)
	s.vecSum = binary.LittleEndian.Uint32(b[72:])
	return s, nil
}

// verify checks the vectors of s against their checksum, releasing the
// mapped pages behind it as it goes (a pass over all of them need not
// keep them resident).
func (s *storedVectors) verify() error {
	b := leview.Bytes(s.vecs)
	var sum uint32
	const piece = 4 << 20
	for lo := 0; lo < len(b); lo += piece {
		part := b[lo:min(len(b), lo+piece)]
		sum = crc32.Update(sum, index.CRC32C(), part)
		dropMapped(s.raw, part)
	}
	if sum != s.vecSum {
		return errors.New("the vectors do not match their checksum")
	}
	return nil
}

// dropMapped drops the pages wholly within part, a view of the mapping
// raw, from the process's resident memory; nothing when raw is nil (the
// bytes are on the heap).
func dropMapped(raw, part []byte) {
	if raw == nil || len(part) == 0 {
		return
	}
	start := int(uintptr(unsafe.Pointer(unsafe.SliceData(part))) - uintptr(unsafe.Pointer(unsafe.SliceData(raw))))
	end := start + len(part)
	ps := os.Getpagesize()
	if a, e := (start+ps-1)/ps*ps, end/ps*ps; e > a && a >= 0 && e <= len(raw) {
		diskfile.DropPages(raw[a:e])
	}
}

// checkPaperVectors verifies the vectors of the paper vectors sidecar, if
// there is one for the library as it is now (one of another embedder,
// epoch or library, or torn, is never used: it is rebuilt).
func (l *Library) checkPaperVectors(ctx context.Context) error {
	m, err := readManifest(ctx, l.db)
	if err != nil {
		return err
	}
	key := pvKey{libraryID: m[keyLibraryID], embedder: m[keyEmbedder]}
	key.epoch, _ = strconv.ParseInt(m[keyVectorsEpoch], 10, 64)
	key.dims, _ = strconv.Atoi(m[keyDimensions])
	s, err := readPaperVectors(filepath.Join(l.dir, PaperVectorsName), key)
	if err != nil {
		return nil
	}
	defer s.close()
	if err := s.verify(); err != nil {
		return fmt.Errorf("paper vectors (%s): %w: delete the file, the next papers related rebuilds it", PaperVectorsName, err)
	}
	return nil
}

// libraryIDField is the library id as the header holds it: 32 bytes.
func libraryIDField(id string) string {
	b := make([]byte, 32)
	copy(b, id)
	return string(b)
}

// matches reports whether s holds exactly the papers ids, each at the
// fingerprint fps gives: the sidecar is current and is used as it is.
func (s *storedVectors) matches(ids, fps []string) bool {
	if !slices.Equal(s.ids, ids) || len(s.fps) != len(fps) {
		return false
	}
	for i, fp := range fps {
		if string(s.fps[i]) != fp {
			return false
		}
	}
	return true
}

// metas is the metadata of the papers of s that have a vector, in order
// (Topics are not stored). Papers with the same categories share one
// Categories slice.
func (s *storedVectors) metas() []PaperMeta {
	out := make([]PaperMeta, len(s.metaIdx))
	lists := map[string][]string{}
	for j, i := range s.metaIdx {
		cats, ok := lists[string(s.cats[i])]
		if !ok {
			cats = parseList(string(s.cats[i]))
			lists[string(s.cats[i])] = cats
		}
		m := PaperMeta{ID: s.ids[i], Categories: cats}
		if s.pubs[i] != pvUnknown {
			m.Published = time.Unix(0, s.pubs[i]).UTC()
		}
		out[j] = m
	}
	return out
}

// lookup returns the stored vector of paper id at fingerprint fp (nil for a
// paper stored as having none) and true, or false when s has nothing
// current for it.
func (s *storedVectors) lookup(id, fp string) ([]float32, bool) {
	if s == nil {
		return nil, false
	}
	i, ok := slices.BinarySearch(s.ids, id)
	if !ok || string(s.fps[i]) != fp {
		return nil, false
	}
	if s.row[i] < 0 {
		return nil, true
	}
	r := int(s.row[i])
	return s.vecs[r*s.dims : (r+1)*s.dims], true
}

func (s *storedVectors) close() {
	if s != nil && s.unmap != nil {
		s.unmap()
		s.unmap = nil
	}
}

// encodeEntries is the head of a sidecar for papers (every paper of the
// library at generation gen, by id, with their fingerprints fps): the
// header and the entries, with every paper's has-a-vector byte 0 (flagAt
// gives where each is) and the header's vector count and checksums left
// for finishEntries; end is where the entries end, before the padding.
func encodeEntries(key pvKey, gen uint64, papers []PaperMeta, fps []string) (b []byte, flagAt []int, end int) {
	size := pvHeader + 4 + len(key.embedder)
	for i, p := range papers {
		size += 21 + len(p.ID) + len(fps[i]) + 2 + 8*len(p.Categories)
	}
	b = make([]byte, pvHeader, size+3)
	copy(b, pvMagic)
	binary.LittleEndian.PutUint32(b[12:], uint32(key.dims))
	binary.LittleEndian.PutUint32(b[16:], uint32(len(papers)))
	binary.LittleEndian.PutUint64(b[24:], uint64(key.epoch))
	copy(b[32:64], libraryIDField(key.libraryID))
	binary.LittleEndian.PutUint64(b[64:], gen)
	str := func(s string) {
		b = binary.LittleEndian.AppendUint32(b, uint32(len(s)))
		b = append(b, s...)
	}
	str(key.embedder)
	flagAt = make([]int, len(papers))
	for i, p := range papers {
		str(p.ID)
		str(fps[i])
		pub := int64(pvUnknown)
		if !p.Published.IsZero() {
			pub = p.Published.UnixNano()
		}
		b = binary.LittleEndian.AppendUint64(b, uint64(pub))
		str(jsonList(p.Categories))
		flagAt[i] = len(b)
		b = append(b, 0)
	}
	end = len(b)
	for len(b)%4 != 0 {
		b = append(b, 0)
	}
	return b, flagAt, end
}

// finishEntries sets the header's vector count and checksums (vecSum:
// of the vectors as written after the entries).
func finishEntries(b []byte, end, nvec int, vecSum uint32) {
	binary.LittleEndian.PutUint32(b[20:], uint32(nvec))
	binary.LittleEndian.PutUint32(b[72:], vecSum)
	binary.LittleEndian.PutUint32(b[8:], crc32.Update(crc32.Checksum(b[12:pvHeader], index.CRC32C()), index.CRC32C(), b[pvHeader:end]))
}

// streamStats says how the vectors of a sidecar were had.
type streamStats struct{ reused, computed int }

// streamPaperVectors writes the sidecar of metas into dst: each paper's
// vector, in order, taken from old when it is current there, else the
// mean of its chunks' vectors (each normalised, as stored), normalised;
// papers with no chunk vector have none. The vectors go out as they are
// had (1 MB at a time): what it holds is the entries and one paper's sums.
// Many papers to compute are read in one pass over the chunks, in the
// papers' order; a few, one indexed query each.
func streamPaperVectors(ctx context.Context, tx *sql.Tx, dst *sidecar, key pvKey, gen uint64, metas []PaperMeta, fps []string, old *storedVectors) (streamStats, error) {
	var st streamStats
	dims := key.dims
	head, flagAt, end := encodeEntries(key, gen, metas, fps)
	w := bufio.NewWriterSize(io.NewOffsetWriter(dst.f, int64(len(head))), 1<<20)
	var vecSum uint32
	nvec := 0
	row := make([]float32, dims)
	emit := func(i int, v []float32) error {
		b := leview.Bytes(v)
		vecSum = crc32.Update(vecSum, index.CRC32C(), b)
		head[flagAt[i]] = 1
		nvec++
		_, err := w.Write(b)
		return err
	}
	reuse := make([][]float32, len(metas)) // views of old, nil for papers to compute
	stale := 0
	for i, mt := range metas {
		v, ok := old.lookup(mt.ID, fps[i])
		switch {
		case !ok:
			stale++
		case v != nil:
			reuse[i] = v
		default:
			reuse[i] = []float32{} // current, and without a vector
		}
	}
	sum := make([]float64, dims)
	add := func(blob []byte) bool {
		if len(blob) != 4*dims {
			return false // another embedder's vector, or none
		}
		for d := range sum {
			sum[d] += float64(math.Float32frombits(binary.LittleEndian.Uint32(blob[4*d:])))
		}
		return true
	}
	// mean writes paper i's vector from the sums of its n chunk vectors.
	mean := func(i, n int) error {
		defer clear(sum)
		var s float64
		for _, x := range sum {
			s += x * x
		}
		if n == 0 || s == 0 {
			return nil
		}
		inv := 1 / math.Sqrt(s)
		for d := range row {
			row[d] = float32(sum[d] * inv)
		}
		st.computed++
		return emit(i, row)
	}
	// chunks of the papers to compute, in id order: one pass, or a query
	// per paper when they are few
	var pass *sql.Rows
	if stale > 256 {
		var err error
		if pass, err = tx.QueryContext(ctx, "SELECT paper_id, vector FROM chunks ORDER BY paper_id, seq"); err != nil {
			return st, err
		}
		defer pass.Close()
	}
	var passID, passBlob sql.RawBytes
	passOK := pass != nil && pass.Next()
	if passOK {
		if err := pass.Scan(&passID, &passBlob); err != nil {
			return st, err
		}
	}
	for i, mt := range metas {
		if i&1023 == 0 && ctx.Err() != nil {
			return st, ctx.Err()
		}
		if v := reuse[i]; v != nil {
			if len(v) > 0 {
				st.reused++
				if err := emit(i, v); err != nil {
					return st, err
				}
			}
			continue
		}
		n := 0
		if pass == nil {
			rows, err := tx.QueryContext(ctx, "SELECT vector FROM chunks WHERE paper_id = ? ORDER BY seq", mt.ID)
			if err != nil {
				return st, err
			}
			for rows.Next() {
				var blob sql.RawBytes
				if err := rows.Scan(&blob); err != nil {
					rows.Close()
					return st, err
				}
				if add(blob) {
					n++
				}
			}
			rows.Close()
			if err := rows.Err(); err != nil {
				return st, err
			}
		} else {
			for passOK && string(passID) < mt.ID { // papers of other ids, or reused
				if passOK = pass.Next(); passOK {
					if err := pass.Scan(&passID, &passBlob); err != nil {
						return st, err
					}
				}
			}
			for passOK && string(passID) == mt.ID {
				if add(passBlob) {
					n++
				}
				if passOK = pass.Next(); passOK {
					if err := pass.Scan(&passID, &passBlob); err != nil {
						return st, err
					}
				}
			}
		}
		if err := mean(i, n); err != nil {
			return st, err
		}
	}
	if pass != nil {
		if err := pass.Err(); err != nil {
			return st, err
		}
	}
	if err := w.Flush(); err != nil {
		return st, err
	}
	finishEntries(head, end, nvec, vecSum)
	_, err := dst.f.WriteAt(head, 0)
	return st, err
}

// sidecar is a paper vectors file being written: beside the library, to
// be renamed over papers.vec, or, for a library that cannot be written, an
// unlinked temporary file that only this process maps and that goes with
// it.
type sidecar struct {
	f    *os.File
	path string // where it goes; "" for an unlinked one
	hold func()
}

// newSidecar starts the sidecar that replaces the one at path.
func (l *Library) newSidecar(path string) (*sidecar, error) {
	if l.readOnly == "" {
		diskfile.RemoveStaleTemps(path)
		if f, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".tmp*"); err == nil {
			return &sidecar{f: f, path: path, hold: diskfile.HoldTemp(f.Name())}, nil
		}
	}
	f, err := os.CreateTemp("", "papers-vectors-*")
	if err != nil {
		return nil, err
	}
	os.Remove(f.Name())
	return &sidecar{f: f, hold: func() {}}, nil
}

func (s *sidecar) abort() {
	s.f.Close()
	if s.path != "" {
		os.Remove(s.f.Name())
	}
	s.hold()
}

// commit maps the written sidecar and, when it has a place, puts it
// there durably (a library that cannot take it keeps the mapping only).
func (s *sidecar) commit(key pvKey) (*storedVectors, error) {
	defer s.hold()
	defer s.f.Close() // the mapping outlives the descriptor
	b, unmap, err := localfile.Map(s.f)
	if err != nil {
		s.abortFile()
		return nil, err
	}
	sv, err := parsePaperVectors(b, key)
	if err != nil {
		unmap()
		s.abortFile()
		return nil, err
	}
	sv.unmap, sv.raw = unmap, b
	if s.path != "" {
		if err := s.f.Sync(); err != nil || os.Rename(s.f.Name(), s.path) != nil {
			os.Remove(s.f.Name()) // the cache is lost, the vectors are right
		}
	}
	return sv, nil
}

func (s *sidecar) abortFile() {
	if s.path != "" {
		os.Remove(s.f.Name())
	}
}

// metasWith is the metadata of the papers of s that have a vector, taken
// from metas (every paper of the library, in the same order as s's
// entries, topics included).
func (s *storedVectors) metasWith(metas []PaperMeta) []PaperMeta {
	out := make([]PaperMeta, len(s.metaIdx))
	for j, i := range s.metaIdx {
		out[j] = metas[i]
	}
	return out
}
