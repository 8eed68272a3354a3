package fts

import (
	"bytes"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/papers-cli/papers/internal/sections"
)

// segmentCorpus returns n SciFact documents as (head, body), runs of four
// sharing a head as a paper's chunks share its title.
func segmentCorpus(t *testing.T, n int) [][2]string {
	corpus := readCorpusN(t, n)
	out := make([][2]string, n)
	for i := range corpus {
		title, body, _ := strings.Cut(corpus[i], "\n")
		if i%4 != 0 {
			title = strings.SplitN(corpus[i-i%4], "\n", 2)[0]
		}
		out[i] = [2]string{title, body}
	}
	return out
}

// testParts builds three indexes of partDocs documents each from docs and
// deletes about a fifth of each (in two rounds, the second through an
// encoded and parsed copy of the first), returning them and, per part,
// which of its documents are live.
func testParts(t *testing.T, docs [][2]string, r *rand.Rand) ([]Part, [][]bool) {
	t.Helper()
	var parts []Part
	var live [][]bool
	for p := range 3 {
		bl := NewBuilder()
		for _, d := range docs[partDocs*p : partDocs*(p+1)] {
			bl.Add(d[0], d[1])
		}
		x, err := Parse(bl.AppendBinary(nil))
		if err != nil {
			t.Fatal(err)
		}
		alive := make([]bool, x.Docs())
		for i := range alive {
			alive[i] = true
		}
		var del *Deleted
		for round := range 2 {
			var ds []uint32
			for range partDocs / 10 {
				d := uint32(r.IntN(x.Docs()))
				ds = append(ds, d, d) // twice: ignored the second time
				alive[d] = false
			}
			if del, err = x.Delete(del, ds); err != nil {
				t.Fatal(err)
			}
			if round == 0 {
				if del, err = ParseDeleted(del.AppendBinary(nil), x); err != nil {
					t.Fatal(err)
				}
			}
		}
		parts = append(parts, Part{X: x, Del: del})
		live = append(live, alive)
	}
	return parts, live
}

// partDocs is the size of each index of testParts (smaller under the race
// detector, which makes stemming ten times slower).
var partDocs = map[bool]int{false: 150, true: 60}[RaceEnabled]

// TestSetMatchesOneIndex checks that three indexes with deleted documents,
// searched as a Set, score, expand and weigh terms exactly (bit for bit)
// as one index built from their live documents alone, whether one
// goroutine scores a query or several.
func TestSetMatchesOneIndex(t *testing.T) {
	docs := segmentCorpus(t, 3*partDocs)
	r := rand.New(rand.NewPCG(1, 2))
	parts, live := testParts(t, docs, r)
	set := NewSet(parts...)
	one := NewBuilder()
	var toOne []int // set document -> document of one, or -1
	for p := range parts {
		for d, ok := range live[p] {
			toOne = append(toOne, -1)
			if ok {
				toOne[len(toOne)-1] = len(one.docLen)
				one.Add(docs[partDocs*p+d][0], docs[partDocs*p+d][1])
			}
		}
	}
	ox, err := Parse(one.AppendBinary(nil))
	if err != nil {
		t.Fatal(err)
	}
	if set.Live() != ox.Docs() || set.Docs() != 3*partDocs {
		t.Fatalf("set: %d live of %d, want %d of %d", set.Live(), set.Docs(), ox.Docs(), 3*partDocs)
	}
	queries := 60
	if RaceEnabled {
		queries = 15
	}
	for q := range queries {
		d := docs[r.IntN(len(docs))][1]
		words := strings.Fields(d)
		var query []string
		for range 2 + r.IntN(8) {
			query = append(query, words[r.IntN(len(words))])
		}
		terms := QueryTerms(strings.Join(query, " "))
		var weights []float64
		if q%2 == 1 {
			for range terms {
				weights = append(weights, 0.5+r.Float64())
			}
		}
		got, want := make([]float64, set.Docs()), make([]float64, ox.Docs())
		if q%3 == 2 { // scored by several goroutines, each over a range of documents
			parallelPostings = 1
		}
		err := set.Score(terms, weights, got)
		parallelPostings = 1 << 17
		if err != nil {
			t.Fatal(err)
		}
		if err := ox.Score(terms, weights, want); err != nil {
			t.Fatal(err)
		}
		var top []int // set documents with a score
		for g, s := range got {
			if toOne[g] < 0 {
				if s != 0 {
					t.Fatalf("query %q: deleted document %d scored %v", terms, g, s)
				}
				continue
			}
			if s != want[toOne[g]] {
				t.Fatalf("query %q: document %d scores %v in the set, %v in one index", terms, g, s, want[toOne[g]])
			}
			if s > 0 {
				top = append(top, g)
			}
		}
		for _, term := range terms {
			if a, b := set.IDF(term), ox.IDF(term); a != b {
				t.Fatalf("idf(%s): %v in the set, %v in one index", term, a, b)
			}
		}
		top = top[:min(len(top), 5)]
		if len(top) == 0 {
			continue
		}
		ws := make([]float64, len(top))
		oneDocs := make([]int, len(top))
		for i, g := range top {
			ws[i], oneDocs[i] = 1/float64(i+1), toOne[g]
		}
		ge, err := set.Expand(top, ws, terms, 20, 0.5)
		if err != nil {
			t.Fatal(err)
		}
		we, err := ox.Expand(oneDocs, ws, terms, 20, 0.5)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(ge, we) {
			t.Fatalf("Expand: %q in the set, %q in one index", ge, we)
		}
	}
	if _, err := set.Expand([]int{3 * partDocs}, []float64{1}, nil, 3, 0); err != ErrCorrupt {
		t.Errorf("Expand of a document out of range = %v, want ErrCorrupt", err)
	}
}

