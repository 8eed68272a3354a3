package index

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// randomChunks returns n chunks of random unit vectors, 50 to a paper.
func randomChunks(r *rand.Rand, n, dims int) []testChunk {
	var out []testChunk
	for i := range n {
		v := make([]float32, dims)
		for j := range v {
			v[j] = float32(r.NormFloat64())
		}
		out = append(out, testChunk{paper: fmt.Sprintf("p%05d", i/50), seq: i % 50, vec: Normalized(v)})
	}
	return out
}

// TestSignEstimate checks the sign-code estimate of q·o: for q = o it is
// about 1 (the factor makes it exact but for the query's 4-bit
// quantisation), and over random pairs its error is within a few times
// RaBitQ's bound of about 1/sqrt(dims).
func TestSignEstimate(t *testing.T) {
	const dims = 768
	r := rand.New(rand.NewPCG(3, 4))
	chunks := randomChunks(r, 200, dims)
	var sumErr float64
	for i, c := range chunks {
		q8, scale := quantize(nil, c.vec)
		code, g, _ := signCode(nil, q8, scale, nil)
		self := newSignQuery(c.vec).estimate(code, g)
		if math.Abs(float64(self)-1) > 0.05 {
			t.Fatalf("chunk %d: estimate of its own similarity %.4f, want about 1", i, self)
		}
		o := chunks[(i+1)%len(chunks)].vec
		est := newSignQuery(o).estimate(code, g)
		sumErr += math.Abs(float64(est - dot(o, c.vec)))
	}
	if mean := sumErr / float64(len(chunks)); mean > 2/math.Sqrt(dims) {
		t.Fatalf("mean error of the estimate %.4f, want under %.4f", mean, 2/math.Sqrt(dims))
	}
}

// TestSignCodeSearch checks the dense search through sign codes: with as
// many candidates as chunks it returns exactly the exact search's hits,
// and with the usual number it still finds each of 40 near-duplicate
// queries' original (a stored vector plus noise) first; a segment without
// codes (written before them) is scanned exactly beside those with codes.
func TestSignCodeSearch(t *testing.T) {
	const dims = 256
	r := rand.New(rand.NewPCG(5, 6))
	all := randomChunks(r, 6000, dims)
	x := memIndex(t, dims, all[:4000], all[4000:])
	if x.segs[0].codes.Load() == nil || x.segs[1].codes.Load() == nil {
		t.Fatal("segments written without sign codes")
	}
	defer func(a int, c func(int) int) { approxFrom, signCandidates = a, c }(approxFrom, signCandidates)
	ctx := context.Background()
	for _, without := range []bool{false, true} {
		if without {
			x.segs[1].codes.Store(nil) // as a segment of an older index
		}
		for qi := range 20 {
			q := all[r.IntN(len(all))].vec
			n := make([]float32, dims)
			for j := range n {
				n[j] = q[j] + float32(r.NormFloat64())*0.05
			}
			q = Normalized(n)
			approxFrom = math.MaxInt
			exact, err := x.search(ctx, q, 10, nil)
			if err != nil {
				t.Fatal(err)
			}
			approxFrom, signCandidates = 0, func(int) int { return len(all) }
			wide, err := x.search(ctx, q, 10, nil)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(wide, exact) {
				t.Fatalf("query %d: with every chunk a candidate, the sign-code search differs from the exact one", qi)
			}
			signCandidates = func(kc int) int { return max(kc, 64) }
			narrow, err := x.search(ctx, q, 10, nil)
			if err != nil {
				t.Fatal(err)
			}
			if narrow[0] != exact[0] {
				t.Fatalf("query %d (codes of one segment removed: %v): first hit %+v, want %+v", qi, without, narrow[0], exact[0])
			}
		}
	}
}

func BenchmarkSignCode(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	q := make([]int8, 768)
	for i := range q {
		q[i] = int8(r.IntN(255) - 127)
	}
	var code []uint64
	var buf []float64
	for b.Loop() {
		code, _, buf = signCode(code[:0], q, 0.01, buf)
	}
}

// randomScan is the benchmarks' input: n random sign codes of 768
// dimensions (12 words each) and a random query's planes.
func randomScan(n int) ([]uint64, *signQuery) {
	r := rand.New(rand.NewPCG(1, 2))
	codes := make([]uint64, n*12)
	for i := range codes {
		codes[i] = r.Uint64()
	}
	q := make([]float32, 768)
	for i := range q {
		q[i] = float32(r.NormFloat64())
	}
	return codes, newSignQuery(Normalized(q))
}

func BenchmarkSignEstimate(b *testing.B) {
	const n = 100000
	codes, sq := randomScan(n)
	var sink float32
	for b.Loop() {
		for i := range n {
			sink += sq.estimate(codes[i*12:(i+1)*12:(i+1)*12], 1)
		}
	}
	_ = sink
}

