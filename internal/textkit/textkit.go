// Package textkit holds the small text and terminal helpers every package
// of papers uses, written once: the words of a text and their stems (one
// bounded cache), counted nouns, dates, the first words of a text, and
// display-width truncation, wrapping and padding (on charmbracelet/x/ansi,
// so wide CJK characters count two columns and ANSI styles none).
// Untrusted text is made inert before it is shown by package safetext,
// whose OneLine is the one-line form of a text.
package textkit

import (
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode"

	"github.com/charmbracelet/x/ansi"
	"github.com/kljensen/snowball/english"
)

// EachWord calls f with the byte span [lo, hi) of each word of s: a
// maximal run of letters and digits (hyphens and other punctuation
// separate words).
func EachWord(s string, f func(lo, hi int)) {
	start := -1
	for i, r := range s {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			if start < 0 {
				start = i
			}
			continue
		}
		if start >= 0 {
			f(start, i)
			start = -1
		}
	}
	if start >= 0 {
		f(start, len(s))
	}
}

// Words returns the words of s (see EachWord) as written.
func Words(s string) []string {
	var out []string
	EachWord(s, func(lo, hi int) { out = append(out, s[lo:hi]) })
	return out
}

// maxStems bounds the stem cache: the frequent words come early and stay;
// a corpus of unique tokens (ids, numbers) no longer grows the process by
// some 300 bytes a word (bench/jsonlmem measured a million words).
const maxStems = 1 << 17

var (
	stems     sync.Map // string -> string
	stemCount atomic.Int64
)

// Set is the set of the white-space separated words of s: a word list
// written as one string, as stop lists are.
func Set(s string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(s) {
		m[w] = true
	}
	return m
}

// Stem returns the Porter2 (Snowball English) stem of word, lower-cased.
// Stems are cached (at most maxStems words): stemming dominates the time
// of tokenising and of the offline answer, and a library's vocabulary is
// small next to its token count. Safe for concurrent use.
func Stem(word string) string {
	if len(word) <= 2 {
		return strings.ToLower(word)
	}
	if s, ok := stems.Load(word); ok {
		return s.(string)
	}
	s := english.Stem(word, true)
	if stemCount.Add(1) <= maxStems {
		stems.Store(strings.Clone(word), s)
	}
	return s
}

// Count says "1 paper", "2 papers", "0 papers": n and the noun, with an s
// unless n is 1 (every noun papers counts takes an s).
func Count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}

// Plural is one when n is 1, else many.
func Plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// Day formats a date as YYYY-MM-DD (UTC), or "" when it is unknown (zero).
func Day(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.DateOnly)
}

// FirstWords returns the first n words of s (split on white space, joined
// by one space) and whether s had more.
func FirstWords(s string, n int) (string, bool) {
	f := strings.Fields(s)
	if len(f) <= n {
		return strings.Join(f, " "), false
	}
	return strings.Join(f[:n], " "), true
}

// Width is how many terminal columns s takes: wide (CJK) characters count
// two, ANSI escape sequences none.
func Width(s string) int { return ansi.StringWidth(s) }

// Truncate cuts s to at most w columns, ending it with "…" when cut (ANSI
// styles are kept and closed).
func Truncate(s string, w int) string {
	if Width(s) <= w {
		return s
	}
	return ansi.Truncate(s, max(1, w), "…")
}

// Wrap breaks s into lines of at most w columns at spaces (a word longer
// than a line is cut), its white space folded; ANSI styles do not count.
func Wrap(s string, w int) []string {
	s = strings.Join(strings.Fields(s), " ")
	if s == "" {
		return nil
	}
	return strings.Split(ansi.Wrap(s, max(1, w), ""), "\n")
}

// Pad adds spaces to s up to w columns.
func Pad(s string, w int) string {
	if n := w - Width(s); n > 0 {
		return s + strings.Repeat(" ", n)
	}
	return s
}

// Letters counts the kinds of characters of a word, for deciding whether
// it is written as a name: capitals (Upper, and UpperInner of them after
// the first character), lower-case letters, other letters (neither case:
// CJK, title case) and digits.
type Letters struct {
	Upper, UpperInner, Lower, Other, Digits int
}

// CountLetters counts w's characters by kind (see Letters).
func CountLetters(w string) Letters {
	var c Letters
	for i, r := range w {
		switch {
		case unicode.IsUpper(r):
			c.Upper++
			if i > 0 {
				c.UpperInner++
			}
		case unicode.IsLower(r):
			c.Lower++
		case unicode.IsLetter(r):
			c.Other++
		case unicode.IsDigit(r):
			c.Digits++
		}
	}
	return c
}
