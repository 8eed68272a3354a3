package index

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"math/bits"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sync"

	"github.com/papers-cli/papers/internal/diskfile"
	"github.com/papers-cli/papers/internal/leview"
	"github.com/papers-cli/papers/internal/sections"
)

// Sign codes are a segment's third file, <name>.bits: one bit per
// dimension of each chunk's int8 vector (set where it is >= 0) and one
// factor per chunk, 96 bytes + 4 at 768 dimensions, an eighth of the int8
// copy. A dense search of a large library scans them first (signScan) and
// re-scores only the best candidates with the int8 and then the float32
// vectors (View.search). They are derived from the .seg file alone
// (its int8 vectors and scales), so a segment written before them gets
// them later from its .seg (writeSignCodes, on the first open for write),
// byte for byte what a segment writer gives.
//
// The estimate is RaBitQ's (Gao and Long, SIGMOD 2024): vectors are first
// rotated (a fixed pseudo-random orthonormal transform R, see rotation,
// which spreads each vector over all dimensions: without it the int8
// vectors of the local embedder, a quarter of whose dimensions are 0, lose
// much more to their signs), then with o = R·(a chunk's int8 vector), s
// its signs as ±1 and q = R·(the query),
//
//	q·o ≈ (q·s) · |o|² / Σ|o_i|
//
// the factor (g, times the chunk's scale) being what makes the estimate
// exact when q = o. q·s is computed from the query quantized to 4 bits
// (q_i ≈ lo + Δ u_i, u_i in 0..15) as bit planes: Σ over set bits of u_i is
// Σ_j 2^j popcount(b & U_j), 5 popcounts per 64 dimensions.
//
// .bits layout, little-endian: magic | dims u32 | docs u32 | crc32c of the
// bits u32 | crc32c of the factors u32 | zeros to 32 | bits [docs*words]u64
// | factors [docs]f32, words = ceil(dims/64), dimension i of a chunk in bit
// i%64 of its word i/64 (the padding bits are 0).
const bitsMagic = "PAPBIT01"

const bitsHeader = 32

// signWords is the number of 64-bit words of a chunk's sign code.
func signWords(dims int) int { return (dims + 63) / 64 }

func bitsLayout(docs, dims int) (gOff, size int64) {
	gOff = bitsHeader + 8*int64(docs)*int64(signWords(dims))
	return gOff, gOff + 4*int64(docs)
}

// signCode appends to dst the sign code of the int8 vector q of a chunk
// whose scale is scale, and returns it with the chunk's factor. buf is
// scratch space (len(q) floats, reallocated if short).
func signCode(dst []uint64, q []int8, scale float32, buf []float64) ([]uint64, float32, []float64) {
	if len(buf) < len(q) {
		buf = make([]float64, len(q))
	}
	v := buf[:len(q)]
	for i, x := range q {
		v[i] = float64(x)
	}
	rotationFor(len(q)).apply(v)
	words := signWords(len(q))
	o := len(dst)
	for range words {
		dst = append(dst, 0)
	}
	var sq, abs float64
	for i, x := range v {
		if x >= 0 {
			dst[o+(i>>6)] |= 1 << (i & 63)
		}
		sq += x * x
		abs += math.Abs(x)
	}
	if abs == 0 {
		return dst, 0, buf
	}
	return dst, float32(float64(scale) * sq / abs), buf
}

// rotation is a fixed orthonormal transform of vectors of one length,
// cheap to apply (a few thousand operations at 768 dimensions): rounds
// of random sign flips, a random permutation and normalised Walsh-Hadamard
// transforms of blocks of `block` dimensions (the largest power of two up
// to 256 dividing the length). The randomness is seeded: the transform is
// part of the .bits format.
type rotation struct {
	block int
	flip  [][]float64 // per round, ±1 for each destination dimension
	perm  [][]int32   // per round, the source dimension of each
	tmp   sync.Pool
}

const rotationRounds = 3

var rotations sync.Map // dims -> *rotation

