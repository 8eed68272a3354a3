// Package safetext removes from untrusted text (PDFs, feeds, corpora, model
// output) the characters that act on a terminal instead of showing:
// control characters (an ESC can retitle the window, recolour or clear the
// screen) and the Unicode bidirectional controls that make text display in
// another order than it reads.
package safetext

import (
	"strings"
	"unicode/utf8"
)

// Clean returns s with every control character other than tab and newline
// (C0, DEL and C1) replaced by a space, so that words stay apart as a
// tokenizer sees them, a carriage return turned into a newline (dropped
// before one), the bidirectional embeddings, overrides and isolates
// removed, and invalid UTF-8 replaced by U+FFFD. It returns s itself when
// there is nothing to change.
func Clean(s string) string {
	if !needsCleaning(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for i, r := range s {
		switch {
		case r == '\r':
			if i+1 >= len(s) || s[i+1] != '\n' {
				b.WriteByte('\n')
			}
		case isBidi(r):
		case drop(r):
			b.WriteByte(' ') // a separator, as tokenizers see it: words stay apart
		default:
			b.WriteRune(r) // RuneError for invalid bytes: U+FFFD
		}
	}
	return b.String()
}

func needsCleaning(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 && c != '\t' && c != '\n' || c == 0x7f {
			return true
		}
		if c >= utf8.RuneSelf {
			r, size := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && size == 1 || drop(r) {
				return true
			}
			i += size - 1
		}
	}
	return false
}

// drop reports whether r is removed: a control character (other than tab
// and newline) or a bidirectional control.
func drop(r rune) bool {
	switch {
	case r < 0x20:
		return r != '\t' && r != '\n'
	case r >= 0x7f && r <= 0x9f: // DEL and the C1 controls (0x9b is a CSI)
		return true
	}
	return isBidi(r)
}

// isBidi reports the bidirectional embeddings, overrides and isolates.
func isBidi(r rune) bool {
	return r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069
}
