package ask

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/papers-cli/papers/internal/cite"
	"github.com/papers-cli/papers/internal/safetext"
	"github.com/papers-cli/papers/internal/textkit"
	"github.com/papers-cli/papers/llm"
	"github.com/papers-cli/papers/prompts"
	"github.com/papers-cli/papers/store"
)

// ErrNoEvidence means the library holds no evidence for the question: the
// passages were missing or too weak, or the model said they do not answer it.
// Answer returns it together with a Result whose Abstained is true (cmd maps
// it to exit code 3).
var ErrNoEvidence = errors.New("the library holds no evidence for this")

// ErrNeedsModel is returned when quality mode is asked for without a model.
var ErrNeedsModel = errors.New("quality mode needs a language model")

// Modes of Result.Mode.
const (
	ModeLLM        = "llm"
	ModeExtractive = "extractive"
	ModeQuality    = "quality"
)

// Result is an answer with its checked citations; it is the --json document
// of `papers ask` (field names are stable).
type Result struct {
	Question  string     `json:"question"`
	Answer    string     `json:"answer"` // citations renumbered [1].. in order of first citation
	Mode      string     `json:"mode"`   // ModeLLM, ModeExtractive or ModeQuality
	Model     string     `json:"model"`  // "" in extractive mode
	Citations []Citation `json:"citations"`
	Abstained bool       `json:"abstained"`
	// ShortAnswer is the direct answer the answer opens with: a span,
	// name, number, list, Yes or No (offline; "" from a model, and when
	// there is none). Evidence are the verbatim sentences the answer rests
	// on, best first.
	ShortAnswer string     `json:"short_answer"`
	Evidence    []Evidence `json:"evidence"`
	Usage       llm.Usage  `json:"usage"`
	Warnings    []string   `json:"warnings"`
	// Removed are the model's sentences that were taken out of the answer
	// because every citation they made named no given passage (a claim
	// without a source); Unsupported are the cited sentences kept whose
	// numbers or rare words no passage they cite holds. Both are omitted
	// when empty (and in extractive mode).
	Removed     []Claim `json:"removed,omitempty"`
	Unsupported []Claim `json:"unsupported,omitempty"`

	// FirstToken is the time from the call to the model's first text;
	// Elapsed the time of the whole call; Retrieval the time Ask took to
	// retrieve the Passages passages answered from (for --verbose and the
	// answer harness; not in the JSON).
	FirstToken time.Duration `json:"-"`
	Elapsed    time.Duration `json:"-"`
	Retrieval  time.Duration `json:"-"`
	Passages   int           `json:"-"`

	// Given are the texts of the passages a model was given, best first
	// (offline: those it would have been given), for measuring how often
	// they hold the evidence (eval --qasper).
	Given []string `json:"-"`

	ranked time.Time // when the papers were ranked
}

// Evidence is a sentence an answer rests on, quoted verbatim from its
// paper (before any tidying for display), with where it stands.
type Evidence struct {
	N       int     `json:"n"`       // the citation it belongs to
	ID      string  `json:"id"`      // the paper's versionless id
	Version int     `json:"version"` // 0 when the source has none
	Page    int     `json:"page"`    // 1-based page its paragraph starts on; 0 for corpus text and the abstract
	Section string  `json:"section"` // "abstract" for the abstract
	Quote   string  `json:"quote"`
	Score   float64 `json:"score"` // the model's probability that its paragraph holds the answer
	// Primary marks a sentence of a paragraph the model holds to answer;
	// the others are read beside them (the sentences that share most of
	// the question's words). QASPER's evidence is the primary ones'.
	Primary bool `json:"primary"`
}

// Citation is a source the answer cites, numbered as in the answer. Only
// cited sources are listed, in order of first citation.
type Citation struct {
	N         int      `json:"n"`
	ID        string   `json:"id"`      // the paper's versionless id
	Version   int      `json:"version"` // 0 when the source has none
	Title     string   `json:"title"`
	Authors   []string `json:"authors"`
	Published string   `json:"published"` // YYYY-MM-DD; "" when unknown
	Pages     string   `json:"pages"`     // "3", "3-4"; "" for the title and abstract
	Section   string   `json:"section"`   // "abstract" for the title+abstract passage
	URL       string   `json:"url"`
	Passage   string   `json:"passage"`           // the passage text given as evidence
	Summary   string   `json:"summary,omitempty"` // quality mode: the model's summary of the passage
	CitedBy   []string `json:"cited_by"`          // the answer's sentences that cite it
	Score     float64  `json:"score"`             // the passage's retrieval score
}

// Options tune Answer. The zero value is usable.
type Options struct {
	// Extractive forces the offline extractive answer even with a model.
	Extractive bool
	// Quality gathers evidence with the model first (needs a model).
	Quality bool
	// MaxPassages is how many passages the model sees (default 8); in
	// quality mode, how many are summarised and scored (default 20).
	MaxPassages int
	// QualityKeep is how many summaries quality mode answers from (default 6).
	QualityKeep int
	// Parallel bounds concurrent model calls in quality mode (default 4).
	Parallel int
	// Generic, when set, answers a generic question asked of one paper
	// offline (see GenericQuote).
	Generic GenericQuote
}

