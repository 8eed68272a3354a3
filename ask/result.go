package ask

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// ErrNotAnAnswer is ReadResult's error for a document that is not the
// --json output of papers ask.
var ErrNotAnAnswer = errors.New("not the JSON of papers ask")

// ReadResult reads a Result as papers ask --json writes it. A document that
// is not JSON, or has no question, is an error wrapping ErrNotAnAnswer.
func ReadResult(r io.Reader) (*Result, error) {
	var doc struct {
		Result
		Question *string `json:"question"` // present, even empty, in every answer
	}
	if err := json.NewDecoder(r).Decode(&doc); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrNotAnAnswer, err)
	}
	if doc.Question == nil {
		return nil, fmt.Errorf("%w: no question field", ErrNotAnAnswer)
	}
	res := doc.Result
	res.Question = *doc.Question
	return &res, nil
}

// CitedPapers returns the ids of the papers the answer cites, each once, in
// the order of their first citation.
func (r *Result) CitedPapers() []string {
	var ids []string
	seen := map[string]bool{}
	for _, c := range r.Citations {
		if c.ID != "" && !seen[c.ID] {
			seen[c.ID] = true
			ids = append(ids, c.ID)
		}
	}
	return ids
}
