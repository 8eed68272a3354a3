package review

import (
	"regexp"
	"strings"
	"testing"

	"github.com/papers-cli/papers/ingest"
	"github.com/papers-cli/papers/ingest/chunk"
	"github.com/papers-cli/papers/internal/shareddata"
	"github.com/papers-cli/papers/store"
)

func TestIntentOf(t *testing.T) {
	for q, want := range map[string]intent{
		"What problem does it address?":          problemIntent,
		"What method does it propose?":           methodIntent,
		"How much better is it?":                 gainIntent,
		"Which datasets or benchmarks are used?": dataIntent,
		"What are the limitations?":              limitIntent,
		"Is code or data released?":              codeIntent,
		"What are the datasets?":                 dataIntent, // a bare "Datasets" column
		// particular questions are searched for, whatever words they share with generic ones
		"What retrieval method sits behind Toolformer's Wikipedia search tool, and which Wikipedia dump does it index?": noIntent,
		"Which method does PaSa use?":       noIntent,
		"How many parameters does it have?": noIntent,
	} {
		if got := intentOf(q); got != want {
			t.Errorf("intentOf(%q) = %d, want %d", q, got, want)
		}
	}
}

// The generic questions on two real papers, checked against what their
// text says (shared/data/pdfs/reference-text): Toolformer proposes
// Toolformer in its introduction (page 1), names its limitations in
// section 7 (page 11) and releases no code (its one GitHub link is a
// reference's); PaSa introduces PaSa in its abstract, reports its gains
// over Google as percentages and releases model, datasets and code on
// GitHub (page 1).
func TestGenericCells(t *testing.T) {
	lib := testLibrary(t)
	text := func(file string) *paperText {
		h, err := store.HashFile(file)
		if err != nil {
			t.Fatal(err)
		}
		p, err := lib.FindByHash(t.Context(), h)
		if err != nil {
			t.Fatal(err)
		}
		return textOf(t, lib, p.ID)
	}
	tf, ps := text(toolformer), text(pasa)
	for _, c := range []struct {
		name  string
		pt    *paperText
		k     intent
		quote string // a pattern the quote matches; "" when not stated
		page  int
	}{
		{"toolformer method", tf, methodIntent, `we propose Toolformer`, 1},
		{"toolformer limitations", tf, limitIntent, toolformerLimits, 11},
		{"toolformer code", tf, codeIntent, "", 0},
		{"pasa method", ps, methodIntent, `We introduce PaSa`, 1},
		{"pasa gain", ps, gainIntent, `\d+(\.\d+)?% improvement|improvement of \d+(\.\d+)?%`, 0},
		{"pasa code", ps, codeIntent, `github\.com/bytedance/pasa`, 1},
	} {
		cell, ok := c.pt.generic(c.k)
		if c.quote == "" {
			if ok || cell.Stated {
				t.Errorf("%s: stated %q (p. %d), want not stated", c.name, cell.Quote, cell.Page)
			}
			continue
		}
		if !ok || !cell.Stated || !regexp.MustCompile(c.quote).MatchString(cell.Quote) {
			t.Errorf("%s: quote %q, want one matching %q", c.name, cell.Quote, c.quote)
		}
		if c.page > 0 && cell.Page != c.page {
			t.Errorf("%s: page %d, want %d", c.name, cell.Page, c.page)
		}
		if cell.Page > 0 {
			if _, found := c.pt.locate(cell.Quote); !found {
				t.Errorf("%s: quote %q is not verbatim in the paper", c.name, cell.Quote)
			}
		}
		if n := len(strings.Fields(cell.Answer)); n > maxAnswerWords+1 {
			t.Errorf("%s: answer of %d words, want at most %d", c.name, n, maxAnswerWords)
		}
	}
}