// GenericQuote answers a generic question asked of one paper ("What
// method does this paper propose?", "What are the limitations?") with
// the sentence that states it, as a literature review's cell does
// (package review provides one, measured on papers nobody tuned it on).
// ok is false when the question is not generic: the ranking answers it.
// With ok, quote is the paper's sentence (or two consecutive ones, as its
// text has them) that answers; "" when the paper does not state it, and
// the answer then refuses, saying the paper does not state unstated ("its
// limitations").
type GenericQuote func(p store.Paper, chunks []store.Chunk, question string) (quote, unstated string, ok bool)

// citationFor makes the citation numbered n of passage e, without cited_by.
func citationFor(n int, e *evidence) Citation {
	p := &e.Paper
	c := Citation{
		N: n, ID: p.ID, Version: p.Version, Title: p.Title, Authors: p.Authors,
		Section: e.Section, URL: cite.URL(*p), Passage: e.Text, Score: e.Score,
		CitedBy: []string{},
	}
	if c.Authors == nil {
		c.Authors = []string{}
	}
	if !p.Published.IsZero() {
		c.Published = p.Published.Format("2006-01-02")
	}
	c.Pages = cite.Pages(e.PageStart, e.PageEnd)
	if e.PageStart <= 0 && c.Section == "" {
		c.Section = "abstract"
	}
	return c
}

// sourceLabel is the one-line origin of a passage shown to the model:
// "2501.12948v2, p. 3-4, 2 Method".
func sourceLabel(e *evidence) string {
	id := e.Paper.ID
	if e.Paper.Version > 0 {
		id += "v" + strconv.Itoa(e.Paper.Version)
	}
	parts := []string{id}
	c := citationFor(0, e)
	if c.Pages != "" {
		parts = append(parts, "p. "+c.Pages)
	}
	if c.Section != "" {
		parts = append(parts, c.Section)
	}
	return strings.Join(parts, ", ")
}

// generate asks the model to answer from ev (whose prompt text is texts[i]
// when texts is not nil, e.g. quality-mode summaries), streaming the checked
// answer to out, then fills res and prints the Sources list. When the prompt
// is too long for the model it drops the weakest passages (then shortens the
// last one) and tries again; nothing has been shown at that point.
func generate(ctx context.Context, ev []evidence, texts []string, question string, model llm.LLM, res *Result, out io.Writer, start time.Time) error {
	k := len(ev)
	maxWords := 0 // 0: whole passages
	for {
		in := prompts.AnswerInput{Question: question}
		for i := range ev[:k] {
			t := ev[i].Text
			if texts != nil {
				t = texts[i]
			}
			if maxWords > 0 {
				t = firstWords(t, maxWords)
			}
			in.Passages = append(in.Passages, prompts.Passage{N: i + 1, Source: sourceLabel(&ev[i]), Title: ev[i].Paper.Title, Text: t})
		}
		p, err := prompts.Answer(in)
		if err != nil {
			return err
		}
		shown := &countWriter{w: out}
		cw := newCiteWriter(shown, func(n int) bool { return n >= 1 && n <= k })
		clean := safetext.NewWriter(cw) // model text is untrusted, whatever the LLM
		tw := &firstWrite{w: clean}
		c, err := model.Complete(ctx, llm.Request{Messages: []llm.Message{{Role: "system", Content: p.System}, {Role: "user", Content: p.User}}}, tw)
		clean.Flush()
		if c != nil {
			res.Usage.Add(c.Usage)
		}
		if !tw.at.IsZero() {
			res.FirstToken = tw.at.Sub(start)
		}
		if errors.Is(err, llm.ErrContextTooLong) && tw.at.IsZero() {
			switch {
			case k > 1:
				k = max(1, k*2/3)
				res.Warnings = append(res.Warnings, fmt.Sprintf("the passages did not fit the model's context; retried with the best %d", k))
				continue
			case maxWords == 0 || maxWords > 50:
				if maxWords == 0 {
					maxWords = max(50, len(strings.Fields(in.Passages[0].Text))/2)
				} else {
					maxWords /= 2
				}
				res.Warnings = append(res.Warnings, fmt.Sprintf("the passage did not fit the model's context; retried with its first %d words", maxWords))
				continue
			}
		}
		if err != nil {
			cw.Close()
			if shown.n > 0 && out != nil {
				io.WriteString(out, "\n") // the error goes on a line of its own
			}
			return err
		}
		noAnswer, werr := cw.Close()
		if noAnswer {
			return ErrNoEvidence
		}
		if werr != nil {
			return fmt.Errorf("write answer: %w", werr)
		}
		if c.FinishReason == "length" {
			res.Warnings = append(res.Warnings, "the answer was cut off at the model's output limit")
		}
		res.Answer = cw.Text()
		for _, n := range cw.invalid {
			res.Warnings = append(res.Warnings, fmt.Sprintf("removed citation [%d]: no passage %d was given to the model", n, n))
		}
		res.Removed = cw.removed
		for _, r := range cw.removed {
			res.Warnings = append(res.Warnings, fmt.Sprintf("removed the sentence %q: it cites only %s, %s no passage given to the model", clipSentence(r.Sentence), citeList(r.Cites), textkit.Plural(len(r.Cites), "which names", "which name")))
		}
		if cw.sources {
			res.Warnings = append(res.Warnings, "dropped the model's own list of sources (the Sources below are the passages it cited)")
		}
		if len(cw.order) == 0 && saysNoEvidence(res.Answer) {
			return ErrNoEvidence
		}
		if len(cw.order) == 0 {
			res.Warnings = append(res.Warnings, "the answer cites no passage: check it against the library")
		}
		fillCitations(res, ev, texts, cw.order)
		res.Unsupported = unsupported(res.Answer, ev, cw.order)
		for _, u := range res.Unsupported {
			res.Warnings = append(res.Warnings, fmt.Sprintf("unsupported: %q cites %s, %s %s", clipSentence(u.Sentence), citeList(u.Cites), textkit.Plural(len(u.Cites), "which does not state", "none of which states"), strings.Join(u.Missing, ", ")))
		}
		return writeSources(out, res)
	}
}

