package cite

import (
	"testing"

	"github.com/papers-cli/papers/store"
)

func TestCite(t *testing.T) {
	for _, c := range []struct {
		start, end int
		want       string
	}{{0, 0, ""}, {0, 3, ""}, {3, 0, "3"}, {3, 3, "3"}, {3, 4, "3-4"}} {
		if got := Pages(c.start, c.end); got != c.want {
			t.Errorf("Pages(%d, %d) = %q, want %q", c.start, c.end, got, c.want)
		}
	}
	for _, c := range []struct {
		authors []string
		want    string
	}{{nil, ""}, {[]string{"Guo"}, "Guo"}, {[]string{"Guo", "Yang"}, "Guo and Yang"}, {[]string{"Guo", "Yang", "Zhang"}, "Guo et al."}} {
		if got := Authors(c.authors); got != c.want {
			t.Errorf("Authors(%q) = %q, want %q", c.authors, got, c.want)
		}
	}
	for _, c := range []struct {
		p    store.Paper
		want string
	}{
		{store.Paper{ID: "2501.12948", Version: 2, Source: "arxiv"}, "https://arxiv.org/abs/2501.12948v2"},
		{store.Paper{ID: "2501.12948", Source: "arxiv"}, "https://arxiv.org/abs/2501.12948"},
		{store.Paper{ID: "2501.12948", Version: 2, Source: "arxiv", URL: "http://arxiv.org/abs/2501.12948v2"}, "http://arxiv.org/abs/2501.12948v2"},
		{store.Paper{ID: "topic-001", Source: "jsonl"}, ""},
	} {
		if got := URL(c.p); got != c.want {
			t.Errorf("URL(%+v) = %q, want %q", c.p, got, c.want)
		}
	}
}
