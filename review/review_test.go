package review

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"regexp"
	"strings"
	"testing"
)

var testColumns = []Column{
	{Name: "Method", Question: "What method does the paper propose?"},
	{Name: "Benchmarks", Question: "Which benchmarks are used for evaluation?"},
	{Name: "Limitations", Question: "What are the limitations?"},
}

var testPapers = []string{"2302.04761", "2501.10120", "topic-001", "topic-012", "topic-023", "topic-027"}

// A re-run reads every cell from the library's cache and gets the same
// table; a paper whose text changes has its cells computed again, the
// others not; --recompute computes everything.
func TestBuildCachesCells(t *testing.T) {
	ctx := context.Background()
	lib := testLibrary(t)
	a := &Offline{Retriever: retriever(t, lib)}
	papers := papersOf(t, lib, testPapers...)
	var calls int
	first, err := Build(ctx, lib, a, papers, testColumns, Options{Progress: func(Progress) { calls++ }})
	if err != nil {
		t.Fatal(err)
	}
	cells := len(testPapers) * len(testColumns)
	if first.Computed != cells || first.Cached != 0 || first.Missing != 0 {
		t.Fatalf("first build: %d computed, %d cached, %d missing; want %d, 0, 0", first.Computed, first.Cached, first.Missing, cells)
	}
	if calls != cells+1 {
		t.Errorf("progress called %d times, want %d (once after the cache, once per cell)", calls, cells+1)
	}
	stated := 0
	for i, r := range first.Rows {
		if r.ID != testPapers[i] || len(r.Cells) != len(testColumns) {
			t.Fatalf("row %d: %s with %d cells", i, r.ID, len(r.Cells))
		}
		for j, c := range r.Cells {
			if c.Column != j+1 {
				t.Errorf("%s cell %d has column %d", r.ID, j, c.Column)
			}
			if !c.Stated {
				if c.Answer != "" || c.Quote != "" || c.Page != 0 {
					t.Errorf("%s column %d not stated but shows %+v", r.ID, j+1, c)
				}
				continue
			}
			stated++
			if c.Quote != "" {
				if _, ok := textOf(t, lib, r.ID).locate(c.Quote); !ok {
					t.Errorf("%s column %d quotes what the paper does not hold: %q", r.ID, j+1, c.Quote)
				}
			}
			if strings.HasPrefix(r.ID, "topic-") && c.Page != 0 {
				t.Errorf("%s (an abstract) column %d has page %d", r.ID, j+1, c.Page)
			}
		}
	}
	if stated == 0 {
		t.Fatal("no cell is stated")
	}
	// Toolformer's limitations are on page 11, in section 7
	if c := first.Rows[0].Cells[2]; !c.Stated || c.Page != 11 || c.Section != "7 Limitations" || !regexp.MustCompile(toolformerLimits).MatchString(c.Quote) {
		t.Errorf("Toolformer's limitations: %+v", c)
	}

	again, err := Build(ctx, lib, a, papers, testColumns, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if again.Computed != 0 || again.Cached != cells {
		t.Errorf("re-run: %d computed, %d cached; want 0, %d", again.Computed, again.Cached, cells)
	}
	if !reflect.DeepEqual(again.Rows, first.Rows) {
		t.Errorf("cached cells differ from the computed ones:\n%+v\n%+v", again.Rows, first.Rows)
	}

	// topic-012 comes again with another abstract (as a new version would)
	p, err := lib.Get(ctx, "topic-012")
	if err != nil {
		t.Fatal(err)
	}
	cs, err := lib.ChunksWithVectors(ctx, "topic-012")
	if err != nil {
		t.Fatal(err)
	}
	p.Abstract += " We release the code."
	cs[0].Text += " We release the code."
	if _, err := lib.Put(ctx, p, cs); err != nil {
		t.Fatal(err)
	}
	if err := lib.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	papers = papersOf(t, lib, testPapers...)
	changed, err := Build(ctx, lib, a, papers, testColumns, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if changed.Computed != len(testColumns) || changed.Cached != cells-len(testColumns) {
		t.Errorf("after one paper changed: %d computed, %d cached; want %d, %d", changed.Computed, changed.Cached, len(testColumns), cells-len(testColumns))
	}

	// a review with one more paper and one more column computes only those
	more := append(papersOf(t, lib, "topic-030"), papers...)
	cols := append(append([]Column(nil), testColumns...), Column{Name: "Models", Question: "Which base models are trained?"})
	grown, err := Build(ctx, lib, a, more, cols, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if want := len(cols) + len(papers); grown.Computed != want {
		t.Errorf("one paper and one column more: %d computed, want %d", grown.Computed, want)
	}
	if grown.Rows[0].ID != "topic-030" {
		t.Errorf("rows are not in the order given: %s first", grown.Rows[0].ID)
	}

	re, err := Build(ctx, lib, a, papers, testColumns, Options{Recompute: true})
	if err != nil {
		t.Fatal(err)
	}
	if re.Computed != cells || re.Cached != 0 {
		t.Errorf("recompute: %d computed, %d cached", re.Computed, re.Cached)
	}
}

// Cancelling a build (Ctrl-C) keeps the cells done: the next run computes
// only the others.
func TestBuildInterruptedKeepsCells(t *testing.T) {
	lib := testLibrary(t)
	a := &Offline{Retriever: retriever(t, lib)}
	papers := papersOf(t, lib, testPapers...)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	stopAt := 7
	tb, err := Build(ctx, lib, a, papers, testColumns, Options{Workers: 1, Progress: func(p Progress) {
		if p.Done >= stopAt {
			cancel()
		}
	}})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("interrupted build returned %v, want context.Canceled", err)
	}
	cells := len(testPapers) * len(testColumns)
	if tb == nil || tb.Computed < stopAt || tb.Missing == 0 || tb.Computed+tb.Missing != cells {
		t.Fatalf("interrupted build: %+v", tb)
	}
	missing := 0
	for _, r := range tb.Rows {
		for _, c := range r.Cells {
			if strings.Contains(c.Note, "not computed") {
				missing++
			}
		}
	}
	if missing != tb.Missing {
		t.Errorf("%d cells say they were not computed, Missing is %d", missing, tb.Missing)
	}
	next, err := Build(context.Background(), lib, a, papers, testColumns, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if next.Cached != tb.Computed || next.Computed != tb.Missing {
		t.Errorf("after the interruption: %d cached, %d computed; want %d, %d", next.Cached, next.Computed, tb.Computed, tb.Missing)
	}
}

// The --json document has exactly the shape scripts rely on.
func TestTableJSONShape(t *testing.T) {
	tb := &Table{Columns: testColumns[:2], Rows: []Row{{ID: "2302.04761", Title: "Toolformer", Cells: []Cell{
		{Column: 1, Answer: "self-supervised API calls", Quote: "We introduce Toolformer.", Page: 1, Section: "Abstract", Stated: true, Score: 0.5},
		{Column: 2},
	}}}}
	b, err := json.Marshal(tb)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"columns":["What method does the paper propose?","Which benchmarks are used for evaluation?"],"rows":[{"id":"2302.04761","title":"Toolformer","cells":[` +
		`{"column":1,"answer":"self-supervised API calls","quote":"We introduce Toolformer.","page":1,"section":"Abstract","stated":true,"score":0.5},` +
		`{"column":2,"answer":"","quote":"","page":null,"section":"","stated":false,"score":0}]}]}`
	if string(b) != want {
		t.Errorf("JSON:\n%s\nwant\n%s", b, want)
	}
	var c Cell
	if err := json.Unmarshal([]byte(`{"column":1,"answer":"x","page":3,"stated":true}`), &c); err != nil || c.Page != 3 || c.Answer != "x" {
		t.Errorf("cell read back: %+v, %v", c, err)
	}
	empty, _ := json.Marshal(&Table{})
	if string(empty) != `{"columns":[],"rows":[]}` {
		t.Errorf("empty table: %s", empty)
	}
}
