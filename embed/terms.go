package embed

import (
	"strings"
	"unicode/utf8"

	"github.com/kljensen/snowball/english"

	"github.com/papers-cli/papers/internal/textkit"
)

// Terms splits text into the lexical terms of the local embedder (which the
// snippets of search match query words by): lower-cased runs of letters and
// digits, English stop words dropped, each word reduced by the Porter2
// (Snowball English) stemmer. BM25 does not use it: store/fts reproduces
// SQLite FTS5's own tokenizer. Safe for concurrent use.
func Terms(text string) []string {
	out := make([]string, 0, len(text)/7)
	forEachWord(text, func(w string) {
		if isStop(w) {
			return
		}
		out = append(out, textkit.Stem(w))
	})
	return out
}

func isStop(w string) bool { return english.IsStopWord(w) }

// forEachWord calls f with each lower-cased word of text (textkit.EachWord:
// a maximal run of letters and digits).
func forEachWord(text string, f func(string)) {
	textkit.EachWord(text, func(lo, hi int) {
		w := text[lo:hi]
		if hasUpper(w) {
			w = strings.ToLower(w)
		}
		f(w)
	})
}

// hasUpper reports whether w has a letter strings.ToLower would change
// (any non-ASCII rune counts): most words are lower-case ASCII already.
func hasUpper(w string) bool {
	for i := 0; i < len(w); i++ {
		if c := w[i]; c >= utf8.RuneSelf || 'A' <= c && c <= 'Z' {
			return true
		}
	}
	return false
}

// ContentWords returns the lower-cased words of text that are not English
// stop words, unstemmed and in order (duplicates kept). Lexical search
// engines that stem for themselves (SQLite FTS5's porter tokenizer) take
// these: dropping stop words keeps their long posting lists out of a query.
func ContentWords(text string) []string {
	var out []string
	forEachWord(text, func(w string) {
		if !isStop(w) {
			out = append(out, w)
		}
	})
	return out
}
