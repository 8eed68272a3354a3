// Package safetext removes from untrusted text (PDFs, feeds, corpora, model
// output) the characters that act on a terminal instead of showing:
// control characters (an ESC can retitle the window, recolour or clear the
// screen) and the Unicode bidirectional controls that make text display in
// another order than it reads.
package safetext

import (
	"io"
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

// OneLine is Line with every run of white space made one space and the
// ends trimmed: for a server's message quoted inside an error.
func OneLine(s string) string { return strings.Join(strings.Fields(Line(s)), " ") }

// Writer cleans a stream of text the way Clean cleans a string, whatever
// the size of the pieces written: a UTF-8 sequence or a "\r\n" split
// between two writes is held until the next write (or Flush) completes it.
// It passes clean text on to W; not safe for concurrent use.
type Writer struct {
	W    io.Writer
	held []byte // an incomplete UTF-8 sequence or a final '\r'
}

// NewWriter returns a Writer cleaning text on its way to w.
func NewWriter(w io.Writer) *Writer { return &Writer{W: w} }

// Write cleans p (with what was held) and writes the result to W. It
// reports len(p) written unless W fails.
func (c *Writer) Write(p []byte) (int, error) {
	buf := append(c.held, p...)
	c.held = nil
	// Hold back what the next write may change: an incomplete rune at the
	// end, or a '\r' that may be followed by '\n'.
	cut := len(buf)
	if cut > 0 && buf[cut-1] == '\r' {
		cut--
	} else if i := incompleteTail(buf); i >= 0 {
		cut = i
	}
	if cut < len(buf) {
		c.held = append([]byte(nil), buf[cut:]...)
	}
	if cut == 0 {
		return len(p), nil
	}
	if _, err := io.WriteString(c.W, Clean(string(buf[:cut]))); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Flush writes what is held (cleaned: an incomplete sequence becomes
// U+FFFD, a final '\r' a newline).
func (c *Writer) Flush() error {
	if len(c.held) == 0 {
		return nil
	}
	s := Clean(string(c.held))
	c.held = nil
	_, err := io.WriteString(c.W, s)
	return err
}

// incompleteTail returns where a UTF-8 sequence that is cut short at the
// end of b starts, or -1.
func incompleteTail(b []byte) int {
	for i := len(b) - 1; i >= 0 && i >= len(b)-utf8.UTFMax; i-- {
		if utf8.RuneStart(b[i]) {
			if !utf8.FullRune(b[i:]) {
				return i
			}
			return -1
		}
	}
	return -1
}