func rotationFor(dims int) *rotation {
	if r, ok := rotations.Load(dims); ok {
		return r.(*rotation)
	}
	r := &rotation{block: 1}
	for r.block < 256 && dims%(2*r.block) == 0 {
		r.block *= 2
	}
	rng := rand.New(rand.NewPCG(uint64(dims), 0x5167_6e63_6f64_6573))
	for range rotationRounds {
		f := make([]float64, dims)
		for i := range f {
			f[i] = 1
			if rng.Uint64()&1 == 1 {
				f[i] = -1
			}
		}
		p := make([]int32, dims)
		for i, j := range rng.Perm(dims) {
			p[i] = int32(j)
		}
		r.flip, r.perm = append(r.flip, f), append(r.perm, p)
	}
	v, _ := rotations.LoadOrStore(dims, r)
	return v.(*rotation)
}

// apply rotates v in place.
func (r *rotation) apply(v []float64) {
	tp, _ := r.tmp.Get().(*[]float64)
	if tp == nil || len(*tp) != len(v) {
		t := make([]float64, len(v))
		tp = &t
	}
	t := *tp
	norm := 1 / math.Sqrt(float64(r.block))
	for round := range rotationRounds {
		f, p := r.flip[round][:len(t)], r.perm[round][:len(t)]
		for i, j := range p {
			t[i] = v[j] * f[i]
		}
		for lo := 0; lo < len(t); lo += r.block {
			fwht(t[lo : lo+r.block])
		}
		for i, x := range t {
			v[i] = x * norm
		}
	}
	r.tmp.Put(tp)
}

// fwht is the (unnormalised) Walsh-Hadamard transform of v, whose length
// is a power of two, in place.
func fwht(v []float64) {
	n := len(v)
	for i := 0; i+1 < n; i += 2 {
		x, y := v[i], v[i+1]
		v[i], v[i+1] = x+y, x-y
	}
	for h := 2; h < n; h *= 2 {
		for i := 0; i < n; i += 2 * h {
			a, b := v[i:i+h:i+h], v[i+h:i+2*h:i+2*h]
			for j := range a {
				x, y := a[j], b[j]
				a[j], b[j] = x+y, x-y
			}
		}
	}
}

// signCodes is a segment's sign codes, opened for searching.
type signCodes struct {
	words int
	g     []float32
	bits  []uint64
	unmap func() error // nil when on the heap
	seg   *os.File     // the segment's .seg file, for int8Vector (nil in memory)
}

func (c *signCodes) release() {
	if c == nil {
		return
	}
	if c.unmap != nil {
		c.unmap()
	}
	if c.seg != nil {
		c.seg.Close()
	}
}

// parseSignCodes reads a .bits file's bytes for a segment of docs chunks
// of dims dimensions; it checks the header and the length (the checksums
// are Check's).
func parseSignCodes(b []byte, docs, dims int) (*signCodes, [2]uint32, error) {
	var sums [2]uint32
	gOff, size := bitsLayout(docs, dims)
	le := binary.LittleEndian
	if int64(len(b)) != size || string(b[:8]) != bitsMagic || int(le.Uint32(b[8:])) != dims || int(le.Uint32(b[12:])) != docs {
		return nil, sums, errBadSegment
	}
	sums = [2]uint32{le.Uint32(b[16:]), le.Uint32(b[20:])}
	w := signWords(dims)
	return &signCodes{
		words: w,
		bits:  leview.Of[uint64](b[bitsHeader:], docs*w),
		g:     leview.Of[float32](b[gOff:], docs),
	}, sums, nil
}

// openSignCodes maps dir/name.bits and opens dir/name.seg for reading the
// candidates' int8 vectors; a missing or unusable file gives nil (the
// segment is then scanned with its int8 vectors).
func openSignCodes(dir, name string, docs, dims int) *signCodes {
	b, unmap, err := diskfile.Map(filepath.Join(dir, name+".bits"))
	if err != nil {
		return nil
	}
	c, _, err := parseSignCodes(b, docs, dims)
	if err != nil {
		unmap()
		return nil
	}
	c.unmap = unmap
	if c.seg, err = os.Open(filepath.Join(dir, name+".seg")); err != nil {
		c.release()
		return nil
	}
	return c
}

