package index

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestQuantizedSearchIsExact checks that the int8 scan with its exact
// re-scoring returns the same top k, with the same float32 scores, as an
// exact scan of every vector, on 20k random unit vectors (where scores
// crowd together the most) and on vectors with one dominant component.
// Run it with -cpu 1 too: with one worker the candidate margin is all
// there is (with two, each worker's own top list adds to it); without the
// margin it fails.
func TestQuantizedSearchIsExact(t *testing.T) {
	const n, dims = 20000, 384
	r := rand.New(rand.NewPCG(7, 8))
	var chunks []testChunk
	var vecs []float32
	for i := range n {
		v := make([]float32, dims)
		for j := range v {
			v[j] = float32(r.NormFloat64())
		}
		if i%7 == 0 {
			v[r.IntN(dims)] *= 40 // a coarse quantisation step for the rest
		}
		v = Normalized(v)
		vecs = append(vecs, v...)
		chunks = append(chunks, testChunk{paper: fmt.Sprintf("p%05d", i/50), seq: i % 50, vec: v})
	}
	x := memIndex(t, dims, chunks)
	queries := 40
	if RaceEnabled {
		queries = 8
	}
	for qi := range queries {
		q := make([]float32, dims)
		for j := range q {
			q[j] = float32(r.NormFloat64())
		}
		q = Normalized(q)
		k := []int{10, 300}[qi%2]
		got, err := x.search(context.Background(), q, k, nil)
		if err != nil {
			t.Fatal(err)
		}
		exact := make([]scored, n)
		for i := range n {
			exact[i] = scored{dot(q, vecs[i*dims:(i+1)*dims]), int32(i)}
		}
		want := x.hits(exact, k)
		if !slices.Equal(got, want) {
			t.Fatalf("query %d, k=%d: the quantised search differs from the exact one", qi, k)
		}
	}
}
