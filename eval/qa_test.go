package eval

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/papers-cli/papers/embed"
	"github.com/papers-cli/papers/ingest"
	"github.com/papers-cli/papers/internal/shareddata"
	"github.com/papers-cli/papers/store"
)

// shared returns the path of a file of the shared test data, failing when
// it is missing.
func shared(t *testing.T, rel string) string {
	t.Helper()
	return shareddata.Path(t, strings.Split(rel, "/")...)
}

func TestReadQuestionsSharedSets(t *testing.T) {
	qs, err := ReadQuestions(shared(t, "qa/fulltext-dev.jsonl"), true)
	if err != nil {
		t.Fatal(err)
	}
	un, err := ReadQuestions(shared(t, "qa/fulltext-dev-unanswerable.jsonl"), false)
	if err != nil {
		t.Fatal(err)
	}
	if len(qs) != 64 || len(un) != 16 {
		t.Fatalf("read %d answerable and %d unanswerable questions, want 64 and 16", len(qs), len(un))
	}
	for _, q := range qs {
		if !q.Answerable || q.PDF == "" || len(q.Expect) == 0 || len(q.Pages) == 0 || q.Kind == "" {
			t.Errorf("%s: %+v lost a field", q.Line, q)
		}
	}
	for _, q := range un {
		if q.Answerable || q.Near == "" {
			t.Errorf("%s: %+v", q.Line, q)
		}
	}
	own, err := ReadQuestions(filepath.Join("..", "ask", "testdata", "fulltext-own.jsonl"), true)
	if err != nil || len(own) == 0 {
		t.Errorf("ask/testdata/fulltext-own.jsonl: %d questions, %v", len(own), err)
	}
}

func TestReadQuestionsErrors(t *testing.T) {
	for _, tc := range []struct {
		name, line string
		answerable bool
		want       string
	}{
		{"empty question", `{"q":" ","expect":["x"],"id":"a"}`, true, `the question ("q") is empty`},
		{"no facts", `{"q":"What?","id":"a"}`, true, `needs the facts its answer states ("expect")`},
		{"no paper", `{"q":"What?","expect":["x"]}`, true, `names no paper ("pdf" or "id")`},
		{"not JSON", `{"q":`, true, `:1:`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "q.jsonl")
			os.WriteFile(p, []byte(tc.line+"\n"), 0o644)
			_, err := ReadQuestions(p, tc.answerable)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
	p := filepath.Join(t.TempDir(), "u.jsonl")
	os.WriteFile(p, []byte(`{"q":"What is the boiling point of mercury?"}`+"\n"), 0o644)
	if qs, err := ReadQuestions(p, false); err != nil || len(qs) != 1 {
		t.Errorf("an unanswerable question needs only q: %v %v", qs, err)
	}
}

func TestMissing(t *testing.T) {
	for _, tc := range []struct {
		answer string
		expect []string
		want   []string
	}{
		{"Toolformer beats it by 11.7, 5.2 and 18.6 points [1].", []string{"11.7", "5.2", "18.6"}, nil},
		{"It uses BM25 [1].", []string{"BM25", "KILT"}, []string{"KILT"}},
		{"the   Spearman rank-\ncorrelation [2]", []string{"spearman rank-correlation"}, nil}, // case and whitespace
		{"reaches 77 5M", []string{"775M"}, nil},                                              // whitespace ignored, as the qa README says
		{"pass@1 of 5.17 [1]%", []string{"5.17%"}, nil},                                       // a citation marker is not text
		{"5.1 [1]7%", []string{"5.17%"}, nil},
		{"", []string{"x"}, []string{"x"}},
	} {
		if got := Missing(tc.answer, tc.expect); !slices.Equal(got, tc.want) {
			t.Errorf("Missing(%q, %q) = %q, want %q", tc.answer, tc.expect, got, tc.want)
		}
	}
}

func TestSpans(t *testing.T) {
	for _, tc := range []struct {
		span  string
		pages []int
		want  bool
	}{
		{"3", []int{3}, true}, {"3-4", []int{4}, true}, {"3-4", []int{5, 2}, false},
		{"", []int{1}, false}, {"x", []int{1}, false}, {"3", nil, false},
	} {
		if got := spans(tc.span, tc.pages); got != tc.want {
			t.Errorf("spans(%q, %v) = %v", tc.span, tc.pages, got)
		}
	}
}

const toolformer = "toolformer_2302.04761v1.pdf"

// qaLibrary builds a library of Toolformer's PDF and the topic corpus.
func qaLibrary(t *testing.T) (*store.Library, string) {
	t.Helper()
	pdfs := t.TempDir()
	b, err := os.ReadFile(shared(t, filepath.Join("pdfs", "papers", toolformer)))
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(pdfs, toolformer), b, 0o644)
	dir := t.TempDir()
	rep, err := ingest.Build(t.Context(), dir, embed.NewLocal(), ingest.Sources{PDFs: []string{pdfs}, Corpora: []string{shared(t, "topic/rl-for-llm-agents.jsonl")}})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Added) != 31 || len(rep.Failed) != 0 {
		t.Fatalf("added %d papers (want 31), failed %v", len(rep.Added), rep.Failed)
	}
	lib, err := store.Open(t.Context(), dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { lib.Close() })
	return lib, pdfs
}