// signWriter writes a .bits file as chunks come: the bits through a
// buffer, the factors (4 bytes a chunk) kept until finish.
type signWriter struct {
	w       io.WriterAt
	bits    *sections.Writer
	sumBits uint32
	dims    int
	g       []float32
	code    []uint64
	buf     []float64
}

func newSignWriter(w io.WriterAt, dims int) *signWriter {
	return &signWriter{w: w, dims: dims, bits: sections.New(w, bitsHeader, 1<<20)}
}

func (s *signWriter) add(q []int8, scale float32) {
	var g float32
	s.code, g, s.buf = signCode(s.code[:0], q, scale, s.buf)
	s.g = append(s.g, g)
	b := leview.Bytes(s.code)
	s.bits.Write(b)
	s.sumBits = crc32.Update(s.sumBits, CRC32C(), b)
}

// finish writes the factors and the header.
func (s *signWriter) finish() error {
	if err := s.bits.Flush(); err != nil {
		return err
	}
	n := len(s.g)
	gOff, _ := bitsLayout(n, s.dims)
	gb := leview.Bytes(s.g)
	if _, err := s.w.WriteAt(gb, gOff); err != nil {
		return err
	}
	h := make([]byte, bitsHeader)
	copy(h, bitsMagic)
	le := binary.LittleEndian
	le.PutUint32(h[8:], uint32(s.dims))
	le.PutUint32(h[12:], uint32(n))
	le.PutUint32(h[16:], s.sumBits)
	le.PutUint32(h[20:], crc32.Checksum(gb, CRC32C()))
	_, err := s.w.WriteAt(h, 0)
	return err
}

// writeSignCodes writes the sign codes of segment s (a file of dir) from
// its int8 vectors, durably, and returns them opened; the caller holds
// the write lock. It costs a pass over the int8 vectors (384 MB for a
// segment of 500k chunks of 768 dimensions), whose pages it releases.
func writeSignCodes(dir string, s *segment) (*signCodes, error) {
	f, err := createTemp(dir, "", s.name+".bits")
	if err != nil {
		return nil, err
	}
	defer diskfile.HoldTemp(f.Name())()
	defer os.Remove(f.Name()) // no-op after the rename
	w := newSignWriter(f, s.dims)
	for d := range s.n {
		w.add(s.q8[d*s.dims:(d+1)*s.dims], s.scale[d])
		if d&65535 == 65535 {
			diskfile.DropPages(s.raw)
		}
	}
	diskfile.DropPages(s.raw)
	err = w.finish()
	if err == nil {
		err = syncFile(f)
	} else {
		f.Close()
	}
	if err == nil {
		err = os.Rename(f.Name(), filepath.Join(dir, s.name+".bits"))
	}
	if err != nil {
		return nil, err
	}
	checkedIn(dir).note(segmentFiles(dir, s.name)) // the segment was verified when opened, the codes written from it
	if c := openSignCodes(dir, s.name, s.n, s.dims); c != nil {
		return c, nil
	}
	return nil, errors.New("sign codes written but unreadable")
}

// verifySignCodes checks that c holds what s's int8 vectors give.
func verifySignCodes(c *signCodes, s *segment) error {
	var code []uint64
	var buf []float64
	for d := range s.n {
		var g float32
		code, g, buf = signCode(code[:0], s.q8[d*s.dims:(d+1)*s.dims], s.scale[d], buf)
		if math.Float32bits(g) != math.Float32bits(c.g[d]) {
			return fmt.Errorf("sign code factor of chunk %d differs from its int8 vector's", d)
		}
		for w, v := range code {
			if c.bits[d*c.words+w] != v {
				return fmt.Errorf("sign code of chunk %d differs from its int8 vector's", d)
			}
		}
	}
	return nil
}

// signQuery is a query vector prepared for signScan: quantized to 4 bits
// per dimension, as bit planes.
type signQuery struct {
	planes      []uint64 // per word w: planes[5w] all ones (the real dimensions), then bit planes 0..3
	groups      []uint64 // the same per group of 8 words: 8 words of each of the 5 planes (signSumsAVX512)
	tail        uint64   // the mask of the last group's words
	lo, delta   float32
	sumQ        float32 // Σ of the quantized query
	words, dims int
}

