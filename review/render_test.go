package review

import (
	"encoding/csv"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden")

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name+".golden")
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./review -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs from %s (run with -update and review the diff):\n%s", name, path, got)
	}
}

// sampleTable is six columns over three papers: stated cells with quotes
// and pages, a cell the paper does not state, one whose model quote was
// not found, and text that tries to break each format.
func sampleTable() *Table {
	cols := []Column{
		{Name: "Problem", Question: "What problem does it address?"},
		{Name: "Method", Question: "What method does it propose?"},
		{Name: "Better", Question: "How much better is it?"},
		{Name: "Benchmarks", Question: "Which benchmarks are used?"},
		{Name: "Limitations", Question: "What are the limitations?"},
		{Name: "Models", Question: "Which base models are trained?"},
	}
	quote := func(col int, answer, quote string, page int, section string) Cell {
		return Cell{Column: col, Answer: answer, Quote: quote, Page: page, Section: section, Stated: true, Score: 0.8}
	}
	return &Table{Columns: cols, Rows: []Row{
		{ID: "2302.04761", Title: "Toolformer: Language Models Can Teach Themselves to Use Tools", Name: "Toolformer", Cells: []Cell{
			quote(1, "LMs struggle with arithmetic and factual lookup", "They also, paradoxically, struggle with basic functionality, such as arithmetic or factual lookup, where much simpler and smaller models excel.", 1, "Abstract"),
			quote(2, "self-supervised finetuning on sampled API calls", "We introduce Toolformer, a model trained to decide which APIs to call.", 1, "Abstract"),
			{Column: 3},
			quote(4, "LAMA, math datasets, QA datasets, MLQA, TEMPLAMA, DATESET", "We evaluate all models on LAMA | math | QA.", 5, "4.2 Downstream Tasks"),
			quote(5, "no tool use in a chain", "One such limitation is the inability of Toolformer to use tools in a chain.", 11, "7 Limitations"),
			quote(6, "GPT-J (6.7B)", "=HYPERLINK(\"x\") GPT-J is used as the language model M.", 4, "4.1 Experimental Setup"),
		}},
		{ID: "topic-001", Title: "ECHO: Terminal Agents Learn World Models for Free", Name: "ECHO", Cells: []Cell{
			quote(1, "agent RL discards the terminal's stream", "We argue that this stream is a supervision signal, but standard agent RL discards it.", 0, "abstract"),
			quote(2, "ECHO, a hybrid objective", "We introduce ECHO (Environment Cross-entropy Hybrid Objective), a hybrid objective.", 0, "abstract"),
			quote(3, "doubles GRPO pass@1: 2.70% to 5.17%", "ECHO doubles GRPO pass@1 on TerminalBench-2.0: Qwen3-8B improves from 2.70% to 5.17%.", 0, "abstract"),
			quote(4, "TerminalBench-2.0", "ECHO doubles GRPO pass@1 on TerminalBench-2.0.", 0, "abstract"),
			{Column: 5},
			quote(6, "Qwen3-8B and Qwen3-14B", "Qwen3-8B improves from 2.70% to 5.17%, and Qwen3-14B from 5.17% to 10.79%.", 0, "abstract"),
		}},
		{ID: "pdf:af3b60c8ad85c10b", Title: "AdaRefiner <script>\x1b[31m", Cells: []Cell{
			{Column: 1},
			{Column: 2, Answer: "a refiner", Stated: true, Note: NoteQuoteNotFound},
			{Column: 3},
			{Column: 4},
			{Column: 5, Note: NoteUnreadable},
			{Column: 6},
		}},
	}}
}

func TestWriteTableGolden(t *testing.T) {
	for _, w := range []int{100, 160, 60} {
		var b strings.Builder
		if err := WriteTable(&b, sampleTable(), w); err != nil {
			t.Fatal(err)
		}
		out := b.String()
		for i, l := range strings.Split(out, "\n") {
			if ansi.StringWidth(l) > w {
				t.Errorf("width %d: line %d is %d wide: %q", w, i+1, ansi.StringWidth(l), l)
			}
		}
		if strings.ContainsRune(out, '\x1b') {
			t.Errorf("width %d: an escape sequence from a title reached the terminal", w)
		}
		golden(t, "table-"+strconv.Itoa(w), out)
	}
}

