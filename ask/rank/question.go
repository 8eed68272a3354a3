package rank

import (
	"slices"
	"strings"
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
	return out
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