func newSignQuery(query []float32) *signQuery {
	v := make([]float64, len(query))
	for i, x := range query {
		v[i] = float64(x)
	}
	rotationFor(len(v)).apply(v)
	q := make([]float32, len(v))
	for i, x := range v {
		q[i] = float32(x)
	}
	lo, hi := q[0], q[0]
	for _, v := range q {
		lo, hi = min(lo, v), max(hi, v)
	}
	words := signWords(len(q))
	sq := &signQuery{planes: make([]uint64, 5*words), lo: lo, words: words, dims: len(q)}
	if hi > lo {
		sq.delta = (hi - lo) / 15
	}
	if signQueryBits == 1 {
		var a float32
		for _, v := range q {
			a += max(v, -v)
		}
		a /= float32(len(q))
		sq.lo, sq.delta = -a, 2*a/15
		lo = -a
	}
	var sumU int
	for i, v := range q {
		u := 0
		if signQueryBits == 1 {
			if v >= 0 {
				u = 15
			}
		} else if sq.delta > 0 {
			u = int((v-lo)/sq.delta + 0.5)
			u = min(max(u, 0), 15)
		}
		sumU += u
		w, bit := i>>6, uint64(1)<<(i&63)
		sq.planes[5*w] |= bit
		for j := range 4 {
			if u>>j&1 != 0 {
				sq.planes[5*w+1+j] |= bit
			}
		}
	}
	sq.sumQ = lo*float32(len(q)) + sq.delta*float32(sumU)
	ng := (words + 7) / 8
	sq.groups = make([]uint64, 40*ng)
	for w := range words {
		for j := range 5 {
			sq.groups[40*(w/8)+8*j+w%8] = sq.planes[5*w+j]
		}
	}
	sq.tail = 1<<(words-8*(ng-1)) - 1
	return sq
}

var signQueryBits = 4

// estimate returns the estimated q·o of the chunk whose code is b and
// factor g.
func (sq *signQuery) estimate(b []uint64, g float32) float32 {
	ones, sum := signPlanes(b, sq.planes)
	return sq.fromSums(ones, sum, g)
}

// fromSums is the estimate from a code's popcounts as signPlanes returns
// them.
func (sq *signQuery) fromSums(ones, sum int, g float32) float32 {
	set := sq.lo*float32(ones) + sq.delta*float32(sum)
	return g * (2*set - sq.sumQ)
}

// signSums sets, for each chunk i < len(out) whose code is
// codes[i*sq.words:(i+1)*sq.words], out[i] = ones | sum<<32 with ones and
// sum as signPlanes returns them: a block of a scan in one call. On amd64
// with AVX-512's VPOPCNTDQ it is replaced by an assembly version
// (dot_amd64.go), about five times faster than POPCNT a word at a time.
var signSums = signSumsGo

// signSumsKernels is every version of signSums this CPU can run, by name
// (for tests and benchmarks).
var signSumsKernels = map[string]func(sq *signQuery, codes, out []uint64){"per-chunk": signSumsGo}

func signSumsGo(sq *signQuery, codes, out []uint64) {
	w := sq.words
	for i := range out {
		ones, sum := signPlanes(codes[i*w:(i+1)*w:(i+1)*w], sq.planes)
		out[i] = uint64(ones) | uint64(sum)<<32
	}
}

// signPlanes returns, over the words w of code, the sum of
// popcount(code[w] & planes[5w]) and the sum of Σ_j 2^j popcount(code[w]
// & planes[5w+1+j]); on amd64 with POPCNT it is replaced by an assembly
// version (dot_amd64.go).
var signPlanes = signPlanesGo

func signPlanesGo(code, planes []uint64) (ones, sum int) {
	planes = planes[:5*len(code)]
	var s0, s1, s2, s3 int
	for w, c := range code {
		p := planes[5*w : 5*w+5 : 5*w+5]
		ones += bits.OnesCount64(c & p[0])
		s0 += bits.OnesCount64(c & p[1])
		s1 += bits.OnesCount64(c & p[2])
		s2 += bits.OnesCount64(c & p[3])
		s3 += bits.OnesCount64(c & p[4])
	}
	return ones, s0 + 2*s1 + 4*s2 + 8*s3
}
