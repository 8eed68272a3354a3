package chunk

import (
	"fmt"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/papers-cli/papers/internal/shareddata"
	"github.com/papers-cli/papers/role"
)

// refPages reads pdftotext output of a real paper as pages.
func refPages(t *testing.T, name string) []Page {
	t.Helper()
	b, err := os.ReadFile(shareddata.Path(t, "pdfs", "reference-text", name))
	if err != nil {
		t.Fatal(err)
	}
	var pages []Page
	for i, p := range strings.Split(string(b), "\f") {
		if strings.TrimSpace(p) != "" {
			pages = append(pages, Page{N: i + 1, Text: p})
		}
	}
	return pages
}

func TestBodyCoversTextInOrder(t *testing.T) {
	pages := refPages(t, "toolformer_2302.04761v1.txt")
	opt := Options{Size: 120, Overlap: 20}
	chunks := Body("2302.04761", pages, 1, opt)
	if len(chunks) < 20 {
		t.Fatalf("got %d chunks from a 17-page paper, want many", len(chunks))
	}
	all := map[string]bool{}
	for _, c := range chunks {
		for _, w := range strings.Fields(c.Text) {
			all[w] = true
		}
	}
	for _, p := range pages {
		for _, w := range strings.Fields(p.Text) {
			if !all[w] {
				t.Fatalf("word %q of page %d is in no chunk", w, p.N)
			}
		}
	}
	prevStart := 0
	for i, c := range chunks {
		if c.Seq != i+1 || c.PaperID != "2302.04761" {
			t.Errorf("chunk %d has seq %d paper %q", i, c.Seq, c.PaperID)
		}
		if n := len(strings.Fields(c.Text)); n > opt.Size {
			t.Errorf("chunk %d has %d words, over the size %d", c.Seq, n, opt.Size)
		}
		if c.PageStart < prevStart || c.PageEnd < c.PageStart || c.PageStart < 1 {
			t.Errorf("chunk %d pages %d-%d after start %d", c.Seq, c.PageStart, c.PageEnd, prevStart)
		}
		prevStart = c.PageStart
	}
	if again := Body("2302.04761", pages, 1, opt); !reflect.DeepEqual(again, chunks) {
		t.Error("chunking the same text twice gave different chunks")
	}
}

func TestBodyOverlapAndSections(t *testing.T) {
	text := "Intro sentence one is here. Intro sentence two is here.\n\n" +
		"2 Method\nWe propose a method. It has three parts. Each part is small.\n"
	off := strings.Index(text, "2 Method")
	pages := []Page{{N: 3, Text: text, Headings: []Heading{{Offset: off, Text: "2 Method"}}}}
	chunks := Body("p", pages, 1, Options{Size: 8, Overlap: 5})
	if len(chunks) < 3 {
		t.Fatalf("got %d chunks: %+v", len(chunks), chunks)
	}
	if chunks[0].Section != "" || !strings.HasPrefix(chunks[0].Text, "Intro") {
		t.Errorf("first chunk %+v", chunks[0])
	}
	var method []string
	for _, c := range chunks {
		if !strings.Contains(c.Text, "Method") && !strings.Contains(c.Text, "part") {
			continue
		}
		if c.Section != "2 Method" {
			t.Errorf("chunk %d section %q, want 2 Method", c.Seq, c.Section)
		}
		if strings.Contains(c.Text, "Intro") {
			t.Errorf("chunk %d crosses the section boundary: %q", c.Seq, c.Text)
		}
		method = append(method, c.Text)
	}
	if !strings.HasPrefix(method[0], "2 Method") {
		t.Errorf("section chunk should start with its heading: %q", method[0])
	}
	// overlap: a sentence at the end of one chunk opens the next
	shared := false
	for i := 1; i < len(chunks)-1; i++ {
		last := chunks[i].Text[strings.LastIndex(chunks[i].Text, ". ")+2:]
		if strings.Contains(chunks[i+1].Text, last) {
			shared = true
		}
	}
	if !shared {
		t.Errorf("no overlap between consecutive chunks: %q", method)
	}
	for _, c := range chunks {
		if c.PageStart != 3 || c.PageEnd != 3 {
			t.Errorf("chunk %d pages %d-%d, want 3-3", c.Seq, c.PageStart, c.PageEnd)
		}
	}
}

