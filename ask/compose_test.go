package ask

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/papers-cli/papers/ingest/chunk"
	"github.com/papers-cli/papers/ingest/pdf"
	"github.com/papers-cli/papers/store"
)

// pdfPassages reads a shared PDF and cuts it as ingest does (pages, then
// body chunks), returning the chunks as evidence of one paper.
func pdfPassages(t *testing.T, file, id, title string) []evidence {
	t.Helper()
	path := filepath.Join("..", "..", "shared", "data", "pdfs", "papers", file)
	doc, err := pdf.ExtractFile(t.Context(), path)
	if err != nil {
		t.Fatalf("the shared PDF %s is needed (see shared/data/README.md): %v", path, err)
	}
	var pages []chunk.Page
	for i, p := range doc.Pages {
		pages = append(pages, chunk.Page{N: i + 1, Text: p.Text})
	}
	var ev []evidence
	for _, c := range chunk.Body(id, pages, 1, chunk.Options{}) {
		ev = append(ev, evidence{ChunkID: store.ChunkID(id, c.Seq), Paper: store.Paper{ID: id, Title: title},
			PageStart: c.PageStart, PageEnd: c.PageEnd, Section: c.Section, Text: c.Text, Score: 1})
	}
	return ev
}

// answerFrom answers question from the passages of ev that hold anchor
// (as retrieval would bring them), failing when none does or it abstains.
func answerFrom(t *testing.T, ev []evidence, anchor, question string) (extraction, string) {
	t.Helper()
	var picked []evidence
	for _, e := range ev {
		if strings.Contains(e.Text, anchor) {
			picked = append(picked, e)
		}
	}
	if len(picked) == 0 {
		t.Fatalf("no chunk holds %q: the extraction changed", anchor)
	}
	x := extract(picked, question, DefaultMinSupport, nil)
	if x.reason != "" {
		t.Fatalf("abstained: %s", x.reason)
	}
	var text []string
	for _, s := range x.sentences {
		text = append(text, s.text)
	}
	return x, strings.Join(text, " ")
}

// The fact a "how" question asks for is often in the sentence after the
// one that shares the question's words: the answer goes on with it, from
// the same passage, and does not stop at the sentence that only restates
// the problem.
func TestExtractiveFollowsTheLead(t *testing.T) {
	ev := pdfPassages(t, "pasa_2501.10120.pdf", "2501.10120", "PaSa: An LLM Agent for Comprehensive Academic Paper Search")
	x, answer := answerFrom(t, ev, "sparse rewards during training", "How does PaSa keep the Crawler's rewards from being sparse during training?")
	if !strings.Contains(answer, "auxiliary reward model") {
		t.Errorf("the answer lacks the sentence that states the remedy:\n%s", answer)
	}
	lead := x.sentences[0]
	for _, s := range x.sentences {
		if strings.Contains(s.text, "auxiliary reward model") && (s.passage != lead.passage || s.pos <= lead.pos || s.pos > lead.pos+leadFollowers) {
			t.Errorf("the remedy should follow the lead in its passage (lead %d.%d, remedy %d.%d)", lead.passage, lead.pos, s.passage, s.pos)
		}
	}
}

// A list whose bullets the PDF text lost reads as "Label: ..." sentences:
// the answer to "which X are listed" goes on with them after the sentence
// that announces them.
func TestExtractiveListsLabelledItems(t *testing.T) {
	ev := pdfPassages(t, "explanations_molecular_prediction_paperqa.pdf", "pdf:xai", "A Perspective on Explanations of Molecular Prediction Models")
	_, answer := answerFrom(t, ev, "major open", "Which major open questions of XAI in chemistry are highlighted by the authors?")
	for _, want := range []string{"Explanation representation:", "Molecular distance:"} {
		if !strings.Contains(answer, want) {
			t.Errorf("the answer lacks the item %q:\n%s", want, answer)
		}
	}
}

// The chunker cuts a list or a paragraph where its word budget ends: when
// the chunk that follows the lead's is retrieved too, the list goes on
// there (without the sentences the chunks' overlap repeats).
func TestExtractiveListGoesOnInTheNextChunk(t *testing.T) {
	ev := pdfPassages(t, "explanations_molecular_prediction_paperqa.pdf", "pdf:xai", "A Perspective on Explanations of Molecular Prediction Models")
	var picked []evidence
	for i, e := range ev {
		if strings.Contains(e.Text, "major open") && i+1 < len(ev) {
			picked = []evidence{e, ev[i+1]}
			break
		}
	}
	if len(picked) == 0 {
		t.Fatal("no chunk holds \"major open\": the extraction changed")
	}
	if strings.Contains(picked[0].Text, "Chemical space:") || !strings.Contains(picked[1].Text, "Chemical space:") {
		t.Fatal("the list no longer runs over into the next chunk: the chunking changed, pick another list")
	}
	picked[1].Score = 0.4 // retrieved below the lead's chunk
	x := extract(picked, "Which major open questions of XAI in chemistry are highlighted by the authors?", DefaultMinSupport, nil)
	if x.reason != "" {
		t.Fatalf("abstained: %s", x.reason)
	}
	var answer []string
	for _, s := range x.sentences {
		answer = append(answer, s.text)
	}
	text := strings.Join(answer, " ")
	for _, want := range []string{"Molecular distance:", "Chemical space:"} {
		if !strings.Contains(text, want) {
			t.Errorf("the answer lacks the item %q:\n%s", want, text)
		}
	}
	if strings.Count(text, "legally required") > 1 {
		t.Errorf("an item the chunks' overlap repeats is written twice:\n%s", text)
	}
}

