package rank

import (
	"slices"
	"strings"
	"testing"

	"github.com/papers-cli/papers/store"
)

func TestWhForm(t *testing.T) {
	for q, want := range map[string]string{
		"How many tweets are explored in this paper?":       "howmany",
		"How big is the dataset?":                           "howmuch",
		"How is attraction score measured?":                 "how",
		"What datasets did they use?":                       "what",
		"Which languages do they work with?":                "which",
		"Do they report results only on English data?":      "yesno",
		"Is the model trained end to end or in two stages?": "which",
		"Who annotated the corpus?":                         "who",
		"Name the baselines.":                               "what",
		"In what setting is it evaluated?":                  "what",
		"":                                                  "other",
	} {
		if got := ParseQuestion(q).Wh; got != want {
			t.Errorf("%q: %s, want %s", q, got, want)
		}
	}
}

func TestQuestionTerms(t *testing.T) {
	q := ParseQuestion("What datasets do they use for the evaluation of the datasets?")
	if want := []string{"dataset", "use", "evalu"}; !slices.Equal(q.Terms, want) {
		t.Errorf("terms %v, want %v (stemmed, stopwords out, each once)", q.Terms, want)
	}
}

func TestSectionKind(t *testing.T) {
	for h, want := range map[string]string{
		"":                                 kindNone,
		"abstract":                         kindAbstract,
		"1 Introduction":                   kindIntro,
		"Related Work":                     kindRelated,
		"Experiments ::: Datasets":         kindData,
		"Experiments ::: Results on SQuAD": kindResults,
		"4.2 Implementation Details":       kindSetup,
		"Conclusion and Future Work":       kindConclusion,
		"Acknowledgments":                  kindAck,
		"Our Approach":                     kindMethod,
		"Error Analysis":                   kindAnalysis,
		"Appendix A: Proofs":               kindAppendix,
		"Why Bother?":                      kindOther,
	} {
		if got := SectionKind(h); got != want {
			t.Errorf("%q: %s, want %s", h, got, want)
		}
	}
}

func TestSpans(t *testing.T) {
	s := "We evaluate on two benchmarks, SQuAD 2.0 and Natural Questions, and reach 87.0% accuracy."
	got := map[string]string{}
	for _, sp := range Spans(s) {
		got[sp.Text] = sp.Rule
	}
	for _, want := range []string{
		s[:len(s)-1],                      // the sentence, without its period
		"SQuAD 2.0 and Natural Questions", // a list of names
		"87.0% accuracy",                  // a number and what it measures
		"two benchmarks",                  // after a trigger ("on"), to the end of its segment
	} {
		if _, ok := got[want]; !ok {
			t.Errorf("no span %q among %v", want, got)
		}
	}
	if n := len(Spans(strings.Repeat("word, ", 500))); n > maxSpansPerSentence {
		t.Errorf("%d spans of a long sentence, want at most %d", n, maxSpansPerSentence)
	}
	if Spans("") != nil {
		t.Error("spans of nothing")
	}
}

// Paragraphs are read back whole from chunks that overlap, that cut a
// paragraph, or that a page break cut inside a sentence.
func TestParagraphs(t *testing.T) {
	chunks := []store.Chunk{
		{PaperID: "p", Seq: 0, Text: "A Title\n\nThe abstract says things."},
		{PaperID: "p", Seq: 1, Section: "1 Intro", PageStart: 1, PageEnd: 1, Text: "1 Intro\nFirst paragraph, one sentence. It goes on here.\nSecond paragraph starts. It runs"},
		// overlap: the trailing sentence of chunk 1 repeated, then the rest of the paragraph
		{PaperID: "p", Seq: 2, Section: "1 Intro", PageStart: 2, PageEnd: 2, Text: "Second paragraph starts. It runs on over the page break. Done.\nThird paragraph."},
		{PaperID: "p", Seq: 3, Section: "2 Method", PageStart: 2, PageEnd: 3, Text: "2 Method\nThe method is cut by a column break in the middle of the\nsentence, which goes on here."},
		// a chunk that knows where its second page starts
		{PaperID: "p", Seq: 4, Section: "3 Results", PageStart: 3, PageEnd: 4, PageBreaks: []int{32}, Text: "3 Results\nWe win on page three. Then page four starts. Here we lose."},
	}
	ps := Paragraphs(chunks)
	var texts []string
	for _, p := range ps {
		texts = append(texts, p.Text)
	}
	want := []string{
		"The abstract says things.",
		"1 Intro",
		"First paragraph, one sentence. It goes on here.",
		"Second paragraph starts. It runs on over the page break. Done.",
		"Third paragraph.",
		"2 Method",
		"The method is cut by a column break in the middle of the sentence, which goes on here.",
		"3 Results",
		"We win on page three. Then page four starts. Here we lose.",
	}
	if !slices.Equal(texts, want) {
		t.Errorf("paragraphs:\n%s\nwant\n%s", strings.Join(texts, "\n"), strings.Join(want, "\n"))
	}
	if ps[0].Section != "abstract" || !ps[1].Heading || ps[3].PageEnd != 2 || ps[6].Page != 2 || ps[6].PageEnd != 3 {
		t.Errorf("sections, headings or pages wrong: %+v", ps)
	}
	// the paragraph run over from page 1 to 2: its second sentence is on 2
	if got := []int{ps[3].SentencePage(0), ps[3].SentencePage(1)}; !slices.Equal(got, []int{1, 1}) {
		t.Errorf("pages of the run-over paragraph's sentences %v", got)
	}
	if got := []int{ps[8].Page, ps[8].SentencePage(0), ps[8].SentencePage(1), ps[8].SentencePage(2), ps[8].PageEnd}; !slices.Equal(got, []int{3, 3, 4, 4, 4}) {
		t.Errorf("pages of the sentences across a known break %v, want [3 3 4 4 4]", got)
	}
	for i, p := range ps {
		if p.Index != i || p.Of != len(ps) {
			t.Errorf("paragraph %d numbered %d of %d", i, p.Index, p.Of)
		}
	}
}

func TestQuestionNames(t *testing.T) {
	q := ParseQuestion("What pass@1 does ECHO reach with Qwen3-8B on TerminalBench-2.0, as Figure 2 shows?")
	if want := []string{"pass1", "echo", "qwen38b", "terminalbench20", "figure"}; !slices.Equal(q.Names, want) {
		t.Errorf("names %v, want %v", q.Names, want)
	}
	if got := namesIn(q.Names, "ECHO doubles GRPO pass@1 on TerminalBench 2.0: Qwen3-8B improves"); got != 0.8 {
		t.Errorf("namesIn = %v, want 0.8 (all but Figure)", got)
	}
	if got := namesIn(nil, "anything"); got != 0 {
		t.Errorf("no names: %v", got)
	}
}
