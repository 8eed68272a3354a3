package review

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"

	"github.com/papers-cli/papers/internal/cite"
	"github.com/papers-cli/papers/internal/safetext"
	"github.com/papers-cli/papers/llm"
	"github.com/papers-cli/papers/prompts"
	"github.com/papers-cli/papers/retrieve"
	"github.com/papers-cli/papers/store"
)

// Model has a language model fill each cell from the passages retrieved
// for it (the question's best passages of the paper, and its title and
// abstract), asking for the short answer and the sentence that states it.
// The sentence is shown as the cell's quote only when the paper holds it
// verbatim; otherwise the cell keeps the model's answer, shows no quote
// and says why in its Note.
type Model struct {
	Retriever *retrieve.Retriever
	LLM       llm.LLM
	// K is how many passages of the paper the model reads per cell
	// (default 6, plus the title and abstract).
	K int
	// Workers bounds the requests in flight (default 4).
	Workers int

	mu  sync.Mutex
	use llm.Usage
}

// Name is "model/VERSION/MODEL/EMBEDDER[/BUILD]".
func (m *Model) Name() string { return answererName("model", m.LLM.Model(), m.Retriever) }

func (m *Model) workers() int {
	if m.Workers > 0 {
		return m.Workers
	}
	return 4
}

func (m *Model) usage() llm.Usage {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.use
}

// Notes of cells whose model reply was not usable as it came.
const (
	NoteQuoteNotFound = "the model's quote is not in the paper: not shown"
	NoteNoQuote       = "the model gave no quote"
	NoteUnreadable    = "the model's reply could not be read"
	NoteEmptyReply    = "the model gave no reply"
)

// reply is the JSON the review prompt asks for.
type reply struct {
	Stated  any    `json:"stated"`
	Answer  string `json:"answer"`
	Quote   string `json:"quote"`
	Passage int    `json:"passage"`
}

func (m *Model) answer(ctx context.Context, pt *paperText, c Column) (Cell, error) {
	k := m.K
	if k <= 0 {
		k = 6
	}
	ps, err := m.Retriever.Retrieve(ctx, c.Question, retrieve.Options{K: k, PerPaper: -1, Filter: store.Filter{IDs: []string{pt.paper.ID}}})
	if err != nil {
		return Cell{}, err
	}
	ps = withAbstract(ps, pt)
	if len(ps) == 0 {
		return notStated(), nil
	}
	in := prompts.ReviewInput{Title: pt.paper.Title, Question: c.Question}
	for i, p := range ps {
		src := "abstract"
		if pg := p.Pages(); pg != "" {
			src = "p. " + pg
			if p.Section != "" {
				src += ", " + p.Section
			}
		}
		in.Passages = append(in.Passages, prompts.Passage{N: i + 1, Source: src, Text: p.Text})
	}
	pr, err := prompts.Review(in)
	if err != nil {
		return Cell{}, err
	}
	comp, err := m.LLM.Complete(ctx, llm.Request{Messages: []llm.Message{{Role: "system", Content: pr.System}, {Role: "user", Content: pr.User}}, MaxTokens: 400}, nil)
	if errors.Is(err, llm.ErrEmptyReply) {
		return Cell{Note: NoteEmptyReply}, nil
	}
	if err != nil {
		return Cell{}, err
	}
	m.mu.Lock()
	m.use.PromptTokens += comp.Usage.PromptTokens
	m.use.CompletionTokens += comp.Usage.CompletionTokens
	m.mu.Unlock()

	r, ok := parseReply(comp.Text)
	if !ok {
		return Cell{Note: NoteUnreadable}, nil
	}
	answer := safetext.OneLine(safetext.Clean(r.Answer))
	if !stated(r.Stated) || answer == "" {
		return notStated(), nil
	}
	cell := Cell{Stated: true, Answer: shorten(answer, 2*maxAnswerWords)}
	if r.Passage >= 1 && r.Passage <= len(ps) {
		p := ps[r.Passage-1]
		cell.Score, cell.Page, cell.Section = p.Score, p.PageStart, passageSection(p)
	}
	quote := safetext.OneLine(safetext.Clean(r.Quote))
	switch loc, found := pt.locate(quote); {
	case quote == "":
		cell.Note = NoteNoQuote
	case !found:
		cell.Note = NoteQuoteNotFound
	default:
		cell.Quote, cell.Page, cell.Section = quote, loc.page, sectionOf(loc.chunk)
		for _, p := range ps {
			if p.Seq == loc.chunk.Seq {
				cell.Score = p.Score
			}
		}
	}
	return cell, nil
}

// withAbstract adds the paper's title and abstract to its passages when
// retrieval did not bring them: what a paper proposes and finds is said
// there first.
func withAbstract(ps []retrieve.Passage, pt *paperText) []retrieve.Passage {
	for _, p := range ps {
		if p.Seq == 0 {
			return ps
		}
	}
	for _, c := range pt.chunks {
		if c.Seq == 0 && strings.TrimSpace(c.Text) != "" {
			return append([]retrieve.Passage{{ChunkID: store.ChunkID(c.PaperID, 0), PaperID: c.PaperID, Text: c.Text, Paper: pt.paper}}, ps...)
		}
	}
	return ps
}

func passageSection(p retrieve.Passage) string {
	if p.Seq == 0 {
		return "abstract"
	}
	return p.Section
}

// parseReply reads the model's JSON object, inside code fences or text
// around it as models write them.
func parseReply(text string) (reply, bool) {
	var r reply
	i, j := strings.IndexByte(text, '{'), strings.LastIndexByte(text, '}')
	if i < 0 || j < i {
		return r, false
	}
	if err := json.Unmarshal([]byte(text[i:j+1]), &r); err != nil {
		return r, false
	}
	return r, r.Stated != nil
}

// stated reads the reply's "stated": true, "true" or "yes".
func stated(v any) bool {
	switch s := v.(type) {
	case bool:
		return s
	case string:
		s = strings.ToLower(strings.TrimSpace(s))
		return s == "true" || s == "yes"
	}
	return false
}

// Pages renders a cell's page for people: "p. 3", "" when unknown.
func (c Cell) Pages() string {
	if c.Page <= 0 {
		return ""
	}
	return "p. " + cite.Pages(c.Page, c.Page)
}
