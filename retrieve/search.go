package retrieve

import (
	"context"
	"errors"

	"github.com/papers-cli/papers/embed"
	"github.com/papers-cli/papers/store"
)

// ErrUnknownEmbedder is LibraryEmbedder's error for a library whose
// recorded embedder this version of papers cannot build (re-embed it).
var ErrUnknownEmbedder = errors.New("unknown embedder")

// unknownEmbedder keeps embed.SpecOf's message and adds ErrUnknownEmbedder.
type unknownEmbedder struct{ err error }

func (e unknownEmbedder) Error() string   { return e.err.Error() }
func (e unknownEmbedder) Unwrap() []error { return []error{e.err, ErrUnknownEmbedder} }

// Library is what choosing an embedder needs of the library; *store.Library
// satisfies it.
type Library interface {
	Manifest(ctx context.Context) (store.Manifest, error)
	Count(ctx context.Context) (papers, chunks int, err error)
	EnsureEmbedder(ctx context.Context, name string, dims int) error
}

var _ Library = (*store.Library)(nil)

// LibraryEmbedder builds the embedder the library's vectors were made with,
// as its manifest records it, so that searching never needs --embedder. A
// library with no embedder recorded yet gets the local embedder. opts gives
// the server settings of remote embedders (its Dimensions is ignored). An
// embedder this version cannot build is an error wrapping
// ErrUnknownEmbedder.
func LibraryEmbedder(ctx context.Context, lib Library, opts embed.Options) (embed.Embedder, error) {
	m, err := lib.Manifest(ctx)
	if err != nil {
		return nil, err
	}
	if m.Embedder == "" {
		return embed.NewLocal(), nil // an empty library: nothing to match anyway
	}
	spec, dims, err := embed.SpecOf(m.Embedder)
	if err != nil {
		return nil, unknownEmbedder{err}
	}
	opts.Dimensions = dims
	opts.KnownDimensions = m.Dimensions // a model whose size is not in its name
	return embed.Parse(spec, opts)
}

// UseEmbedder returns the embedder a command uses on lib: e, which must be
// the library's (a library with no vectors yet records it; another one is
// an error wrapping store.ErrEmbedderMismatch), or, when e is nil, the one
// the library was built with (the local embedder for a library with no
// chunks yet, whatever a failed first try recorded).
func UseEmbedder(ctx context.Context, lib Library, e embed.Embedder, opts embed.Options) (embed.Embedder, error) {
	if e == nil {
		_, chunks, err := lib.Count(ctx)
		if err != nil {
			return nil, err
		}
		if chunks == 0 {
			e = embed.NewLocal()
		} else if e, err = LibraryEmbedder(ctx, lib, opts); err != nil {
			return nil, err
		}
	}
	dims := e.Dimensions()
	if dims == 0 { // a model whose size is not in its name: the manifest knows it, else ask the server
		m, err := lib.Manifest(ctx)
		if err != nil {
			return nil, err
		}
		if m.Embedder == e.Name() && m.Dimensions > 0 {
			dims = m.Dimensions
		} else if dims, err = embed.Dimensions(ctx, e); err != nil {
			return nil, err
		}
	}
	if err := lib.EnsureEmbedder(ctx, e.Name(), dims); err != nil {
		return nil, err
	}
	return e, nil
}

// SearchOptions tunes Search.
type SearchOptions struct {
	Options
	// DenseWeight, when set, overrides the fusion weight FusionFor gives
	// the library's embedder.
	DenseWeight *float64
	// NoFeedback searches with plain BM25 (no query widening).
	NoFeedback bool
	// Embed gives the server settings of the library's embedder.
	Embed embed.Options
}

// Search retrieves the passages of lib that best match query with the
// embedder the library was built with (none in BM25 mode: the returned
// embedder is then nil). A reindex that commits between reading the
// library's embedder and searching its vectors leaves a query vector of the
// old embedder (store.ErrDimensions): the embedder is read again, once.
func Search(ctx context.Context, lib *store.Library, query string, o SearchOptions) ([]Passage, embed.Embedder, error) {
	for attempt := 0; ; attempt++ {
		var e embed.Embedder
		if o.Mode != BM25 {
			var err error
			if e, err = LibraryEmbedder(ctx, lib, o.Embed); err != nil {
				return nil, nil, err
			}
		}
		ps, err := o.Retriever(lib, e).Retrieve(ctx, query, o.Options)
		if err == nil || attempt > 0 || !errors.Is(err, store.ErrDimensions) {
			return ps, e, err
		}
	}
}

// Retriever returns the retriever of index whose vectors e made, ranking as
// o says.
func (o SearchOptions) Retriever(index Index, e embed.Embedder) *Retriever {
	fu := FusionFor(e)
	if o.DenseWeight != nil {
		fu.DenseWeight = *o.DenseWeight
	}
	r := &Retriever{Index: index, Embedder: e, Fusion: fu}
	if o.NoFeedback {
		r.Feedback = &store.Feedback{}
	}
	return r
}
