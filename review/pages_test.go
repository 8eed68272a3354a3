package review

import (
	"context"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/papers-cli/papers/internal/shareddata"
)

// The page of every quoted cell is the page pdftotext (the reference
// extraction in shared/data) puts the quote on: for Toolformer and PaSa,
// six generic columns and questions of shared/data/qa, answered offline.
func TestQuotePagesAgreeWithReferenceText(t *testing.T) {
	lib := testLibrary(t)
	a := &Offline{Retriever: retriever(t, lib)}
	cols := []Column{
		{Name: "Problem", Question: "What problem does the paper address?"},
		{Name: "Method", Question: "What method does the paper propose?"},
		{Name: "Results", Question: "What is the main result?"},
		{Name: "Data", Question: "Which datasets are used?"},
		{Name: "Limits", Question: "What are the limitations?"},
		{Name: "Baselines", Question: "Which baselines are compared?"},
		{Name: "Tools", Question: "Which tools can the model call?"},
		{Name: "MT", Question: "Which translation model is called for the MT tool?"},
		{Name: "Crawler", Question: "How is the Crawler trained?"},
		{Name: "Selector", Question: "What does the Selector do?"},
		{Name: "Reward", Question: "What reward is used in the PPO training?"},
		{Name: "Scale", Question: "At what model size does tool use start to help?"},
	}
	refs := map[string]string{"2302.04761": "toolformer_2302.04761v1.txt", "2501.10120": "pasa_2501.10120.txt"}
	tb, err := Build(context.Background(), lib, a, papersOf(t, lib, "2302.04761", "2501.10120"), cols, Options{})
	if err != nil {
		t.Fatal(err)
	}
	quoted, agree := 0, 0
	for _, r := range tb.Rows {
		b, err := os.ReadFile(shareddata.Path(t, "pdfs", "reference-text", refs[r.ID]))
		if err != nil {
			t.Fatal(err)
		}
		pages := strings.Split(string(b), "\f")
		for _, c := range r.Cells {
			if c.Quote == "" || c.Page == 0 {
				continue
			}
			on := refPages(pages, c.Quote)
			if len(on) == 0 {
				continue // pdftotext reads the page otherwise (columns, figures): no reference
			}
			quoted++
			if slices.Contains(on, c.Page) {
				agree++
			} else {
				t.Logf("%s column %d: page %d, pdftotext has it on %v: %q", r.ID, c.Column, c.Page, on, c.Quote)
			}
		}
	}
	t.Logf("%d of %d quotes on pdftotext's page", agree, quoted)
	if quoted < 12 || float64(agree) < 0.9*float64(quoted) {
		t.Errorf("%d of %d quotes on pdftotext's page, want at least 90%% of at least 12", agree, quoted)
	}
}

// refPages are the pages (1-based) whose text holds quote, or where it
// starts when it runs onto the next page.
func refPages(pages []string, quote string) []int {
	q := skeleton(quote)
	var out []int
	for i := range pages {
		s := skeleton(pages[i])
		if strings.Contains(s, q) {
			out = append(out, i+1)
			continue
		}
		if i+1 < len(pages) && strings.Contains(s+skeleton(pages[i+1]), q) {
			out = append(out, i+1)
		}
	}
	return out
}
