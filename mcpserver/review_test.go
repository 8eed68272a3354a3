package mcpserver_test

import (
	"context"
	"strings"
	"testing"

	"github.com/papers-cli/papers/library"
	"github.com/papers-cli/papers/mcpserver"
	"github.com/papers-cli/papers/review"
	"github.com/papers-cli/papers/store"
)

type reviewDoc struct {
	Columns []string `json:"columns"`
	Rows    []struct {
		ID    string `json:"id"`
		Title string `json:"title"`
		Cells []struct {
			Column  int    `json:"column"`
			Answer  string `json:"answer"`
			Quote   string `json:"quote"`
			Page    *int   `json:"page"`
			Section string `json:"section"`
			Stated  bool   `json:"stated"`
		} `json:"cells"`
	} `json:"rows"`
	NextCursor string   `json:"next_cursor"`
	Papers     int      `json:"papers"`
	Answerer   string   `json:"answerer"`
	Warnings   []string `json:"warnings"`
}

// The review tool gives the table of papers x questions a page of rows
// at a time, as papers review --json has it; a saved review runs by name.
func TestReviewTool(t *testing.T) {
	dir := testLibrary(t)
	cs, _ := session(t, mcpserver.Options{Library: library.Config{Dir: dir}}, nil)
	args := map[string]any{"ids": []string{"2302.04761", "2501.10120"}, "columns": []string{"What are the limitations?", "Datasets"}, "limit": 1}
	var first reviewDoc
	call(t, cs, "review", args, &first)
	if first.Papers != 2 || len(first.Rows) != 1 || first.Rows[0].ID != "2302.04761" || first.NextCursor == "" ||
		len(first.Columns) != 2 || first.Columns[1] != "What are the datasets?" || !strings.HasPrefix(first.Answerer, "offline/") {
		t.Fatalf("first page: %+v", first)
	}
	lim := first.Rows[0].Cells[0]
	if lim.Column != 1 || !lim.Stated || lim.Page == nil || *lim.Page != 11 || lim.Section != "7 Limitations" || lim.Quote == "" {
		t.Errorf("Toolformer's limitations: %+v", lim)
	}
	args["cursor"] = first.NextCursor
	var second reviewDoc
	call(t, cs, "review", args, &second)
	if len(second.Rows) != 1 || second.Rows[0].ID != "2501.10120" || second.NextCursor != "" {
		t.Errorf("second page: %+v", second)
	}
	// a budget pages too: one row a call, the same rows
	delete(args, "cursor")
	args["limit"], args["max_chars"] = 10, 1500
	var small reviewDoc
	res := call(t, cs, "review", args, &small)
	if n := len([]rune(text(res))); n > 1500 || len(small.Rows) != 1 || small.NextCursor == "" {
		t.Errorf("a review in 1500 characters: %d characters, %d rows, next %q", n, len(small.Rows), small.NextCursor)
	}

	// saved on the command line, run by name
	lib, err := store.Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	spec, _ := review.Spec{Topics: []string{"tools"}, Columns: []review.Column{{Name: "Limits", Question: "What are the limitations?"}}}.Encode()
	if err := lib.SaveReview(context.Background(), "tools-review", spec); err != nil {
		t.Fatal(err)
	}
	lib.Close()
	var saved reviewDoc
	call(t, cs, "review", map[string]any{"name": "tools-review"}, &saved)
	if len(saved.Rows) == 0 || len(saved.Columns) != 1 || saved.Rows[0].Cells[0].Page == nil {
		t.Errorf("saved review: %+v", saved)
	}

	failure(t, "no columns", call(t, cs, "review", map[string]any{"ids": []string{"2302.04761"}}, nil), "no columns", "hint: ")
	failure(t, "no papers", call(t, cs, "review", map[string]any{"columns": []string{"What is it?"}}, nil), "a review needs papers")
	failure(t, "unknown saved review", call(t, cs, "review", map[string]any{"name": "nope"}, nil), `no saved review "nope"`)
	failure(t, "name and papers", call(t, cs, "review", map[string]any{"name": "tools-review", "ids": []string{"2302.04761"}}, nil), "alone")
	failure(t, "rows per call", call(t, cs, "review", map[string]any{"ids": []string{"2302.04761"}, "columns": []string{"X?"}, "limit": 51}, nil), "limit must be from 1 to 50")
	failure(t, "mode", call(t, cs, "review", map[string]any{"ids": []string{"2302.04761"}, "columns": []string{"X?"}, "mode": "psychic"}, nil), "unknown mode")
	failure(t, "model without one", call(t, cs, "review", map[string]any{"ids": []string{"2302.04761"}, "columns": []string{"X?"}, "mode": "model"}, nil), "none is configured")
	failure(t, "unknown paper", call(t, cs, "review", map[string]any{"ids": []string{"2999.99999"}, "columns": []string{"X?"}}, nil), "2999.99999")
}
