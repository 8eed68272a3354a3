package mcpserver

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/papers-cli/papers/ingest"
)

// TestFitReport: a report of a large ingest keeps within the budget by
// cutting its longest lists, saying how much each lost; a small one is
// left whole.
func TestFitReport(t *testing.T) {
	r := &ingest.Report{Failed: []ingest.Failure{}, Skipped: []ingest.Skip{}, Missing: []ingest.Missing{}, Pages: 9000, Chunks: 40000}
	for i := range 500 {
		r.Added = append(r.Added, fmt.Sprintf("2501.%05d", i))
		if i%5 == 0 {
			r.Unchanged = append(r.Unchanged, fmt.Sprintf("2401.%05d", i))
		}
	}
	out, err := fitReport(r, 2000)
	if err != nil {
		t.Fatal(err)
	}
	if n := jsonLen(out); n > 2000 {
		t.Fatalf("%d characters, over 2000", n)
	}
	b, _ := json.Marshal(out)
	var got struct {
		Added         []string `json:"added"`
		AddedLeft     int      `json:"added_left_out"`
		Unchanged     []string `json:"unchanged"`
		UnchangedLeft int      `json:"unchanged_left_out"`
		Pages         int      `json:"pages"`
	}
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	if len(got.Added)+got.AddedLeft != 500 || len(got.Unchanged)+got.UnchangedLeft != 100 || got.Added[0] != "2501.00000" || got.Pages != 9000 {
		t.Errorf("report %s", b)
	}
	small := &ingest.Report{Added: []string{"2302.04761"}}
	if out, _ := fitReport(small, 2000); out != any(small) {
		t.Errorf("a report that fits was changed: %v", out)
	}
	if _, err := fitReport(r, 50); err == nil || !strings.Contains(err.Error(), "max_chars 50 is too small") {
		t.Errorf("a budget too small: %v", err)
	}
}
