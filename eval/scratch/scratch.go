// Package scratch owns the scratch library of an evaluation: a library in a
// temporary directory that holds a BEIR corpus, stored through the same
// path as `papers ingest --jsonl`, searched, then removed (or kept to be
// looked at). It is apart from package eval, which only measures, so that
// the packages eval measures can use eval in their tests.
package scratch

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/papers-cli/papers/embed"
	"github.com/papers-cli/papers/eval"
	"github.com/papers-cli/papers/ingest"
	"github.com/papers-cli/papers/ingest/chunk"
	"github.com/papers-cli/papers/store"
)

// NothingStoredError is New's error for a corpus none of whose records
// could be stored (not a BEIR corpus, or the wrong file).
type NothingStoredError struct{ Corpus string }

func (e *NothingStoredError) Error() string {
	return fmt.Sprintf("no record of %s could be ingested", e.Corpus)
}

// Library is a scratch library holding a corpus. Close it; Remove it too
// unless it is to be kept.
type Library struct {
	*store.Library
	Dir    string           // the temporary directory
	Stored int              // corpus records stored
	Failed []ingest.Failure // records that could not be (the evaluation runs on the rest)
	Took   time.Duration    // the ingest's time
}

// New makes a library in a new temporary directory and stores the corpus
// in it with ingest's JSONL path (title and text of each record as its
// abstract, no PDFs), embedded by e, which is recorded as the library's
// embedder (with the dimensions it answers with). Records that fail are in
// Failed; if none was stored the error is a *NothingStoredError (with the
// library, for its Failed). On any error the directory is removed.
func New(ctx context.Context, corpus string, e embed.Embedder) (l *Library, err error) {
	dir, err := os.MkdirTemp("", "papers-eval-*")
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			os.RemoveAll(dir)
		}
	}()
	lib, err := store.Open(ctx, dir)
	if err != nil {
		return nil, fmt.Errorf("open the library at %s: %w", dir, err)
	}
	l = &Library{Library: lib, Dir: dir}
	if err := l.fill(ctx, corpus, e); err != nil {
		lib.Close()
		var none *NothingStoredError
		if errors.As(err, &none) {
			return l, err
		}
		return nil, err
	}
	return l, nil
}

func (l *Library) fill(ctx context.Context, corpus string, e embed.Embedder) error {
	dims, err := embed.Dimensions(ctx, e)
	if err != nil {
		return err
	}
	if err := l.EnsureEmbedder(ctx, e.Name(), dims); err != nil {
		return err
	}
	opts := chunk.Defaults
	if err := l.SetChunker(ctx, opts.Version()); err != nil {
		return err
	}
	in := &ingest.Ingester{Lib: l.Library, Embedder: e, Chunking: opts, AbstractsOnly: true, Workers: 2}
	start := time.Now()
	rep, err := in.JSONL(ctx, corpus)
	if err != nil {
		return fmt.Errorf("ingest %s: %w", corpus, err)
	}
	l.Took = time.Since(start)
	l.Stored = len(rep.Added) + len(rep.Updated) + len(rep.Unchanged)
	l.Failed = rep.Failed
	if l.Stored == 0 && len(l.Failed) > 0 {
		return &NothingStoredError{Corpus: corpus}
	}
	return nil
}

// Remove deletes the library's directory (after Close).
func (l *Library) Remove() error { return os.RemoveAll(l.Dir) }

// MissingJudged counts the relevant documents of the judged queries that
// lib does not hold (eval.MissingJudged), in one pass over its paper ids.
func MissingJudged(ctx context.Context, lib *store.Library, queries []eval.Query, qrels eval.Qrels) (missing, judged int, err error) {
	ps, err := lib.List(ctx, store.Filter{Brief: true})
	if err != nil {
		return 0, 0, err
	}
	have := make(map[string]bool, len(ps))
	for _, p := range ps {
		have[p.ID] = true
	}
	missing, judged = eval.MissingJudged(queries, qrels, func(id string) bool { return have[id] })
	return missing, judged, nil
}
