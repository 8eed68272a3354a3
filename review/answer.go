package review

import (
	"regexp"
	"strings"

	"github.com/papers-cli/papers/ask"
	"github.com/papers-cli/papers/internal/lazyre"
	"github.com/papers-cli/papers/internal/textkit"
	"github.com/papers-cli/papers/store"
)

// unstatedOf says what a paper that states no sentence of a kind does
// not state, for the kinds a question of one paper is refused for when
// it does not ("What are the limitations?" of a paper that names none).
// The other kinds are left to the answer ranking when no sentence states
// them: a paper's method and results are there to be found.
var unstatedOf = map[intent]string{
	limitIntent: "its limitations",
	codeIntent:  "that its code or data are released",
}

// AnswerGeneric answers a generic question asked of one paper (its record
// and chunks) as the paper's cell in a review: the sentence, or two, that
// states it (Cell.Quote). It is an ask.GenericQuote: `papers ask --paper
// ID "What method does this paper propose?"` answers with the cell's
// sentence. ok is false when the question is not generic, or the paper
// states no sentence of a kind ask's ranking answers better; quote is ""
// when the paper does not state its limitations or a release, and
// unstated says what it does not state.
func AnswerGeneric(p store.Paper, chunks []store.Chunk, question string) (quote, unstated string, ok bool) {
	question = asItself(question, ask.ShortName(&p))
	k := intentOf(question)
	switch {
	case describes.MatchString(question):
		k = methodIntent
	case k == noIntent && findings.MatchString(question):
		k = gainIntent
	}
	if k == noIntent || !onlyGeneric(question) {
		return "", "", false
	}
	if cell, stated := newPaperText(p, chunks).generic(k); stated {
		return cell.Quote, "", true
	}
	if u, refuse := unstatedOf[k]; refuse {
		return "", u, true
	}
	return "", "", false
}

// genericWords are the words a generic question is written in: a
// question with any other ("What labels does the dataset have?", "How
// big is the test set?") asks something particular that the answer
// ranking searches the paper for. Review columns are asked as given;
// this is for questions people type to ask.
var genericWords = textkit.Set(`what which how is are was were does do did it its this the a an paper work study article
they their authors author in of on for by to or and any there be been has have main key major primary principal central
problem problems address addresses addressed tackle tackles solve solves aim aims goal goals motivation challenge challenges
research question questions method methods approach approaches technique techniques propose proposes proposed present
presents introduce introduces contribution contributions much well better improve improves improvement improvements gain
gains outperform outperforms result results finding findings dataset datasets data set sets benchmark benchmarks corpus
corpora used use uses using evaluated evaluate evaluation limitation limitations weakness weaknesses drawback drawbacks
shortcoming shortcomings caveats code software implementation released release available publicly public open
open-source github about idea core basic behind works summarize summarise describe`)

// onlyGeneric reports whether every word of question is a genericWords
// one.
func onlyGeneric(question string) bool {
	for _, w := range strings.Fields(strings.ToLower(question)) {
		if w = strings.Trim(w, "?.,;:!\"'()"); w != "" && !genericWords[w] {
			return false
		}
	}
	return true
}

// asItself is question with the paper's own name (its short name, as
// ask.ShortName gives it) written as "it": "What are the limitations of
// Reflexion?" asked of Reflexion is the generic "What are the limitations
// of it?", "What are Reflexion's limitations?" "What are its
// limitations?".
func asItself(question, name string) string {
	if name == "" {
		return question
	}
	re, err := regexp.Compile(`(^|[^\pL\pN-])` + regexp.QuoteMeta(name) + `('s|’s)?([^\pL\pN-]|$)`)
	if err != nil {
		return question
	}
	return re.ReplaceAllStringFunc(question, func(m string) string {
		sub := re.FindStringSubmatch(m)
		it := "it"
		if sub[2] != "" {
			it = "its"
		}
		return sub[1] + it + sub[3]
	})
}

// describes asks what a paper is or does ("What is it?", "How does it
// work?", "What is the key idea of it?"): its method's question;
// findings asks its results ("What are the main findings of it?").
var (
	describes = lazyre.New(`(?i)^\s*(what is it|what does it do|how does it work|what is it about|what is (this|the) (paper|work|study) about|what is (the )?(key|main|core|central|basic) idea( of it| behind it)?|(summari[sz]e|describe) it)\s*[?.]?\s*$`)
	findings  = lazyre.New(`(?i)\b(main|key|major|principal) findings?\b`)
)
