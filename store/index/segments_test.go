package index

import (
	"slices"
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
	w := newSegmentWriter(dims, d.seg, d.vec, d.bits)
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
func memIndex(t testing.TB, dims int, segs ...[]testChunk) *View {
	t.Helper()
	var live []liveSeg
	for _, cs := range segs {
		live = append(live, liveSeg{segment: memSegment(t, dims, cs)})
	}
	return newView(indexVersion{dims: dims}, 0, live)
}

// TestMergePolicy: segments merge mergeFactor at a time within a size
// level, the lowest full level first, and a segment more than 30% deleted
// is rewritten alone.
func TestMergePolicy(t *testing.T) {
	view := func(sizes ...int) *View {
		x := &View{}
		for _, n := range sizes {
			x.segs = append(x.segs, liveSeg{segment: &segment{n: n}})
		}
		return x
	}
	for _, c := range []struct {
		name  string
		sizes []int
		want  []int
	}{
		{"nothing to do", []int{500000, 60000, 60000, 3000, 10}, nil},
		{"ten small ones", []int{500000, 1, 2, 3, 4, 5, 6, 7, 8, 9, 999}, []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}},
		{"the lowest full level first", []int{
			20000, 20000, 20000, 20000, 20000, 20000, 20000, 20000, 20000, 20000,
			5, 5, 5, 5, 5, 5, 5, 5, 5, 5}, []int{10, 11, 12, 13, 14, 15, 16, 17, 18, 19}},
		{"floor and levels", []int{1000, 9999, 10000, 99999}, nil},
	} {
		if got := pickMerge(view(c.sizes...)); !slices.Equal(got, c.want) {
			t.Errorf("%s: pickMerge = %v, want %v", c.name, got, c.want)
		}
	}
	x := view(200000, 5000)
	s := memSegment(t, 4, []testChunk{{paper: "a", vec: []float32{1, 0, 0, 0}}, {paper: "b", vec: []float32{0, 1, 0, 0}}, {paper: "c", vec: []float32{0, 0, 1, 0}}})
	del, err := s.text.Delete(nil, []uint32{0})
	if err != nil {
		t.Fatal(err)
	}
	x.segs = append(x.segs, liveSeg{segment: s, del: del})
	if got := pickMerge(x); !slices.Equal(got, []int{2}) {
		t.Errorf("a third deleted: pickMerge = %v, want [2]", got)
	}
	if level(1) != 0 || level(9999) != 0 || level(10000) != 1 || level(999999) != 2 || level(1000000) != 3 {
		t.Errorf("levels: %d %d %d %d %d", level(1), level(9999), level(10000), level(999999), level(1000000))
	}
}