// A definition question's best-scored sentences restate it ("we design a
// novel session-level PPO algorithm"); the answer opens with the sentence
// that says what the thing is ("we define a session as ..."), though it
// shares fewer words with the question.
func TestExtractiveDefinitionOpensWithTheDefinition(t *testing.T) {
	ev := pdfPassages(t, "pasa_2501.10120.pdf", "2501.10120", "PaSa: An LLM Agent for Comprehensive Academic Paper Search")
	var picked []evidence
	for _, e := range ev {
		if strings.Contains(e.Text, "session-level PPO") || strings.Contains(e.Text, "define a session") {
			picked = append(picked, e)
		}
	}
	if len(picked) < 2 {
		t.Fatalf("%d chunks hold the anchors: the extraction changed", len(picked))
	}
	x := extract(picked, "In the session-level PPO algorithm that PaSa designs, what is a session?", DefaultMinSupport, nil)
	if x.reason != "" {
		t.Fatalf("abstained: %s", x.reason)
	}
	if lead := x.sentences[0].text; !strings.Contains(lead, "define a session as") {
		t.Errorf("the answer opens with %q, not with the definition", lead)
	}
}

func TestDefines(t *testing.T) {
	session := analyse("What is a session?")
	dateset := analyse("What is DATESET?")
	for _, c := range []struct {
		q    *question
		s    string
		want bool
	}{
		{session, "To address this issue, we define a session as a sub-trajectory that begins with a session’s initial state.", true},
		{session, "A session is a sub-trajectory of the Crawler.", true},
		{session, "Specifically, we design a novel session-level PPO algorithm to address the unique challenges of the paper search task.", false},
		{session, "During PPO training, each device processes 4 user queries in each step, generating a search session for each user query.", false},
		{dateset, "DATESET, described in Appendix D, is also generated through a series of templates.", true},
		{dateset, "DATESET is created by first randomly selecting 500 “current dates”.", true},
		{dateset, "Results shown in Table 7 illustrate that Toolformer outperforms all baselines for both TEMPLAMA and DATESET.", false},
	} {
		if got := defines(c.q.parts[0], c.s); got != c.want {
			t.Errorf("defines(%q, %q) = %v, want %v", c.q.text, c.s, got, c.want)
		}
	}
}

// A "how is X computed" question: the best-scored sentences say that X is
// used; the answer opens with the one that names X and how it is done
// ("quantified using a cosine similarity score").
func TestExtractiveMethodOpensWithTheMeans(t *testing.T) {
	ev := pdfPassages(t, "adarefiner_naacl2024findings.pdf", "pdf:ada", "AdaRefiner: Refining Decisions of Language Models with Adaptive Feedback")
	// as retrieval ranks them: the overview first, the Adapter LM's section
	// half as high
	var picked []evidence
	for _, anchor := range []string{"incorporates a comprehension score", "quantified using a cosine"} {
		for _, e := range ev {
			if strings.Contains(e.Text, anchor) {
				e.Score = 1 - 0.45*float64(len(picked))
				picked = append(picked, e)
				break
			}
		}
	}
	if len(picked) != 2 {
		t.Fatal("no chunk holds an anchor: the extraction changed")
	}
	x := extract(picked, "How is the comprehension score in the Adapter LM prompt calculated?", DefaultMinSupport, nil)
	if x.reason != "" {
		t.Fatalf("abstained: %s", x.reason)
	}
	if lead := x.sentences[0].text; !strings.Contains(lead, "cosine similarity") {
		t.Errorf("the answer opens with %q, not with how the score is computed", lead)
	}
}

func TestStatesMeans(t *testing.T) {
	score := analyse("How is the comprehension score computed?").parts[0]
	reward := analyse("How is the reward computed?").parts[0]
	for _, c := range []struct {
		q    *question
		s    string
		want bool
	}{
		{score, "The agent’s comprehension level of language guidance is quantified using a cosine similarity score l.", true},
		{score, "To verify the necessity of using a fine-grained comprehension score, we investigate the impact of the score’s format.", false},
		{score, "The prompt of the Adapter LM incorporates a comprehension score.", false},
		{reward, "The reward is computed as the proportion of target language words in the CoT.", true},
		{reward, "Rewards are estimated by sampling 16 responses per question.", true},
		{reward, "We then formulate each prompt and pair into a multiple choice question.", false},
	} {
		if got := statesMeans(c.q, &sentence{text: c.s, stems: stemSet(c.s)}); got != c.want {
			t.Errorf("statesMeans(%q, %q) = %v, want %v", c.q.text, c.s, got, c.want)
		}
	}
}
