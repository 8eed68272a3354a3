package review

import (
	"context"
	"errors"
	"runtime/debug"
	"strings"

	"github.com/papers-cli/papers/ask"
	"github.com/papers-cli/papers/internal/textkit"
	"github.com/papers-cli/papers/llm"
	"github.com/papers-cli/papers/retrieve"
	"github.com/papers-cli/papers/store"
	"github.com/papers-cli/papers/textseg"
)

// cellsVersion is bumped when the same answer would make another cell
// (what is quoted, how pages are found): cached cells of another version
// are computed again.
const cellsVersion = "c3"

// buildVersion tells builds apart in the cache, so that cells computed by
// an older answer composer are not served after an upgrade: the module
// version of a release, or the commit of a build from a checkout.
func buildVersion() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return ""
	}
	v := bi.Main.Version
	for _, s := range bi.Settings {
		switch {
		case s.Key == "vcs.revision" && len(s.Value) >= 12:
			v = s.Value[:12]
		case s.Key == "vcs.modified" && s.Value == "true":
			v += "+dirty"
		}
	}
	if v == "(devel)" {
		return ""
	}
	return v
}

// Offline answers each cell as `papers ask --paper ID` does, with no
// model: the passages of that paper that best match the question, and
// ask's answer from them (its first sentence and what it cites).
type Offline struct {
	Retriever *retrieve.Retriever
}

// Name is "offline/VERSION/EMBEDDER[/BUILD]".
func (o *Offline) Name() string {
	return answererName("offline", "", o.Retriever)
}

func answererName(kind, model string, r *retrieve.Retriever) string {
	n := kind + "/" + cellsVersion
	if model != "" {
		n += "/" + model
	}
	if r != nil && r.Embedder != nil {
		n += "/" + r.Embedder.Name()
	}
	if b := buildVersion(); b != "" {
		n += "/" + b
	}
	return n
}

func (o *Offline) workers() int     { return defaultWorkers() }
func (o *Offline) usage() llm.Usage { return llm.Usage{} }

func (o *Offline) answer(ctx context.Context, pt *paperText, c Column) (Cell, error) {
	if k := intentOf(c.Question); k != noIntent {
		if cell, ok := pt.generic(k); ok {
			return cell, nil
		}
		if _, needsEvidence := minCues[k]; needsEvidence {
			return notStated(), nil
		}
	}
	res, err := askPaper(ctx, o.Retriever, pt, c.Question)
	if errors.Is(err, ask.ErrNoEvidence) {
		return notStated(), nil
	}
	if err != nil {
		return Cell{}, err
	}
	return cellOf(res, pt), nil
}

// askPaper asks one paper as papers ask --paper does (written nowhere).
func askPaper(ctx context.Context, r *retrieve.Retriever, pt *paperText, question string) (*ask.Result, error) {
	return ask.Ask(ctx, r, question, nil, ask.AskOptions{Retrieve: retrieve.Options{Filter: store.Filter{IDs: []string{pt.paper.ID}}}}, nil)
}

// maxAnswerWords bounds a cell's short answer.
const maxAnswerWords = 30

// cellOf makes the cell of ask's answer about one paper: ask's short
// answer is the cell's answer, its first evidence sentence the quote, with
// the model's score, and the quote's page is where the paper holds it
// (checked verbatim: a quote the paper does not hold is not shown).
func cellOf(res *ask.Result, pt *paperText) Cell {
	if res == nil || res.Abstained || strings.TrimSpace(res.Answer) == "" {
		return notStated()
	}
	answer := strings.TrimSpace(res.ShortAnswer)
	if answer == "" {
		answer = strings.TrimSpace(ask.StripCitations(textseg.Sentences(res.Answer)[0]))
	}
	c := Cell{Stated: true, Answer: shorten(answer, maxAnswerWords)}
	if len(res.Evidence) == 0 {
		c.Note = "the answer quotes no sentence of the paper"
		return c
	}
	e := res.Evidence[0]
	c.Score, c.Section, c.Page = e.Score, e.Section, e.Page
	if loc, ok := pt.locate(e.Quote); ok {
		c.Quote, c.Page, c.Section = e.Quote, loc.page, sectionOf(loc.chunk)
	} else {
		c.Note = "the answer's sentence was tidied from the paper's text: no verbatim quote"
	}
	return c
}

// sectionOf is a chunk's section heading, "abstract" for the title and
// abstract.
func sectionOf(c store.Chunk) string {
	if c.Seq == 0 {
		return "abstract"
	}
	return c.Section
}

// shorten cuts s to n words, ending with "…" when cut.
func shorten(s string, n int) string {
	head, more := textkit.FirstWords(s, n)
	if !more {
		return head
	}
	return strings.TrimRight(head, ",;:") + " …"
}