// passageAsker answers with the text of the best BM25 passage, cited: a
// plain answerer on the real library, so the scoring is tested on real
// text (papers ask itself is tested through the command, model included,
// in cmd/papers/testdata/script/eval__questions.txtar).
func passageAsker(lib *store.Library) AskFunc {
	return func(ctx context.Context, q string, papers []string) (Answer, error) {
		hits, err := lib.SearchText(ctx, strings.Join(embed.ContentWords(q), " "), 1, store.Filter{IDs: papers}, store.Feedback{})
		if err != nil || len(hits) == 0 {
			return Answer{Abstained: err == nil}, err
		}
		cs, err := lib.ChunkTexts(ctx, []string{hits[0].ChunkID})
		if err != nil {
			return Answer{}, err
		}
		c := cs[hits[0].ChunkID]
		pages := ""
		if c.PageStart > 0 {
			pages = strconv.Itoa(c.PageStart)
			if c.PageEnd > c.PageStart {
				pages += "-" + strconv.Itoa(c.PageEnd)
			}
		}
		return Answer{Text: c.Text + " [1]", Citations: []Cited{{ID: c.PaperID, Pages: pages}}, Retrieval: time.Millisecond / 10}, nil
	}
}

// TestRunQA runs real questions against a real library and checks the
// report adds up: papers resolved by content hash and by id, every rate
// counted over the right questions, details that explain each outcome.
func TestRunQA(t *testing.T) {
	lib, pdfs := qaLibrary(t)
	dev, err := ReadQuestions(shared(t, "qa/fulltext-dev.jsonl"), true)
	if err != nil {
		t.Fatal(err)
	}
	var qs []Question
	for _, q := range dev {
		if q.PDF == toolformer && len(qs) < 3 {
			qs = append(qs, q)
		}
	}
	qs = append(qs,
		Question{Q: "What pass@1 does ECHO reach with Qwen3-8B on TerminalBench-2.0?", Expect: []string{"5.17%"}, ID: "topic-001", Answerable: true, Line: "inline:1"},
		Question{Q: "Which papers evaluate their agents on WebShop?", Expect: []string{"WebShop"}, IDs: []string{"topic-012", "topic-014", "topic-023", "topic-027"}, Answerable: true, Line: "inline:2"},
		Question{Q: "Which ingredient makes sourdough rise?", Line: "inline:3"},
	)
	askf := passageAsker(lib)
	rep, err := RunQA(t.Context(), lib, askf, slices.Clone(qs), QAOptions{PDFDir: pdfs})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Answerable != 5 || rep.Unanswerable != 1 || len(rep.Questions) != 6 {
		t.Fatalf("report of %d+%d questions with %d details", rep.Answerable, rep.Unanswerable, len(rep.Questions))
	}
	if rep.PaperFirst.Of != 5 || rep.FactStated.Of != 5 || rep.WrongAbstained.Of != 5 || rep.PageCited.Of != 3 || rep.Abstained.Of != 1 {
		t.Errorf("denominators %+v", rep)
	}
	var first, facts, pages int
	for i, d := range rep.Questions {
		if d.PaperFirst {
			first++
		}
		if d.FactStated {
			facts++
		}
		if d.PageCited {
			pages++
		}
		if d.Abstained {
			continue
		}
		if want := len(Missing(d.Answer, qs[i].Expect)) == 0 && d.Answerable; d.FactStated != want || (len(d.Missing) == 0) != (want || !d.Answerable) {
			t.Errorf("%s: fact stated %v, missing %q", d.Line, d.FactStated, d.Missing)
		}
		cited := strings.Fields(d.Cited[0])[0]
		if d.PaperFirst != (cited == d.Paper || slices.Contains(qs[i].IDs, cited)) {
			t.Errorf("%s: paper first %v, but the first citation is %v (paper %s)", d.Line, d.PaperFirst, d.Cited, d.Paper)
		}
	}
	if first != rep.PaperFirst.N || facts != rep.FactStated.N || pages != rep.PageCited.N {
		t.Errorf("rates %+v %+v %+v disagree with the details", rep.PaperFirst, rep.FactStated, rep.PageCited)
	}
	// the Toolformer PDF is found by its content hash; it is keyed by the
	// arXiv id its stamp gives
	if want := "2302.04761"; rep.Questions[0].Paper != want || rep.Questions[3].Paper != "topic-001" || rep.Questions[4].Paper != "topic-012" {
		t.Errorf("papers resolved to %s, %s and %s, want %s (by content hash), topic-001 and topic-012",
			rep.Questions[0].Paper, rep.Questions[3].Paper, rep.Questions[4].Paper, want)
	}
	if !rep.Questions[4].PaperFirst || !rep.Questions[4].FactStated {
		t.Errorf("a WebShop paper's passage answers which papers evaluate on WebShop: %+v", rep.Questions[4])
	}
	if rep.Latency.P95 < rep.Latency.P50 || rep.Latency.P50 <= 0 || rep.AnswerLatency.P50 >= rep.Latency.P50 {
		t.Errorf("latency %+v, beyond retrieval %+v", rep.Latency, rep.AnswerLatency)
	}

	t.Run("within paper", func(t *testing.T) {
		rep, err := RunQA(t.Context(), lib, askf, slices.Clone(qs), QAOptions{PDFDir: pdfs, WithinPaper: true})
		if err != nil {
			t.Fatal(err)
		}
		for i, d := range rep.Questions {
			if d.Paper == "" {
				continue // no paper to ask of: the whole library
			}
			for _, c := range d.Cited {
				if id := strings.Fields(c)[0]; id != d.Paper && !slices.Contains(qs[i].IDs, id) {
					t.Errorf("%s asked of %s cites %s", d.Line, d.Paper, c)
				}
			}
		}
	})

	t.Run("errors", func(t *testing.T) {
		boom := errors.New("the model server is down")
		n := 0
		failing := func(ctx context.Context, q string, papers []string) (Answer, error) {
			if n++; n == 2 {
				return Answer{}, boom
			}
			return askf(ctx, q, papers)
		}
		rep, err := RunQA(t.Context(), lib, failing, slices.Clone(qs), QAOptions{PDFDir: pdfs})
		if err != nil || rep.Errors != 1 || rep.Questions[1].Error != boom.Error() {
			t.Errorf("a failed answer after the first is counted and the run goes on: %v, %+v", err, rep.Questions[1])
		}
		n = 1
		if _, err := RunQA(t.Context(), lib, failing, slices.Clone(qs), QAOptions{PDFDir: pdfs}); !errors.Is(err, boom) {
			t.Errorf("a failed first answer stops the run: %v", err)
		}
	})

	t.Run("unresolved papers", func(t *testing.T) {
		for _, tc := range []struct {
			q      Question
			pdfDir string
			want   string
		}{
			{Question{Q: "x", PDF: toolformer, Answerable: true, Line: "l:1"}, "", "l:1: the question names the PDF " + toolformer + ": give the directory that holds it (--pdfs DIR)"},
			{Question{Q: "x", PDF: "nope.pdf", Answerable: true, Line: "l:2"}, pdfs, "l:2: open "},
			{Question{Q: "x", ID: "topic-999", Answerable: true, Line: "l:3"}, pdfs, "l:3: paper topic-999 is not in the library"},
			{Question{Q: "x", IDs: []string{"topic-001", "topic-998"}, Answerable: true, Line: "l:4"}, pdfs, "l:4: paper topic-998 is not in the library"},
		} {
			_, err := RunQA(t.Context(), lib, askf, []Question{tc.q}, QAOptions{PDFDir: tc.pdfDir})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want %q", err, tc.want)
			}
		}
		other := filepath.Join(t.TempDir(), "other.pdf")
		b, _ := os.ReadFile(shared(t, "pdfs/papers/pasa_2501.10120.pdf"))
		os.WriteFile(other, b, 0o644)
		_, err := RunQA(t.Context(), lib, askf, []Question{{Q: "x", PDF: "other.pdf", Answerable: true, Line: "l:5"}}, QAOptions{PDFDir: filepath.Dir(other)})
		if err == nil || !strings.Contains(err.Error(), "other.pdf is not in the library: ingest it first") {
			t.Errorf("a PDF not in the library: %v", err)
		}
	})
}
