package syntax

import (
	"strings"
	"testing"
)

// TestLexUnclosedArray: a TJ array whose "]" the producer forgot ends at
// the operator; the strings are shown and the rest of the stream is read
// as before (it was swallowed into the array).
func TestLexUnclosedArray(t *testing.T) {
	l := lexer{b: []byte("BT [(Hello) -250 (World) TJ 0 -12 Td [(next) 5 Tw (line)] TJ ET")}
	var got []string
	for {
		o, op, ok := l.next(0)
		if !ok {
			break
		}
		switch {
		case op != "":
			got = append(got, op)
		case o.Kind == KArr:
			var parts []string
			for _, e := range o.Arr {
				if e.Kind == KStr {
					parts = append(parts, e.S)
				}
			}
			got = append(got, "["+strings.Join(parts, "|")+"]")
		}
	}
	want := "BT [Hello|World] TJ Td [next|line] TJ ET"
	if s := strings.Join(got, " "); s != want {
		t.Errorf("got %q, want %q", s, want)
	}
}
