package store

import (
	"testing"

	"github.com/papers-cli/papers/internal/leview"
)

// testChunk is a chunk for memSegment.
type testChunk struct {
	paper, title string
	seq          int
	vec          []float32
	text         string
}

// memSegment builds an in-memory segment of chunks, given in (paper, seq)
// order, as a refresh that cannot write the index directory does.
func memSegment(t testing.TB, dims int, chunks []testChunk) *segment {
	t.Helper()
	d, err := segSink{mem: true}.create()
	if err != nil {
		t.Fatal(err)
	}
	w := newSegmentWriter(dims, d.seg, d.vec)
	for _, c := range chunks {
		if err := w.add(c.paper, c.title, c.seq, leview.Bytes(c.vec), c.text); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.finish(); err != nil {
		t.Fatal(err)
	}
	s, err := d.done()
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// memIndex is a view of one in-memory segment per list of chunks.
func memIndex(t testing.TB, dims int, segs ...[]testChunk) *searchIndex {
	t.Helper()
	var live []liveSeg
	for _, cs := range segs {
		live = append(live, liveSeg{segment: memSegment(t, dims, cs)})
	}
	return newView(indexVersion{dims: dims}, 0, live)
}
