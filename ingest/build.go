package ingest

import (
	"context"
	"fmt"

	"github.com/papers-cli/papers/embed"
	"github.com/papers-cli/papers/ingest/chunk"
	"github.com/papers-cli/papers/store"
)

// Sources are what Build fills a library with.
type Sources struct {
	// PDFs are PDF files or directories of them, ingested with their full
	// text.
	PDFs []string
	// Corpora are corpus JSONL files ({"_id","title","text","metadata"}
	// per line), one title+abstract chunk per record.
	Corpora []string
}

// Build ingests src into the library at dir (created if needed) with
// embedder e and the default chunker, through the same path as papers
// ingest, and brings its search index up to date: the scratch libraries of
// papers eval. It returns the merged
// ingest report: records that could not be ingested are in its Failed
// list, and the caller decides whether the rest is worth evaluating; the
// error is for what stopped the build (an unreadable corpus, a failing
// embedder, the context).
func Build(ctx context.Context, dir string, e embed.Embedder, src Sources) (*Report, error) {
	lib, err := store.Open(ctx, dir)
	if err != nil {
		return nil, fmt.Errorf("open the library at %s: %w", dir, err)
	}
	defer lib.Close()
	dims, err := embed.Dimensions(ctx, e)
	if err != nil {
		return nil, err
	}
	if err := lib.EnsureEmbedder(ctx, e.Name(), dims); err != nil {
		return nil, err
	}
	opts := chunk.Options{}
	if err := lib.SetChunker(ctx, opts.Version()); err != nil {
		return nil, err
	}
	in := &Ingester{Lib: lib, Embedder: e, Chunking: opts, Workers: 2}
	rep := newReport()
	if len(src.PDFs) > 0 {
		r, err := in.Paths(ctx, src.PDFs)
		if r != nil {
			rep.Merge(r)
		}
		if err != nil {
			return rep, err
		}
	}
	for _, c := range src.Corpora {
		r, err := in.JSONL(ctx, c)
		if r != nil {
			rep.Merge(r)
		}
		if err != nil {
			return rep, fmt.Errorf("ingest %s: %w", c, err)
		}
	}
	if len(rep.Added)+len(rep.Updated) == 0 {
		return rep, nil // nothing to index (and nothing to evaluate)
	}
	if err := lib.Refresh(ctx); err != nil {
		return rep, err
	}
	return rep, nil
}
