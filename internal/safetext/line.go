package safetext

import "strings"

// Line returns s made inert and kept on one line, for untrusted strings
// printed inside a line of output (ids, titles, file names, a server's
// status line in an error): Clean, then every newline and tab becomes a
// space, so an id cannot forge further lines of output. It returns s itself
// when there is nothing to change.
func Line(s string) string {
	s = Clean(s)
	if !strings.ContainsAny(s, "\n\t") {
		return s
	}
	return strings.Map(func(r rune) rune {
		if r == '\n' || r == '\t' {
			return ' '
		}
		return r
	}, s)
}
