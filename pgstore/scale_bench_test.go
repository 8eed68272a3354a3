package pgstore

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/papers-cli/papers/embed"
	"github.com/papers-cli/papers/retrieve"
	"github.com/papers-cli/papers/store"
)

// BenchmarkScale compares the two stores at PAPERS_SCALE_CHUNKS chunks
// (default 100,000: the SciFact corpus 19 times over, one chunk a paper,
// the local embedder's 768 dimensions): the load in batches of 1,000
// papers (an HNSW index is built after it from approxFrom chunks on), then, in interleaved rounds,
// ingesting one paper of 40 chunks (for the embedded library with the
// search index's refresh that makes it searchable), removing it, and the
// median latency of text search (BM25 with feedback, 300 hits as hybrid
// asks), dense search (300) and a hybrid retrieval (10 passages). It runs
// once whatever -benchtime says:
//
//	go test ./pgstore -run '^$' -bench Scale -benchtime 1x -timeout 120m
func BenchmarkScale(b *testing.B) {
	n := 100000
	if v := os.Getenv("PAPERS_SCALE_CHUNKS"); v != "" {
		var err error
		if n, err = strconv.Atoi(v); err != nil {
			b.Fatalf("PAPERS_SCALE_CHUNKS=%q: %v", v, err)
		}
	}
	ctx := context.Background()
	c := sciFact(b)
	e := embed.NewLocal()
	texts, vecs := embedDocs(b, c.Docs, e)
	lib, err := store.Open(ctx, b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	defer lib.Close()
	pg, _ := openLib(b)
	for _, l := range []*store.Library{lib, pg} {
		if err := l.EnsureEmbedder(ctx, e.Name(), e.Dimensions()); err != nil {
			b.Fatal(err)
		}
	}
	var tLib, tPG time.Duration
	const batch = 1000
	for lo := 0; lo < n; lo += batch {
		var items []store.Item
		for i := lo; i < min(lo+batch, n); i++ {
			d, copyN := i%len(c.Docs), i/len(c.Docs)
			id := c.Docs[d].ID + "~" + strconv.Itoa(copyN)
			p := store.Paper{ID: id, Title: c.Docs[d].Title, Abstract: c.Docs[d].Text, Source: "jsonl"}
			cs := []store.Chunk{{Seq: 0, Text: texts[d], Vector: vecs[d]}}
			items = append(items, store.Item{Paper: p, Chunks: cs})
		}
		start := time.Now()
		if _, err := lib.PutBatch(ctx, items); err != nil {
			b.Fatal(err)
		}
		tLib += time.Since(start)
		start = time.Now()
		if _, err := pg.PutBatch(ctx, items); err != nil {
			b.Fatal(err)
		}
		tPG += time.Since(start)
	}
	start := time.Now()
	if err := lib.Refresh(ctx); err != nil {
		b.Fatal(err)
	}
	tRefresh := time.Since(start)
	start = time.Now()
	if err := pg.Refresh(ctx); err != nil { // the HNSW index, from approxFrom chunks on
		b.Fatal(err)
	}
	tIndex := time.Since(start)
	b.Logf("%d chunks loaded: embedded %v + index %v; PostgreSQL %v + refresh %v", n, tLib.Round(time.Millisecond), tRefresh.Round(time.Millisecond), tPG.Round(time.Millisecond), tIndex.Round(time.Millisecond))

	// one paper of 40 chunks
	paper := store.Paper{ID: "bench-paper", Title: "A paper of forty chunks", Source: "pdf", Pages: 12}
	var chunks []store.Chunk
	for i := range 40 {
		chunks = append(chunks, store.Chunk{Seq: i, PageStart: 1 + i/4, PageEnd: 1 + i/4, Text: texts[i], Vector: vecs[i]})
	}
	type timings struct{ put, rm, text, dense, hybrid []time.Duration }
	var tl, tp timings
	queries := c.Queries[:50]
	rounds := 7
	for r := range rounds {
		for _, side := range []struct {
			t       *timings
			put     func() error
			rm      func() error
			index   retrieve.Index
			refresh func() error
		}{
			{&tl, func() error { _, err := lib.Put(ctx, paper, chunks); return err }, func() error { return lib.Delete(ctx, paper.ID) }, lib, func() error { return lib.Refresh(ctx) }},
			{&tp, func() error { _, err := pg.Put(ctx, paper, chunks); return err }, func() error { return pg.Delete(ctx, paper.ID) }, pg, func() error { return pg.Refresh(ctx) }},
		} {
			start := time.Now()
			if err := side.put(); err != nil {
				b.Fatal(err)
			}
			if err := side.refresh(); err != nil {
				b.Fatal(err)
			}
			side.t.put = append(side.t.put, time.Since(start))
			start = time.Now()
			if err := side.rm(); err != nil {
				b.Fatal(err)
			}
			if err := side.refresh(); err != nil {
				b.Fatal(err)
			}
			side.t.rm = append(side.t.rm, time.Since(start))
			q := queries[r*len(queries)/rounds : (r+1)*len(queries)/rounds]
			ret := &retrieve.Retriever{Index: side.index, Embedder: e}
			for _, qq := range q {
				start = time.Now()
				if _, err := side.index.SearchText(ctx, qq.Text, 300, store.Filter{}, retrieve.DefaultFeedback); err != nil {
					b.Fatal(err)
				}
				side.t.text = append(side.t.text, time.Since(start))
				v, err := e.EmbedQuery(ctx, qq.Text)
				if err != nil {
					b.Fatal(err)
				}
				start = time.Now()
				if _, err := side.index.SearchVectors(ctx, v, 300, store.Filter{}); err != nil {
					b.Fatal(err)
				}
				side.t.dense = append(side.t.dense, time.Since(start))
				start = time.Now()
				if _, err := ret.Retrieve(ctx, qq.Text, retrieve.Options{}); err != nil {
					b.Fatal(err)
				}
				side.t.hybrid = append(side.t.hybrid, time.Since(start))
			}
		}
	}
	p50 := func(ds []time.Duration) time.Duration {
		s := slices.Clone(ds)
		slices.Sort(s)
		return s[len(s)/2].Round(100 * time.Microsecond)
	}
	for _, row := range []struct {
		name string
		l, p []time.Duration
	}{
		{"ingest one paper (40 chunks)", tl.put, tp.put},
		{"rm one paper", tl.rm, tp.rm},
		{"text search p50", tl.text, tp.text},
		{"dense search p50", tl.dense, tp.dense},
		{"hybrid retrieve p50", tl.hybrid, tp.hybrid},
	} {
		l, p := p50(row.l), p50(row.p)
		b.Logf("%-30s embedded %10v  PostgreSQL %10v  ratio %s", row.name, l, p, fmt.Sprintf("%.1f", float64(p)/float64(l)))
	}
}
