package related_test

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/papers-cli/papers/embed"
	"github.com/papers-cli/papers/ingest"
	"github.com/papers-cli/papers/internal/shareddata"
	"github.com/papers-cli/papers/related"
	"github.com/papers-cli/papers/store"
)

var (
	buildOnce sync.Once
	builtDir  string
	buildErr  error
)

// topicLibrary is a library of the topic corpus (30 real abstracts of one
// feed's topic, embedded by the local embedder), built once per test
// binary and copied for each test: half the papers in topic "even", and
// four copies of real papers' vectors under other ids, which tie with them
// exactly.
func topicLibrary(t testing.TB) *store.Library {
	t.Helper()
	corpus := shareddata.Path(t, "topic", "rl-for-llm-agents.jsonl")
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "related-test-*")
		if err != nil {
			buildErr = err
			return
		}
		builtDir = dir
		buildErr = buildTopicLibrary(dir, corpus)
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	dir := t.TempDir()
	b, err := os.ReadFile(filepath.Join(builtDir, store.FileName))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, store.FileName), b, 0o600); err != nil {
		t.Fatal(err)
	}
	lib, err := store.Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { lib.Close() })
	return lib
}

func buildTopicLibrary(dir, corpus string) error {
	ctx := context.Background()
	if _, err := ingest.Build(ctx, dir, embed.NewLocal(), ingest.Sources{Corpora: []string{corpus}}); err != nil {
		return err
	}
	lib, err := store.Open(ctx, dir)
	if err != nil {
		return err
	}
	defer lib.Close()
	ps, err := lib.List(ctx, store.Filter{})
	if err != nil {
		return err
	}
	if err := lib.AddTopic(ctx, store.Topic{Name: "Even", Query: "x"}); err != nil {
		return err
	}
	var even []string
	for i, p := range ps {
		if i%2 == 0 {
			even = append(even, p.ID)
		}
	}
	if err := lib.AddToTopic(ctx, "even", even); err != nil {
		return err
	}
	for i, p := range ps[:4] {
		cs, err := lib.ChunksWithVectors(ctx, p.ID)
		if err != nil {
			return err
		}
		cp := p
		cp.ID, cp.ContentHash, cp.Title = fmt.Sprintf("copy-%d", i), "", "copy of "+p.ID
		cp.Published = p.Published.AddDate(-1, 0, 0)
		for j := range cs {
			cs[j].PaperID = ""
		}
		if _, err := lib.Put(ctx, cp, cs); err != nil {
			return err
		}
	}
	return nil
}

func TestMain(m *testing.M) {
	code := m.Run()
	if builtDir != "" {
		os.RemoveAll(builtDir)
	}
	os.Exit(code)
}

func index(t testing.TB, lib *store.Library) (*related.Index, *store.PaperVectors) {
	t.Helper()
	pv, err := lib.PaperVectors(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pv.Close() })
	x, err := related.Build(context.Background(), pv)
	if err != nil {
		t.Fatal(err)
	}
	return x, pv
}

// bruteForce ranks every paper o allows by the dot product of its vector
// with paper id's, summed in float32 in order as chromem-go does, highest
// first, ties by id.
func bruteForce(pv *store.PaperVectors, id string, o related.Options) []related.Hit {
	q := pv.Vector(pv.Index(id))
	var hits []related.Hit
	for i, p := range pv.Papers {
		if p.ID == id || o.Topic != "" && !slices.ContainsFunc(p.Topics, func(t string) bool { return strings.EqualFold(t, o.Topic) }) {
			continue
		}
		if o.Category != "" && !slices.ContainsFunc(p.Categories, func(c string) bool {
			return strings.EqualFold(c, o.Category) || strings.HasPrefix(strings.ToLower(c), strings.ToLower(o.Category)+".")
		}) {
			continue
		}
		if o.Year != 0 && (p.Published.IsZero() || p.Published.Year() != o.Year) {
			continue
		}
		if !o.Since.IsZero() && (p.Published.IsZero() || p.Published.Before(o.Since)) {
			continue
		}
		var s float32
		for d, v := range pv.Vector(i) {
			s += q[d] * v
		}
		hits = append(hits, related.Hit{ID: p.ID, Score: s})
	}
	slices.SortFunc(hits, func(a, b related.Hit) int {
		if c := cmp.Compare(b.Score, a.Score); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
	k := o.K
	if k <= 0 {
		k = related.DefaultK
	}
	return hits[:min(k, len(hits))]
}

// Related returns exactly what a brute-force scan over the same vectors
// returns, for every paper, with every filter, at every k (the ties of the
// copies included, whatever order chromem-go gives them in), in a
// chromem-go collection and, as above MaxChromem papers, by its own scan.
func TestRelatedMatchesBruteForce(t *testing.T) {
	for _, mode := range []struct {
		name string
		max  int
	}{{"chromem-go", related.MaxChromem}, {"scan", 0}} {
		t.Run(mode.name, func(t *testing.T) {
			defer func(was int) { related.MaxChromem = was }(related.MaxChromem)
			related.MaxChromem = mode.max
			relatedMatchesBruteForce(t)
		})
	}
}

func relatedMatchesBruteForce(t *testing.T) {
	lib := topicLibrary(t)
	x, pv := index(t, lib)
	if len(pv.Papers) != 34 || x.Len() != 34 {
		t.Fatalf("%d paper vectors, %d in the collection; want 34", len(pv.Papers), x.Len())
	}
	since := time.Date(2026, 5, 15, 0, 0, 0, 0, time.UTC)
	opts := []related.Options{
		{}, {K: 1}, {K: 3}, {K: 33}, {K: 100},
		{Topic: "EVEN", K: 5}, {Category: "cs.LG", K: 4}, {Category: "cs", K: 40},
		{Year: 2025, K: 3}, {Since: since, K: 6}, {Topic: "even", Since: since, Category: "cs.CL"},
		{Category: "nope"},
	}
	for round := range 3 { // chromem orders ties at random: ask more than once
		for _, p := range pv.Papers {
			for _, o := range opts {
				got, err := x.Related(context.Background(), p.ID, o)
				if err != nil {
					t.Fatal(err)
				}
				want := bruteForce(pv, p.ID, o)
				if !slices.Equal(got, want) {
					t.Fatalf("round %d: Related(%s, %+v) =\n%v\nbrute force:\n%v", round, p.ID, o, got, want)
				}
			}
		}
	}
	// The copies tie with their originals: each is the other's first.
	for i := range 4 {
		id := fmt.Sprintf("copy-%d", i)
		got, _ := x.Related(context.Background(), id, related.Options{K: 1})
		cp, err := lib.Get(context.Background(), id)
		if err != nil {
			t.Fatal(err)
		}
		orig := strings.TrimPrefix(cp.Title, "copy of ")
		if len(got) != 1 || got[0].ID != orig {
			t.Errorf("nearest of %s = %v, want its original %s", id, got, orig)
		}
	}
	if _, err := x.Related(context.Background(), "nope", related.Options{}); err == nil {
		t.Error("Related of a paper not in the library gave no error")
	}
}
