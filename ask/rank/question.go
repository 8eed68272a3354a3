package rank

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/papers-cli/papers/internal/textkit"
)

// Question is a question read for ranking: its form and its words.
type Question struct {
	Text string
	// Wh is the question's form: "howmany", "howmuch", "how", "what",
	// "which", "who", "when", "where", "why", "yesno" (it opens with an
	// auxiliary: "Do they ...", "Is it ...") or "other".
	Wh string
	// Terms are the stems of its content words, each once, in order.
	Terms []string
	// Names are the names it asks about, lower-cased words of letters and
	// digits joined ("qwen38b", "terminalbench20", "lama"): written with
	// capitals inside or after its first word, or with digits.
	Names []string
}

// auxiliaries open yes/no questions.
var auxiliaries = map[string]bool{
	"is": true, "are": true, "was": true, "were": true, "do": true, "does": true, "did": true,
	"can": true, "could": true, "has": true, "have": true, "had": true, "will": true, "would": true,
	"should": true, "may": true, "might": true, "must": true, "am": true, "shall": true,
}

// ParseQuestion reads a question.
func ParseQuestion(q string) Question {
	out := Question{Text: q, Wh: whForm(tokens(q))}
	for _, s := range stems(q) {
		if !slices.Contains(out.Terms, s) {
			out.Terms = append(out.Terms, s)
		}
	}
	for i, w := range strings.Fields(q) {
		if n := nameKey(w, i == 0); n != "" && !slices.Contains(out.Names, n) {
			out.Names = append(out.Names, n)
		}
	}
	return out
}

// nameKey is the key of a word that names something (see Question.Names),
// "" for other words. first is set for the sentence's first word, whose
// capital says nothing.
func nameKey(w string, first bool) string {
	w = strings.Trim(w, "?.,;:!\"'()[]“”’")
	w = strings.TrimSuffix(strings.TrimSuffix(w, "'s"), "’s")
	c := textkit.CountLetters(w)
	upper, digit, letters := c.UpperInner, c.Digits, c.Upper+c.Lower+c.Other
	r, _ := utf8.DecodeRuneInString(w)
	named := upper > 0 || digit > 0 && letters > 0 || !first && unicode.IsUpper(r) && !stopword[strings.ToLower(w)]
	if !named || letters == 0 {
		return ""
	}
	return strings.Join(tokens(w), "")
}

// namesIn reports the share of the question's names that text holds (as
// consecutive words, so "Qwen3-8B" is in "Qwen3 8B"); 0 when it asks none.
func namesIn(names []string, text string) float64 {
	if len(names) == 0 {
		return 0
	}
	joined := strings.Join(tokens(text), " ")
	flat := " " + joined + " "
	squeezed := strings.ReplaceAll(joined, " ", "")
	n := 0
	for _, name := range names {
		if strings.Contains(flat, " "+name+" ") || strings.Contains(flat, " "+name+"s ") || len(name) >= 5 && strings.Contains(squeezed, name) {
			n++
		}
	}
	return float64(n) / float64(len(names))
}

// whForm classifies a question by its question word: the first one in
// its first clause, or an opening auxiliary.
func whForm(ws []string) string {
	if len(ws) == 0 {
		return "other"
	}
	if auxiliaries[ws[0]] {
		// "Is it X or Y?" asks which, not yes or no
		if slices.Contains(ws, "or") {
			return "which"
		}
		return "yesno"
	}
	for i, w := range ws {
		switch w {
		case "how":
			if i+1 < len(ws) {
				switch ws[i+1] {
				case "many":
					return "howmany"
				case "much", "big", "large", "long", "small", "well", "fast", "often":
					return "howmuch"
				}
			}
			return "how"
		case "what", "which", "who", "when", "where", "why", "whom", "whose":
			switch w {
			case "whom", "whose":
				return "who"
			}
			return w
		}
		if i >= 6 {
			break
		}
	}
	if len(ws) > 1 && auxiliaries[ws[1]] && (ws[0] == "and" || ws[0] == "so" || ws[0] == "but") {
		return "yesno"
	}
	if strings.HasPrefix(ws[0], "list") || ws[0] == "name" || ws[0] == "give" {
		return "what"
	}
	return "other"
}

// YesNo reports whether the question asks for a yes or a no.
func (q Question) YesNo() bool { return q.Wh == "yesno" }
