package embed

import (
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/kljensen/snowball/english"
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
		out = append(out, stem(w))
	})
	return out
}

func isStop(w string) bool { return english.IsStopWord(w) }

// forEachWord calls f with each lower-cased word of text: a maximal run of
// letters and digits. Hyphens and other punctuation separate words.
func forEachWord(text string, f func(string)) {
	start := -1
	lower := true
	for i, r := range text {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			if start < 0 {
				start = i
				lower = true
			}
			if r >= utf8.RuneSelf || unicode.IsUpper(r) {
				lower = false
			}
			continue
		}
		if start >= 0 {
			emitWord(text[start:i], lower, f)
			start = -1
		}
	}
	if start >= 0 {
		emitWord(text[start:], lower, f)
	}
}

func emitWord(w string, lower bool, f func(string)) {
	if !lower {
		w = strings.ToLower(w)
	}
	f(w)
}

// stemCache memoises the stemmer, which dominates tokenising time; the
// vocabulary of a library is small next to its token count.
var stemCache sync.Map // string -> string

// maxCachedStems bounds the cache: the frequent words come early and stay;
// a corpus of unique tokens (ids, numbers) no longer grows the process by
// some 300 bytes a word up to 1M words (bench/jsonlmem measured it).
const maxCachedStems = 1 << 17

var cachedStems int64
var cachedMu sync.Mutex

func stem(w string) string {
	if len(w) <= 2 {
		return w
	}
	if s, ok := stemCache.Load(w); ok {
		return s.(string)
	}
	s := english.Stem(w, true)
	cachedMu.Lock()
	if cachedStems < maxCachedStems {
		cachedStems++
		cachedMu.Unlock()
		stemCache.Store(strings.Clone(w), s)
	} else {
		cachedMu.Unlock()
	}
	return s
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
