package safetext

import (
	"bytes"
	"fmt"
	"unicode/utf8"
)

// EscapeJSON returns the JSON text b with every character that acts on a
// terminal written as a \uXXXX escape: DEL, the C1 controls (U+0080-U+009F)
// and the bidirectional controls, which encoding/json leaves raw (it
// escapes C0 itself). The JSON means the same (a decoder reads the same
// strings back); printed raw on a terminal it is inert. Outside strings
// JSON has no such characters, so every one found is inside a string. b
// itself is returned when there is nothing to escape.
func EscapeJSON(b []byte) []byte {
	if !needsJSONEscape(b) {
		return b
	}
	var out bytes.Buffer
	out.Grow(len(b) + 16)
	for len(b) > 0 {
		r, size := utf8.DecodeRune(b)
		if r == 0x7f || r >= 0x80 && r <= 0x9f || isBidi(r) {
			fmt.Fprintf(&out, `\u%04x`, r)
		} else {
			out.Write(b[:size])
		}
		b = b[size:]
	}
	return out.Bytes()
}

func needsJSONEscape(b []byte) bool {
	for i := 0; i < len(b); i++ {
		c := b[i]
		if c == 0x7f {
			return true
		}
		if c >= utf8.RuneSelf {
			r, size := utf8.DecodeRune(b[i:])
			if r >= 0x80 && r <= 0x9f || isBidi(r) {
				return true
			}
			i += size - 1
		}
	}
	return false
}
