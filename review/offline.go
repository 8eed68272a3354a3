package review

import (
	"context"
	"errors"
	"regexp"
	"runtime/debug"
	"strconv"
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
const cellsVersion = "c1"

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

// citeMark finds an answer sentence's citations, "[1]" or "[1, 2]".
var citeMark = regexp.MustCompile(`\[(\d+)(?:\s*[,–-]\s*\d+)*\]`)

// maxAnswerWords bounds a cell's short answer.
const maxAnswerWords = 30

// cellOf makes the cell of ask's answer about one paper: the answer's
// first sentence is the direct answer and its quote, the passage it cites
// gives the score, and the quote's page is where the paper holds it. A
// sentence ask tidied (LaTeX rendered, debris dropped) is quoted as the
// paper writes it when the cited passage has it nearly word for word;
// otherwise the cell keeps the answer, with the passage's page, and shows
// no quote.
func cellOf(res *ask.Result, pt *paperText) Cell {
	if res == nil || res.Abstained || strings.TrimSpace(res.Answer) == "" {
		return notStated()
	}
	sents := textseg.Sentences(res.Answer)
	first := sents[0]
	var cite *ask.Citation
	if m := citeMark.FindStringSubmatch(first); m != nil {
		n, _ := strconv.Atoi(m[1])
		for i := range res.Citations {
			if res.Citations[i].N == n {
				cite = &res.Citations[i]
			}
		}
	}
	sentence := strings.TrimSpace(ask.StripCitations(first))
	c := Cell{Stated: true, Answer: shorten(sentence, maxAnswerWords)}
	if cite != nil {
		c.Score, c.Section = cite.Score, cite.Section
		c.Page = firstPage(cite.Pages)
	}
	quote := sentence
	if _, ok := pt.locate(quote); !ok && cite != nil {
		quote = closestSentence(cite.Passage, sentence)
	}
	if loc, ok := pt.locate(quote); ok {
		c.Quote, c.Page, c.Section = quote, loc.page, sectionOf(loc.chunk)
	} else {
		c.Note = "the answer's sentence was tidied from the paper's text: no verbatim quote"
	}
	return c
}

// closestSentence is the sentence of passage that shares the most words
// with s, when it holds nearly all of them (4 in 5); "" otherwise.
func closestSentence(passage, s string) string {
	want := wordSet(s)
	if len(want) == 0 {
		return ""
	}
	best, bestScore := "", 0.0
	for _, para := range textseg.Paragraphs(passage) {
		for _, cand := range textseg.Sentences(para) {
			have := wordSet(cand)
			shared := 0
			for w := range want {
				if have[w] {
					shared++
				}
			}
			score := float64(shared) / float64(max(len(want), len(have)))
			if score > bestScore {
				best, bestScore = cand, score
			}
		}
	}
	if bestScore < 0.8 {
		return ""
	}
	return best
}

func wordSet(s string) map[string]bool {
	m := map[string]bool{}
	for _, w := range textkit.Words(strings.ToLower(s)) {
		m[w] = true
	}
	return m
}

// firstPage reads "3" or "3-4" as 3; "" as 0.
func firstPage(pages string) int {
	a, _, _ := strings.Cut(pages, "-")
	n, _ := strconv.Atoi(a)
	return n
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
