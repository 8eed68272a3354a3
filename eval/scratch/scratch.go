// Package scratch owns the scratch library of an evaluation: a library in a
// temporary directory that holds a BEIR corpus or a question set's PDFs,
// stored through the same path as `papers ingest` (the library session's
// Ingest), searched, then removed (or kept to be looked at). It is apart
// from package eval, which only measures, so that the packages eval
// measures can use eval in their tests.
package scratch

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/papers-cli/papers/embed"
	"github.com/papers-cli/papers/eval"
	"github.com/papers-cli/papers/ingest"
	"github.com/papers-cli/papers/library"
	"github.com/papers-cli/papers/store"
)

// NothingStoredError is New's error for sources none of whose records
// could be stored (not a BEIR corpus, or the wrong file); Corpus names them.
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

// New makes a library in a new temporary directory and stores src in it
// as papers ingest does (a corpus's records as title+abstract chunks, PDFs
// with their full text, the default chunker), embedded by e, which is
// recorded as the library's embedder (with the dimensions it answers with). Records that fail are in
// Failed; if none was stored the error is a *NothingStoredError (with the
// library, for its Failed). On any error the directory is removed.
func New(ctx context.Context, src ingest.Sources, e embed.Embedder) (l *Library, err error) {
	dir, err := os.MkdirTemp("", "papers-eval-*")
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			os.RemoveAll(dir)
		}
	}()
	start := time.Now()
	ses := library.New(library.Config{Dir: dir})
	rep, err := ses.Ingest(ctx, ingest.Sources{PDFs: src.PDFs, Corpora: src.Corpora, Zotero: src.Zotero},
		library.IngestOptions{WriteOptions: library.WriteOptions{Embedder: e}})
	if err != nil {
		ses.Close()
		return nil, err
	}
	lib, err := ses.Store(ctx) // closed by the Library's Close
	if err != nil {
		return nil, fmt.Errorf("open the library at %s: %w", dir, err)
	}
	l = &Library{Library: lib, Dir: dir, Took: time.Since(start), Failed: rep.Failed,
		Stored: len(rep.Added) + len(rep.Updated) + len(rep.Unchanged)}
	if l.Stored == 0 && len(l.Failed) > 0 {
		lib.Close()
		return l, &NothingStoredError{Corpus: strings.Join(append(slices.Clone(src.PDFs), src.Corpora...), ", ")}
	}
	return l, nil
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
