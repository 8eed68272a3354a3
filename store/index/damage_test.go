package index

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/papers-cli/papers/internal/leview"
	"github.com/papers-cli/papers/internal/sections"
)

// TestDamagedSegmentNeverPanics builds a real segment, then flips bytes
// in copies of its .seg file: each copy is either refused by parseSegment
// or searchable (dense and text, with feedback) without a panic; a refused
// one is what makes the store rebuild the index from the database.
func TestDamagedSegmentNeverPanics(t *testing.T) {
	ctx := context.Background()
	r := rand.New(rand.NewPCG(11, 12))
	var seg, vec, bits sections.Mem
	w := newSegmentWriter(16, &seg, &vec, &bits)
	for i := range 20 {
		for j := range 3 {
			v := make([]float32, 16)
			for k := range v {
				v[k] = float32(r.NormFloat64())
			}
			text := fmt.Sprintf("chunk %d of paper %d about reward models and agents %d", j, i, r.IntN(50))
			if err := w.add(fmt.Sprintf("p%02d", i), "Paper about planning", j, leview.Bytes(Normalized(v)), text); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := w.finish(); err != nil {
		t.Fatal(err)
	}
	good, vecs := seg.B, vec.B
	q := make([]float32, 16)
	q[0] = 1
	parsed := 0
	for n := range 3000 {
		bad := bytes.Clone(good)
		for range 1 + n%3 {
			bad[r.IntN(len(bad))] ^= byte(1 + r.IntN(255))
		}
		s, err := parseSegment("x", bad)
		if err != nil {
			continue
		}
		parsed++
		s.vecs.mem = leview.Of[float32](vecs, len(vecs)/4)
		x := newView(indexVersion{dims: s.dims}, 0, []liveSeg{{segment: s}})
		if len(q) == x.dims {
			if _, err := x.search(ctx, Normalized(q), 5, nil); err != nil && !errors.Is(err, errBadSegment) {
				t.Fatal(err)
			}
		}
		acc := make([]float64, x.len())
		terms := []string{"reward", "agent", "plan"}
		if err := x.text.Score(terms, nil, acc); err == nil && x.len() >= 2 {
			x.text.Expand([]int{0, 1}, []float64{0.5, 0.5}, terms, 5, 0)
		}
	}
	t.Logf("%d of 3000 damaged copies parsed (the damage was in vectors, postings or padding)", parsed)
}
