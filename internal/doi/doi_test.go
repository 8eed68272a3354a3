package doi

import "testing"

func TestParse(t *testing.T) {
	for _, c := range []struct {
		in, want string
		ok       bool
	}{
		{"10.1145/1327452.1327492", "10.1145/1327452.1327492", true},
		{"doi:10.1145/1327452.1327492", "10.1145/1327452.1327492", true},
		{"DOI: 10.1371/journal.PONE.0033693.", "10.1371/journal.pone.0033693", true},
		{"https://doi.org/10.1145/1327452.1327492", "10.1145/1327452.1327492", true},
		{"http://dx.doi.org/10.1038/nnano.2014.279", "10.1038/nnano.2014.279", true},
		{"https://doi.org/10.1002%2Fjor.1100150407", "10.1002/jor.1100150407", true},
		// SICI DOIs keep their brackets and colons
		{"10.1890/0012-9658(2006)87[2832:TIOPMA]2.0.CO;2", "10.1890/0012-9658(2006)87[2832:tiopma]2.0.co;2", true},
		{"10.1023/A:1007154515475", "10.1023/a:1007154515475", true},
		{"(see 10.1000/xyz)", "", false},
		{"2501.12948", "", false},
		{"10.1000", "", false},
		{"refs.bib", "", false},
	} {
		got, ok := Parse(c.in)
		if got != c.want || ok != c.ok {
			t.Errorf("Parse(%q) = %q, %v; want %q, %v", c.in, got, ok, c.want, c.ok)
		}
	}
	if got := Find("see doi:10.1000/xyz), and more"); got != "10.1000/xyz" {
		t.Errorf("Find = %q", got)
	}
	if got := Arxiv("https://doi.org/10.48550/arXiv.2312.07559"); got != "2312.07559" {
		t.Errorf("Arxiv = %q", got)
	}
	if got := Arxiv("10.1145/1327452.1327492"); got != "" {
		t.Errorf("Arxiv(crossref doi) = %q", got)
	}
}
