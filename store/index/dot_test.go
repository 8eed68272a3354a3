package index

import (
	"math"
	"math/rand/v2"
	"testing"
)

func TestDotMatchesPortable(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{0, 1, 7, 8, 9, 31, 32, 33, 63, 64, 100, 384, 385, 768, 1536} {
		a, b := make([]float32, n), make([]float32, n+5)
		var want float64
		for i := range a {
			a[i], b[i] = float32(r.NormFloat64()), float32(r.NormFloat64())
			want += float64(a[i]) * float64(b[i])
		}
		for name, f := range map[string]func(a, b []float32) float32{"dot": dot, "dotGo": dotGo} {
			got := f(a, b[:n])
			if math.Abs(float64(got)-want) > 1e-4*math.Max(1, math.Abs(want)) {
				t.Errorf("%s n=%d: %v, want %v", name, n, got, want)
			}
		}
	}
}

func TestDotI8MatchesPortable(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for _, n := range []int{0, 1, 7, 8, 9, 31, 32, 33, 63, 64, 100, 384, 385, 768, 1536} {
		a, b := make([]float32, n), make([]int8, n+5)
		var want float64
		for i := range a {
			a[i], b[i] = float32(r.NormFloat64()), int8(r.IntN(256)-128)
			want += float64(a[i]) * float64(b[i])
		}
		for name, f := range map[string]func(a []float32, b []int8) float32{"dotI8": dotI8, "dotI8Go": dotI8Go} {
			got := f(a, b[:n])
			if math.Abs(float64(got)-want) > 1e-4*math.Max(1, math.Abs(want)) {
				t.Errorf("%s n=%d: %v, want %v", name, n, got, want)
			}
		}
	}
}
