package topic

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/papers-cli/papers/ask"
	"github.com/papers-cli/papers/internal/lazyre"
	"github.com/papers-cli/papers/internal/safetext"
	"github.com/papers-cli/papers/llm"
	"github.com/papers-cli/papers/prompts"
	"github.com/papers-cli/papers/store"
)

// DescribePapers is how many of a topic's papers, newest first, Describe
// gives the model.
const DescribePapers = 30

// Description is what Describe wrote: the --json document of `papers
// topic describe` (field names are stable).
type Description struct {
	Topic string `json:"topic"`
	// Text is the paragraph, its citations the cited papers' ids in
	// brackets: "... [2501.12948][topic-003]." It is what is stored.
	Text   string         `json:"description"`
	Papers []DescribedRef `json:"papers"` // the papers given to the model, as numbered for it
	Cited  []string       `json:"cited"`  // ids the paragraph cites, in order of first citation
	Model  string         `json:"model"`
	Stored bool           `json:"stored"`
	// Warnings say what was removed (citations of papers the model was
	// not given, sentences citing only those).
	Warnings []string `json:"warnings"`
}

// DescribedRef is a paper given to the model.
type DescribedRef struct {
	N     int    `json:"n"`
	ID    string `json:"id"`
	Title string `json:"title"`
}

// ErrNoPapers is Describe's error for a topic with no papers in the library.
var ErrNoPapers = errors.New("the topic has no papers in the library")

// Describe has the model write a paragraph describing topic t from its
// newest papers (at most DescribePapers), citing them, as a research
// feed's topic page opens ("This field studies how ..."). Its citations
// are checked as ask checks an answer's, then written as the papers' ids.
// It does not store it (see store.Library.SetTopicDescription). model must
// not be nil (ask.ErrNeedsModel).
func Describe(ctx context.Context, lib *store.Library, model llm.LLM, t store.Topic) (*Description, error) {
	if model == nil {
		return nil, ask.ErrNeedsModel
	}
	ps, err := lib.List(ctx, store.Filter{Topics: []string{t.Name}, Limit: DescribePapers})
	if err != nil {
		return nil, fmt.Errorf("describe %s: %w", t.Name, err)
	}
	if len(ps) == 0 {
		return nil, fmt.Errorf("describe %s: %w", t.Name, ErrNoPapers)
	}
	d := &Description{Topic: t.Name, Cited: []string{}, Warnings: []string{}}
	in := prompts.DigestInput{Topic: t.Name + " (arXiv query: " + t.Query + ")"}
	for i, p := range ps {
		in.Papers = append(in.Papers, passage(i+1, p))
		d.Papers = append(d.Papers, DescribedRef{N: i + 1, ID: p.ID, Title: p.Title})
	}
	pr, err := prompts.Describe(in)
	if err != nil {
		return nil, err
	}
	c, err := model.Complete(ctx, llm.Request{Messages: []llm.Message{{Role: "system", Content: pr.System}, {Role: "user", Content: pr.User}}, MaxTokens: 500}, nil)
	if err != nil {
		return nil, fmt.Errorf("describe %s: %w", t.Name, err)
	}
	d.Model = model.Model()
	chk := ask.CheckCitations(safetext.Clean(c.Text), len(ps))
	if len(chk.Invalid) > 0 {
		d.Warnings = append(d.Warnings, fmt.Sprintf("removed %d citations of papers the model was not given", len(chk.Invalid)))
	}
	for _, r := range chk.Removed {
		d.Warnings = append(d.Warnings, fmt.Sprintf("removed the sentence %q: it cites only papers the model was not given", r.Sentence))
	}
	text := strings.Join(strings.Fields(chk.Text), " ")
	seen := map[string]bool{}
	d.Text = citeNumber.ReplaceAllStringFunc(text, func(m string) string {
		n, _ := strconv.Atoi(m[1 : len(m)-1])
		id := ps[n-1].ID // CheckCitations kept only 1..len(ps)
		if !seen[id] {
			seen[id] = true
			d.Cited = append(d.Cited, id)
		}
		return "[" + id + "]"
	})
	if d.Text == "" {
		return nil, fmt.Errorf("describe %s: %w", t.Name, llm.ErrEmptyReply)
	}
	return d, nil
}

var citeNumber = lazyre.New(`\[\d+\]`)
