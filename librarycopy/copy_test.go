package librarycopy

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/papers-cli/papers/embed"
	"github.com/papers-cli/papers/ingest"
	"github.com/papers-cli/papers/internal/pgtest"
	"github.com/papers-cli/papers/internal/testmain"
	"github.com/papers-cli/papers/pgstore"
	"github.com/papers-cli/papers/store"
)

func TestMain(m *testing.M) { testmain.Main(m) }

const (
	zoteroDir = "../../shared/data/zotero/yi1699-zotero7"
	topicFile = "../../shared/data/topic/rl-for-llm-agents.jsonl"
)

// realLibrary builds a library the way papers does, from a real Zotero
// data directory (PDF full text, tags and collections, arXiv ids, DOIs,
// Zotero keys) and a research feed's topic page (dates, categories,
// authors, corpus tags), then marks it as users do: tags of their own, a
// saved paper, a followed topic with members brought by it and stored.
func realLibrary(t *testing.T) *store.Library {
	t.Helper()
	ctx := context.Background()
	dir := t.TempDir()
	rep, err := ingest.Build(ctx, dir, embed.NewLocal(), ingest.Sources{Zotero: zoteroDir, Corpora: []string{topicFile}})
	if err != nil {
		t.Fatalf("build a library from %s and %s (see shared/data/README.md): %v", zoteroDir, topicFile, err)
	}
	if len(rep.Added) < 40 {
		t.Fatalf("the library holds %d papers: the data at %s and %s is needed", len(rep.Added), zoteroDir, topicFile)
	}
	lib, err := store.Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { lib.Close() })
	ps, err := lib.List(ctx, store.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := lib.AddTags(ctx, ps[0].ID, []string{"to read", "Grant 2027"}); err != nil {
		t.Fatal(err)
	}
	if _, err := lib.Save(ctx, []string{ps[1].ID, ps[2].ID}); err != nil {
		t.Fatal(err)
	}
	if err := lib.AddTopic(ctx, store.Topic{Name: "Agents", Query: `abs:agent`, Description: "RL for LLM agents", Created: time.Now()}); err != nil {
		t.Fatal(err)
	}
	if err := lib.AddTopicMembers(ctx, "Agents", store.TopicMembers{IDs: []string{ps[0].ID, ps[3].ID, ps[4].ID}, Brought: []string{ps[3].ID}, Stored: []string{ps[4].ID}}); err != nil {
		t.Fatal(err)
	}
	if err := lib.MarkTopicUpdated(ctx, "Agents", time.Now(), time.Now().Add(-time.Hour)); err != nil {
		t.Fatal(err)
	}
	return lib
}

// rowsOf returns every row of a library, table by table, as text, each
// table's rows sorted (Dump orders only the chunks).
func rowsOf(t *testing.T, l Library) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	err := l.Dump(context.Background(), func(tb store.Table, row []any) error {
		out[tb.Name] = append(out[tb.Name], fmt.Sprintf("%#v", row))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, rows := range out {
		slices.Sort(rows)
	}
	return out
}

// A library copied to PostgreSQL and back to a directory is the library:
// every row of every table, vectors to the bit, the same counts on the
// way, and the same search results in all three.
func TestCopyToPostgresAndBack(t *testing.T) {
	ctx := context.Background()
	lib := realLibrary(t)
	pg, err := pgstore.Open(ctx, pgtest.URL(t), t.TempDir(), true)
	if err != nil {
		t.Fatal(err)
	}
	defer pg.Close()
	src, dst, err := Copy(ctx, lib, pg, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range src.Keys() {
		if src[k] == 0 {
			t.Errorf("the library has no %s: the copy of them is not tested", k)
		}
		if dst[k] != src[k] {
			t.Errorf("%s: %d copied of %d", k, dst[k], src[k])
		}
	}
	t.Logf("copied to PostgreSQL: %v", dst)
	back, err := store.Open(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer back.Close()
	if _, _, err := Copy(ctx, pg, back, nil); err != nil {
		t.Fatal(err)
	}
	want, got := rowsOf(t, lib), rowsOf(t, back)
	for _, tb := range store.Tables {
		if !slices.Equal(got[tb.Name], want[tb.Name]) {
			t.Errorf("table %s differs after the round trip: %d rows, want %d", tb.Name, len(got[tb.Name]), len(want[tb.Name]))
		}
	}
	e := embed.NewLocal()
	for _, q := range []string{"reinforcement learning for web agents", "reward model"} {
		v, err := e.EmbedQuery(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		var results [][]store.Hit
		for _, l := range []interface {
			SearchText(context.Context, string, int, store.Filter, store.Feedback) ([]store.Hit, error)
			SearchVectors(context.Context, []float32, int, store.Filter) ([]store.Hit, error)
		}{lib, back, pg} {
			text, err := l.SearchText(ctx, q, 10, store.Filter{}, store.Feedback{})
			if err != nil {
				t.Fatal(err)
			}
			dense, err := l.SearchVectors(ctx, v, 10, store.Filter{})
			if err != nil {
				t.Fatal(err)
			}
			results = append(results, append(text, dense...))
		}
		if len(results[0]) == 0 {
			t.Fatalf("%q finds nothing", q)
		}
		for i, name := range []string{"the copy back", "PostgreSQL"} {
			if ids(results[i+1]) != ids(results[0]) {
				t.Errorf("%q in %s: %s\nwant %s", q, name, ids(results[i+1]), ids(results[0]))
			}
		}
	}
	// A second copy into a library that holds papers is refused, and
	// leaves it as it was.
	if _, _, err := Copy(ctx, lib, pg, nil); !errors.Is(err, ErrNotEmpty) {
		t.Errorf("copy into a library holding papers: %v, want ErrNotEmpty", err)
	}
	if n, _ := pg.Counts(ctx); n["papers"] != src["papers"] {
		t.Errorf("after the refused copy PostgreSQL holds %d papers, want %d", n["papers"], src["papers"])
	}
}

func ids(hs []store.Hit) string {
	var s []string
	for _, h := range hs {
		s = append(s, h.ChunkID)
	}
	return fmt.Sprint(s)
}
