package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/papers-cli/papers/internal/hint"
	"github.com/papers-cli/papers/library"
	"github.com/papers-cli/papers/review"
	"github.com/papers-cli/papers/store"
)

// The review tool's rows per call: at most maxReviewRows (each row is a
// paper's cells, computed unless cached).
const (
	defaultReviewRows = 10
	maxReviewRows     = 50
)

type reviewIn struct {
	Name    string `json:"name,omitempty" jsonschema:"a saved review, alone"`
	IDs     Names  `json:"ids,omitempty" jsonschema:"papers by id"`
	Columns Names  `json:"columns,omitempty" jsonschema:"questions for every paper (at most 20)"`
	Query   string `json:"query,omitempty" jsonschema:"papers best matching this search"`
	Max     int    `json:"max,omitempty" jsonschema:"most papers (default 50)"`
	Mode    string `json:"mode,omitempty" jsonschema:"offline (default) or model"`
	Limit   int    `json:"limit,omitempty" jsonschema:"most rows a call (default 10, max 50)"`
	Filters
	Budget
}

// reviewOut is a page of a review's rows: the Document's columns and the
// rows that fit the call's budget, with the cursor of the rest.
type reviewOut struct {
	Columns    []string        `json:"columns"`
	Rows       []review.DocRow `json:"rows"`
	Papers     int             `json:"papers"`   // papers in the whole review
	Answerer   string          `json:"answerer"` // what filled the cells: offline or the model, with versions
	Warnings   []string        `json:"warnings"`
	NextCursor string          `json:"next_cursor,omitempty"`
}

// review is the review tool: a literature-review table, a page of rows at
// a time; the cells of the page are computed unless the library caches
// them (as papers review does, sharing its cache).
func (s *Server) review(ctx context.Context, _ *mcp.CallToolRequest, in reviewIn) (*reviewOut, error) {
	b := in.Budget
	in.Budget = Budget{}
	budget, at, err := b.start("review", in, defaultBudget)
	if err != nil {
		return nil, err
	}
	limit := in.Limit
	if limit == 0 {
		limit = defaultReviewRows
	}
	if limit < 1 || limit > maxReviewRows || in.Max < 0 {
		return nil, fmt.Errorf("limit must be from 1 to %d and max at least 0; got %d and %d", maxReviewRows, in.Limit, in.Max)
	}
	lib, err := s.library(ctx, false)
	if err != nil {
		return nil, err
	}
	spec, err := s.reviewSpec(ctx, lib, in)
	if err != nil {
		return nil, err
	}
	o := library.ReviewOptions{Offset: at, Limit: limit}
	switch in.Mode {
	case "", "offline", "extractive":
	case "model", "llm":
		o.Model = true
	default:
		return nil, fmt.Errorf("unknown mode %q (want offline or model)", in.Mode)
	}
	res, err := s.lib.Review(ctx, spec, o)
	if err != nil {
		return nil, err
	}
	doc := res.Document()
	out := &reviewOut{Columns: doc.Columns, Papers: res.Papers, Answerer: res.Answerer, Warnings: []string{}}
	if res.More > 0 {
		out.Warnings = append(out.Warnings, fmt.Sprintf("the review has the first %d papers; more match (raise max)", res.Papers))
	}
	out.Warnings = append(out.Warnings, res.Warnings...)
	// the rows computed, at..at+limit, paged within the budget: rows left
	// out come with the next call (their cells are cached by then)
	cursorAt := func(i int) string { return makeCursor("review", in, at+i) }
	if err := page(out, &out.Rows, doc.Rows, 0, budget, &out.NextCursor, cursorAt, nil); err != nil {
		return nil, err
	}
	if out.NextCursor == "" && at+len(doc.Rows) < res.Papers {
		out.NextCursor = cursorAt(len(doc.Rows))
	}
	return out, nil
}

// reviewSpec is the review in names: a saved one, or the papers and
// columns given.
func (s *Server) reviewSpec(ctx context.Context, lib *store.Library, in reviewIn) (review.Spec, error) {
	f := in.Filters.names()
	given := len(in.IDs) > 0 || len(in.Columns) > 0 || in.Query != "" || len(f.Papers) > 0 || len(f.Topics) > 0 || len(f.Tags) > 0 ||
		f.Saved || len(f.Categories) > 0 || len(f.Authors) > 0 || f.Since != "" || f.Until != ""
	if in.Name != "" {
		if given {
			return review.Spec{}, errors.New("name a saved review alone, or give its papers and columns without a name")
		}
		sr, err := lib.Review(ctx, in.Name)
		if errors.Is(err, store.ErrNotFound) {
			return review.Spec{}, hint.With(fmt.Errorf("no saved review %q", in.Name), "papers review lists the saved reviews; or give ids and columns")
		}
		if err != nil {
			return review.Spec{}, err
		}
		spec, err := review.Decode(sr.Spec)
		if err != nil {
			return spec, err
		}
		if in.Max > 0 {
			spec.Max = in.Max
		}
		return spec, nil
	}
	spec := review.Spec{Papers: append(append([]string(nil), in.IDs...), f.Papers...), Topics: f.Topics, Tags: f.Tags, Saved: f.Saved,
		Categories: f.Categories, Authors: f.Authors, Since: f.Since, Until: f.Until, Query: strings.TrimSpace(in.Query), Max: in.Max}
	for _, q := range in.Columns {
		c, err := review.ParseColumn(q)
		if err != nil {
			return spec, err
		}
		spec.Columns = append(spec.Columns, c)
	}
	if len(spec.Columns) == 0 {
		return spec, hint.With(errors.New("no columns: a review asks every paper the questions given as columns"),
			`give columns, e.g. ["What problem does it address?", "What method does it propose?"]`)
	}
	var err error
	spec.Columns, err = review.CheckColumns(spec.Columns)
	return spec, err
}
