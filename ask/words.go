package ask

import (
	"strings"
	"unicode"

	"github.com/papers-cli/papers/ask/rank"
	"github.com/papers-cli/papers/internal/lazyre"
	"github.com/papers-cli/papers/internal/textkit"
)

// stemsOf are the stems of s's content words (package rank's, so that the
// answer and its model read words alike).
func stemsOf(s string) []string { return rank.Stems(s) }

func stemSet(s string) map[string]bool {
	m := map[string]bool{}
	for _, t := range stemsOf(s) {
		m[t] = true
	}
	return m
}

// jaccard is the share of a's and b's words they have in common.
func jaccard(a, b map[string]bool) float64 {
	if len(a) == 0 || len(b) == 0 {
		return 0
	}
	n := 0
	for t := range a {
		if b[t] {
			n++
		}
	}
	return float64(n) / float64(len(a)+len(b)-n)
}

// yearRe finds a year of publication.
var yearRe = lazyre.New(`\b(19|20)\d\d[a-z]?\b`)

// nameLike reports whether w looks like a name. first is true for the
// first word of a sentence, whose capital says nothing.
func nameLike(w string, first bool) bool {
	c := textkit.CountLetters(w)
	upper, digit, letters := c.UpperInner, c.Digits, c.Upper+c.Lower
	if letters == 0 {
		return false // a number alone is not a name
	}
	if strings.Contains(w, "-") {
		// a hyphenated name: every part a name or capitalised (Co-ReAct,
		// Llama2-7B, SL-CAI), not "top-p" or "13B-parameter"
		for _, part := range strings.Split(w, "-") {
			if part == "" {
				return false
			}
			r := []rune(part)
			if !unicode.IsUpper(r[0]) && !unicode.IsDigit(r[0]) {
				return false
			}
		}
		return !first || upper > 0 || digit > 0
	}
	if upper > 0 || digit > 0 {
		return true
	}
	r := []rune(w)
	return !first && unicode.IsUpper(r[0]) && !capitalisedCommon(w)
}

// capitalisedCommon reports whether w is a common English word written
// with a capital, as at the start of a clause.
func capitalisedCommon(w string) bool {
	l := strings.ToLower(w)
	return rank.Stopword(l) || l == "using" || l == "given" || l == "according"
}
