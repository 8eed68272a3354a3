package review

import "testing"

// Quotes are looked for in the real text of Toolformer as ingest stored
// it (line breaks, hyphenation at line ends, curly apostrophes, pages).
func TestLocateQuotes(t *testing.T) {
	lib := testLibrary(t)
	tf := textOf(t, lib, "2302.04761")
	echo := textOf(t, lib, "topic-001")
	cases := []struct {
		name    string
		text    *paperText
		quote   string
		found   bool
		page    int
		section string
	}{
		{"a sentence as written", tf, "Results are always rounded to two decimal places.", true, 4, "3 Tools"},
		{"spacing and line breaks differ", tf, "Calculator   As a second tool, we use a calculator that can perform simple numeric\ncalculations;", true, 4, "3 Tools"},
		{"hyphenation at a line end joined", tf, "few-shot text classification (Schick and Schütze, 2021a) and retrieval (Izacard and Grave, 2021) to reasoning", true, 10, "6 Related Work"},
		{"straight apostrophe for a curly one", tf, "we also ensure that our approach does not hurt the model's core language modeling abilities", true, 4, "4 Experiments"},
		{"a shortened quote, in order", tf, "One such limitation is the inability of Toolformer to use tools in a chain ... there are no examples of chained tool use in the finetuning dataset.", true, 11, "7 Limitations"},
		{"the abstract is on the first page of a PDF", tf, "We introduce Toolformer, a model trained to decide which APIs to call, when to call them", true, 1, "Abstract"},
		{"an abstract-only record has no page", echo, "ECHO reuses the same forward pass as GRPO, requires no additional rollouts", true, 0, "abstract"},
		{"a changed number", tf, "Results are always rounded to three decimal places.", false, 0, ""},
		{"a changed digit", tf, "Toolformer considerably improves zero-shot performance of a 6.8B parameter GPT-J model", false, 0, ""},
		{"a planted sentence", tf, "Toolformer reaches 99.9% accuracy on every benchmark while using no tools at all.", false, 0, ""},
		{"pieces out of order", tf, "there are no examples of chained tool use in the finetuning dataset ... One such limitation is the inability of Toolformer", false, 0, ""},
		{"too short to tell", tf, "Toolformer", false, 0, ""},
		{"another paper's sentence", echo, "Results are always rounded to two decimal places.", false, 0, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			loc, ok := c.text.locate(c.quote)
			if ok != c.found {
				t.Fatalf("locate(%q) found = %v, want %v", c.quote, ok, c.found)
			}
			if !ok {
				return
			}
			if loc.page != c.page || sectionOf(loc.chunk) != c.section {
				t.Errorf("locate(%q) = page %d, section %q; want page %d, section %q", c.quote, loc.page, sectionOf(loc.chunk), c.page, c.section)
			}
		})
	}
}

func TestSkeleton(t *testing.T) {
	cases := []struct{ in, want string }{
		{"Qwen3-8B improves from 2.70% to 5.17%.", "qwen38bimprovesfrom2.70%to5.17%"},
		{"one-\ndimensional “stack”", "onedimensionalstack"},
		{"ﬁnetuned on CCNet [12], see (ref. 3, 4)", "finetunedonccnetsee"},
		{"1,000 papers", "1.000papers"},
	}
	for _, c := range cases {
		if got := skeleton(c.in); got != c.want {
			t.Errorf("skeleton(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
