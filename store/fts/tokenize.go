package fts

import (
	"iter"
	"sync"
	"unicode"
	"unicode/utf8"
	"unsafe"

	"golang.org/x/text/unicode/norm"
)

// Words yields the folded tokens of s as SQLite FTS5's unicode61 tokenizer
// with remove_diacritics 2 finds them: maximal runs of letters, numbers and
// private-use characters (combining diacritics inside a run are dropped),
// lower-cased, with the diacritics of Latin letters removed. The yielded
// slice must not be modified and is valid only until the next iteration.
func Words(s string) iter.Seq[[]byte] {
	return func(yield func([]byte) bool) {
		var buf [64]byte
		for i := 0; i < len(s); {
			// Fast path: a run of lower-case ASCII letters and digits is
			// yielded in place.
			j := i
			for j < len(s) && asciiClass[s[j]] == lowerOrDigit {
				j++
			}
			if j > i && (j == len(s) || asciiClass[s[j]] == separator) {
				if !yield(unsafe.Slice(unsafe.StringData(s[i:]), j-i)) {
					return
				}
				i = j + 1
				continue
			}
			// Slow path: fold the token into buf.
			tok := append(buf[:0], s[i:j]...)
			i = j
			for i < len(s) {
				c := s[i]
				if cl := asciiClass[c]; cl == lowerOrDigit {
					tok = append(tok, c)
					i++
					continue
				} else if cl == upper {
					tok = append(tok, c+'a'-'A')
					i++
					continue
				} else if cl == separator {
					i++
					break
				}
				r, size := utf8.DecodeRuneInString(s[i:])
				if isDiacritic(r) {
					i += size
					continue // part of the token, folded to nothing
				}
				if !isTokenRune(r) {
					i += size
					break
				}
				tok = utf8.AppendRune(tok, fold(r))
				i += size
			}
			if len(tok) > 0 && !yield(tok) {
				return
			}
		}
	}
}

const (
	separator = iota
	lowerOrDigit
	upper
	nonASCII
)

// asciiClass classifies bytes for Words.
var asciiClass = func() (t [256]uint8) {
	for c := range 256 {
		switch {
		case 'a' <= c && c <= 'z' || '0' <= c && c <= '9':
			t[c] = lowerOrDigit
		case 'A' <= c && c <= 'Z':
			t[c] = upper
		case c >= utf8.RuneSelf:
			t[c] = nonASCII
		}
	}
	return t
}()

// Terms yields the index terms of s: its Words, stemmed. The yielded slice
// is reused.
func Terms(s string) iter.Seq[[]byte] {
	return func(yield func([]byte) bool) {
		var buf [maxStemmed + 8]byte
		for w := range Words(s) {
			if !yield(Stem(w, buf[:0])) {
				return
			}
		}
	}
}

// isTokenRune is unicode61's default token class: categories L*, N* and Co.
func isTokenRune(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsNumber(r) || unicode.Is(unicode.Co, r)
}

// isDiacritic reports the combining diacritical marks unicode61 treats as
// part of a token and removes.
func isDiacritic(r rune) bool { return 0x300 <= r && r <= 0x36f }

// fold case-folds r (to the lower case of its upper case, so that the
// micro sign is a mu and a lunate epsilon an epsilon, as in FTS5) and, for
// Latin letters, removes its diacritics.
func fold(r rune) rune {
	r = unicode.ToLower(unicode.ToUpper(r))
	if r < 0xc0 {
		return r
	}
	if b, ok := latinBase()[r]; ok {
		return b
	}
	return r
}

// latinBase maps the accented Latin letters (Latin-1 Supplement, Extended-A
// and -B, Extended Additional) to their lower-case base letter. It is made
// on first use: every start of the binary would pay for it otherwise.
var latinBase = sync.OnceValue(func() map[rune]rune {
	m := map[rune]rune{}
	add := func(lo, hi rune) {
		for r := lo; r <= hi; r++ {
			d := norm.NFD.String(string(r))
			base, n := utf8.DecodeRuneInString(d)
			if n == len(d) || base >= utf8.RuneSelf || !unicode.IsLetter(base) {
				continue
			}
			rest := d[n:]
			ok := true
			for _, c := range rest {
				ok = ok && isDiacritic(c)
			}
			if ok {
				m[r] = unicode.ToLower(base)
			}
		}
	}
	add(0xc0, 0x24f)
	add(0x1e00, 0x1eff)
	return m
})
