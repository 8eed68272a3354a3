package store

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"sync"
	"testing"

	"github.com/papers-cli/papers/internal/shareddata"
	"github.com/papers-cli/papers/store/fts"
	"github.com/papers-cli/papers/store/index"
)

// TestRefreshTakesInChanges changes a library of SciFact abstracts (papers
// added, replaced by a new version and deleted, through this handle and
// through another), refreshing after each change, with a merge policy
// small enough to merge every few refreshes. Each time the index must pass
// the index check and search (BM25 with feedback, dense, filtered) exactly
// as an index built from nothing, and a refresh must write only the
// changed papers. After a reindex nothing of the old index is kept.
func TestRefreshTakesInChanges(t *testing.T) {
	defer index.SetMergePolicy(3, 1)()
	ctx := context.Background()
	dir := t.TempDir()
	const dims = 8
	lib := openWithEmbedder(t, dir, dims)
	abstracts := sciFactAbstracts(t, 120)
	r := rand.New(rand.NewPCG(5, 6))
	// put stores abstracts is at version, in one transaction (fsyncs are
	// slow on a loaded machine).
	put := func(l *Library, version int, is ...int) {
		t.Helper()
		var items []Item
		for _, i := range is {
			title, text := abstracts[i][0], abstracts[i][1]
			var cs []Chunk
			for j, part := range splitSentences(text, 1+r.IntN(3)) {
				v := make([]float32, dims)
				for k := range v {
					v[k] = float32(r.NormFloat64())
				}
				cs = append(cs, Chunk{Seq: j, Text: part, Vector: v})
			}
			cats := []string{[]string{"cs.AI", "q-bio.GN"}[i%2]}
			items = append(items, Item{Paper: Paper{ID: fmt.Sprintf("sf%03d", i), Version: version, Title: title, Categories: cats}, Chunks: cs})
		}
		if _, err := l.PutBatch(ctx, items); err != nil {
			t.Fatal(err)
		}
	}
	span := func(from, to int) []int {
		var out []int
		for i := from; i < to; i++ {
			out = append(out, i)
		}
		return out
	}
	put(lib, 1, span(0, 80)...)
	commit := func(l *Library) *index.Commit {
		c, err := index.ReadCommit(filepath.Join(l.dir, IndexDir))
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	check := func(l *Library, step string, wantNew int) {
		t.Helper()
		before := commit(l)
		if err := l.Refresh(ctx); err != nil {
			t.Fatal(err)
		}
		if err := l.Check(ctx); err != nil {
			t.Fatalf("%s: %v", step, err)
		}
		after := commit(l)
		if after == nil {
			t.Fatalf("%s: no commit", step)
		}
		if wantNew >= 0 {
			// The papers written since the commit before, over the
			// segments that were not there: merges aside, the new one.
			old := map[string]bool{}
			if before != nil {
				for _, name := range before.Segments {
					old[name] = true
				}
			}
			x, err := l.acquireIndex(ctx)
			if err != nil {
				t.Fatal(err)
			}
			written := 0
			for _, s := range x.Segments() {
				if !old[s.Name] {
					written += s.Papers
				}
			}
			l.releaseIndex(x)
			if before != nil && len(after.Segments) == len(before.Segments)+1 && written != wantNew {
				t.Errorf("%s: the refresh wrote %d papers, want %d", step, written, wantNew)
			}
		}
		sameAsRebuild(t, l, step)
		t.Logf("%s: %d segments", step, len(after.Segments))
	}
	check(lib, "first build", -1)

	put(lib, 1, span(80, 90)...)         // new papers
	for _, i := range []int{3, 17, 40} { // new versions, new text
		abstracts[i][1] += " A revised sentence about reward models."
	}
	put(lib, 2, 3, 17, 40)
	for _, i := range []int{0, 55, 79} {
		if err := lib.Delete(ctx, fmt.Sprintf("sf%03d", i)); err != nil {
			t.Fatal(err)
		}
	}
	check(lib, "added, replaced and deleted", 13)
	rounds := 8 // enough refreshes to merge, twice
	if RaceEnabled {
		rounds = 4
	}
	for round := range rounds {
		put(lib, 1, 90+round)
		put(lib, 3, 5+round)
		check(lib, fmt.Sprintf("round %d", round), 2)
	}

	// Another handle changes the library; a third sees it at its first
	// search, and so does the first.
	other := openWithEmbedder(t, dir, dims)
	put(other, 1, span(100, 110)...)
	put(other, 3, 80)
	fresh := openWithEmbedder(t, dir, dims)
	sameAsRebuild(t, fresh, "a fresh handle after another's change")
	sameAsRebuild(t, lib, "the first handle after another's change")

	names := map[string]bool{}
	for _, name := range commit(lib).Segments {
		names[name] = true
	}
	err := lib.Reindex(ctx, "test/rand-8", dims, 16, func(ctx context.Context, cs []Chunk) ([][]float32, error) {
		out := make([][]float32, len(cs))
		for i := range out {
			out[i] = make([]float32, dims)
			out[i][i%dims] = 1
		}
		return out, nil
	}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	check(lib, "after a reindex", -1)
	for _, name := range commit(lib).Segments {
		if names[name] {
			t.Errorf("after a reindex, segment %s is still there", name)
		}
	}
}

// sameAsRebuild checks that l's searches agree exactly with those of an
// index built from nothing (in memory) from the library as it is.
func sameAsRebuild(t *testing.T, l *Library, step string) {
	t.Helper()
	ctx := context.Background()
	x, err := l.acquireIndex(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer l.releaseIndex(x)
	full, err := l.ix.Scratch(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer l.releaseIndex(full)
	if x.Live() != full.Live() {
		t.Fatalf("%s: %d live chunks, a rebuild %d", step, x.Live(), full.Live())
	}
	fb := Feedback{Docs: 10, Terms: 20, QueryWeight: 3, MinIDF: 0.5}
	r := rand.New(rand.NewPCG(1, 1))
	queries := []string{"reward models", "gene expression in cancer cells", "vitamin D deficiency", "protein folding", "immune response to infection"}
	if RaceEnabled {
		queries = queries[:2]
	}
	for q, query := range queries {
		terms := fts.QueryTerms(query)
		for _, f := range []Filter{{}, {Categories: []string{"q-bio"}}} {
			got, err := l.searchText(ctx, x, terms, 10, f, fb)
			if err != nil {
				t.Fatal(err)
			}
			want, err := l.searchText(ctx, full, terms, 10, f, fb)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("%s: text query %d (filter %v): %v, a rebuild %v", step, q, f, got, want)
			}
		}
		v := make([]float32, x.Dims())
		for i := range v {
			v[i] = float32(r.NormFloat64())
		}
		got, err := x.SearchVectors(ctx, index.Normalized(v), 10, nil)
		if err != nil {
			t.Fatal(err)
		}
		want, err := full.SearchVectors(ctx, index.Normalized(v), 10, nil)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%s: dense query %d: %v, a rebuild %v", step, q, got, want)
		}
	}
}

// sciFactAbstracts returns the title and text of the first n SciFact
// abstracts.
func sciFactAbstracts(t *testing.T, n int) [][2]string {
	t.Helper()
	out, err := readAbstracts(shareddata.Path(t, "scifact", "corpus.jsonl"), n)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// readAbstracts returns the title and text of the first n abstracts of the
// SciFact corpus at path.
func readAbstracts(path string, n int) ([][2]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out [][2]string
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for len(out) < n && sc.Scan() {
		var d struct{ Title, Text string }
		if err := json.Unmarshal(sc.Bytes(), &d); err != nil {
			return nil, err
		}
		out = append(out, [2]string{d.Title, d.Text})
	}
	if len(out) < n {
		return nil, fmt.Errorf("SciFact: %d abstracts, want %d", len(out), n)
	}
	return out, sc.Err()
}

// splitSentences cuts text into at most n parts at sentence ends.
func splitSentences(text string, n int) []string {
	var parts []string
	for len(parts) < n-1 {
		i := bytes.Index([]byte(text), []byte(". "))
		if i < 0 {
			break
		}
		parts = append(parts, text[:i+1])
		text = text[i+2:]
	}
	return append(parts, text)
}

// TestConcurrentSearchesShareOneRefresh: searches of one process that find
// the index behind (here: none yet) wait for the one bringing it up to
// date and share its view from disk, instead of each building the same in
// memory (the two rankings of a hybrid search at once cost 1.2 GB at 100k
// chunks that way).
func TestConcurrentSearchesShareOneRefresh(t *testing.T) {
	ctx := context.Background()
	lib := openWithEmbedder(t, t.TempDir(), 8)
	r := rand.New(rand.NewPCG(7, 8))
	var items []Item
	for i, a := range sciFactAbstracts(t, 200) {
		v := make([]float32, 8)
		for k := range v {
			v[k] = float32(r.NormFloat64())
		}
		items = append(items, Item{Paper: Paper{ID: fmt.Sprintf("sf%03d", i), Title: a[0]}, Chunks: []Chunk{{Text: a[1], Vector: v}}})
	}
	if _, err := lib.PutBatch(ctx, items); err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(filepath.Join(lib.dir, IndexDir)); err != nil {
		t.Fatal(err)
	}
	const n = 4
	views := make([]*index.View, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			views[i], errs[i] = lib.acquireIndex(ctx)
		}()
	}
	close(start)
	wg.Wait()
	for i, x := range views {
		if errs[i] != nil {
			t.Fatal(errs[i])
		}
		defer lib.releaseIndex(x)
		if x.Live() != 200 {
			t.Errorf("search %d: %d live chunks, want 200", i, x.Live())
		}
		for _, s := range x.Segments() {
			if s.Name == "" {
				t.Errorf("search %d got a view built in memory, not the refreshed index", i)
			}
		}
		if x.Gen() != views[0].Gen() {
			t.Errorf("search %d: view of commit %d, search 0: %d", i, x.Gen(), views[0].Gen())
		}
	}
}
