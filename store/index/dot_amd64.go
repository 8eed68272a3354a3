package index

import "golang.org/x/sys/cpu"

// dotAVX2 is dot with 256-bit fused multiply-adds (dot_amd64.s): about 8x
// the scalar loop, which makes the 100k-chunk scan fit the 20 ms budget.
//
//go:noescape
func dotAVX2(a, b []float32) float32

// dotI8AVX2 is dotI8 over the first len(a) elements, len(a) a multiple of
// 8, with 256-bit sign extensions, conversions and fused multiply-adds.
//
//go:noescape
func dotI8AVX2(a []float32, b []int8) float32

// signPlanesPOPCNT is signPlanes with the POPCNT instruction
// (signdot_amd64.s); len(planes) >= 5*len(code).
//
//go:noescape
func signPlanesPOPCNT(code, planes []uint64) (ones, sum int)

// signSumsPOPCNT is signSums with POPCNT a word at a time
// (signdot_amd64.s), a block of chunks per call, the codes prefetched.
//
//go:noescape
func signSumsPOPCNT(codes []uint64, words int, planes []uint64, out []uint64)

// signSumsAVX512 is signSums with 512-bit popcounts (signsums_amd64.s):
// eight words of a code at once, for a block of chunks per call.
//
//go:noescape
func signSumsAVX512(codes []uint64, words, groups int, tail uint64, planes []uint64, out []uint64)

func init() {
	if cpu.X86.HasPOPCNT {
		signPlanes = func(code, planes []uint64) (int, int) { return signPlanesPOPCNT(code, planes[:5*len(code)]) }
		signSums = func(sq *signQuery, codes, out []uint64) {
			if len(out) == 0 || sq.words == 0 {
				signSumsGo(sq, codes, out)
				return
			}
			_ = codes[len(out)*sq.words-1]
			signSumsPOPCNT(codes, sq.words, sq.planes[:5*sq.words], out)
		}
		signSumsKernels["POPCNT"] = signSums
	}
	if cpu.X86.HasAVX512F && cpu.X86.HasAVX512VPOPCNTDQ {
		signSums = func(sq *signQuery, codes, out []uint64) {
			if len(out) == 0 {
				return
			}
			_ = codes[len(out)*sq.words-1]
			signSumsAVX512(codes, sq.words, len(sq.groups)/40, sq.tail, sq.groups, out)
		}
		signSumsKernels["AVX-512"] = signSums
	}
	if cpu.X86.HasAVX2 && cpu.X86.HasFMA {
		dot = func(a, b []float32) float32 { return dotAVX2(a, b[:len(a)]) }
		dotI8 = func(a []float32, b []int8) float32 {
			b = b[:len(a)]
			n := len(a) &^ 7
			s := dotI8AVX2(a[:n], b[:n])
			for i := n; i < len(a); i++ {
				s += a[i] * float32(b[i])
			}
			return s
		}
	}
}
