package store

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/papers-cli/papers/internal/diskfile"
	"github.com/papers-cli/papers/internal/leview"
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

// Close releases the mapping of the sidecar, if the vectors are one.
// Vectors obtained from Vector must not be used afterwards.
func (pv *PaperVectors) Close() error {
	if pv.unmap == nil {
		return nil
	}
	err := pv.unmap()
	pv.unmap, pv.vecs = nil, nil
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
	pv, write, err := l.paperVectors(ctx)
	if err != nil {
		return nil, fmt.Errorf("paper vectors: %w", err)
	}
	if write != nil {
		_ = write() // best effort: the vectors are right either way
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

func (l *Library) paperVectors(ctx context.Context) (*PaperVectors, func() error, error) {
	path := filepath.Join(l.dir, PaperVectorsName)
	l.ensureFingerprintIndex(ctx)
	var pv *PaperVectors
	var write func() error
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
		current := func() error {
			// The metadata the fingerprints cover comes with the vectors;
			// topic memberships, which they do not, are read.
			metas := old.metas()
			if err := paperTopics(ctx, tx, metas); err != nil {
				old.close()
				return err
			}
			pv.Papers, pv.vecs, pv.unmap, pv.Reused = metas, old.vecs, old.unmap, len(old.metaIdx)
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
		// Reuse what is current, compute the rest, into one buffer whose
		// row i is metas[i]'s vector; the rows of papers without one are
		// then closed up. Memory: the vectors once, however many papers.
		d := key.dims
		all := make([]float32, len(metas)*d)
		have := make([]bool, len(metas))
		var stale []int // positions in metas
		for i, mt := range metas {
			v, ok := old.lookup(mt.ID, fps[i])
			switch {
			case !ok:
				stale = append(stale, i)
			case v != nil:
				copy(all[i*d:(i+1)*d], v)
				have[i] = true
				pv.Reused++
			}
		}
		old.close() // the rows reused were copied
		if pv.Computed, err = meanVectors(ctx, tx, metas, stale, d, all, have); err != nil {
			return err
		}
		keep := make([]PaperMeta, 0, pv.Reused+pv.Computed)
		for i, mt := range metas {
			if have[i] {
				j := len(keep)
				copy(all[j*d:(j+1)*d], all[i*d:(i+1)*d])
				keep = append(keep, mt)
			}
		}
		vecs := all[: len(keep)*d : len(keep)*d]
		pv.Papers, pv.vecs = keep, vecs
		write = func() error { return writePaperVectors(path, key, gen, metas, fps, have, vecs) }
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	return pv, write, nil
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

// meanVectors computes the vectors of metas[i] for i in which, from their
// chunks, into row i of dst (dims wide), and sets have[i] for each paper
// that has a chunk vector; it returns how many have. Many papers are read
// in one pass over the chunks; a few, one indexed query each. Each chunk's
// vector is added as it is read (RawBytes: not kept).
func meanVectors(ctx context.Context, tx *sql.Tx, metas []PaperMeta, which []int, dims int, dst []float32, have []bool) (int, error) {
	if len(which) == 0 {
		return 0, nil
	}
	sum := make([]float64, dims)
	computed := 0
	flush := func(i int, n int) {
		if n == 0 {
			return
		}
		var s float64
		for _, x := range sum {
			s += x * x
		}
		if s > 0 {
			inv := 1 / math.Sqrt(s)
			row := dst[i*dims : (i+1)*dims]
			for d := range row {
				row[d] = float32(sum[d] * inv)
			}
			have[i] = true
			computed++
		}
		clear(sum)
	}
	add := func(blob []byte) bool {
		if len(blob) != 4*dims {
			return false // another embedder's vector, or none
		}
		for d := range sum {
			sum[d] += float64(math.Float32frombits(binary.LittleEndian.Uint32(blob[4*d:])))
		}
		return true
	}
	if len(which) <= 256 {
		for _, i := range which {
			rows, err := tx.QueryContext(ctx, "SELECT vector FROM chunks WHERE paper_id = ? ORDER BY seq", metas[i].ID)
			if err != nil {
				return 0, err
			}
			n := 0
			for rows.Next() {
				var blob sql.RawBytes
				if err := rows.Scan(&blob); err != nil {
					rows.Close()
					return 0, err
				}
				if add(blob) {
					n++
				}
			}
			rows.Close()
			if err := rows.Err(); err != nil {
				return 0, err
			}
			flush(i, n)
		}
		return computed, nil
	}
	want := make(map[string]int, len(which))
	for _, i := range which {
		want[metas[i].ID] = i
	}
	rows, err := tx.QueryContext(ctx, "SELECT paper_id, vector FROM chunks ORDER BY paper_id, seq")
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	cur, n := -1, 0
	var curID []byte
	for rows.Next() {
		var id, blob sql.RawBytes
		if err := rows.Scan(&id, &blob); err != nil {
			return 0, err
		}
		if cur < 0 || !bytes.Equal(id, curID) {
			if cur >= 0 {
				flush(cur, n)
			}
			i, ok := want[string(id)]
			if !ok {
				cur, curID = -1, curID[:0]
				continue
			}
			cur, n, curID = i, 0, append(curID[:0], id...)
		}
		if add(blob) {
			n++
		}
	}
	if err := rows.Err(); err != nil {
		return 0, err
	}
	if cur >= 0 {
		flush(cur, n)
	}
	return computed, nil
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
// As for the search index's segments, reading the sidecar checks the
// header and the entries, and Library.Check the vectors (a pass over all
// of them, 10 ms at 10k papers, which every papers related would pay).
const (
	pvMagic  = "PAPVEC02"
	pvHeader = 80
)

// pvUnknown is the published time of a paper whose date is unknown.
const pvUnknown = math.MinInt64

var pvCRC = crc32.MakeTable(crc32.Castagnoli)

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
	s.unmap = unmap
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
	if crc32.Update(crc32.Checksum(b[12:pvHeader], pvCRC), pvCRC, b[pvHeader:o]) != binary.LittleEndian.Uint32(b[8:]) {
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

// verify checks the vectors of s against their checksum.
func (s *storedVectors) verify() error {
	if crc32.Checksum(leview.Bytes(s.vecs), pvCRC) != s.vecSum {
		return errors.New("the vectors do not match their checksum")
	}
	return nil
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

// writePaperVectors writes the sidecar for papers (every paper of the
// library at generation gen, by id; their fingerprints fps; have says
// which have a vector) and vecs, the vectors of those that have one,
// atomically: a temporary file, fsynced, renamed.
func writePaperVectors(path string, key pvKey, gen uint64, papers []PaperMeta, fps []string, have []bool, vecs []float32) error {
	size := pvHeader + 4 + len(key.embedder)
	nvec := 0
	for i, p := range papers {
		size += 21 + len(p.ID) + len(fps[i]) + 2 + 8*len(p.Categories)
		if have[i] {
			nvec++
		}
	}
	b := make([]byte, pvHeader, size+3)
	copy(b, pvMagic)
	binary.LittleEndian.PutUint32(b[12:], uint32(key.dims))
	binary.LittleEndian.PutUint32(b[16:], uint32(len(papers)))
	binary.LittleEndian.PutUint32(b[20:], uint32(nvec))
	binary.LittleEndian.PutUint64(b[24:], uint64(key.epoch))
	copy(b[32:64], libraryIDField(key.libraryID))
	binary.LittleEndian.PutUint64(b[64:], gen)
	str := func(s string) {
		b = binary.LittleEndian.AppendUint32(b, uint32(len(s)))
		b = append(b, s...)
	}
	str(key.embedder)
	for i, p := range papers {
		str(p.ID)
		str(fps[i])
		pub := int64(pvUnknown)
		if !p.Published.IsZero() {
			pub = p.Published.UnixNano()
		}
		b = binary.LittleEndian.AppendUint64(b, uint64(pub))
		str(jsonList(p.Categories))
		if have[i] {
			b = append(b, 1)
		} else {
			b = append(b, 0)
		}
	}
	binary.LittleEndian.PutUint32(b[72:], crc32.Checksum(leview.Bytes(vecs), pvCRC))
	binary.LittleEndian.PutUint32(b[8:], crc32.Update(crc32.Checksum(b[12:pvHeader], pvCRC), pvCRC, b[pvHeader:]))
	for len(b)%4 != 0 {
		b = append(b, 0)
	}

	diskfile.RemoveStaleTemps(path)
	tmp, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())           // no-op after the rename
	defer diskfile.HoldTemp(tmp.Name())() // until renamed
	_, err = tmp.Write(b)
	if err == nil {
		_, err = tmp.Write(leview.Bytes(vecs)) // as they are: no copy
	}
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
