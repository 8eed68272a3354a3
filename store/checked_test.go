package store

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/papers-cli/papers/internal/localfile/localfiletest"
)

// flipLibrary is a library of SciFact abstracts (two chunks each, random
// vectors) with a search index of several segments, a deletion file, and
// paper vectors: every kind of derived file.
func flipLibrary(t *testing.T) string {
	t.Helper()
	ctx := context.Background()
	dir := t.TempDir()
	lib := openWithEmbedder(t, dir, 32)
	r := rand.New(rand.NewPCG(27, 6))
	docs := sciFactAbstracts(t, 120)
	for batch := 0; batch < 3; batch++ { // three refreshes: three segments
		for i := batch * 40; i < (batch+1)*40; i++ {
			var cs []Chunk
			for j, part := range splitSentences(docs[i][1], 2) {
				v := make([]float32, 32)
				for k := range v {
					v[k] = float32(r.NormFloat64())
				}
				cs = append(cs, Chunk{Seq: j, Text: part, Vector: v})
			}
			if _, err := lib.Put(ctx, Paper{ID: fmt.Sprintf("sf%03d", i), Version: 1, Title: docs[i][0]}, cs); err != nil {
				t.Fatal(err)
			}
		}
		if err := lib.Refresh(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if err := lib.DeleteAll(ctx, []string{"sf005", "sf047"}); err != nil {
		t.Fatal(err)
	}
	if err := lib.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	pv, err := lib.PaperVectors(ctx)
	if err != nil {
		t.Fatal(err)
	}
	pv.Close()
	return dir
}

// answers is what searches and the paper vectors give on the library in
// dir: the hits of text and dense queries, and the papers' vectors.
func answers(t *testing.T, dir string) (string, *PaperVectors) {
	t.Helper()
	ctx := context.Background()
	lib, err := Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	defer lib.Close()
	var b strings.Builder
	for _, q := range []string{"cancer cells", "vitamin D deficiency", "protein folding", "immune response to infection"} {
		hits, err := lib.SearchText(ctx, q, 10, Filter{}, Feedback{})
		if err != nil {
			t.Fatalf("search %q: %v", q, err)
		}
		fmt.Fprintf(&b, "%q: %v\n", q, hits)
	}
	v := make([]float32, 32)
	for i := range v {
		v[i] = float32(i%5) - 2
	}
	hits, err := lib.SearchVectors(ctx, v, 10, Filter{})
	if err != nil {
		t.Fatalf("dense search: %v", err)
	}
	fmt.Fprintf(&b, "dense: %v\n", hits)
	pv, err := lib.PaperVectors(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer pv.Close()
	cp := &PaperVectors{Dims: pv.Dims, Papers: pv.Papers, vecs: slices.Clone(pv.vecs), Reused: pv.Reused, Computed: pv.Computed}
	return b.String(), cp
}

// TestFlippedByteNoticedAndRebuilt flips bytes in every file of the search
// index (commit, segments' .seg at their int8 vectors, tables and
// full-text index, .vec, deletion file) and in papers.vec: the next
// search or related notices (each file's state differs from the one
// verified, so it is verified again) and rebuilds what is damaged: the
// answers are those of the whole library, and Check finds nothing wrong
// after. Before, a flipped byte in vectors or postings was read as it was,
// and carried into the segments later ingests merged it into.
func TestFlippedByteNoticedAndRebuilt(t *testing.T) {
	pristine := flipLibrary(t)
	want, wantPV := answers(t, pristine) // also notes every file as verified
	ix := filepath.Join(pristine, IndexDir)
	entries, err := os.ReadDir(ix)
	if err != nil {
		t.Fatal(err)
	}
	var files []string
	for _, e := range entries {
		if n := e.Name(); !e.IsDir() && !strings.HasSuffix(n, ".lock") && n != "checked" {
			files = append(files, filepath.Join(IndexDir, n))
		}
	}
	files = append(files, PaperVectorsName)
	if !slices.ContainsFunc(files, func(f string) bool { return strings.HasSuffix(f, ".del") }) {
		t.Fatalf("the library has no deletion file to damage: %v", files)
	}
	r := rand.New(rand.NewPCG(6, 27))
	for _, f := range files {
		b, err := os.ReadFile(filepath.Join(pristine, f))
		if err != nil {
			t.Fatal(err)
		}
		// a byte at the start, in the middle, near the end, and one at random
		for _, at := range []int{0, 9, len(b) / 2, len(b) - 5, r.IntN(len(b))} {
			t.Run(fmt.Sprintf("%s@%d", f, at), func(t *testing.T) {
				dir := t.TempDir()
				localfiletest.CopyTree(t, pristine, dir)
				bad := slices.Clone(b)
				bad[at] ^= 0x5a
				if err := os.WriteFile(filepath.Join(dir, f), bad, 0o600); err != nil {
					t.Fatal(err)
				}
				got, gotPV := answers(t, dir)
				if got != want {
					t.Errorf("answers after the flip:\n%s\nwant:\n%s", got, want)
				}
				if !reflect.DeepEqual(gotPV.Papers, wantPV.Papers) || !slices.Equal(gotPV.vecs, wantPV.vecs) {
					t.Errorf("paper vectors after the flip differ")
				}
				if f == PaperVectorsName && gotPV.Reused > 0 {
					t.Errorf("%d paper vectors reused from a damaged file", gotPV.Reused)
				}
				lib, err := Open(context.Background(), dir)
				if err != nil {
					t.Fatal(err)
				}
				defer lib.Close()
				if err := lib.Check(context.Background()); err != nil {
					t.Errorf("Check after the next command: %v", err)
				}
			})
		}
	}
}
