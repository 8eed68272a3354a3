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
	Name    string `json:"name,omitempty" jsonschema:"a review saved with papers review --save NAME: its papers and columns (then give no ids, columns or filters)"`
	IDs     Names  `json:"ids,omitempty" jsonschema:"papers by id (any spelling), in the rows' order"`
	Columns Names  `json:"columns,omitempty" jsonschema:"the questions asked of every paper (at most 20), each 'QUESTION' or 'name: QUESTION'; a bare name such as Datasets is asked as 'What are the datasets?'"`
	Query   string `json:"query,omitempty" jsonschema:"the papers whose passages best match this search, best first"`
	Max     int    `json:"max,omitempty" jsonschema:"most papers in the review (default 50)"`
	Mode    string `json:"mode,omitempty" jsonschema:"offline (default: each paper asked as ask does, no model) or model (the server's configured model fills each cell; its quotes are checked against the paper)"`
	Offset  int    `json:"offset,omitempty" jsonschema:"the first row (paper) to return, from 0: continue with next_offset"`
	Limit   int    `json:"limit,omitempty" jsonschema:"rows per call (default 10, at most 50)"`
	Filtered
}

type reviewOut struct {
	review.Document
	Offset     int      `json:"offset" jsonschema:"the first row returned"`
	NextOffset *int     `json:"next_offset" jsonschema:"offset of the next rows; null when these are the last"`
	Papers     int      `json:"papers" jsonschema:"papers in the whole review"`
	Answerer   string   `json:"answerer" jsonschema:"what filled the cells: offline or the model, with versions"`
	Warnings   []string `json:"warnings"`
}

// review is the review tool: a literature-review table, a page of rows at
// a time; the cells of the page are computed unless the library caches
// them (as papers review does, sharing its cache).
func (s *Server) review(ctx context.Context, _ *mcp.CallToolRequest, in reviewIn) (*reviewOut, error) {
	limit := in.Limit
	if limit == 0 {
		limit = defaultReviewRows
	}
	if limit < 1 || limit > maxReviewRows || in.Offset < 0 || in.Max < 0 {
		return nil, fmt.Errorf("limit must be from 1 to %d, offset and max at least 0; got %d, %d and %d", maxReviewRows, in.Limit, in.Offset, in.Max)
	}
	lib, err := s.library(ctx, false)
	if err != nil {
		return nil, err
	}
	spec, err := s.reviewSpec(ctx, lib, in)
	if err != nil {
		return nil, err
	}
	o := library.ReviewOptions{Offset: in.Offset, Limit: limit}
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
	out := &reviewOut{Document: res.Document(), Offset: in.Offset, Papers: res.Papers, Answerer: res.Answerer, Warnings: []string{}}
	if next := in.Offset + limit; next < res.Papers {
		out.NextOffset = &next
	}
	if res.More > 0 {
		out.Warnings = append(out.Warnings, fmt.Sprintf("the review has the first %d papers; more match (raise max)", res.Papers))
	}
	out.Warnings = append(out.Warnings, res.Warnings...)
	return out, nil
}

// reviewSpec is the review in names: a saved one, or the papers and
// columns given.
func (s *Server) reviewSpec(ctx context.Context, lib *store.Library, in reviewIn) (review.Spec, error) {
	f := in.names()
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
