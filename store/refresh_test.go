package store

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"testing"
)

// TestRefreshCopiesUnchangedPapers changes a library of SciFact abstracts
// (papers added, replaced by a new version and deleted, through this
// process and through another) and checks after each change that the
// refreshed index copied the unchanged papers' chunks from the previous
// one and is, byte for byte, the index a build from nothing gives. After a
// reindex, nothing may be copied: the vectors are all new.
func TestRefreshCopiesUnchangedPapers(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	const dims = 8
	lib := openWithEmbedder(t, dir, dims)
	abstracts := sciFactAbstracts(t, 120)
	r := rand.New(rand.NewPCG(5, 6))
	put := func(l *Library, i, version int) {
		t.Helper()
		title, text := abstracts[i][0], abstracts[i][1]
		var cs []Chunk
		for j, part := range splitSentences(text, 1+r.IntN(3)) {
			v := make([]float32, dims)
			for k := range v {
				v[k] = float32(r.NormFloat64())
			}
			cs = append(cs, Chunk{Seq: j, Text: part, Vector: v})
		}
		if _, err := l.Put(ctx, Paper{ID: fmt.Sprintf("sf%03d", i), Version: version, Title: title}, cs); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 80 {
		put(lib, i, 1)
	}
	check := func(l *Library, step string, wantCopied bool) {
		t.Helper()
		if err := l.Refresh(ctx); err != nil {
			t.Fatal(err)
		}
		got := l.idx
		if wantCopied && got.reused == 0 || !wantCopied && got.reused != 0 {
			t.Errorf("%s: %d of %d chunks copied from the previous index", step, got.reused, got.len())
		}
		full, err := l.loadIndex(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got.raw, full.raw) {
			t.Fatalf("%s: the refreshed index differs from one built from nothing", step)
		}
		t.Logf("%s: %d of %d chunks copied", step, got.reused, got.len())
	}
	check(lib, "first build", false)

	for i := 80; i < 90; i++ { // new papers
		put(lib, i, 1)
	}
	for _, i := range []int{3, 17, 40} { // new versions, new text
		abstracts[i][1] += " A revised sentence about reward models."
		put(lib, i, 2)
	}
	for _, i := range []int{0, 55, 79} {
		if err := lib.Delete(ctx, fmt.Sprintf("sf%03d", i)); err != nil {
			t.Fatal(err)
		}
	}
	check(lib, "added, replaced and deleted", true)

	// Another process changes the library; this one's first refresh copies
	// from the sidecar that process left stale.
	other := openWithEmbedder(t, dir, dims)
	for i := 90; i < 100; i++ {
		put(other, i, 1)
	}
	put(other, 80, 3)
	fresh := openWithEmbedder(t, dir, dims)
	check(fresh, "from a stale sidecar", true)

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
	check(lib, "after a reindex", false)
}

// sciFactAbstracts returns the title and text of the first n SciFact
// abstracts.
func sciFactAbstracts(t *testing.T, n int) [][2]string {
	t.Helper()
	f, err := os.Open("../../shared/data/scifact/corpus.jsonl")
	if err != nil {
		t.Fatalf("SciFact is needed (see shared/data/README.md): %v", err)
	}
	defer f.Close()
	var out [][2]string
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for len(out) < n && sc.Scan() {
		var d struct{ Title, Text string }
		if err := json.Unmarshal(sc.Bytes(), &d); err != nil {
			t.Fatal(err)
		}
		out = append(out, [2]string{d.Title, d.Text})
	}
	if len(out) < n {
		t.Fatalf("SciFact: %d abstracts, want %d", len(out), n)
	}
	return out
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
