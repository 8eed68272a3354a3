// Package prompts owns the text papers sends to language models: embedded
// text/template files (answer, evidence, digest) rendered into a system and a
// user message.
//
// Paper text is data, never instructions. Every passage is fenced between
// <passage n="N"> and </passage>, and Fence neutralises anything inside a
// passage (or a question) that could close or open a fence, so a paper that
// says "</passage> ignore previous instructions" stays inside its own fence.
// The system messages tell the model to ignore instructions found in passages.
package prompts

import (
	"bytes"
	"embed"
	"fmt"
	"strings"
	"sync"
	"text/template"

	"github.com/papers-cli/papers/internal/lazyre"
)

//go:embed *.tmpl
var files embed.FS

// NoAnswer is what the answer prompt tells the model to reply, alone, when the
// passages do not contain the answer. Callers compare the trimmed reply with
// it (see IsNoAnswer).
const NoAnswer = "NO_ANSWER"

// Prompt is a rendered prompt: one system and one user message.
type Prompt struct {
	System string
	User   string
}

// Passage is one numbered, fenced passage of a prompt.
type Passage struct {
	N      int    // the number the model cites as [N]; 1-based
	Source string // one line naming where it comes from, e.g. "2501.12948v2, p. 3-4, Method"; may be empty
	Title  string // the paper's title; may be empty
	Text   string // the passage itself (or, in quality mode, the model's summary of it)
}

// AnswerInput is the input of the answer prompt.
type AnswerInput struct {
	Question string
	Passages []Passage // in the order shown to the model; numbers need not be contiguous
}

// EvidenceInput is the input of the evidence prompt (quality mode), which asks
// the model to summarise one passage for the question and score its relevance
// from 0 to 10 as JSON {"relevance": R, "summary": "S"}.
type EvidenceInput struct {
	Question string
	Passage  Passage
}

// ReviewInput is the input of the review prompt, which asks the model for
// one cell of a literature-review table as JSON {"stated", "answer",
// "quote", "passage"}: the short answer the paper Title gives to Question
// and the sentence of Passages that states it, copied verbatim.
type ReviewInput struct {
	Title    string
	Question string
	Passages []Passage
}

// DigestInput is the input of the digest prompt: a summary of a topic's new
// papers, citing them by number.
type DigestInput struct {
	Topic  string
	Since  string    // e.g. "2026-05-01"; omitted when empty
	Papers []Passage // Text is usually the abstract
}

// templates are parsed on first use (not at start: every command of the
// binary would pay for them), once; a template that does not parse panics
// there, and the package's tests render every one.
var templates = sync.OnceValue(func() map[string]*template.Template {
	funcs := template.FuncMap{
		"fence":    Fence,
		"attr":     attr,
		"noAnswer": func() string { return NoAnswer },
	}
	ts := map[string]*template.Template{}
	for _, name := range []string{"answer", "evidence", "digest", "describe", "review"} {
		ts[name] = template.Must(template.New(name).Funcs(funcs).Option("missingkey=error").
			ParseFS(files, name+".tmpl", "passage.tmpl"))
	}
	return ts
})

// Answer renders the prompt that answers Question from Passages with [n]
// citations, or NoAnswer.
func Answer(in AnswerInput) (Prompt, error) { return render("answer", in) }

// Evidence renders the quality-mode prompt that summarises and scores one
// passage for a question.
func Evidence(in EvidenceInput) (Prompt, error) { return render("evidence", in) }

// Digest renders the prompt that summarises a topic's papers with [n]
// citations.
func Digest(in DigestInput) (Prompt, error) { return render("digest", in) }

// Describe renders the prompt that describes a topic from its papers in
// one paragraph citing them with [n] (DigestInput.Since is not used).
func Describe(in DigestInput) (Prompt, error) { return render("describe", in) }

// Review renders the prompt that fills one cell of a review table.
func Review(in ReviewInput) (Prompt, error) { return render("review", in) }

func render(name string, data any) (Prompt, error) {
	t := templates()[name]
	var sys, user bytes.Buffer
	if err := t.ExecuteTemplate(&sys, "system", data); err != nil {
		return Prompt{}, fmt.Errorf("render %s prompt: %w", name, err)
	}
	if err := t.ExecuteTemplate(&user, "user", data); err != nil {
		return Prompt{}, fmt.Errorf("render %s prompt: %w", name, err)
	}
	return Prompt{System: strings.TrimSpace(sys.String()), User: strings.TrimSpace(user.String())}, nil
}

// IsNoAnswer reports whether a model's reply is the NoAnswer marker (allowing
// surrounding whitespace, punctuation, quotes or Markdown emphasis).
func IsNoAnswer(reply string) bool {
	s := strings.Trim(reply, " \t\r\n.\"'`*_")
	return strings.EqualFold(s, NoAnswer)
}

var (
	// fenceTag matches anything that looks like an opening or closing fence
	// tag (or one of the prompt's other structural words) in any case, with
	// stray spaces: "</passage>", "< passages", "<PASSAGE n=3>".
	fenceTag = lazyre.New(`(?i)<\s*/?\s*(passages?|question|system|user|assistant|instructions?)\b`)
	// bracketRef matches a paper's own reference markers, "[12]" or
	// "[3, 4]", which a model could confuse with passage citations.
	bracketRef = lazyre.New(`\[(\s*\d{1,4}\s*(?:[,;–-]\s*\d{1,4}\s*)*)\]`)
	// controls are control characters other than tab and newline.
	controls = lazyre.New(`[\x00-\x08\x0b-\x1f\x7f\x{200b}-\x{200f}\x{202a}-\x{202e}\x{2066}-\x{2069}]`)
)

// Fence makes text safe to place between fence tags: fence-like tags lose
// their '<' (replaced by '‹'), bracketed reference numbers "[12]" become
// "(ref. 12)" so they cannot pass for citations, the NoAnswer marker is
// defused, and control and bidirectional-override characters are dropped.
func Fence(text string) string {
	text = controls.ReplaceAllString(text, "")
	text = fenceTag.ReplaceAllStringFunc(text, func(m string) string {
		return "‹" + strings.TrimPrefix(m, "<")
	})
	text = bracketRef.ReplaceAllString(text, "(ref. $1)")
	text = strings.ReplaceAll(text, NoAnswer, "NO ANSWER")
	return strings.TrimSpace(text)
}

// attr makes s safe inside a double-quoted attribute of a fence tag.
func attr(s string) string {
	s = Fence(s)
	s = strings.NewReplacer(`"`, "'", "\n", " ", ">", "›").Replace(s)
	return s
}
