package library

import (
	"context"
	"errors"
	"time"

	"github.com/papers-cli/papers/internal/hint"
	"github.com/papers-cli/papers/retrieve"
	"github.com/papers-cli/papers/review"
)

// ReviewOptions tune Review; the zero value is papers review offline.
type ReviewOptions struct {
	// Model has the session's model fill the cells (an error wrapping
	// ErrNoModel when none is configured); offline otherwise, even when
	// one is: a review asks many questions.
	Model bool
	// Recompute ignores the cached cells.
	Recompute bool
	// Offset and Limit choose the rows computed and returned: the papers
	// [Offset, Offset+Limit) of the review (Limit 0: all), for the pages of
	// the MCP tool.
	Offset, Limit int
	// Progress, when set, follows the cells (review.Options.Progress).
	Progress func(review.Progress)
}

// ReviewResult is a review's table (the rows asked for) and what it
// covers.
type ReviewResult struct {
	*review.Table
	// Papers is how many papers the whole review has; More how many more
	// match its selection beyond its Max.
	Papers, More int
}

// ErrNoModel is Review's error for ReviewOptions.Model with no model
// configured.
var ErrNoModel = errors.New("a review by a model needs one, and none is configured")

// Review selects the papers of spec and fills the table of its columns
// (the rows of o.Offset and o.Limit), computing only the cells the
// library's cache lacks: what papers review, the MCP review tool and
// browse's review view do. No paper matching is a result with no rows.
// When ctx is cancelled or the model fails, the table so far is returned
// with the error (its cells done are cached).
func (s *Session) Review(ctx context.Context, spec review.Spec, o ReviewOptions) (*ReviewResult, error) {
	lib, err := s.Store(ctx)
	if err != nil {
		return nil, err
	}
	e, err := s.Embedder(ctx)
	if err != nil {
		return nil, err
	}
	r := &retrieve.Retriever{Index: lib, Embedder: e}
	var a review.Answerer = &review.Offline{Retriever: r}
	if o.Model {
		model, err := s.LLM()
		if err != nil {
			return nil, err
		}
		if model == nil {
			return nil, hint.With(ErrNoModel, "name one with --llm openai:MODEL (and OPENAI_API_KEY) or --llm ollama:MODEL, or review offline")
		}
		a = &review.Model{Retriever: r, LLM: model}
	}
	papers, more, err := review.Select(ctx, lib, r, spec, time.Now())
	if err != nil {
		return nil, err
	}
	res := &ReviewResult{Papers: len(papers), More: more}
	if o.Limit > 0 || o.Offset > 0 {
		end := len(papers)
		if o.Limit > 0 {
			end = min(end, o.Offset+o.Limit)
		}
		papers = papers[min(o.Offset, len(papers)):end]
	}
	res.Table, err = review.Build(ctx, lib, a, papers, spec.Columns, review.Options{Recompute: o.Recompute, Progress: o.Progress})
	return res, Explain(err)
}
