package pgstore

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/papers-cli/papers/embed"
	"github.com/papers-cli/papers/internal/pgtest"
	"github.com/papers-cli/papers/store"
)

// Four writers, each with its own connections as four processes on four
// machines would have, store 200 papers each, one transaction a paper,
// 50 of them the same for all four (every writer races the others on those
// ids), while a reader searches: no writer sees an error, every paper is
// there once with its chunks, and BM25's statistics count each chunk once.
// The writers take turns (the library's write lock), as on SQLite.
func TestConcurrentWriters(t *testing.T) {
	const writers, each, shared = 4, 200, 50
	ctx := context.Background()
	u := pgtest.URL(t)
	first, eng := openURL(t, u)
	e := embed.NewLocal()
	if err := first.EnsureEmbedder(ctx, e.Name(), e.Dimensions()); err != nil {
		t.Fatal(err)
	}
	c := sciFact(t)
	docs := c.Docs[:writers*(each-shared)+shared]
	texts, vecs := embedDocs(t, docs, e)
	paper := func(i int) (store.Paper, []store.Chunk) {
		d := docs[i]
		return store.Paper{ID: d.ID, Title: d.Title, Abstract: d.Text, Source: "jsonl"},
			[]store.Chunk{{Seq: 0, Text: texts[i], Vector: vecs[i]}}
	}
	var g errgroup.Group
	var searches sync.WaitGroup
	stop := make(chan struct{})
	searches.Add(1)
	go func() {
		defer searches.Done()
		for n := 0; ; n++ {
			select {
			case <-stop:
				return
			default:
			}
			if _, err := first.SearchText(ctx, c.Queries[n%len(c.Queries)].Text, 10, store.Filter{}, store.Feedback{}); err != nil {
				t.Errorf("search while writing: %v", err)
				return
			}
			time.Sleep(20 * time.Millisecond)
		}
	}()
	for w := range writers {
		s := first
		if w > 0 {
			s, _ = openURL(t, u) // its own connections: another process
		}
		g.Go(func() error {
			for j := range each {
				i := shared + w*(each-shared) + j - shared // its own papers after the shared ones
				if j < shared {
					i = (j + w*7) % shared // the shared ones, in another order per writer
				}
				p, cs := paper(i)
				if _, err := s.Put(ctx, p, cs); err != nil {
					return fmt.Errorf("writer %d, paper %s: %w", w, p.ID, err)
				}
			}
			return nil
		})
	}
	err := g.Wait()
	close(stop)
	searches.Wait()
	if err != nil {
		t.Fatal(err)
	}
	papers, chunks, err := first.Count(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if want := len(docs); papers != want || chunks != want {
		t.Errorf("after the writers: %d papers and %d chunks, want %d of each", papers, chunks, want)
	}
	checkTextStats(t, eng)
	for i := range docs {
		p, _ := paper(i)
		got, err := first.Get(ctx, p.ID)
		if err != nil || got.Chunks != 1 || got.Title != p.Title {
			t.Errorf("paper %s: %+v, %v", p.ID, got, err)
		}
	}
}