func TestAbstractAndVersion(t *testing.T) {
	c := Abstract("x", " A Title ", "Line one\n  line two ")
	if c.Text != "A Title\n\nLine one line two" || c.Seq != 0 {
		t.Errorf("Abstract = %+v", c)
	}
	if (Options{}).Version() != "v3/words180-overlap30" {
		t.Errorf("default version %q", (Options{}).Version())
	}
	if (Options{Size: 100, Overlap: 10}).Version() == (Options{}).Version() {
		t.Error("versions must differ with parameters")
	}
}

func TestLongSentenceIsCut(t *testing.T) {
	long := strings.Repeat("word ", 500)
	chunks := Body("p", []Page{{N: 1, Text: long}}, 1, Options{Size: 100, Overlap: 10})
	if len(chunks) != 5 {
		t.Fatalf("got %d chunks, want 5", len(chunks))
	}
}

// TestOptionsAreExplicit: Overlap 0 is no overlap (it became 30); the zero
// Options is Defaults; Version reads back; Check refuses what Body cannot
// use.
func TestOptionsAreExplicit(t *testing.T) {
	if v := (Options{Size: 180, Overlap: 0}).Version(); v != "v3/words180-overlap0" {
		t.Errorf("overlap 0 is version %q", v)
	}
	var text strings.Builder
	for i := range 60 {
		fmt.Fprintf(&text, "Sentence number %d has six words. ", i)
	}
	seen := map[string]bool{}
	for _, c := range Body("p", []Page{{N: 1, Text: text.String()}}, 1, Options{Size: 30, Overlap: 0}) {
		for _, s := range strings.SplitAfter(c.Text, ". ") {
			if s = strings.TrimSpace(s); s != "" && seen[s] {
				t.Errorf("%q is in two chunks with no overlap", s)
			}
			seen[s] = true
		}
	}
	for _, o := range []Options{{}, Defaults, {Size: 100, Overlap: 0}, {Size: 7, Overlap: 6}} {
		back, err := ParseVersion(o.Version())
		if want := o.resolved(); err != nil || back != want {
			t.Errorf("ParseVersion(%q) = %+v, %v; want %+v", o.Version(), back, err, want)
		}
	}
	for _, bad := range []string{"", "v2", "v2/words0-overlap0", "v2/words10-overlap10", "v1/size180"} {
		if o, err := ParseVersion(bad); err == nil {
			t.Errorf("ParseVersion(%q) = %+v, want an error", bad, o)
		}
	}
	for _, o := range []Options{{Size: 0, Overlap: 5}, {Size: 10, Overlap: 10}, {Size: 10, Overlap: -1}} {
		if o.Check() == nil {
			t.Errorf("Check(%+v) = nil", o)
		}
	}
}

// TestTrimRejoinsText: the chunks of a real paper, each trimmed by the one
// before, hold the paper's words once each, in order.
func TestTrimRejoinsText(t *testing.T) {
	pages := refPages(t, "toolformer_2302.04761v1.txt")
	words := func(cs []string) []string { return strings.Fields(strings.Join(cs, " ")) }
	var plain []string
	for _, p := range pages {
		plain = append(plain, p.Text)
	}
	chunks := Body("p", pages, 1, Options{Size: 120, Overlap: 30})
	var joined []string
	trimmed := 0
	for i, c := range chunks {
		text := c.Text
		if i > 0 {
			text = Trim(chunks[i-1].Text, c.Text)
			if len(text) < len(c.Text) {
				trimmed++
			}
		}
		joined = append(joined, text)
	}
	if trimmed < len(chunks)/3 {
		t.Errorf("only %d of %d chunks had an overlap trimmed", trimmed, len(chunks))
	}
	got, want := words(joined), words(plain)
	if !reflect.DeepEqual(got, want) {
		n := 0
		for n < min(len(got), len(want)) && got[n] == want[n] {
			n++
		}
		t.Errorf("rejoined text has %d words, the text %d; they part at word %d: %q vs %q",
			len(got), len(want), n, strings.Join(got[n:min(n+8, len(got))], " "), strings.Join(want[n:min(n+8, len(want))], " "))
	}
	for _, c := range []struct{ prev, next, want string }{
		{"One. Two three.", "Two three. Four.", "Four."},
		{"One. Two.", "Three.", "Three."},
		{"One.\nTwo.", "Two.\nThree.", "Three."},
		{"One. Two.", "Two.", ""},
		{"A big cat.", "cat. Dog.", "cat. Dog."}, // not a whole sentence of prev
	} {
		if got := Trim(c.prev, c.next); got != c.want {
			t.Errorf("Trim(%q, %q) = %q, want %q", c.prev, c.next, got, c.want)
		}
	}
}