// TestSignSumsMatchesPortable checks every signSums kernel the CPU can
// run (POPCNT, AVX-512) against signPlanesGo chunk by chunk, for lengths that fill 8-word
// groups or not, codes with padding bits set (a damaged file: the mask
// plane must still apply) and blocks of 0 to 40 chunks.
func TestSignSumsMatchesPortable(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for _, dims := range []int{1, 63, 64, 100, 384, 512, 513, 768, 1000, 1024, 1536, 3072} {
		q := make([]float32, dims)
		for i := range q {
			q[i] = float32(r.NormFloat64())
		}
		sq := newSignQuery(Normalized(q))
		w := signWords(dims)
		for _, n := range []int{0, 1, 2, 7, 40} {
			codes := make([]uint64, n*w+3)
			for i := range codes {
				codes[i] = r.Uint64()
			}
			for name, f := range signSumsKernels {
				out := make([]uint64, n)
				f(sq, codes, out)
				for i := range n {
					ones, sum := signPlanesGo(codes[i*w:(i+1)*w], sq.planes)
					if want := uint64(ones) | uint64(sum)<<32; out[i] != want {
						t.Fatalf("%s, dims %d, chunk %d of %d: %#x, want %#x", name, dims, i, n, out[i], want)
					}
				}
			}
		}
	}
}

// BenchmarkSignSums: the popcounts of a sign-code scan of 1M chunks of
// 768 dimensions (96 MB of codes, from memory), with each kernel the CPU
// can run (signSumsKernels).
func BenchmarkSignSums(b *testing.B) {
	const n = 1000000
	codes, sq := randomScan(n)
	out := make([]uint64, 512)
	for name, f := range signSumsKernels {
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				for i := 0; i < n; i += 512 {
					f(sq, codes[i*12:], out[:min(512, n-i)])
				}
			}
		})
	}
}

// TestSignScanBlocksAreExact checks that the sign-code pass, which takes
// its popcounts a block of chunks at a time (signSums, AVX-512 where the
// CPU has it), hands on exactly the candidates that the estimate of one
// chunk at a time (signSumsGo: signPlanes per chunk) gives: with deleted
// chunks, a filter and few candidates (so that the pass decides), the
// hits are equal, scores included, for k = 10 and 300.
func TestSignScanBlocksAreExact(t *testing.T) {
	const dims = 768
	r := rand.New(rand.NewPCG(9, 10))
	all := randomChunks(r, 3000, dims)
	x := memIndex(t, dims, all[:1700], all[1700:])
	var dels []uint32
	for d := range 1700 {
		if d%7 == 3 {
			dels = append(dels, uint32(d))
		}
	}
	del, err := x.segs[0].text.Delete(nil, dels)
	if err != nil {
		t.Fatal(err)
	}
	x.segs[0].del = del
	allowed := make(selection, 2)
	for s, seg := range x.segs {
		allowed[s] = make([]bool, seg.papers())
		for p := range allowed[s] {
			allowed[s][p] = p%3 != 1
		}
	}
	defer func(a int, c func(int) int, f func(*signQuery, []uint64, []uint64)) {
		approxFrom, signCandidates, signSums = a, c, f
	}(approxFrom, signCandidates, signSums)
	approxFrom = 0
	signCandidates = func(kc int) int { return kc + 100 }
	ctx := context.Background()
	fast := signSums
	for qi := range 10 {
		q := Normalized(randomUnit(r, dims))
		for _, k := range []int{10, 300} {
			for _, sel := range []selection{nil, allowed} {
				signSums = signSumsGo
				want, err := x.search(ctx, q, k, sel)
				if err != nil {
					t.Fatal(err)
				}
				signSums = fast
				got, err := x.search(ctx, q, k, sel)
				if err != nil {
					t.Fatal(err)
				}
				if len(want) != k || !slices.Equal(got, want) {
					t.Fatalf("query %d, k=%d, filtered %v: %d hits, %d per chunk; they differ", qi, k, sel != nil, len(got), len(want))
				}
			}
		}
	}
}

// TestEstimatesKeepTheBest checks the selection of the sign-code pass
// against a sort of everything offered: the same n estimates, for streams
// with many equal scores, ascending and descending ones, and n from 1 to
// more than were offered.
func TestEstimatesKeepTheBest(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	for trial := range 200 {
		m := r.IntN(3000)
		all := make([]scored, m)
		for i := range all {
			var s float32
			switch trial % 4 {
			case 0:
				s = float32(r.NormFloat64())
			case 1:
				s = float32(r.IntN(5)) // ties, broken by chunk
			case 2:
				s = float32(i)
			case 3:
				s = -float32(i)
			}
			all[i] = scored{s, int32(i)}
		}
		n := 1 + r.IntN(m+10)
		e := estimates{n: n}
		for _, s := range all {
			e.offer(s)
		}
		got := slices.Clone(e.kept())
		want := slices.Clone(all)
		order := func(a, b scored) int {
			if worse(b, a) {
				return -1
			}
			if worse(a, b) {
				return 1
			}
			return 0
		}
		slices.SortFunc(want, order)
		want = want[:min(n, m)]
		slices.SortFunc(got, order)
		if !slices.Equal(got, want) {
			t.Fatalf("trial %d: %d offered, best %d: kept %d, differ from the sorted best", trial, m, n, len(got))
		}
	}
}
