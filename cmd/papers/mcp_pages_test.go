package main

import (
	"context"
	"encoding/json"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestReadPaperPagesA619PagePDF reads a real 619-page PDF through papers
// mcp's read_paper, a budget at a time with next_cursor: every page comes
// exactly once, in order, no result is over its budget, and a page asked
// for alone is that page's text only.
func TestReadPaperPagesA619PagePDF(t *testing.T) {
	t.Parallel()
	data := sharedData(t)
	home := t.TempDir()
	pdf := filepath.Join(data, "pdfs", "awkward", "DA-619p_large_pagecount.pdf")
	if out, err := plainCmd(t, home, "ingest", pdf).CombinedOutput(); err != nil {
		t.Fatalf("papers ingest: %v\n%s", err, out)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	client := mcp.NewClient(&mcp.Implementation{Name: "pages-test", Version: "1"}, nil)
	sess, err := client.Connect(ctx, &mcp.CommandTransport{Command: plainCmd(t, home, "mcp", "--read-only")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	call := func(tool string, args map[string]any, out any) string {
		t.Helper()
		res, err := sess.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
		if err != nil {
			t.Fatalf("%s: %v", tool, err)
		}
		text := res.Content[0].(*mcp.TextContent).Text
		if res.IsError {
			t.Fatalf("%s %v: %s", tool, args, text)
		}
		if err := json.Unmarshal([]byte(text), out); err != nil {
			t.Fatal(err)
		}
		return text
	}
	var list struct {
		Papers []struct {
			ID string `json:"id"`
		} `json:"papers"`
	}
	call("list_papers", map[string]any{}, &list)
	if len(list.Papers) != 1 {
		t.Fatalf("papers %+v", list.Papers)
	}
	id := list.Papers[0].ID
	type piece struct {
		Pages      int    `json:"pages"`
		PageStart  int    `json:"page_start"`
		PageEnd    int    `json:"page_end"`
		Text       string `json:"text"`
		NextCursor string `json:"next_cursor"`
		Note       string `json:"note"`
	}
	mark := regexp.MustCompile(`\[page (\d+)\]`)
	seen := map[int]int{}
	last, calls, cursor, pages := 0, 0, "", 0
	for {
		args := map[string]any{"id": id, "max_chars": 30000}
		if cursor != "" {
			args["cursor"] = cursor
		}
		var r piece
		text := call("read_paper", args, &r)
		if n := utf8.RuneCountInString(text); n > 30000 {
			t.Fatalf("a result of %d characters, over 30000", n)
		}
		pages = r.Pages
		for _, m := range mark.FindAllStringSubmatch(r.Text, -1) {
			n, _ := strconv.Atoi(m[1])
			seen[n]++
			if n <= last {
				t.Errorf("page %d after page %d", n, last)
			}
			last = n
		}
		calls++
		if r.NextCursor == "" {
			break
		}
		cursor = r.NextCursor
		if calls > 1000 {
			t.Fatal("read_paper never ends")
		}
	}
	for n, k := range seen {
		if k != 1 {
			t.Errorf("page %d came %d times", n, k)
		}
	}
	if pages != 619 || len(seen) < 600 || last > 619 {
		t.Errorf("%d pages held, %d page marks read in %d calls, the last %d", pages, len(seen), calls, last)
	}
	t.Logf("%d pages with text read in %d calls of 30,000 characters", len(seen), calls)
	for _, n := range []int{1, 300, 619} {
		if seen[n] == 0 {
			continue
		}
		var r piece
		call("read_paper", map[string]any{"id": id, "page_start": n, "max_chars": 50000}, &r)
		if r.PageStart != n || r.PageEnd != n || r.Note != "" || !strings.HasPrefix(r.Text, "[page "+strconv.Itoa(n)+"]") || len(mark.FindAllString(r.Text, -1)) != 1 {
			t.Errorf("page %d alone: pages %d-%d, note %q, %.80q", n, r.PageStart, r.PageEnd, r.Note, r.Text)
		}
	}
}