// The Markdown is a pipe table: every row has the header's cells (no pipe
// from a paper's text splits one), then the questions.
func TestWriteMarkdown(t *testing.T) {
	var b strings.Builder
	tb := sampleTable()
	if err := WriteMarkdown(&b, tb); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	golden(t, "table.md", out)
	cellSep := regexp.MustCompile(`(^|[^\\])\|`)
	lines := strings.Split(out, "\n")
	want := len(tb.Columns) + 3 // # and Paper, and the outer pipes
	for _, l := range lines[:2+len(tb.Rows)] {
		if n := len(cellSep.FindAllString(l, -1)); n != want {
			t.Errorf("%d pipes, want %d: %q", n, want, l)
		}
	}
	if strings.Contains(out, "<script>") || strings.ContainsRune(out, '\x1b') {
		t.Errorf("HTML or an escape sequence from a title is live in the Markdown")
	}
	if !strings.Contains(out, "_not stated_") || strings.Contains(out, NoteQuoteNotFound+"”") {
		t.Errorf("not stated or the unfound quote is not shown as such")
	}
}

// The CSV opens with one row per paper and answer, quote, page and
// section columns per question.
func TestWriteCSV(t *testing.T) {
	var b strings.Builder
	tb := sampleTable()
	if err := WriteCSV(&b, tb); err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(strings.NewReader(b.String())).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 1+len(tb.Rows) {
		t.Fatalf("%d records, want a header and %d rows", len(recs), len(tb.Rows))
	}
	head := recs[0]
	if len(head) != 2+4*len(tb.Columns) || head[0] != "id" || head[1] != "title" ||
		head[2] != "Problem: answer" || head[3] != "Problem: quote" || head[4] != "Problem: page" || head[5] != "Problem: section" {
		t.Errorf("header: %q", head)
	}
	tf := recs[1]
	if tf[0] != "2302.04761" || tf[2] != "LMs struggle with arithmetic and factual lookup" || tf[4] != "1" || tf[10] != NotStated || tf[12] != "" {
		t.Errorf("Toolformer's row: %q", tf)
	}
	if got := tf[2+5*4+1]; !strings.HasPrefix(got, "'=HYPERLINK") {
		t.Errorf("a quote starting with = is not defused for spreadsheets: %q", got)
	}
	ada := recs[3]
	if ada[2+1*4] != "a refiner" || ada[2+1*4+1] != "" {
		t.Errorf("the unfound quote's cell: %q", ada[6:10])
	}
}

func TestParseColumn(t *testing.T) {
	cases := []struct{ in, name, question string }{
		{"What problem does it address?", "Problem", "What problem does it address?"},
		{"What method does it propose?", "Method", "What method does it propose?"},
		{"How much better is it?", "Better", "How much better is it?"},
		{"Which datasets are used for evaluation?", "Datasets evaluation", "Which datasets are used for evaluation?"},
		{"Datasets", "Datasets", "What are the datasets?"},
		{"Main result", "Main result", "What is the main result?"},
		{"BLEU score", "BLEU score", "What is the BLEU score?"},
		{"Method: How do they train the policy?", "Method", "How do they train the policy?"},
		{"  Gains :  By how much does it beat GRPO?  ", "Gains", "By how much does it beat GRPO?"},
		{"What is the ratio: train to test?", "Ratio train", "What is the ratio: train to test?"},
		{"Does it release code?", "Release code", "Does it release code?"},
	}
	for _, c := range cases {
		got, err := ParseColumn(c.in)
		if err != nil || got.Name != c.name || got.Question != c.question {
			t.Errorf("ParseColumn(%q) = %+v, %v; want %q, %q", c.in, got, err, c.name, c.question)
		}
	}
	for _, bad := range []string{"", "   ", strings.Repeat("x", 501)} {
		if _, err := ParseColumn(bad); err == nil {
			t.Errorf("ParseColumn(%.20q) accepted", bad)
		}
	}
	cols, err := ReadColumns(strings.NewReader("# questions\nProblem: What problem does it address?\n\nDatasets\n"))
	if err != nil || len(cols) != 2 || cols[1].Question != "What are the datasets?" {
		t.Errorf("ReadColumns: %+v, %v", cols, err)
	}
	if _, err := CheckColumns([]Column{{Name: "A", Question: "What is X?"}, {Name: "B", Question: "What  is X?"}}); err == nil {
		t.Error("the same question twice is accepted")
	}
	named, err := CheckColumns([]Column{{Name: "Method", Question: "What is X?"}, {Name: "Method", Question: "What is Y?"}})
	if err != nil || named[1].Name != "Method 2" {
		t.Errorf("two columns named alike: %+v, %v", named, err)
	}
}
