package index

import (
	"cmp"
	"container/heap"
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"strings"
	"sync"
)

// Hit is one dense or lexical search result: a chunk of a paper and its
// score (cosine similarity for dense, -bm25 for text; higher is better).
type Hit struct {
	PaperID string
	Seq     int
	Score   float32
}

// Dims is the dimensions of the view's vectors.
func (x *View) Dims() int { return x.dims }

// Live is the number of chunks the view holds (deleted ones not counted).
func (x *View) Live() int { return x.live() }

// SearchVectors returns the k chunks whose vectors are most similar (dot
// product) to q, which must be normalised and of the view's dimensions,
// among the chunks of the papers sel allows (nil: all), best first, ties
// by (paper id, seq) ascending. k is clamped to the chunks held.
func (x *View) SearchVectors(ctx context.Context, q []float32, k int, sel Selection) ([]Hit, error) {
	if k <= 0 || x.live() == 0 {
		return nil, nil
	}
	if len(q) != x.dims {
		return nil, fmt.Errorf("query has %d dimensions, the index's vectors %d", len(q), x.dims)
	}
	return x.search(ctx, q, k, sel)
}

// Selection is the papers a filter allows: per segment of a view, per
// paper of the segment. A nil Selection allows everything.
type Selection = selection

// selection is Selection as the scans use it.
type selection [][]bool

// Select returns the selection of the papers ids (ascending) in x, and
// whether x holds any of them.
func (x *View) Select(ids []string) (Selection, bool) {
	sel := make(selection, len(x.segs))
	any := false
	for s, seg := range x.segs {
		mask := make([]bool, seg.papers())
		// Both lists ascend: one walk through each.
		for i, p := 0, 0; i < len(ids) && p < len(mask); {
			switch id := seg.paperID(p); {
			case id < ids[i]:
				p++
			case id > ids[i]:
				i++
			default:
				mask[p], any = true, true
				p++
				i++
			}
		}
		sel[s] = mask
	}
	return sel, any
}

type scored struct {
	score float32
	i     int32 // chunk of the view
}

// topK is a min-heap of the best hits so far: its root is the worst kept.
type topK struct {
	x *View
	h []scored
}

// better orders hits: higher score first, then paper id, then seq.
func (x *View) better(a, b scored) bool {
	if a.score != b.score {
		return a.score > b.score
	}
	sa, da := x.locate(int(a.i))
	sb, db := x.locate(int(b.i))
	if sa == sb {
		return da < db // a segment's chunks are in (paper id, seq) order
	}
	pa, qa := x.chunkAt(int(a.i))
	pb, qb := x.chunkAt(int(b.i))
	if pa != pb {
		return pa < pb
	}
	return qa < qb
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
	if s.score < t.h[0].score {
		return // the common case, decided without the tie-breaks
	}
	if t.x.better(s, t.h[0]) {
		t.h[0] = s
		heap.Fix(t, 0)
	}
}

// span is a run of one segment's chunks, for a scan.
type span struct{ seg, lo, hi int }

// spans cuts the view's chunks into n runs of about equal length, each
// within one segment or more.
func (x *View) spans(n int) [][]span {
	out := make([][]span, n)
	for w := range n {
		lo, hi := x.total*w/n, x.total*(w+1)/n
		for s := range x.segs {
			a, b := max(lo, x.base[s]), min(hi, x.base[s]+x.segs[s].n)
			if a < b {
				out[w] = append(out[w], span{s, a - x.base[s], b - x.base[s]})
			}
		}
	}
	return out
}

