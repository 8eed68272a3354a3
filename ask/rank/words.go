package rank

import (
	"strings"

	"github.com/papers-cli/papers/internal/textkit"
)

// tokens returns the lower-cased words of s (textkit's words: runs of
// letters and digits).
func tokens(s string) []string {
	ws := textkit.Words(s)
	for i, w := range ws {
		ws[i] = strings.ToLower(w)
	}
	return ws
}

// stems returns the Porter2 stems of s's words that are not stopwords.
func stems(s string) []string {
	var out []string
	for _, w := range tokens(s) {
		if stopword[w] || len(w) < 2 && !isDigits(w) {
			continue
		}
		out = append(out, stem(w))
	}
	return out
}

// stem is the Porter2 stem of a lower-case word (textkit's, with its one
// bounded cache; digits are their own stem).
func stem(w string) string {
	if isDigits(w) {
		return w
	}
	return textkit.Stem(w)
}

func isDigits(w string) bool {
	if w == "" {
		return false
	}
	for _, r := range w {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// stopword holds the function words of English and the words every
// question about a paper uses ("what", "they", "paper").
var stopword = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`a an the and or but nor of in on at to for from by with without into onto
		over under about above below between among through during before after since until than then
		as is are was were be been being am do does did doing done has have had having will would shall
		should can could may might must this that these those there here it its it's they them their
		theirs we our ours us you your he she his her him i me my what which who whom whose when where
		why how whether if so not no yes also such each every all any some both either neither other
		another more most much many few less least very just only even too own same again further once
		out up down off via per et al e.g i.e etc paper papers author authors work article study`) {
		m[w] = true
	}
	return m
}()

// Stems returns the Porter2 stems of s's content words (lower-cased,
// stopwords dropped), in order: the words the model matches.
func Stems(s string) []string { return stems(s) }

// Stopword reports whether the lower-case word w is one the model ignores.
func Stopword(w string) bool { return stopword[w] }
