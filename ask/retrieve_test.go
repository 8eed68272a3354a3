package ask

import (
	"context"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/papers-cli/papers/embed"
	"github.com/papers-cli/papers/eval"
	"github.com/papers-cli/papers/store"
)

const scifactDir = "../../shared/data/scifact"

type sciFact struct {
	docs    []eval.Doc
	queries []eval.Query
	qrels   eval.Qrels
}

func loadSciFact(t testing.TB) sciFact {
	t.Helper()
	docs, err := eval.ReadCorpus(filepath.Join(scifactDir, "corpus.jsonl"))
	if err != nil {
		t.Fatalf("the SciFact corpus is needed at %s (see shared/data/README.md): %v", scifactDir, err)
	}
	qs, err := eval.ReadQueries(filepath.Join(scifactDir, "queries.jsonl"))
	if err != nil {
		t.Fatalf("SciFact queries: %v", err)
	}
	qrels, err := eval.ReadQrels(filepath.Join(scifactDir, "qrels", "train.tsv"))
	if err != nil {
		t.Fatalf("SciFact train qrels: %v", err)
	}
	return sciFact{docs, eval.Judged(qs, qrels), qrels}
}

// sciFactLibrary stores docs in a real library in a temp dir, one paper per
// document with its title+abstract chunk, embedded by e.
func sciFactLibrary(t testing.TB, docs []eval.Doc, e embed.Embedder) *store.Library {
	t.Helper()
	ctx := context.Background()
	lib, err := store.Open(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { lib.Close() })
	if err := lib.EnsureEmbedder(ctx, e.Name(), e.Dimensions()); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	texts := make([]string, len(docs))
	for i, d := range docs {
		texts[i] = d.Title + "\n\n" + d.Text
	}
	vecs, err := e.EmbedDocuments(ctx, texts)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make(chan error, len(docs))
	sem := make(chan struct{}, 4)
	for i, d := range docs {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			p := store.Paper{ID: d.ID, Title: d.Title, Abstract: d.Text, Source: "jsonl"}
			c := store.Chunk{PaperID: d.ID, Seq: 0, Text: texts[i], Vector: vecs[i]}
			if _, err := lib.Put(ctx, p, []store.Chunk{c}); err != nil {
				errs <- err
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	t.Logf("stored %d papers in %v", len(docs), time.Since(start))
	return lib
}

// paperRanking runs Retrieve for evaluation: one passage per paper, 100.
func paperRanking(r *Retriever, mode Mode) eval.SearchFunc {
	return func(ctx context.Context, q string) ([]string, error) {
		ps, err := r.Retrieve(ctx, q, RetrieveOptions{K: 100, Mode: mode, PerPaper: 1})
		if err != nil {
			return nil, err
		}
		ids := make([]string, len(ps))
		for i, p := range ps {
			ids[i] = p.PaperID
		}
		return ids, nil
	}
}
