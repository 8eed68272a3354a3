package tex

import "testing"

func TestJournal(t *testing.T) {
	for _, c := range []struct {
		in, want string
		ok       bool
	}{
		{`\apjs`, "The Astrophysical Journal Supplement Series", true},
		{`{\mnras}`, "Monthly Notices of the Royal Astronomical Society", true},
		{` \aap `, "Astronomy and Astrophysics", true},
		{`\prl{}`, "Physical Review Letters", true},
		{`\unknownmacro`, `\unknownmacro`, false},
		{"Nature", "Nature", false},
	} {
		if got, ok := Journal(c.in); got != c.want || ok != c.ok {
			t.Errorf("Journal(%q) = %q, %v; want %q, %v", c.in, got, ok, c.want, c.ok)
		}
	}
}
