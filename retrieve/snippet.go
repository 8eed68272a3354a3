package retrieve

import (
	"strings"

	"github.com/papers-cli/papers/embed"
	"github.com/papers-cli/papers/internal/textkit"
)

// Snippet is a cut of a passage's text for people: about n bytes around the
// densest run of the query's words, with the places of those words.
type Snippet struct {
	// Text is the cut, whitespace collapsed, with "…" where text was left
	// out at either end.
	Text string
	// Hits are the byte ranges [lo, hi) of Text that are query words (as
	// embed.Terms sees them: "Models" matches "model"), in order.
	Hits [][2]int
}

// MakeSnippet cuts about n bytes of text around the run of n bytes, starting
// at a word, that holds the most query words, starting a little (a fifth of
// n) before that run's first hit for context; a text of n bytes or fewer is
// kept whole. Cuts fall between words.
func MakeSnippet(text, query string, n int) Snippet {
	text = strings.Join(strings.Fields(text), " ")
	want := map[string]bool{}
	for _, t := range embed.Terms(query) {
		want[t] = true
	}
	// Word spans and whether each matches.
	type span struct {
		lo, hi int
		hit    bool
	}
	var spans []span
	textkit.EachWord(text, func(lo, hi int) {
		terms := embed.Terms(text[lo:hi])
		spans = append(spans, span{lo, hi, len(terms) == 1 && want[terms[0]]})
	})
	lo, hi := 0, len(text)
	if len(text) > n {
		// Window of n bytes starting at a word, with the most hits.
		best, bestAt := -1, 0
		j, hits := 0, 0
		for i := range spans {
			for j < len(spans) && spans[j].hi-spans[i].lo <= n {
				if spans[j].hit {
					hits++
				}
				j++
			}
			if hits > best {
				best, bestAt = hits, i
			}
			if spans[i].hit {
				hits--
			}
		}
		if len(spans) > 0 {
			// Start a little before the window's first hit, for context.
			first := bestAt
			for first < len(spans)-1 && !spans[first].hit {
				first++
			}
			if !spans[first].hit {
				first = bestAt
			}
			k := first
			for k > 0 && spans[first].lo-spans[k-1].lo < n/5 {
				k--
			}
			lo = spans[k].lo
		}
		hi = min(len(text), lo+n)
		for hi < len(text) && hi > lo && text[hi-1] != ' ' {
			hi--
		}
	}
	var s Snippet
	var b strings.Builder
	if lo > 0 {
		b.WriteString("…")
	}
	// text[lo] starts a word (or the text): only the end can be a space.
	offset := b.Len() - lo
	b.WriteString(strings.TrimRight(text[lo:hi], " "))
	for _, sp := range spans {
		if sp.hit && sp.lo >= lo && sp.hi <= hi {
			s.Hits = append(s.Hits, [2]int{sp.lo + offset, sp.hi + offset})
		}
	}
	if hi < len(text) {
		b.WriteString(" …")
	}
	s.Text = b.String()
	return s
}

// Marked returns the snippet's text with each hit between open and close
// (e.g. ANSI bold on a terminal).
func (s Snippet) Marked(open, close string) string {
	var b strings.Builder
	pos := 0
	for _, h := range s.Hits {
		b.WriteString(s.Text[pos:h[0]])
		b.WriteString(open + s.Text[h[0]:h[1]] + close)
		pos = h[1]
	}
	b.WriteString(s.Text[pos:])
	return b.String()
}
