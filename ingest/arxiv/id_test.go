package arxiv_test

import (
	"testing"

	"github.com/papers-cli/papers/ingest/arxiv"
)

func TestParseID(t *testing.T) {
	tests := []struct {
		in      string
		id      string
		version int
	}{
		{"2501.12948", "2501.12948", 0},
		{"2210.03629v3", "2210.03629", 3},
		{"0704.0001", "0704.0001", 0},
		{"1412.9999v1", "1412.9999", 1},
		{"1501.00001", "1501.00001", 0},
		{"0000.0000", "0000.0000", 0}, // well-formed, unknown to arXiv (recorded)
		{"astro-ph/0601001", "astro-ph/0601001", 0},
		{"hep-th/9901001v2", "hep-th/9901001", 2},
		{"math.GT/0309136", "math.GT/0309136", 0},
		{"https://arxiv.org/abs/1111.2011", "1111.2011", 0},
		{"http://arxiv.org/abs/1111.2011v2", "1111.2011", 2},
		{"http://arxiv.org/pdf/2501.12948v1", "2501.12948", 1},
		{"https://arxiv.org/pdf/2501.12948v1.pdf", "2501.12948", 1},
		{"https://export.arxiv.org/abs/quant-ph/0201082v1", "quant-ph/0201082", 1},
		{"https://arxiv.org/abs/2302.04761?context=cs", "2302.04761", 0},
		{"arXiv:2501.12948", "2501.12948", 0},
		{"arxiv:hep-th/9901001v2", "hep-th/9901001", 2},
		{"  2501.12948 ", "2501.12948", 0},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			id, v, err := arxiv.ParseID(tc.in)
			if err != nil || id != tc.id || v != tc.version {
				t.Errorf("ParseID(%q) = %q, %d, %v; want %q, %d", tc.in, id, v, err, tc.id, tc.version)
			}
			if !arxiv.LooksLikeID(tc.in) {
				t.Errorf("LooksLikeID(%q) = false", tc.in)
			}
		})
	}
	for _, in := range []string{
		"", "abc", "1234.5", "2501.129", "2501.123456", "2501.12948v0", "2501.12948v",
		"hep-th/990100", "2501.1294", "1412.12345", "https://example.com/abs/2501.12948", "https://arxiv.org/list/cs.CL/new",
		"large language models", "ti:2501.12948", "2501.12948 2501.12949",
	} {
		t.Run("bad "+in, func(t *testing.T) {
			if id, v, err := arxiv.ParseID(in); err == nil {
				t.Errorf("ParseID(%q) = %q, %d; want an error", in, id, v)
			}
			if arxiv.LooksLikeID(in) {
				t.Errorf("LooksLikeID(%q) = true", in)
			}
		})
	}
}
