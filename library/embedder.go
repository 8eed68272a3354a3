package library

import (
	"context"
	"errors"

	"github.com/papers-cli/papers/embed"
	"github.com/papers-cli/papers/internal/hint"
	"github.com/papers-cli/papers/retrieve"
	"github.com/papers-cli/papers/store"
)

// Tuning sets an embedder built by ParseEmbedder for embedding a whole
// library (reindex, eval); zero fields keep the provider's defaults.
type Tuning struct {
	Dimensions  int // ask the model for vectors this long
	Batch       int // texts per request
	Concurrency int // requests in flight
}

// ParseEmbedder builds the embedder spec names ("local", "openai:MODEL",
// "ollama:MODEL"), reaching its server through the session. It needs no
// library. A spec that names none is an error the front end reports as a
// usage error.
func (s *Session) ParseEmbedder(spec string, t Tuning) (embed.Embedder, error) {
	o := s.embedOptions()
	o.Dimensions, o.BatchSize, o.Concurrency = t.Dimensions, t.Batch, t.Concurrency
	return embed.Parse(spec, o)
}

// Embedder returns the embedder the library's vectors were made with, as
// its manifest records it (local for a library with none yet), so that
// searching never needs one named. One this version cannot build is an
// error wrapping retrieve.ErrUnknownEmbedder, with the fix as its hint.
func (s *Session) Embedder(ctx context.Context) (embed.Embedder, error) {
	lib, err := s.Store(ctx)
	if err != nil {
		return nil, err
	}
	return s.LibraryEmbedder(ctx, lib)
}

// LibraryEmbedder is Embedder for a library the session did not open (a
// scratch library of papers eval): the embedder lib's vectors were made
// with, reaching its server through the session.
func (s *Session) LibraryEmbedder(ctx context.Context, lib retrieve.Library) (embed.Embedder, error) {
	e, err := retrieve.LibraryEmbedder(ctx, lib, s.embedOptions())
	return e, unknownEmbedderHint(err)
}

// UseEmbedder returns the embedder a write (or a question naming one) uses:
// e, which must be the library's (a library with no vectors yet records
// it), or, when e is nil, the library's own (local for a new library). A
// mismatch is an error wrapping store.ErrEmbedderMismatch whose hint names
// the reindex that changes it.
func (s *Session) UseEmbedder(ctx context.Context, e embed.Embedder) (embed.Embedder, error) {
	lib, err := s.Store(ctx)
	if err != nil {
		return nil, err
	}
	got, err := retrieve.UseEmbedder(ctx, lib, e, s.embedOptions())
	if errors.Is(err, store.ErrEmbedderMismatch) && e != nil {
		spec := e.Name()
		if sp, _, perr := embed.SpecOf(spec); perr == nil {
			spec = sp
		}
		return nil, hint.With(err, "run `papers reindex --embedder %s` to re-embed the library, or drop --embedder", spec)
	}
	return got, unknownEmbedderHint(err)
}

// unknownEmbedderHint names the fix for a library whose embedder this
// version cannot build.
func unknownEmbedderHint(err error) error {
	if errors.Is(err, retrieve.ErrUnknownEmbedder) && hint.Of(err) == "" {
		return hint.With(err, "run `papers reindex --embedder local` to re-embed the library with this version")
	}
	return err
}
