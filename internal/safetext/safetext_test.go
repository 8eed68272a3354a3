package safetext

import (
	"encoding/json"
	"strings"
	"testing"
)

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

// The streaming Writer gives what Clean gives on the whole text, however
// the text is cut into writes (C1 controls and bidi overrides are two and
// three bytes long: a cut inside one must not let it through).
func TestWriterAnySplit(t *testing.T) {
	for _, in := range []string{
		"C1 \u009b2J and \u009d0;title\u009c, bidi \u202eevil\u202c, ESC \x1b[2J, NUL \x00, CR\r\nend\rx",
		"ünïcode — text\r",
		"bad \xff\xfe utf8 \xe2\x80",
	} {
		want := Clean(in)
		for size := 1; size <= len(in); size++ {
			var b strings.Builder
			w := NewWriter(&b)
			for i := 0; i < len(in); i += size {
				if _, err := w.Write([]byte(in[i:min(i+size, len(in))])); err != nil {
					t.Fatal(err)
				}
			}
			if err := w.Flush(); err != nil {
				t.Fatal(err)
			}
			if b.String() != want {
				t.Errorf("%q in writes of %d: %q, want %q", in, size, b.String(), want)
				break
			}
		}
	}
	if got := OneLine(" error:\n\x1b[2J  cleared\tscreen \u202e "); got != "error: [2J cleared screen" {
		t.Errorf("OneLine = %q", got)
	}
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

func TestEscapeJSON(t *testing.T) {
	in := []byte(`{"id":"a` + "\u009b2J\u202e\x7f" + `b","t":"ünï"}`)
	got := string(EscapeJSON(in))
	if want := `{"id":"a\u009b2J\u202e\u007fb","t":"ünï"}`; got != want {
		t.Errorf("EscapeJSON = %s, want %s", got, want)
	}
	var a, b map[string]string
	if err := json.Unmarshal(in, &a); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(got), &b); err != nil || a["id"] != b["id"] {
		t.Errorf("the escaped JSON reads back %q (%v), want %q", b["id"], err, a["id"])
	}
	plain := []byte(`{"t":"ünï"}`)
	if out := EscapeJSON(plain); &out[0] != &plain[0] {
		t.Error("EscapeJSON copied JSON with nothing to escape")
	}
}