// search returns the k best (allowed, live) chunks for q, scanning the
// vectors with one goroutine per CPU, each keeping its own candidates,
// in up to three passes of decreasing width and increasing precision:
//
//  1. In a view of at least approxFrom live chunks, the segments that have
//     sign codes (signcodes.go) are scanned by their codes, an eighth of
//     the int8 vectors' bytes, and the best signCandidates(kc) estimates
//     go on. This pass is approximate: a chunk of the true top k may be
//     missed (BENCHMARKS.md gives the recall measured).
//  2. Those candidates, and every chunk of the other segments (all of
//     them in a smaller view: the search is exact there), are scored with
//     their int8 vectors, and the best kc = k+k/2+64 go on. The int8
//     scores err by about 5e-4 on unit vectors, about ten ranks where
//     100k random vectors crowd, so this pass loses no chunk of the true
//     top k in practice (TestQuantizedSearchIsExact,
//     TestFlatIndexAgreesWithChromem).
//  3. Those are scored exactly with the float32 vectors (read from the
//     segments' .vec files), and the best k returned.
func (x *View) search(ctx context.Context, q []float32, k int, allowed selection) ([]Hit, error) {
	k = min(k, x.live())
	kc := min(x.live(), k+k/2+64)
	var sq *signQuery
	nc := 0
	if x.live() >= approxFrom {
		if nc = signCandidates(kc); nc < x.live() {
			sq = newSignQuery(q)
		}
	}
	workers := min(runtime.GOMAXPROCS(0), max(1, x.total/2048))
	coarse := make([]estimates, workers) // pass 1
	fine := make([]topK, workers)        // pass 2
	var wg sync.WaitGroup
	for w, spans := range x.spans(workers) {
		c, t := &coarse[w], &fine[w]
		c.n = nc
		if sq != nil {
			c.h = candidates.get(2 * nc)
			defer candidates.put(c.h)
		}
		t.x = x
		t.h = make([]scored, 0, kc)
		wg.Add(1)
		go func() {
			defer wg.Done()
			d := x.dims
			var sums []uint64
			if sq != nil {
				sums = make([]uint64, signBlock)
			}
			for _, sp := range spans {
				seg := x.segs[sp.seg]
				base := int32(x.base[sp.seg])
				var mask []bool
				if allowed != nil {
					mask = allowed[sp.seg]
				}
				var codes *signCodes
				if sq != nil {
					codes = seg.codes.Load()
				}
				if codes != nil {
					if !c.scan(ctx, sq, codes, seg, mask, base, sp, sums) {
						return
					}
					continue
				}
				for i := sp.lo; i < sp.hi; i++ {
					if i&4095 == 0 && ctx.Err() != nil {
						return
					}
					if seg.del != nil && seg.del.Has(i) || mask != nil && !mask[seg.paperOf[i]] {
						continue
					}
					s := seg.scale[i] * dotI8(q, seg.q8[i*d:(i+1)*d:(i+1)*d])
					t.offer(scored{s, base + int32(i)}, kc)
				}
			}
		}()
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	// The best nc sign-code estimates of all the workers' are re-scored
	// with the int8 vectors, read (not mapped) in file order: mapped, each
	// of these scattered reads would fault in, and keep resident, the
	// pages around it.
	all := candidates.get(workers*nc + len(fine)*kc)
	defer candidates.put(all)
	for i := range coarse {
		all = append(all, coarse[i].kept()...)
	}
	all = best(all, nc, worse)
	slices.SortFunc(all, func(a, b scored) int { return cmp.Compare(a.i, b.i) })
	errs := make([]error, workers)
	for w := range workers {
		part := all[len(all)*w/workers : len(all)*(w+1)/workers]
		wg.Add(1)
		go func() {
			defer wg.Done()
			buf := make([]byte, x.dims)
			for j, c := range part {
				if j%1024 == 1023 && ctx.Err() != nil {
					errs[w] = ctx.Err()
					return
				}
				s, d := x.locate(int(c.i))
				seg := x.segs[s]
				v, err := seg.int8Vector(seg.codes.Load(), d, buf)
				if err != nil {
					errs[w] = err
					return
				}
				part[j].score = seg.scale[d] * dotI8(q, v)
			}
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	buf := make([]byte, 4*x.dims)
	for _, p := range fine {
		all = append(all, p.h...)
	}
	// The best kc of the int8 scores are the ones to re-score exactly.
	all = best(all, kc, func(a, b scored) bool { return x.better(b, a) })
	for j, c := range all {
		s, d := x.locate(int(c.i))
		v, err := x.segs[s].vecs.vector(d, x.dims, buf)
		if err != nil {
			return nil, err
		}
		all[j].score = dot(q, v)
	}
	return x.hits(all, k), nil
}

// candidates recycles the candidate lists of dense searches (128 KB for
// 8,192 sign-code candidates, several per search): allocated anew, they
// were most of a warm search's garbage at 1M chunks, and a collection
// every other search.
var candidates scoredPool

type scoredPool struct{ p sync.Pool }

// get returns an empty slice with room for n.
func (sp *scoredPool) get(n int) []scored {
	if v, ok := sp.p.Get().(*[]scored); ok && cap(*v) >= n {
		return (*v)[:0]
	}
	return make([]scored, 0, n)
}

func (sp *scoredPool) put(s []scored) { sp.p.Put(&s) }

// signBlock is how many chunks' popcounts signSums computes at a time.
const signBlock = 512

// scan offers the sign-code estimates of the (live, allowed) chunks of
// span sp of seg, whose codes are codes, to e; sums is scratch space of
// signBlock. It reports false if ctx was done.
func (e *estimates) scan(ctx context.Context, sq *signQuery, codes *signCodes, seg liveSeg, mask []bool, base int32, sp span, sums []uint64) bool {
	w := codes.words
	for lo := sp.lo; lo < sp.hi; lo += signBlock {
		if ctx.Err() != nil {
			return false
		}
		n := min(signBlock, sp.hi-lo)
		signSums(sq, codes.bits[lo*w:(lo+n)*w], sums[:n])
		for j, v := range sums[:n] {
			i := lo + j
			if seg.del != nil && seg.del.Has(i) || mask != nil && !mask[seg.paperOf[i]] {
				continue
			}
			s := scored{sq.fromSums(int(uint32(v)), int(v>>32), codes.g[i]), base + int32(i)}
			if e.full && !worse(e.cut, s) {
				continue // offer's common case, inline
			}
			e.offer(s)
		}
	}
	return true
}

// estimates keeps the best n sign-code estimates offered, ordered by
// score then chunk (no tie-break by paper: the pass is approximate
// anyway, and this order is as deterministic): every estimate better than
// the cut, the worst of the best n when it last chose, goes into h, and
// when h holds 2n it chooses again (a selection, linear, where a heap of
// n would sift each of them).
type estimates struct {
	h    []scored
	n    int
	cut  scored
	full bool // cut is set
}

// worse orders estimates: a is worse than b.
func worse(a, b scored) bool {
	return a.score < b.score || a.score == b.score && a.i > b.i
}

func (e *estimates) offer(s scored) {
	if e.full && !worse(e.cut, s) {
		return
	}
	e.h = append(e.h, s)
	if len(e.h) >= 2*e.n {
		e.choose()
	}
}

// choose keeps in h the best n, and sets the cut to the worst of them.
func (e *estimates) choose() {
	if len(e.h) <= e.n {
		return
	}
	e.h = best(e.h, e.n, worse)
	e.cut, e.full = e.h[e.n-1], true
}

// kept returns the best n offered, in no order.
func (e *estimates) kept() []scored {
	e.choose()
	return e.h
}

// best reorders h so that h[:n] holds its best n by worse, h[n-1] the
// worst of them, and returns h[:n] (all of h if n >= len(h)): quickselect
// with Lomuto's partition around the median of three, so each round
// places its pivot. worse must be a strict total order for the result to
// be the same as that of a sort.
func best(h []scored, n int, worse func(a, b scored) bool) []scored {
	if n >= len(h) {
		return h
	}
	lo, hi := 0, len(h)-1 // the n-1th best is in h[lo:hi+1]
	for lo < hi {
		m := lo + (hi-lo)/2
		// The median of h[lo], h[m], h[hi] to h[hi], as the pivot.
		if worse(h[lo], h[m]) {
			h[lo], h[m] = h[m], h[lo]
		}
		if worse(h[m], h[hi]) {
			h[m], h[hi] = h[hi], h[m]
			if worse(h[lo], h[m]) {
				h[lo], h[m] = h[m], h[lo]
			}
		}
		h[m], h[hi] = h[hi], h[m]
		p, j := h[hi], lo
		for i := lo; i < hi; i++ {
			if worse(p, h[i]) {
				h[i], h[j] = h[j], h[i]
				j++
			}
		}
		h[j], h[hi] = h[hi], h[j]
		switch {
		case j == n-1:
			lo = hi
		case j < n-1:
			lo = j + 1
		default:
			hi = j - 1
		}
	}
	return h[:n]
}

// approxFrom is the number of live chunks from which a dense search scans
// sign codes first (a variable for tests and benchmarks): below it the
// int8 scan is fast enough and exact.
var approxFrom = 250000

// signCandidates is how many chunks the sign-code pass hands on to the
// int8 pass when kc are wanted from it.
var signCandidates = func(kc int) int { return max(8*kc, 8192) }

// quantize appends v as int8s scaled by the largest magnitude in v, and
// returns the scale (v[i] ~ scale*float32(q[i]), rounded half away from
// zero).
func quantize(dst []int8, v []float32) ([]int8, float32) {
	var m float32
	for _, f := range v {
		m = max(m, f, -f)
	}
	if m == 0 || m != m || m > math.MaxFloat32 {
		for range v {
			dst = append(dst, 0)
		}
		return dst, 0
	}
	inv := 127 / m
	for _, f := range v {
		x := f * inv
		if x >= 0 {
			dst = append(dst, int8(x+0.5))
		} else {
			dst = append(dst, int8(x-0.5))
		}
	}
	return dst, m / 127
}

// sort orders candidates best first.
func (x *View) sort(candidates []scored) {
	slices.SortFunc(candidates, func(a, b scored) int {
		if x.better(a, b) {
			return -1
		}
		if x.better(b, a) {
			return 1
		}
		return 0
	})
}

// hits returns the best k of candidates as hits, best first.
func (x *View) hits(candidates []scored, k int) []Hit {
	x.sort(candidates)
	candidates = candidates[:min(k, len(candidates))]
	hits := make([]Hit, len(candidates))
	for i, s := range candidates {
		pid, seq := x.chunkAt(int(s.i))
		pid = strings.Clone(pid) // a view of the mapped segment
		hits[i] = Hit{PaperID: pid, Seq: seq, Score: s.score}
	}
	return hits
}

// dot is the dot product of two equally long vectors; on amd64 with AVX2
// and FMA it is replaced by an assembly version (dot_amd64.go).
var dot = dotGo

// dotI8 is the dot product of a float vector and an int8 one of the same
// length (each b[i] read as float32(b[i])); on amd64 with AVX2 and FMA it is
// replaced by an assembly version (dot_amd64.go).
var dotI8 = dotI8Go

func dotI8Go(a []float32, b []int8) float32 {
	b = b[:len(a)]
	var s0, s1, s2, s3 float32
	i := 0
	for ; i+4 <= len(a); i += 4 {
		s0 += a[i] * float32(b[i])
		s1 += a[i+1] * float32(b[i+1])
		s2 += a[i+2] * float32(b[i+2])
		s3 += a[i+3] * float32(b[i+3])
	}
	for ; i < len(a); i++ {
		s0 += a[i] * float32(b[i])
	}
	return (s0 + s1) + (s2 + s3)
}

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

// Normalized returns v scaled to unit length (a copy; v itself is not
// modified). A zero vector is returned as is.
func Normalized(v []float32) []float32 {
	var s float64
	for _, f := range v {
		s += float64(f) * float64(f)
	}
	out := make([]float32, len(v))
	copy(out, v)
	if s == 0 || math.Abs(s-1) < 1e-6 {
		return out
	}
	inv := 1 / math.Sqrt(s)
	for i := range out {
		out[i] = float32(float64(out[i]) * inv)
	}
	return out
}