// TestMergeMatchesBuild merges three indexes with deleted documents into
// one, their live documents interleaved (as papers from several segments
// interleave in id order), and checks the result is byte for byte the
// index a Builder makes of the same documents in the same order; at an
// offset too. Renumberings that break Merge's contract are refused.
func TestMergeMatchesBuild(t *testing.T) {
	docs := segmentCorpus(t, 3*partDocs)
	r := rand.New(rand.NewPCG(3, 4))
	parts, live := testParts(t, docs, r)
	// Interleave the parts' live documents, each part's in its order.
	next := make([]int, len(parts))
	remap := make([][]int32, len(parts))
	for p := range parts {
		remap[p] = make([]int32, parts[p].X.Docs())
	}
	want := NewBuilder()
	for n := int32(0); ; {
		var open []int
		for p := range parts {
			for next[p] < len(live[p]) && !live[p][next[p]] {
				remap[p][next[p]] = -1
				next[p]++
			}
			if next[p] < len(live[p]) {
				open = append(open, p)
			}
		}
		if len(open) == 0 {
			break
		}
		p := open[r.IntN(len(open))]
		remap[p][next[p]] = n
		want.Add(docs[partDocs*p+next[p]][0], docs[partDocs*p+next[p]][1])
		next[p]++
		n++
	}
	enc := want.AppendBinary(nil)
	for _, off := range []int64{0, 24} {
		var m sections.Mem
		size, err := Merge(&m, off, parts, remap, nil)
		if err != nil {
			t.Fatal(err)
		}
		if size != int64(len(enc)) || !bytes.Equal(m.B[off:], enc) {
			t.Fatalf("offset %d: the merged index (%d bytes) differs from the one built (%d bytes)", off, size, len(enc))
		}
		if _, err := Parse(m.B[off:]); err != nil {
			t.Fatal(err)
		}
	}

	// Broken renumberings: a live document left out, a number used twice,
	// order reversed within a part.
	for name, edit := range map[string]func(rm [][]int32){
		"live document dropped": func(rm [][]int32) {
			for d, n := range rm[0] {
				if n >= 0 {
					rm[0][d] = -1
					return
				}
			}
		},
		"number used twice": func(rm [][]int32) {
			first := func(ns []int32) int { return slices.IndexFunc(ns, func(n int32) bool { return n >= 0 }) }
			rm[2][first(rm[2])] = rm[1][first(rm[1])]
		},
		"reversed in a part": func(rm [][]int32) {
			var at []int
			for d, n := range rm[0] {
				if n >= 0 {
					at = append(at, d)
				}
			}
			rm[0][at[0]], rm[0][at[1]] = rm[0][at[1]], rm[0][at[0]]
		},
	} {
		rm := make([][]int32, len(remap))
		for p := range remap {
			rm[p] = slices.Clone(remap[p])
		}
		edit(rm)
		if _, err := Merge(&sections.Mem{}, 0, parts, rm, nil); err == nil {
			t.Errorf("%s: Merge accepted it", name)
		}
	}
}

// TestParseDeletedRejectsDamage flips bytes of encoded deletions: each
// damaged copy is refused or parses into deletions that fit the index.
func TestParseDeletedRejectsDamage(t *testing.T) {
	docs := segmentCorpus(t, 2*partDocs)
	bl := NewBuilder()
	for _, d := range docs {
		bl.Add(d[0], d[1])
	}
	x, err := Parse(bl.AppendBinary(nil))
	if err != nil {
		t.Fatal(err)
	}
	del, err := x.Delete(nil, []uint32{3, 77, uint32(partDocs), uint32(2*partDocs - 1)})
	if err != nil {
		t.Fatal(err)
	}
	good := del.AppendBinary(nil)
	if _, err := x.Delete(nil, []uint32{uint32(2 * partDocs)}); err == nil {
		t.Error("Delete accepted a document past the end")
	}
	r := rand.New(rand.NewPCG(5, 6))
	for range 1000 {
		bad := bytes.Clone(good)
		bad[r.IntN(len(bad))] ^= byte(1 + r.IntN(255))
		d, err := ParseDeleted(bad, x)
		if err != nil {
			continue
		}
		// Whatever parsed keeps every statistic of the set non-negative:
		// the deleted documents' terms are all that could go below zero.
		s := NewSet(Part{X: x, Del: d})
		for _, tn := range d.terms {
			if s.DF(x.termAt(int(tn))) < 0 {
				t.Fatalf("term %s has a negative document frequency", x.termAt(int(tn)))
			}
		}
	}
}