// rolePage builds a page's text and its spans, a run of one role at a time.
type rolePage struct {
	text  strings.Builder
	spans []Span
}

func (p *rolePage) add(r role.Role, s string) {
	start := p.text.Len()
	p.text.WriteString(s)
	p.spans = append(p.spans, Span{Start: start, End: p.text.Len(), Role: r})
}

// TestBodyCutsAtRoles: each chunk holds text of one role; a table keeps
// its rows as lines, headings go with the body text of their section, and
// the section in force carries over to the table and caption chunks.
func TestBodyCutsAtRoles(t *testing.T) {
	var pg rolePage
	add := pg.add
	add(role.Heading, "3 Results\n")
	add(role.Body, "We compare the models on two tasks. Ours is best on both.\n\n")
	add(role.Table, "Model Task A Task B\nBaseline 41.2 38.0\nOurs 47.9 44.1\n\n")
	add(role.Caption, "Table 2: Accuracy on the two tasks.\n\n")
	add(role.Body, "The gain holds across seeds.\n\n")
	discussion := pg.text.Len()
	add(role.Heading, "4 Discussion\n")
	add(role.Figure, "Seed 1 Seed 2\n")
	add(role.Body, "Seeds matter little.\n")
	pages := []Page{{N: 4, Text: pg.text.String(), Headings: []Heading{{Offset: 0, Text: "3 Results"}, {Offset: discussion, Text: "4 Discussion"}}, Spans: pg.spans}}
	chunks := Body("p", pages, 1, Options{Size: 100, Overlap: 10})
	var got []string
	for _, c := range chunks {
		got = append(got, string(c.Role)+"|"+c.Section+"|"+c.Text)
	}
	want := []string{
		"body|3 Results|3 Results\nWe compare the models on two tasks. Ours is best on both.",
		"table|3 Results|Model Task A Task B\nBaseline 41.2 38.0\nOurs 47.9 44.1",
		"caption|3 Results|Table 2: Accuracy on the two tasks.",
		"body|3 Results|The gain holds across seeds.",
		// a heading right above a figure opens the prose after it
		"figure|4 Discussion|Seed 1 Seed 2",
		"body|4 Discussion|4 Discussion\nSeeds matter little.",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("chunks:\n%q\nwant\n%q", got, want)
	}
	// no spans: all of it is body text, as before roles
	pages[0].Spans = nil
	for _, c := range Body("p", pages, 1, Options{Size: 100, Overlap: 10}) {
		if c.Role != role.Body {
			t.Errorf("chunk %d of a page without spans has role %q", c.Seq, c.Role)
		}
	}
}

// TestLoneSymbolsStayInTheirText: a span of fewer than three letters or
// digits (an equation's "√" between two lines of a paragraph, a figure's
// "(a)") is no chunk of its own: it stays with the text before it, so the
// paragraph around it is one chunk. The lines come from 2209.02646 p. 6,
// where the "√" was a one-character chunk with a zero vector.
func TestLoneSymbolsStayInTheirText(t *testing.T) {
	var pg rolePage
	add := pg.add
	add(role.Body, "where σt is parameterized by 1 − αt / αt , and x̄ is param-\n")
	add(role.Equation, "√\n")
	add(role.Body, "eterized as x/ αt . Later works interpret DDIM as a product of applying an exponential integrator.\n\n")
	add(role.Figure, "Seed 1 Seed 2\n")
	add(role.Figure, "(a)\n")
	add(role.Caption, "Figure 3: Accuracy by seed.\n")
	pages := []Page{{N: 6, Text: pg.text.String(), Spans: pg.spans}}
	var got []string
	for _, c := range Body("p", pages, 1, Options{Size: 100, Overlap: 10}) {
		got = append(got, string(c.Role)+"|"+c.Text)
	}
	want := []string{
		"body|where σt is parameterized by 1 − αt / αt , and x̄ is param- √ eterized as x/ αt . Later works interpret DDIM as a product of applying an exponential integrator.",
		"figure|Seed 1 Seed 2\n(a)",
		"caption|Figure 3: Accuracy by seed.",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("chunks:\n%q\nwant\n%q", got, want)
	}
}
