package store

import "golang.org/x/sys/cpu"

// dotAVX2 is dot with 256-bit fused multiply-adds (dot_amd64.s): about 8x
// the scalar loop, which makes the 100k-chunk scan fit the 20 ms budget.
//
//go:noescape
func dotAVX2(a, b []float32) float32

func init() {
	if cpu.X86.HasAVX2 && cpu.X86.HasFMA {
		dot = func(a, b []float32) float32 { return dotAVX2(a, b[:len(a)]) }
	}
}
