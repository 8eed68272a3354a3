package store

import (
	"container/heap"
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"sync"
)

// Hit is one dense or lexical search result.
type Hit struct {
	ChunkID string  `json:"chunk"` // ChunkID(PaperID, Seq)
	PaperID string  `json:"id"`
	Seq     int     `json:"seq"`
	Score   float32 `json:"score"` // cosine similarity (dense) or -bm25 (text); higher is better
}

// ErrDimensions is SearchVectors' error for a query vector whose length is
// not the library's: made by another embedder than the library's, or by the
// one it had before a Reindex committed meanwhile.
var ErrDimensions = errors.New("the query vector is not of the library's embedder")

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
	idx, err := l.searchIndex(ctx)
	if err != nil {
		return nil, fmt.Errorf("search vectors: %w", err)
	}
	if k <= 0 || idx.len() == 0 {
		return nil, nil
	}
	if len(q) != idx.dims {
		return nil, fmt.Errorf("search vectors: query has %d dimensions, the library's vectors %d: %w", len(q), idx.dims, ErrDimensions)
	}
	var allowed []bool
	if !f.empty() {
		if allowed, err = l.allowedPapers(ctx, &idx.chunkTable, f); err != nil {
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
func (l *Library) allowedPapers(ctx context.Context, idx *chunkTable, f Filter) ([]bool, error) {
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
	x *chunkTable
	h []scored
}

// better orders hits: higher score first, then paper id, then seq.
func (x *chunkTable) better(a, b scored) bool {
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
// keeping its own top candidates, then merges them. The scan reads the
// int8 copies of the vectors (a quarter of the memory traffic of float32:
// the scan is memory-bound) and keeps k+k/2+64 candidates; those are then
// scored exactly with the float32 vectors and the best k returned. The int8
// scores err by about 5e-4 on unit vectors, about ten ranks where 100k
// random vectors crowd, so a chunk of the true top k is not lost in
// practice (TestQuantizedSearchIsExact, TestFlatIndexAgreesWithChromem).
func (x *searchIndex) search(ctx context.Context, q []float32, k int, allowed []bool) ([]Hit, error) {
	n := x.len()
	k = min(k, n)
	kc := min(n, k+k/2+64)
	workers := min(runtime.GOMAXPROCS(0), max(1, n/2048))
	parts := make([]topK, workers)
	var wg sync.WaitGroup
	for w := range workers {
		lo, hi := n*w/workers, n*(w+1)/workers
		t := &parts[w]
		t.x = &x.chunkTable
		t.h = make([]scored, 0, kc)
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
				s := x.scale[i] * dotI8(q, x.q8[i*d:(i+1)*d:(i+1)*d])
				t.offer(scored{s, int32(i)}, kc)
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
	d := x.dims
	for j, c := range all {
		i := int(c.i)
		all[j].score = dot(q, x.vecs[i*d:(i+1)*d:(i+1)*d])
	}
	return x.hits(all, k), nil
}

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
func (x *chunkTable) sort(candidates []scored) {
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
func (x *chunkTable) hits(candidates []scored, k int) []Hit {
	x.sort(candidates)
	candidates = candidates[:min(k, len(candidates))]
	hits := make([]Hit, len(candidates))
	for i, s := range candidates {
		pid, seq := x.papers[x.paperOf[s.i]], int(x.seqs[s.i])
		hits[i] = Hit{ChunkID: ChunkID(pid, seq), PaperID: pid, Seq: seq, Score: s.score}
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