// Phrasings of generic answers on real QASPER train papers: a lip-reading
// paper (1908.04917) says in its abstract that its model "surpasses the
// performance of state-of-the-art lip reading frameworks" (a gain in
// words) and that its dataset "is collected and released" (released
// data, in the passive); an emergency-detection paper (1610.04377)
// opens with a roadmap ("The rest of the paper is as follows: Section
// SECREF2 provides the motivation ..."), which answers nothing itself;
// a review (2002.06053) links others' tools on GitHub, which is no code
// of its own, and names its field's challenges in a section of them.
func TestGenericPhrasings(t *testing.T) {
	pts := qasperPapers(t, "train", "1908.04917", "1610.04377", "2002.06053")
	lip, emergency, review := pts[0], pts[1], pts[2]
	for _, c := range []struct {
		name  string
		pt    *paperText
		k     intent
		quote string // a pattern the quote matches; "" when not stated
	}{
		{"lip reading gain", lip, gainIntent, `surpasses the performance of state-of-the-art|exceeds all the other`},
		{"lip reading data", lip, codeIntent, `CMLR.*collected and released`},
		{"emergency problem", emergency, problemIntent, `(?i)emergenc`},
		{"review code", review, codeIntent, ""},
		{"review limitations", review, limitIntent, `reproducibility|interpretability|explainability|bias`},
	} {
		cell, ok := c.pt.generic(c.k)
		if c.quote == "" {
			if ok || cell.Stated {
				t.Errorf("%s: stated %q, want not stated", c.name, cell.Quote)
			}
			continue
		}
		if !ok || !cell.Stated || !regexp.MustCompile(c.quote).MatchString(cell.Quote) {
			t.Errorf("%s: quote %q, want one matching %q", c.name, cell.Quote, c.quote)
		}
		if roadmap.MatchString(strings.ToLower(cell.Quote)) {
			t.Errorf("%s: quote %q is the paper's roadmap", c.name, cell.Quote)
		}
	}
}

// qasperPaper is the text of QASPER paper id (an arXiv id) of split, read
// from the shared data as ingest reads a corpus record.
func qasperPaper(t *testing.T, split, id string) *paperText {
	t.Helper()
	return qasperPapers(t, split, id)[0]
}

// qasperPapers are the texts of QASPER papers ids of split, in their
// order, read in one pass over the corpus (under the race detector a pass
// over train's is some 4 s of CPU).
func qasperPapers(t *testing.T, split string, ids ...string) []*paperText {
	t.Helper()
	path := shareddata.Path(t, "qasper", split, "corpus.jsonl.gz")
	at := map[string]int{}
	for i, id := range ids {
		at["qasper:"+id] = i
	}
	pts := make([]*paperText, len(ids))
	keep := func(got string) bool { _, ok := at[got]; return ok }
	err := ingest.CorpusRecords(path, chunk.Defaults, keep, func(p store.Paper, chunks []store.Chunk) error {
		pts[at[p.ID]] = newPaperText(p, chunks)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for i, pt := range pts {
		if pt == nil {
			t.Fatalf("%s holds no paper qasper:%s", path, ids[i])
		}
	}
	return pts
}

// Sentences of real papers (grid 3's R papers, bench/review/grid/gold3.jsonl)
// and what the cue rules make of them, one kind each: released software
// named by its package or archive, a comparison in words in the body, a
// limiting factor; and sentences that answer nothing of the kind.
func TestGenericSentenceCues(t *testing.T) {
	body := store.Chunk{Seq: 5, Role: "body", Section: "Examples"}
	for _, c := range []struct {
		k      intent
		s      string
		stated bool
	}{
		{codeIntent, "Convenience functions to perform these methods are available in package flexmix.", true},
		{codeIntent, "The package is available from CRAN and can be installed with install.packages().", true},
		{gainIntent, "By looking at the summary of 100 evaluations, we note that the Rcpp function performed better than the equivalent in R by achieving a lower run time on average.", true},
		{limitIntent, "In our simulations computing time is a limiting factor for the permutation approach.", true},
		{codeIntent, "SVMs are currently a hot topic in the machine learning community.", false},
		{gainIntent, "The data set provides n = 506 observations of the median value of owner-occupied homes in Boston along with 14 covariates.", false},
		{problemIntent, "The rest of the paper is organized as follows: Section 2 states the problem.", false},
		// LayoutParser's introduction (grid 2): the word, no dataset named
		{dataIntent, "Currently there is no full-fledged infrastructure for easily curating the target document image datasets and fine-tuning or re-training the models.", false},
		{dataIntent, "In this example, we use the glass data from the UCI Repository of Machine Learning Databases for classification.", true},
	} {
		got := score(c.k, c.s, body, paperCues{})
		if stated := got > 0 && got >= minCues[c.k]; stated != c.stated {
			t.Errorf("kind %d, %q: score %.2f (least %.1f), want stated %v", c.k, c.s, got, minCues[c.k], c.stated)
		}
	}
}

// toolformerLimits are what Toolformer's section of limitations (page 11)
// says: that it has some, and each of them.
const toolformerLimits = `limitation|inability of Toolformer to use tools in a chain|does not allow the LM to use a tool in an interactive way|sensitive to the exact wording|sample-inefficient`