// fillCitations lists the cited passages (given numbers in order) with the
// sentences citing each.
func fillCitations(res *Result, ev []evidence, summaries []string, order []int) {
	by := citingSentences(res.Answer)
	for i, n := range order {
		c := citationFor(i+1, &ev[n-1])
		if summaries != nil {
			c.Summary = summaries[n-1]
		}
		if s := by[i+1]; s != nil {
			c.CitedBy = s
		}
		res.Citations = append(res.Citations, c)
	}
}

// saysNoEvidence recognises a model that says in words, instead of with the
// marker, that the passages do not answer.
func saysNoEvidence(answer string) bool {
	a := strings.ToLower(answer)
	for _, p := range []string{"do not contain", "does not contain", "don't contain", "doesn't contain",
		"do not provide", "does not provide", "do not mention", "does not mention", "no information", "not enough information",
		"cannot be answered", "can't be answered", "cannot answer"} {
		if strings.Contains(a, p) {
			return true
		}
	}
	return false
}

// writeSources prints the answer's end and the Sources list to out (nothing
// when out is nil).
func writeSources(out io.Writer, res *Result) error {
	if out == nil {
		return nil
	}
	var b strings.Builder
	b.WriteString("\n")
	if len(res.Citations) > 0 {
		b.WriteString("\nSources:\n")
		for _, c := range res.Citations {
			b.WriteString(FormatSource(c))
		}
	}
	_, err := io.WriteString(out, b.String())
	return err
}

// FormatSource renders one entry of the Sources list, two lines:
//
//	[1] 2501.12948v2  DeepSeek-R1: Incentivizing Reasoning Capability in LLMs
//	    DeepSeek-AI et al., 2025; p. 3-4; 2 Method; https://arxiv.org/abs/2501.12948v2
func FormatSource(c Citation) string {
	id := c.ID
	if c.Version > 0 {
		id += "v" + strconv.Itoa(c.Version)
	}
	var meta []string
	if a := cite.Authors(c.Authors); a != "" {
		if len(c.Published) >= 4 {
			a += ", " + c.Published[:4]
		}
		meta = append(meta, a)
	} else if len(c.Published) >= 4 {
		meta = append(meta, c.Published[:4])
	}
	if c.Pages != "" {
		meta = append(meta, "p. "+c.Pages)
	}
	if c.Section != "" {
		meta = append(meta, c.Section)
	}
	if c.URL != "" {
		meta = append(meta, c.URL)
	}
	// ids are stored as given and text from before Put cleaned it may hold
	// anything: the list is inert on a terminal, each entry on its lines
	s := fmt.Sprintf("[%d] %s  %s\n", c.N, safetext.Line(id), safetext.Line(safetext.OneLine(c.Title)))
	if len(meta) > 0 {
		s += "    " + safetext.Line(strings.Join(meta, "; ")) + "\n"
	}
	return s
}

// firstWords is the first n words of s, ending in " …" when cut.
func firstWords(s string, n int) string {
	if w, cut := textkit.FirstWords(s, n); cut {
		return w + " …"
	}
	return s
}

// firstWrite records when the first byte passes through it.
type firstWrite struct {
	w  io.Writer
	at time.Time
}

func (f *firstWrite) Write(p []byte) (int, error) {
	if f.at.IsZero() && len(p) > 0 {
		f.at = time.Now()
	}
	return f.w.Write(p)
}

// countWriter counts the bytes written through it; w may be nil.
type countWriter struct {
	w io.Writer
	n int
}

func (c *countWriter) Write(p []byte) (int, error) {
	if c.w == nil {
		return len(p), nil
	}
	n, err := c.w.Write(p)
	c.n += n
	return n, err
}
