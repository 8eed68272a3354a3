package ask

import (
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/papers-cli/papers/ingest/chunk"
	"github.com/papers-cli/papers/ingest/pdf"
	"github.com/papers-cli/papers/internal/shareddata"
	"github.com/papers-cli/papers/role"
	"github.com/papers-cli/papers/store"
)

// pdfPassages reads a shared PDF and cuts it as ingest does (pages, then
// body chunks), returning the chunks as evidence of one paper.
// Each PDF is read once per test binary (tests read the same papers).
func pdfPassages(t *testing.T, file, id, title string) []evidence {
	t.Helper()
	key := file + "\x00" + id + "\x00" + title
	pdfCache.Lock()
	defer pdfCache.Unlock()
	if ev, ok := pdfCache.m[key]; ok {
		return slices.Clone(ev)
	}
	path := shareddata.Path(t, "pdfs", "papers", file)
	doc, err := pdf.ExtractFile(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	var pages []chunk.Page
	for i, p := range doc.Pages {
		// The text as chunks held it before roles: tables and captions in
		// the prose (these cases read them there), running heads and page
		// numbers left out.
		var spans []chunk.Span
		for _, s := range p.Spans {
			r := role.Body
			if s.Role == role.Furniture {
				r = role.Furniture
			}
			spans = append(spans, chunk.Span{Start: s.Start, End: s.End, Role: r})
		}
		pages = append(pages, chunk.Page{N: i + 1, Text: p.Text, Spans: spans})
	}
	var ev []evidence
	for _, c := range chunk.Body(id, pages, 1, chunk.Options{}) {
		ev = append(ev, evidence{ChunkID: store.ChunkID(id, c.Seq), Paper: store.Paper{ID: id, Title: title},
			PageStart: c.PageStart, PageEnd: c.PageEnd, Section: c.Section, Text: c.Text, Score: 1})
	}
	if pdfCache.m == nil {
		pdfCache.m = map[string][]evidence{}
	}
	pdfCache.m[key] = ev
	return slices.Clone(ev)
}

var pdfCache struct {
	sync.Mutex
	m map[string][]evidence
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
	return x, joined(x)
}

// ranked picks the first chunk of ev holding each anchor, scored as
// retrieval would rank them: 1 for the first, less by step for each next.
func ranked(t *testing.T, ev []evidence, step float64, anchors ...string) []evidence {
	t.Helper()
	var picked []evidence
	for _, anchor := range anchors {
		i := slices.IndexFunc(ev, func(e evidence) bool { return strings.Contains(e.Text, anchor) })
		if i < 0 {
			t.Fatalf("no chunk holds %q: the extraction changed", anchor)
		}
		e := ev[i]
		e.Score = 1 - step*float64(len(picked))
		picked = append(picked, e)
	}
	return picked
}

// leadOf answers question from picked, failing if it abstains, and checks
// that the answer opens with a sentence holding want (what names the
// sentence expected, for the failure message).
func leadOf(t *testing.T, picked []evidence, question, want, what string) {
	t.Helper()
	x := extract(picked, question, DefaultMinSupport, nil)
	if x.reason != "" {
		t.Fatalf("abstained: %s", x.reason)
	}
	if lead := x.sentences[0].text; !strings.Contains(lead, want) {
		t.Errorf("the answer opens with %q, not with %s", lead, what)
	}
}

// joined is the text of an extraction's sentences, in answer order.
func joined(x extraction) string {
	var text []string
	for _, s := range x.sentences {
		text = append(text, s.text)
	}
	return strings.Join(text, " ")
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
	text := joined(x)
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
	leadOf(t, picked, "In the session-level PPO algorithm that PaSa designs, what is a session?", "define a session as", "the definition")
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
	picked := ranked(t, ev, 0.45, "incorporates a comprehension score", "quantified using a cosine")
	leadOf(t, picked, "How is the comprehension score in the Adapter LM prompt calculated?", "cosine similarity", "how the score is computed")
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

// A list question's best-scored sentences say that the things exist ("six
// dense models distilled from DeepSeek-R1"); the answer opens with the
// sentence that names them ("The base models we use here are A, B, ...").
func TestExtractiveListOpensWithTheEnumeration(t *testing.T) {
	ev := pdfPassages(t, "deepseek_r1_2501.12948.pdf", "pdf:r1", "DeepSeek-R1: Incentivizing Reasoning Capability in LLMs via Reinforcement Learning")
	picked := ranked(t, ev, 0.2, "six dense models", "The base models we use here")
	leadOf(t, picked, "Which base checkpoints were the distilled models of DeepSeek-R1 trained from?", "Llama-3.3-70B-Instruct", "the list of base models")
}

func TestEnumerated(t *testing.T) {
	for s, want := range map[string]int{
		"The base models we use here are Qwen2.5-Math-1.5B, Qwen2.5-Math-7B, Qwen2.5-14B, Qwen2.5-32B, Llama-3.1-8B, and Llama-3.3-70B-Instruct.": 6,
		"To support the research community, we open-source DeepSeek-R1-Zero, DeepSeek-R1, and six dense models (1.5B, 7B, 8B, 14B, 32B, 70B).":    2,
		"Experiments on MMLU, GSM8K and HumanEval show gains.": 3,
		"We evaluate the models on three benchmarks.":          0,
	} {
		st := &sentence{text: s, names: newNames(s, map[string]bool{})}
		if got := enumerated(st); got != want {
			t.Errorf("enumerated(%q) = %d, want %d", s, got, want)
		}
	}
}

// A question asking for a quantity among other things abstains when no
// passage gives that quantity, saying which, rather than answering the
// other part alone as if it were the whole answer.
func TestExtractiveAbstainsOnAMissingQuantityOfATwoPartQuestion(t *testing.T) {
	ev := pdfPassages(t, "pasa_2501.10120.pdf", "2501.10120", "PaSa: An LLM Agent for Comprehensive Academic Paper Search")
	picked := ranked(t, ev, 0.3, "registered functions", "session-level PPO")
	q := "Which registered functions does the Crawler operate with, and how many GPU hours did its PPO training take?"
	x := extract(picked, q, DefaultMinSupport, nil)
	if x.reason == "" {
		var text []string
		for _, s := range x.sentences {
			text = append(text, s.text)
		}
		t.Fatalf("answered without the hours:\n%s", strings.Join(text, " "))
	}
	if !strings.Contains(x.reason, "hours") {
		t.Errorf("the reason %q does not say the hours are missing", x.reason)
	}
	// the question without its quantity is answered
	if x := extract(picked, "Which registered functions does the Crawler operate with?", DefaultMinSupport, nil); x.reason != "" {
		t.Errorf("the first part alone abstains: %s", x.reason)
	}
}

// A follower is read past a display equation (the PDF text of "(21)"
// reads as a run of symbols), and a sentence pointing back at it ("One
// sees from this expression that ...") goes on with the lead though it
// has no word of the question.
func TestFollowersReadPastAnEquation(t *testing.T) {
	mk := func(s string, cov float64) *sentence {
		return &sentence{text: s, stems: stemSet(s), debris: debris(s), cov: cov}
	}
	lead := mk("Although there is no divergence in the Green’s function, one can see that there are gapless excitations at the critical point by considering the spectral function.", 0.3)
	next := []*sentence{
		mk("1 A(ω, k) = − Im G0(ω, k) π 1 (21) = Θ ω2 − (k2 + r − rc) 2πt2 × (−ω2 + k2 + r)2 − r2c .", 0),
		mk("One sees from this expression that there is a continuum √ of excitations, with the energy gap ∆ = r − rc.", 0),
		mk("Such a picture is often employed in DMFT, in which case the impurity is a single quantum site.", 0),
	}
	if next[0].debris <= 0.5 {
		t.Fatalf("the equation's debris is %.2f: the debris measure changed", next[0].debris)
	}
	got := followers(lead, next, 1, func(*sentence) bool { return false })
	if len(got) != 1 || got[0] != next[1] {
		var texts []string
		for _, g := range got {
			texts = append(texts, g.text)
		}
		t.Errorf("followers = %q, want the sentence after the equation", texts)
	}
}

// A sentence that runs into a table (the PDF text sets the table's rows
// right after it, with no full stop between) stays a sentence: the rows
// do not go on with it, so it is not scored as table debris and its fact
// reaches the answer.
func TestATableDoesNotContinueTheSentenceBeforeIt(t *testing.T) {
	ev := pdfPassages(t, "adarefiner_naacl2024findings.pdf", "pdf:ada", "AdaRefiner: Refining Decisions of Language Models with Adaptive Feedback")
	picked := ranked(t, ev, 0.1, "set the training to 1 million")
	if !strings.Contains(picked[0].Text, "Crafter paper\nMethod Type") {
		t.Fatal("the table no longer follows the sentence on the next line: the extraction changed, pick another case")
	}
	p := newPassage(0, &picked[0])
	i := slices.IndexFunc(p.sents, func(s *sentence) bool { return strings.Contains(s.text, "1 million steps") })
	if i < 0 {
		t.Fatal("no sentence states the 1 million steps")
	}
	if s := p.sents[i]; strings.Contains(s.text, "Method Type") || s.debris > 0.3 {
		t.Errorf("the sentence runs on into the table (debris %.2f): %q", s.debris, s.text)
	}
	picked = ranked(t, ev, 0.1, "set the training to 1 million", "evaluated on 22 tasks within the Crafter environment")
	x := extract(picked, "For how many environment steps were the RL baselines trained in the main Crafter comparison?", DefaultMinSupport, nil)
	if x.reason != "" {
		t.Fatalf("abstained: %s", x.reason)
	}
	if answer := joined(x); !strings.Contains(answer, "1 million steps") {
		t.Errorf("the answer lacks the number of steps:\n%s", answer)
	}
}

// A bulleted list whose items are a label and what it says ("• Actionable.
// Is it clear how ...") reads as labelled items, the label kept; a list
// question opens with the sentence announcing the list ("We suggest the
// following attributes ...") rather than the one pointing back at it ("...
// based on the above attributes"), and the list is read whole, on into the
// next chunk.
func TestExtractiveReadsABulletedListWhole(t *testing.T) {
	ev := pdfPassages(t, "explanations_molecular_prediction_paperqa.pdf", "pdf:xai", "A Perspective on Explanations of Molecular Prediction Models")
	i := slices.IndexFunc(ev, func(e evidence) bool { return strings.Contains(e.Text, "following attributes") })
	if i < 0 || i+1 == len(ev) {
		t.Fatal("no chunk announces the attributes: the extraction changed")
	}
	var labels []string
	for _, s := range newPassage(0, &ev[i]).sents {
		if enumerator.MatchString(s.text) {
			labels = append(labels, s.text)
		}
	}
	if len(labels) < 2 || !strings.HasPrefix(labels[0], "Actionable: Is it clear") {
		t.Errorf("the bullets do not read as labelled items: %q", labels)
	}
	// as retrieval ranks them: the chunk pointing back at the list first
	picked := []evidence{ev[i+1], ev[i]}
	if !strings.Contains(picked[0].Text, "Sparse/Succinct") || !strings.Contains(picked[0].Text, "evaluation of the SHAP") {
		t.Fatal("the list no longer ends in the next chunk: the chunking changed, pick another list")
	}
	picked[1].Score = 0.5
	x := extract(picked, "What attributes does the perspective propose for judging the quality of an explanation?", DefaultMinSupport, nil)
	if x.reason != "" {
		t.Fatalf("abstained: %s", x.reason)
	}
	if !strings.Contains(x.sentences[0].text, "following attributes") {
		t.Errorf("the answer opens with %q, not with the list's announcement", x.sentences[0].text)
	}
	answer := joined(x)
	for _, want := range []string{"Actionable:", "Domain Applicable:", "Robust:", "Sparse/Succinct:"} {
		if !strings.Contains(answer, want) {
			t.Errorf("the answer lacks the item %q:\n%s", want, answer)
		}
	}
}

// A list held in a table: the lead names the list and points at the table
// ("The Crawler operates with three registered functions, as outlined in
// Table 3."); the answer goes on with the table's caption and its rows,
// from the retrieved passage that holds it.
func TestExtractiveReadsTheTableTheLeadPointsAt(t *testing.T) {
	ev := pdfPassages(t, "pasa_2501.10120.pdf", "2501.10120", "PaSa: An LLM Agent for Comprehensive Academic Paper Search")
	picked := ranked(t, ev, 0.5, "three registered functions", "Table 3: Functions of the Crawler")
	x := extract(picked, "Which registered functions can the Crawler trigger, and what does each one do?", DefaultMinSupport, nil)
	if x.reason != "" {
		t.Fatalf("abstained: %s", x.reason)
	}
	if !strings.Contains(x.sentences[0].text, "Table 3") {
		t.Errorf("the answer opens with %q, not with the sentence pointing at the table", x.sentences[0].text)
	}
	answer := joined(x)
	for _, want := range []string{"Table 3: Functions of the Crawler", "[Search]", "[Expand]", "[Stop]"} {
		if !strings.Contains(answer, want) {
			t.Errorf("the answer lacks %q:\n%s", want, answer)
		}
	}
	// a lead pointing at a table no passage holds reads nothing more
	if rows := tableOf(&sentence{text: "The results are in Table 9."}, nil); rows != nil {
		t.Errorf("tableOf found %d sentences of a table no passage holds", len(rows))
	}
}

// A code listing the PDF text runs into one long sentence ("Here is the
// sequence of events ...: v0:= ld state[748] // load primes ...", from a
// paper no question set is about) is not read as a follower, though it
// opens by pointing back: it is no sentence of prose.
func TestFollowersSkipACodeListing(t *testing.T) {
	mk := func(s string, cov float64) *sentence {
		return &sentence{text: s, stems: stemSet(s), debris: debris(s), cov: cov}
	}
	lead := mk("At the start of execution, the trace monitor counts the number of times each loop back edge is executed until a loop becomes hot, currently after 2 crossings.", 0.4)
	code := mk("Here is the sequence of events broken down by outer loop iteration: v0:= ld state[748] // load primes from the trace activation record st sp[0], v0 // store primes to interpreter stack v1:= ld state[764] // load k from the trace activation record v2:= i2f(v1) // convert k from int to double st sp[8], v1 // store k to interpreter stack st sp[16], 0 // store false to interpreter stack v3:= ld v0[4] // load class word for primes v4:= and v3, -4 // mask out object class tag for primes v5:= eq v4, Array // test whether primes is an array", 0.1)
	prose := mk("This loop becomes hot after the first iteration.", 0.2)
	if code.debris <= 0.3 || code.debris > 0.5 {
		t.Fatalf("the listing's debris is %.2f: the debris measure changed", code.debris)
	}
	got := followers(lead, []*sentence{code, prose}, 1, func(*sentence) bool { return false })
	if len(got) != 1 || got[0] != prose {
		var texts []string
		for _, g := range got {
			texts = append(texts, g.text[:min(40, len(g.text))])
		}
		t.Errorf("followers = %q, want the prose after the listing", texts)
	}
}

// A lead that points at a part of its paper ("DATESET, described in
// Appendix D, is ...") goes on with what that part, when a passage under
// its heading is at hand, says of the thing asked about ("DATESET is
// created by first randomly selecting 500 “current dates”.").
func TestExtractiveReadsThePartTheLeadPointsAt(t *testing.T) {
	ev := pdfPassages(t, "toolformer_2302.04761v1.pdf", "2302.04761", "Toolformer: Language Models Can Teach Themselves to Use Tools")
	picked := ranked(t, ev, 0.3, "described in Appendix D", "DATESET is created by first")
	if picked[1].Section == "" {
		picked[1].Section = "D DATESET" // the heading ingest records for it (chunk.Body alone does not)
	}
	x := extract(picked, "What is DATESET, the new evaluation set introduced to test the calendar tool?", DefaultMinSupport, nil)
	if x.reason != "" {
		t.Fatalf("abstained: %s", x.reason)
	}
	if len(x.sentences) < 2 || !strings.Contains(x.sentences[0].text, "Appendix D") || !strings.Contains(x.sentences[1].text, "current dates") {
		t.Errorf("the lead pointing at Appendix D is not followed by what it says of DATESET:\n%s", joined(x))
	}
	q := analyse("What is DATESET?")
	if s := pointedAt(q, &sentence{text: "DATESET is described in Appendix F."}, nil); s != nil {
		t.Errorf("a part no passage holds gave %q", s.text)
	}
}
