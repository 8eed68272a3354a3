package safetext

import "testing"

func TestClean(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"plain text, ünïcode — and tabs\tand\nlines", "plain text, ünïcode — and tabs\tand\nlines"},
		{"Evil \x1b]0;pwned\x07\x1b[31mRED", "Evil  ]0;pwned  [31mRED"},
		{"clear\x1b[2J screen", "clear [2J screen"},
		{"C1 \u009b31m CSI", "C1  31m CSI"},
		{"line\r\nend\rold mac", "line\nend\nold mac"},
		{"bidi \u202eevil\u202c and \u2066isolate\u2069", "bidi evil and isolate"},
		{"nul\x00 del\x7f page\fbreak", "nul  del  page break"},
		{"bad \xff utf8", "bad \ufffd utf8"},
		{"", ""},
	} {
		if got := Clean(c.in); got != c.want {
			t.Errorf("Clean(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func FuzzClean(f *testing.F) {
	f.Add("Evil \x1b]0;pwned\x07\x1b[31mRED\u202e\r\n")
	f.Fuzz(func(t *testing.T, s string) {
		out := Clean(s)
		if needsCleaning(out) {
			t.Fatalf("Clean(%q) = %q still needs cleaning", s, out)
		}
		if Clean(out) != out {
			t.Fatalf("Clean is not idempotent on %q", s)
		}
	})
}

func TestLine(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"2501.12948", "2501.12948"},
		{"id\x1b]0;pwned\x07\nadded evil", "id ]0;pwned  added evil"},
		{"a\tb\r\nc", "a b c"},
		{"\u009b2J\u202e", " 2J"},
	} {
		if got := Line(c.in); got != c.want {
			t.Errorf("Line(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
