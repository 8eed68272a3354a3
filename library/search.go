package library

import (
	"context"
	"io"

	"github.com/papers-cli/papers/ask"
	"github.com/papers-cli/papers/embed"
	"github.com/papers-cli/papers/llm"
	"github.com/papers-cli/papers/related"
	"github.com/papers-cli/papers/retrieve"
	"github.com/papers-cli/papers/review"
	"github.com/papers-cli/papers/store"
)

// SearchOptions tune Search; the zero value is papers search with no flag.
type SearchOptions struct {
	// K is how many passages to return (0: SearchK).
	K int
	// Mode is the ranking ("": hybrid).
	Mode retrieve.Mode
	// PerPaper bounds the passages of one paper: nil is PerPaper, or no
	// limit when Filter names papers; 0 is no limit.
	PerPaper *int
	// Filter selects the papers searched.
	Filter store.Filter
	// DenseWeight, when set, overrides the fusion weight of the vector
	// ranking.
	DenseWeight *float64
	// NoFeedback ranks by plain BM25 (no query widening).
	NoFeedback bool
}

// Search returns the passages of the library that best match query, best
// first, and the embedder it searched the vectors with (nil in BM25
// mode): what papers search prints and the MCP search tool returns.
func (s *Session) Search(ctx context.Context, query string, o SearchOptions) ([]retrieve.Passage, embed.Embedder, error) {
	lib, err := s.Store(ctx)
	if err != nil {
		return nil, nil, err
	}
	per := PerPaper
	if o.PerPaper != nil {
		per = *o.PerPaper
	} else if len(o.Filter.IDs) > 0 {
		per = 0 // papers named: any number of passages of each
	}
	if per == 0 {
		per = -1
	}
	ps, e, err := retrieve.Search(ctx, lib, query, retrieve.SearchOptions{
		Options:     retrieve.Options{K: o.K, Mode: o.Mode, PerPaper: per, Filter: o.Filter},
		DenseWeight: o.DenseWeight,
		NoFeedback:  o.NoFeedback,
		Embed:       s.embedOptions(),
	})
	return ps, e, searchError(unknownEmbedderHint(err))
}

// AskOptions tune Ask; the zero value is papers ask with no flag.
type AskOptions struct {
	// K is how many passages the answer is given (0: ask's defaults).
	K int
	// Filter selects the papers asked.
	Filter store.Filter
	// Embedder, when set, must be the library's (papers ask --embedder);
	// nil uses the library's own.
	Embedder embed.Embedder
	// Extractive answers offline from the passages' sentences, even with
	// a model configured.
	Extractive bool
	// Quality has the model judge more passages first; it needs a model
	// (ask.ErrNeedsModel).
	Quality bool
}

// Ask answers question from the library with the session's model (none:
// an extractive answer), writing the answer for people to w as it comes
// (nil: nothing is written): what papers ask, the MCP ask tool and
// browse's ask do. It returns what ask.Ask returns.
func (s *Session) Ask(ctx context.Context, question string, o AskOptions, w io.Writer) (*ask.Result, error) {
	var model llm.LLM
	if !o.Extractive {
		var err error
		if model, err = s.LLM(); err != nil {
			return nil, err
		}
	}
	if o.Quality && model == nil {
		return nil, ask.ErrNeedsModel
	}
	lib, err := s.Store(ctx)
	if err != nil {
		return nil, err
	}
	e := o.Embedder
	if e != nil {
		e, err = s.UseEmbedder(ctx, e)
	} else {
		e, err = s.Embedder(ctx)
	}
	if err != nil {
		return nil, err
	}
	r := &retrieve.Retriever{Index: lib, Embedder: e}
	return ask.Ask(ctx, r, question, model, ask.AskOptions{K: o.K, Retrieve: retrieve.Options{Filter: o.Filter},
		Answer: AnswerOptions(o.Extractive, o.Quality)}, w)
}

// AnswerOptions are the answer options every front end and harness
// answers with: a generic question asked of one paper is answered with
// the sentence its review cell quotes (review.AnswerGeneric; on the review
// grids, `go run ./bench/review/grid -ask`, the answers hold the fact for
// 40-89% of stated cells, against 16-44% with ask's own ranking).
func AnswerOptions(extractive, quality bool) ask.Options {
	return ask.Options{Extractive: extractive, Quality: quality, Generic: review.AnswerGeneric}
}

// Related returns the papers most like paper id, with their records: what
// papers related prints. A paper without a vector is related.ErrNoVector.
func (s *Session) Related(ctx context.Context, id string, o related.Options) ([]related.Result, error) {
	lib, err := s.Store(ctx)
	if err != nil {
		return nil, err
	}
	res, err := related.Find(ctx, lib, id, o)
	return res, Explain(err)
}

// SeeAlso returns the papers most like those an answer cites, not cited
// (related.SeeAlsoK of them): the "see_also" of papers ask --json.
func (s *Session) SeeAlso(ctx context.Context, cited []string) ([]related.Result, error) {
	lib, err := s.Store(ctx)
	if err != nil {
		return nil, err
	}
	return related.SeeAlso(ctx, lib, cited, related.SeeAlsoK)
}
