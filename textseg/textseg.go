// Package textseg splits text into paragraphs and sentences. It is shared by
// the chunker (ingest) and answer assembly (ask) so both agree on what a
// sentence is.
package textseg

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Paragraphs splits text on blank lines and joins the lines of each paragraph
// with single spaces. Empty paragraphs are dropped.
func Paragraphs(text string) []string {
	var out []string
	var cur []string
	flush := func() {
		if len(cur) > 0 {
			out = append(out, strings.Join(cur, " "))
			cur = cur[:0]
		}
	}
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			flush()
			continue
		}
		cur = append(cur, line)
	}
	flush()
	return out
}

// abbreviations that end with a period without ending a sentence
// (compared lower-cased, without the final period).
var abbreviations = map[string]bool{
	"e.g": true, "i.e": true, "et al": true, "al": true, "fig": true, "figs": true,
	"eq": true, "eqs": true, "sec": true, "secs": true, "tab": true, "ref": true,
	"refs": true, "vs": true, "cf": true, "approx": true, "resp": true, "no": true,
	"vol": true, "pp": true, "ch": true, "dr": true, "mr": true, "ms": true,
	"prof": true, "inc": true, "etc": true, "appx": true, "app": true, "st": true,
	"viz": true, "cit": true, "op": true, "ed": true, "eds": true,
}

// Sentences splits one paragraph into sentences. A sentence ends at '.', '!'
// or '?' (optionally followed by closing quotes or brackets) when the next
// word starts with an upper-case letter, a digit or an opening bracket, unless
// the word before the period is a known abbreviation ("e.g.", "Fig."), a
// single capital (an initial) or letters with periods ("U.S."). A period
// followed by a footnote or citation mark, as PDF text has it ("the rotor
// model.10 The quantum ..."), ends a sentence too. Whitespace inside
// sentences is collapsed to single spaces.
func Sentences(paragraph string) []string {
	words := strings.Fields(paragraph)
	var out []string
	start := 0
	for i, w := range words {
		if i+1 < len(words) && endsSentence(w, words[i+1]) {
			out = append(out, strings.Join(words[start:i+1], " "))
			start = i + 1
		}
	}
	if start < len(words) {
		out = append(out, strings.Join(words[start:], " "))
	}
	return out
}

// EndsSentence reports whether Sentences ends a sentence after the word w
// when the word next follows it (only next's first character matters), so
// that text arriving in pieces can be split as Sentences splits it whole.
func EndsSentence(w, next string) bool { return endsSentence(w, next) }

func endsSentence(w, next string) bool {
	core := strings.TrimRight(w, "\"'”’)]")
	if core == "" {
		return false
	}
	if footnoted(core) {
		first, _ := utf8.DecodeRuneInString(next)
		return unicode.IsUpper(first)
	}
	last, _ := utf8.DecodeLastRuneInString(core)
	if last != '.' && last != '!' && last != '?' {
		return false
	}
	first, _ := utf8.DecodeRuneInString(next)
	if !(unicode.IsUpper(first) || unicode.IsDigit(first) || strings.ContainsRune("([\"“'‘", first)) {
		return false
	}
	if last != '.' {
		return true
	}
	stem := strings.ToLower(strings.TrimLeft(strings.TrimSuffix(core, "."), "(["))
	if abbreviations[stem] {
		return false
	}
	if r := []rune(stem); len(r) == 1 && unicode.IsLetter(r[0]) {
		return false // an initial: "J. Smith"
	}
	if dotted(stem) {
		return false // "U.S.", "a.k.a."
	}
	return true
}

// footnoted reports a word that ends a sentence with a footnote or
// citation mark of one or two digits after the period: two lower-case
// letters (a word, not "Fig" or "3"), a period, the digits.
func footnoted(w string) bool {
	i := strings.LastIndexByte(w, '.')
	if i < 2 || len(w)-i-1 < 1 || len(w)-i-1 > 2 {
		return false
	}
	for _, r := range w[i+1:] {
		if r < '0' || r > '9' {
			return false
		}
	}
	a, _ := utf8.DecodeLastRuneInString(w[:i])
	b, _ := utf8.DecodeLastRuneInString(strings.TrimRight(w[:i], string(a)))
	return unicode.IsLower(a) && (unicode.IsLower(b) || b == a)
}

// dotted reports letters separated by periods ("u.s", "a.k.a").
func dotted(stem string) bool {
	parts := strings.Split(stem, ".")
	if len(parts) < 2 {
		return false
	}
	for _, p := range parts {
		if r := []rune(p); len(r) != 1 || !unicode.IsLetter(r[0]) {
			return false
		}
	}
	return true
}

// WordCount is the number of whitespace-separated words in s.
func WordCount(s string) int { return len(strings.Fields(s)) }
