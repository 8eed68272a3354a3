package review

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/papers-cli/papers/internal/lazyre"
	"github.com/papers-cli/papers/resolve"
	"github.com/papers-cli/papers/retrieve"
	"github.com/papers-cli/papers/store"
)

// DefaultMax is how many papers a review has at most unless told: the
// newest of a topic or tag, or a search's best.
const DefaultMax = 50

// Spec is a review as a user names it: its papers (by id, topic, tag,
// saved, a search, narrowed by categories, authors and dates) and its
// columns. A saved review keeps its Spec, so that running it again picks
// up the papers an update added (dates such as "7d" count back from each
// run).
type Spec struct {
	Papers     []string `json:"papers,omitempty"` // ids in any spelling, in the rows' order
	Topics     []string `json:"topics,omitempty"`
	Tags       []string `json:"tags,omitempty"`
	Saved      bool     `json:"saved,omitempty"`
	Categories []string `json:"categories,omitempty"`
	Authors    []string `json:"authors,omitempty"`
	Since      string   `json:"since,omitempty"`
	Until      string   `json:"until,omitempty"`
	// Query selects the papers whose passages best match it, best first.
	Query string `json:"query,omitempty"`
	// Max bounds the papers (0: DefaultMax).
	Max     int      `json:"max,omitempty"`
	Columns []Column `json:"columns"`
}

// Filter is the selection of s as resolve reads it.
func (s Spec) Filter() resolve.Filter {
	return resolve.Filter{Papers: s.Papers, Topics: s.Topics, Tags: s.Tags, Saved: s.Saved,
		Categories: s.Categories, Authors: s.Authors, Since: s.Since, Until: s.Until}
}

// Selects reports whether s names any papers: a review of the whole
// library is refused, not guessed.
func (s Spec) Selects() bool {
	return len(s.Papers) > 0 || len(s.Topics) > 0 || len(s.Tags) > 0 || s.Saved || strings.TrimSpace(s.Query) != "" ||
		len(s.Categories) > 0 || len(s.Authors) > 0 || s.Since != "" || s.Until != ""
}

// ErrNoPapers is returned by Select when the spec names no papers.
var ErrNoPapers = errors.New("a review needs papers")

// SelectLibrary is what Select reads; *store.Library satisfies it.
type SelectLibrary interface {
	resolve.Library
	List(ctx context.Context, f store.Filter) ([]store.Paper, error)
}

// Select returns the papers of s in the order of its rows: ids as given,
// a query's best first, otherwise newest first; at most s.Max (DefaultMax),
// with how many more there were. r searches for s.Query (it may be nil
// without one). A paper or topic the library does not hold is an error
// naming it (resolve).
func Select(ctx context.Context, lib SelectLibrary, r *retrieve.Retriever, s Spec, now time.Time) (papers []store.Paper, more int, err error) {
	if !s.Selects() {
		return nil, 0, fmt.Errorf("%w: name them by id, --topic, --tag, --saved or --query", ErrNoPapers)
	}
	limit := s.Max
	if limit <= 0 {
		limit = DefaultMax
	}
	f, err := s.Filter().Resolve(ctx, lib, now)
	if err != nil {
		return nil, 0, err
	}
	if q := strings.TrimSpace(s.Query); q != "" {
		if r == nil {
			return nil, 0, errors.New("select a review's papers by search: no retriever")
		}
		// one passage per paper: the papers in the order of their best passage
		ps, err := r.Retrieve(ctx, q, retrieve.Options{K: limit + 1, PerPaper: 1, Filter: f})
		if err != nil {
			return nil, 0, err
		}
		for _, p := range ps {
			papers = append(papers, p.Paper)
		}
		if len(papers) > limit {
			return papers[:limit], 1, nil // "more": at least one
		}
		return papers, 0, nil
	}
	all, err := lib.List(ctx, f) // with abstracts: what papers go by is there (ask.ShortName)
	if err != nil {
		return nil, 0, err
	}
	if len(f.IDs) > 0 { // the order the user gave
		at := map[string]int{}
		for i, id := range f.IDs {
			if _, ok := at[id]; !ok {
				at[id] = i
			}
		}
		ordered := make([]store.Paper, 0, len(all))
		byID := map[string]store.Paper{}
		for _, p := range all {
			byID[p.ID] = p
		}
		for _, id := range f.IDs {
			if p, ok := byID[id]; ok && at[id] >= 0 {
				ordered = append(ordered, p)
				at[id] = -1
			}
		}
		all = ordered
	}
	if len(all) > limit {
		return all[:limit], len(all) - limit, nil
	}
	return all, 0, nil
}

// namePattern is what a saved review may be called: a word, so that it
// cannot be taken for a paper's id (those have digits and dots, or a
// prefix and a colon).
var namePattern = lazyre.New(`^[A-Za-z][A-Za-z0-9_-]{0,63}$`)

// ErrBadName is wrapped by CheckName's errors.
var ErrBadName = errors.New("bad review name")

// CheckName refuses a name a saved review cannot have.
func CheckName(name string) error {
	if !namePattern.MatchString(name) {
		return fmt.Errorf("%w %q: use a letter, then letters, digits, - or _ (at most 64)", ErrBadName, name)
	}
	return nil
}

// Encode is the form a saved review keeps; Decode reads it back.
func (s Spec) Encode() ([]byte, error) { return json.Marshal(s) }

// Decode reads a Spec that Encode wrote.
func Decode(b []byte) (Spec, error) {
	var s Spec
	if err := json.Unmarshal(b, &s); err != nil {
		return s, fmt.Errorf("saved review: %w", err)
	}
	if len(s.Columns) == 0 {
		return s, errors.New("saved review: no columns")
	}
	return s, nil
}
