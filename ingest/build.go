package ingest

import (
	"context"
	"fmt"

	"github.com/papers-cli/papers/embed"
	"github.com/papers-cli/papers/ingest/chunk"
	"github.com/papers-cli/papers/store"
)

// Sources are what one ingest run (Run, Build) takes.
type Sources struct {
	// PDFs are PDF files or directories of them, ingested with their full
	// text (a path that does not exist is reported unreadable).
	PDFs []string
	// Corpora are corpus JSONL files ({"_id","title","text","metadata"}
	// per line), one title+abstract chunk per record.
	Corpora []string
	// Zotero is a Zotero data directory to import ("" for none).
	Zotero string
	// Bibs are BibTeX files, each entry a paper (see Ingester.BibTeX).
	Bibs []string
	// DOIs are DOIs to look up in Crossref (normalised, see package doi).
	DOIs []string
	// IDs are arXiv ids and URLs (a malformed one is reported as such).
	IDs []string
	// Query is an arXiv search query, newest papers first, of which Max
	// papers are taken.
	Query string
	Max   int
}

// Build ingests the local sources of src (PDFs, Corpora, Zotero, Bibs; it
// has no arXiv or Crossref client) into the library at dir (created if needed) with embedder e
// and the default chunker, through the same path as papers ingest (Run),
// and brings its search index up to date. It is the library of the tests
// and benchmarks of the packages below the library session (ask, related,
// browse), which cannot import it; front ends use library.Session.Ingest.
// It returns the merged ingest report: records that could not be ingested
// (and corpora that cannot be read) are in its Failed list, and the caller
// decides whether the rest is worth using; the error is for what stopped
// the build (a failing embedder, the context).
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
	opts := chunk.Defaults
	if err := lib.SetChunker(ctx, opts.Version()); err != nil {
		return nil, err
	}
	in := &Ingester{Lib: lib, Embedder: e, Chunking: opts, Workers: 2}
	rep, err := in.Run(ctx, Sources{PDFs: src.PDFs, Corpora: src.Corpora, Zotero: src.Zotero, Bibs: src.Bibs})
	if err != nil {
		return rep, err
	}
	if len(rep.Added)+len(rep.Updated) == 0 {
		return rep, nil // nothing to index (and nothing to evaluate)
	}
	if err := lib.Refresh(ctx); err != nil {
		return rep, err
	}
	return rep, nil
}
