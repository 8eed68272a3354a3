package mcpserver_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/papers-cli/papers/ingest/arxiv/arxivtest"
	"github.com/papers-cli/papers/library"
	"github.com/papers-cli/papers/mcpserver"
)

type passage struct {
	ID      string  `json:"id"`
	Version int     `json:"version"`
	Title   string  `json:"title"`
	Chunk   string  `json:"chunk"`
	Pages   string  `json:"pages"`
	Section string  `json:"section"`
	Score   float64 `json:"score"`
	Text    string  `json:"text"`
}

func TestSearch(t *testing.T) {
	cs, _ := session(t, mcpserver.Options{Library: library.Config{Dir: testLibrary(t)}}, nil)
	var out struct {
		Passages   []passage `json:"passages"`
		NextCursor string    `json:"next_cursor"`
		Note       string    `json:"note"`
	}
	q := "language models teach themselves to use tools via API calls"
	call(t, cs, "search", map[string]any{"query": q, "k": 5, "full": true, "max_chars": 50000}, &out)
	if len(out.Passages) != 5 || out.Passages[0].ID != "2302.04761" || out.Passages[0].Version != 1 || out.NextCursor != "" {
		t.Fatalf("search: %+v", out)
	}
	perPaper := map[string]int{}
	for _, p := range out.Passages {
		perPaper[p.ID]++
		if p.Title == "" || p.Text == "" || p.Score <= 0 || !strings.HasPrefix(p.Chunk, p.ID+"#") {
			t.Errorf("passage %+v lacks a field", p)
		}
	}
	if perPaper["2302.04761"] > 3 {
		t.Errorf("%d passages of one paper, want at most 3 (per_paper's default)", perPaper["2302.04761"])
	}
	hasPages := false
	for _, p := range out.Passages {
		hasPages = hasPages || p.Pages != ""
	}
	if !hasPages {
		t.Error("no passage has pages")
	}
	full := out.Passages

	// compact rows by default: no chunk, section or score
	res := call(t, cs, "search", map[string]any{"query": q, "k": 5, "max_chars": 50000}, &out)
	if len(out.Passages) != 5 || strings.Contains(text(res), `"chunk"`) || strings.Contains(text(res), `"score"`) {
		t.Errorf("compact search: %s", text(res))
	}
	// a small budget pages the same passages, each once, in order
	var paged []passage
	cursor := ""
	for calls := 0; ; calls++ {
		args := map[string]any{"query": q, "k": 5, "full": true, "max_chars": 1200}
		if cursor != "" {
			args["cursor"] = cursor
		}
		res := call(t, cs, "search", args, &out)
		if n := utf8.RuneCountInString(text(res)); res.IsError || n > 1200 {
			t.Fatalf("page %d: %d characters over 1200: %.300s", calls, n, text(res))
		}
		paged = append(paged, out.Passages...)
		if out.NextCursor == "" {
			break
		}
		cursor = out.NextCursor
		if calls > 10 {
			t.Fatal("search never ends")
		}
	}
	if len(paged) != len(full) {
		t.Fatalf("paged %d passages, want %d", len(paged), len(full))
	}
	for i := range paged {
		if paged[i].Chunk != full[i].Chunk || !strings.HasPrefix(full[i].Text, strings.TrimSuffix(paged[i].Text, "…")) {
			t.Errorf("page row %d: %s %.60q, want %s %.60q", i, paged[i].Chunk, paged[i].Text, full[i].Chunk, full[i].Text)
		}
	}
	failure(t, "a cursor of other arguments", call(t, cs, "search", map[string]any{"query": "other words", "k": 5, "full": true, "cursor": cursor}, nil), "cursor belongs to another call")
	failure(t, "a made-up cursor", call(t, cs, "search", map[string]any{"query": q, "cursor": "abc"}, nil), "cursor is not a next_cursor of search")
	failure(t, "a budget too small", call(t, cs, "search", map[string]any{"query": q, "max_chars": 10}, nil), "max_chars must be at least 400")

	// filters: a paper (any spelling), a topic
	call(t, cs, "search", map[string]any{"query": "tools", "paper": []string{"https://arxiv.org/abs/2501.10120v1"}, "max_chars": 50000}, &out)
	if len(out.Passages) == 0 || out.Passages[0].ID != "2501.10120" || len(out.Passages) <= 3 {
		t.Errorf("search of one paper: %d passages, first of %v (want only PaSa's, more than 3)", len(out.Passages), out.Passages)
	}
	call(t, cs, "search", map[string]any{"query": "paper search agent", "topic": []string{"tools"}}, &out)
	for _, p := range out.Passages {
		if p.ID != "2302.04761" {
			t.Errorf("topic tools holds only Toolformer, got %s", p.ID)
		}
	}
	call(t, cs, "search", map[string]any{"query": "the of and"}, &out)
	if len(out.Passages) != 0 || !strings.Contains(out.Note, "too common") {
		t.Errorf("a query of stop words: %+v", out)
	}

	failure(t, "unknown topic", call(t, cs, "search", map[string]any{"query": "x", "topic": []string{"nope"}}, nil), `no topic "nope"`, "hint: the topics are: tools (list_topics)")
	failure(t, "unknown paper", call(t, cs, "search", map[string]any{"query": "x", "paper": []string{"2210.03629"}}, nil), "2210.03629 is not in the library",
		`hint: list_papers shows what is there; ingest with ids ["2210.03629"] adds it`)
	failure(t, "bad date", call(t, cs, "search", map[string]any{"query": "x", "since": "last week"}, nil), `invalid date "last week"`)
	failure(t, "bad mode", call(t, cs, "search", map[string]any{"query": "x", "mode": "fuzzy"}, nil), "unknown retrieval mode")
	failure(t, "empty query", call(t, cs, "search", map[string]any{"query": " "}, nil), "query is empty")
	failure(t, "k too large", call(t, cs, "search", map[string]any{"query": "x", "k": 500}, nil), "at most 50")
	failure(t, "unknown argument", call(t, cs, "search", map[string]any{"query": "x", "colour": "red"}, nil), "unknown argument colour: search takes author, category, cursor, full, k, max_chars, mode, paper, per_paper, query, saved, since, tag, topic, until")
	failure(t, "a string for an array", call(t, cs, "search", map[string]any{"query": "x", "topic": "tools"}, nil), "topic")
}

type answer struct {
	Answer    string `json:"answer"`
	Mode      string `json:"mode"`
	Abstained bool   `json:"abstained"`
	Citations []struct {
		N       int    `json:"n"`
		ID      string `json:"id"`
		Version int    `json:"version"`
		Pages   string `json:"pages"`
		Passage string `json:"passage"`
	} `json:"citations"`
	SeeAlso []struct {
		ID    string `json:"id"`
		Title string `json:"title"`
	} `json:"see_also"`
	Note string `json:"note"`
}

func TestAsk(t *testing.T) {
	cs, _ := session(t, mcpserver.Options{Library: library.Config{Dir: testLibrary(t)}}, nil)
	var a answer
	res := call(t, cs, "ask", map[string]any{"question": "Which tools does Toolformer use?"}, &a)
	if a.Abstained || a.Mode != "extractive" || len(a.Citations) == 0 || !strings.Contains(a.Answer, "[1]") {
		t.Fatalf("ask: %s", text(res))
	}
	for _, c := range a.Citations {
		if c.ID == "" || c.Passage == "" || c.N < 1 {
			t.Errorf("citation %+v lacks a field", c)
		}
	}
	if a.Citations[0].ID != "2302.04761" || a.Citations[0].Version != 1 {
		t.Errorf("first citation %+v, want Toolformer v1", a.Citations[0])
	}
	// see_also: the library's other paper, unless the answer cites it too
	cited := map[string]bool{}
	for _, c := range a.Citations {
		cited[c.ID] = true
	}
	if want := !cited["2501.10120"]; want != (len(a.SeeAlso) == 1 && a.SeeAlso[0].ID == "2501.10120" && a.SeeAlso[0].Title != "") || !want && len(a.SeeAlso) != 0 {
		t.Errorf("see_also %+v with citations of %v", a.SeeAlso, cited)
	}
	call(t, cs, "ask", map[string]any{"question": "What is the boiling point of tungsten in kelvin?", "mode": "extractive"}, &a)
	if !a.Abstained || len(a.Citations) != 0 || len(a.SeeAlso) != 0 {
		t.Errorf("a question the library cannot answer: abstained %v, %d citations: %q", a.Abstained, len(a.Citations), a.Answer)
	}
	// a small budget cuts the passages, never the answer or its citations
	var whole, small answer
	call(t, cs, "ask", map[string]any{"question": "Which tools does Toolformer use?"}, &whole)
	res = call(t, cs, "ask", map[string]any{"question": "Which tools does Toolformer use?", "max_chars": 2500}, &small)
	if n := utf8.RuneCountInString(text(res)); n > 2500 || small.Answer != whole.Answer || len(small.Citations) != len(whole.Citations) || !strings.Contains(small.Note, "cut") {
		t.Errorf("ask in 2500 characters: %d characters, note %q: %.300s", n, small.Note, text(res))
	}
	failure(t, "quality without a model", call(t, cs, "ask", map[string]any{"question": "What is PaSa?", "mode": "quality"}, nil), "needs a language model", "hint: ")
	failure(t, "bad mode", call(t, cs, "ask", map[string]any{"question": "What is PaSa?", "mode": "guess"}, nil), "unknown mode")
}

func TestGetAndReadPaper(t *testing.T) {
	cs, _ := session(t, mcpserver.Options{Library: library.Config{Dir: testLibrary(t)}}, nil)
	var p struct {
		ID        string `json:"id"`
		Version   int    `json:"version"`
		Title     string `json:"title"`
		Abstract  string `json:"abstract"`
		Pages     int    `json:"pages"`
		TextChars int    `json:"text_chars"`
		Resource  string `json:"resource"`
		Note      string `json:"note"`
		Sections  []struct {
			Title     string `json:"title"`
			PageStart int    `json:"page_start"`
			PageEnd   int    `json:"page_end"`
			Start     int    `json:"start"`
		} `json:"sections"`
	}
	call(t, cs, "get_paper", map[string]any{"id": "arXiv:2302.04761v2"}, &p)
	if p.ID != "2302.04761" || p.Pages != 17 || !strings.Contains(p.Title, "Toolformer") || p.Abstract == "" || p.Resource != "papers://2302.04761" {
		t.Fatalf("get_paper: %+v", p)
	}
	if !strings.Contains(p.Note, "v2 asked for") {
		t.Errorf("asking for v2 of a paper held at v1 says nothing: %q", p.Note)
	}
	if len(p.Sections) < 3 {
		t.Errorf("sections %+v", p.Sections)
	}
	for i, s := range p.Sections {
		if s.PageStart < 1 || s.PageEnd < s.PageStart || i > 0 && s.Start <= p.Sections[i-1].Start {
			t.Errorf("section %+v after %+v", s, p.Sections[max(i-1, 0)])
		}
	}

	// the whole text, piece by piece: bounded, in order, nothing twice
	type piece struct {
		Start      int    `json:"start"`
		End        int    `json:"end"`
		NextCursor string `json:"next_cursor"`
		TotalChars int    `json:"total_chars"`
		PageStart  int    `json:"page_start"`
		PageEnd    int    `json:"page_end"`
		Text       string `json:"text"`
		Note       string `json:"note"`
	}
	var all strings.Builder
	cursor, calls, at := "", 0, 0
	for {
		var r piece
		args := map[string]any{"id": "2302.04761", "max_chars": 5000}
		if cursor != "" {
			args["cursor"] = cursor
		}
		res := call(t, cs, "read_paper", args, &r)
		if res.IsError {
			t.Fatal(text(res))
		}
		calls++
		if n := utf8.RuneCountInString(text(res)); n > 5000 || len([]rune(r.Text)) != r.End-r.Start || r.Start != at {
			t.Fatalf("read from %d: %d characters of result, start %d end %d", at, n, r.Start, r.End)
		}
		all.WriteString(r.Text)
		at = r.End
		if r.NextCursor == "" {
			if r.End != r.TotalChars || r.TotalChars != p.TextChars {
				t.Errorf("the last piece ends at %d of %d (get_paper: %d)", r.End, r.TotalChars, p.TextChars)
			}
			break
		}
		cursor = r.NextCursor
		if calls > 100 {
			t.Fatal("read_paper never ends")
		}
	}
	whole := all.String()
	if calls < 10 || !strings.HasPrefix(whole, "Toolformer") || !strings.Contains(whole, "[page 17]") {
		t.Errorf("%d calls read %d characters: %.200q", calls, len(whole), whole)
	}
	// no sentence of the body is there more often than in the paper (the
	// chunks' overlap is taken out; the abstract opens the text and the
	// paper's first page alike)
	ref, err := os.ReadFile(filepath.Join(arxivtest.DataDir(t), "pdfs", "reference-text", papers["2302.04761"]+".txt"))
	if err != nil {
		t.Fatal(err)
	}
	norm := func(s string) string { return strings.Join(strings.Fields(s), " ") }
	reference := norm(string(ref))
	body := norm(whole[strings.Index(whole, "[page 1]"):])
	for _, s := range strings.Split(body, ". ") {
		head := s[:min(len(s), 40)] // pdftotext breaks lines elsewhere
		if len(s) > 60 && !strings.Contains(s, "[page") && strings.Count(body, s) > max(1, strings.Count(reference, head)) {
			t.Errorf("%d times in the text, %d in the paper: %.100q", strings.Count(body, s), strings.Count(reference, head), s)
		}
	}

	// a page is exactly its own text: each page read alone, in order, is
	// the whole body, and holds only its own page mark
	var byPage strings.Builder
	for n := 1; n <= 17; n++ {
		var r piece
		call(t, cs, "read_paper", map[string]any{"id": "2302.04761", "page_start": n, "max_chars": 50000}, &r)
		if r.PageStart != n || r.PageEnd != n || r.NextCursor != "" || r.Note != "" {
			t.Errorf("page %d: pages %d-%d, next %q, note %q", n, r.PageStart, r.PageEnd, r.NextCursor, r.Note)
		}
		if !strings.HasPrefix(r.Text, fmt.Sprintf("[page %d]", n)) || strings.Count(r.Text, "[page ") != 1 {
			t.Errorf("page %d: %.80q ... %.80q", n, r.Text, r.Text[max(0, len(r.Text)-80):])
		}
		byPage.WriteString(r.Text)
	}
	if norm(byPage.String()) != norm(whole[strings.Index(whole, "[page 1]"):]) {
		t.Error("the pages read one by one are not the body of the paper")
	}
	var r piece
	call(t, cs, "read_paper", map[string]any{"id": "2302.04761", "page_start": 3, "page_end": 4, "max_chars": 50000}, &r)
	if r.PageStart != 3 || r.PageEnd != 4 || !strings.HasPrefix(r.Text, "[page 3]") || !strings.Contains(r.Text, "[page 4]") || strings.Contains(r.Text, "[page 5]") {
		t.Errorf("pages 3-4: pages %d-%d, %.100q", r.PageStart, r.PageEnd, r.Text)
	}
	// page 5 holds two tables and their captions: left out on request,
	// with the offsets of the whole text
	var all5 piece
	call(t, cs, "read_paper", map[string]any{"id": "2302.04761", "page_start": 5, "max_chars": 50000}, &all5)
	call(t, cs, "read_paper", map[string]any{"id": "2302.04761", "page_start": 5, "max_chars": 50000, "omit": []string{"table", "caption"}}, &r)
	if !strings.Contains(all5.Text, "Table 1: Examples of inputs and outputs") || strings.Contains(r.Text, "Table 1: Examples of inputs and outputs") ||
		strings.Contains(r.Text, "207,241") || !strings.Contains(r.Text, "[table left out]") || r.Start != all5.Start || r.End != all5.End ||
		!strings.HasPrefix(r.Text, "[page 5]") {
		t.Errorf("page 5 without tables and captions (%d-%d, whole %d-%d): %.300q", r.Start, r.End, all5.Start, all5.End, r.Text)
	}
	failure(t, "omit body", call(t, cs, "read_paper", map[string]any{"id": "2302.04761", "omit": []string{"body"}}, nil), "always read")
	failure(t, "omit an unknown role", call(t, cs, "read_paper", map[string]any{"id": "2302.04761", "omit": []string{"graphs"}}, nil), "unknown text role")
	res := call(t, cs, "read_paper", map[string]any{"id": "2302.04761", "max_chars": 1000000}, &r)
	if n := utf8.RuneCountInString(text(res)); n > 50000 || r.NextCursor == "" {
		t.Errorf("max_chars is not capped: %d characters", n)
	}
	failure(t, "pages past the end", call(t, cs, "read_paper", map[string]any{"id": "2302.04761", "page_start": 40}, nil), "no text on page_start 40")
	failure(t, "unknown paper", call(t, cs, "get_paper", map[string]any{"id": "2210.03629"}, nil), "2210.03629 is not in the library", "hint: list_papers")
	failure(t, "no id", call(t, cs, "read_paper", map[string]any{}, nil), "id")
}

func TestListPapers(t *testing.T) {
	cs, _ := session(t, mcpserver.Options{Library: library.Config{Dir: testLibrary(t)}}, nil)
	var out struct {
		Papers []struct {
			ID        string   `json:"id"`
			Title     string   `json:"title"`
			Authors   []string `json:"authors"`
			Published string   `json:"published"`
			Pages     int      `json:"pages"`
			Saved     bool     `json:"saved"`
			SavedAt   string   `json:"saved_at"`
		} `json:"papers"`
		NextCursor string `json:"next_cursor"`
	}
	res := call(t, cs, "list_papers", map[string]any{"limit": 1}, &out)
	if len(out.Papers) != 1 || out.Papers[0].ID != "2302.04761" || out.NextCursor == "" || out.Papers[0].Title == "" || out.Papers[0].Published == "" {
		t.Fatalf("first page: %s", text(res))
	}
	if strings.Contains(text(res), `"pages"`) || strings.Contains(text(res), `"tags"`) || len(out.Papers[0].Authors) > 4 {
		t.Errorf("a compact row holds more than id, version, title, authors, published: %s", text(res))
	}
	call(t, cs, "list_papers", map[string]any{"limit": 1, "cursor": out.NextCursor}, &out)
	if len(out.Papers) != 1 || out.Papers[0].ID != "2501.10120" || out.NextCursor != "" {
		t.Errorf("second page: %+v next %q", out.Papers, out.NextCursor)
	}
	// the budget pages too: one row per call here
	res = call(t, cs, "list_papers", map[string]any{"max_chars": 400}, &out)
	if n := utf8.RuneCountInString(text(res)); n > 400 || len(out.Papers) != 1 || out.NextCursor == "" {
		t.Errorf("list in 400 characters: %d characters: %s", n, text(res))
	}
	call(t, cs, "list_papers", map[string]any{"max_chars": 400, "cursor": out.NextCursor}, &out)
	if len(out.Papers) != 1 || out.Papers[0].ID != "2501.10120" || out.NextCursor != "" {
		t.Errorf("list in 400 characters, second call: %+v", out)
	}
	call(t, cs, "list_papers", map[string]any{"until": "2024-12"}, &out)
	if len(out.Papers) != 1 || out.Papers[0].ID != "2501.10120" {
		t.Errorf("until 2024-12: %+v", out.Papers)
	}
	call(t, cs, "list_papers", map[string]any{"tag": []string{"none-such"}}, &out)
	if len(out.Papers) != 0 {
		t.Errorf("an unknown tag: %+v", out.Papers)
	}
	call(t, cs, "list_papers", map[string]any{"tag": []string{"to-read"}, "full": true}, &out)
	if len(out.Papers) != 1 || out.Papers[0].ID != "2302.04761" || out.Papers[0].Saved || out.Papers[0].SavedAt != "" || out.Papers[0].Pages != 17 {
		t.Errorf("tag to-read (Toolformer's, any case): %+v", out.Papers)
	}
	call(t, cs, "list_papers", map[string]any{"saved": true, "full": true}, &out)
	if len(out.Papers) != 1 || out.Papers[0].ID != "2501.10120" || !out.Papers[0].Saved {
		t.Errorf("saved (PaSa): %+v", out.Papers)
	} else if at, err := time.Parse(time.RFC3339, out.Papers[0].SavedAt); err != nil || time.Since(at) > time.Hour || time.Since(at) < -time.Minute {
		t.Errorf("PaSa saved at %q, want the time the test library was made: %v", out.Papers[0].SavedAt, err)
	}
	failure(t, "empty tag", call(t, cs, "list_papers", map[string]any{"tag": []string{" "}}, nil), "tag is empty")
	failure(t, "limit too large", call(t, cs, "list_papers", map[string]any{"limit": 10000}, nil), "at most 500")
}

func TestTopicsMomentumDigestExport(t *testing.T) {
	cs, _ := session(t, mcpserver.Options{Library: library.Config{Dir: testLibrary(t)}}, nil)
	var topics struct {
		Topics []struct {
			Name       string  `json:"name"`
			Query      string  `json:"query"`
			Papers     int     `json:"papers"`
			LastUpdate *string `json:"last_update"`
		} `json:"topics"`
	}
	call(t, cs, "list_topics", nil, &topics)
	if len(topics.Topics) != 1 || topics.Topics[0].Name != "tools" || topics.Topics[0].Papers != 1 || topics.Topics[0].LastUpdate != nil {
		t.Errorf("list_topics: %+v", topics)
	}
	var m struct {
		Topics []struct {
			Topic  string `json:"topic"`
			Source string `json:"source"`
			Weekly []any  `json:"weekly"`
		} `json:"topics"`
	}
	call(t, cs, "momentum", map[string]any{"offline": true}, &m)
	if len(m.Topics) != 1 || m.Topics[0].Topic != "tools" || m.Topics[0].Source != "library" || len(m.Topics[0].Weekly) != 12 {
		t.Errorf("momentum: %+v", m)
	}
	failure(t, "momentum of an unknown topic", call(t, cs, "momentum", map[string]any{"topic": []string{"nope"}}, nil), `no topic "nope"`)

	var d struct {
		Topic    string `json:"topic"`
		Markdown string `json:"markdown"`
		Papers   []struct {
			ID      string `json:"id"`
			Summary string `json:"summary"`
		} `json:"papers"`
		Warnings []string `json:"warnings"`
	}
	call(t, cs, "digest", map[string]any{"topic": "tools", "since": "2000-01-01"}, &d)
	if d.Topic != "tools" || len(d.Papers) != 1 || d.Papers[0].ID != "2302.04761" || d.Papers[0].Summary == "" || d.Markdown != "" {
		t.Errorf("digest: %+v", d)
	}
	call(t, cs, "digest", map[string]any{"topic": "tools", "since": "2000-01-01", "markdown": true}, &d)
	if !strings.HasPrefix(d.Markdown, "# tools") || len(d.Papers) != 0 {
		t.Errorf("digest as markdown: %+v", d)
	}
	failure(t, "digest of an unknown topic", call(t, cs, "digest", map[string]any{"topic": "nope"}, nil), `no topic "nope"`, "hint: ")

	var e struct {
		Format   string   `json:"format"`
		Papers   []string `json:"papers"`
		Text     string   `json:"text"`
		Warnings []string `json:"warnings"`
	}
	call(t, cs, "export_bibtex", map[string]any{"ids": []string{"2302.04761v2"}, "topic": []string{"tools"}}, &e)
	if e.Format != "bibtex" || strings.Join(e.Papers, ",") != "2302.04761" || !strings.Contains(e.Text, "@misc{") ||
		!strings.Contains(e.Text, "2302.04761") || len(e.Warnings) != 1 {
		t.Errorf("export_bibtex: %+v", e)
	}
	// the citations of an answer, as the ask tool gave it
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "ask", Arguments: map[string]any{"question": "How does PaSa search for papers?"}})
	if err != nil || res.IsError {
		t.Fatalf("ask: %v %v", err, res)
	}
	call(t, cs, "export_bibtex", map[string]any{"answer": res.StructuredContent, "format": "csl-json"}, &e)
	if e.Format != "csl-json" || len(e.Papers) == 0 || e.Papers[0] != "2501.10120" || !strings.HasPrefix(strings.TrimSpace(e.Text), "[") {
		t.Errorf("export of an answer's citations: %+v", e)
	}
	for _, tc := range []struct {
		args map[string]any
		want string
	}{{map[string]any{"tag": []string{"TO-READ"}}, "2302.04761"}, {map[string]any{"saved": true}, "2501.10120"}, {map[string]any{"saved": true, "tag": []string{"to-read"}}, ""}} {
		res := call(t, cs, "export_bibtex", tc.args, &e)
		if tc.want == "" {
			failure(t, "export of no paper", res, "no papers to export")
		} else if strings.Join(e.Papers, ",") != tc.want || strings.Count(e.Text, "@misc{") != 1 {
			t.Errorf("export_bibtex %v: %+v, want %s", tc.args, e, tc.want)
		}
	}
	failure(t, "export of a paper not held", call(t, cs, "export_bibtex", map[string]any{"ids": []string{"2302.04761", "2210.03629"}}, nil), "not in the library: 2210.03629")
	failure(t, "export of nothing", call(t, cs, "export_bibtex", map[string]any{}, nil), "nothing to export")
	failure(t, "export of no answer", call(t, cs, "export_bibtex", map[string]any{"answer": map[string]any{"x": 1}}, nil), "answer")
}

func TestResourcesAndPrompts(t *testing.T) {
	cs, _ := session(t, mcpserver.Options{Library: library.Config{Dir: testLibrary(t)}}, nil)
	ctx := context.Background()
	var uris []string
	for r, err := range cs.Resources(ctx, nil) {
		if err != nil {
			t.Fatal(err)
		}
		uris = append(uris, r.URI)
	}
	if strings.Join(uris, " ") != "papers://2302.04761 papers://2501.10120" && strings.Join(uris, " ") != "papers://2501.10120 papers://2302.04761" {
		t.Errorf("resources %v", uris)
	}
	res, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "papers://2302.04761"})
	if err != nil {
		t.Fatal(err)
	}
	if c := res.Contents[0]; c.MIMEType != "text/markdown" || !strings.HasPrefix(c.Text, "# Toolformer") || !strings.Contains(c.Text, "[page 17]") {
		t.Errorf("papers://2302.04761: %s %.300q", c.MIMEType, c.Text)
	}
	if _, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "papers://2210.03629"}); err == nil || !strings.Contains(err.Error(), "not found") {
		t.Errorf("a paper not held as a resource: %v", err)
	}

	p, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "literature_review", Arguments: map[string]string{"question": "How do language models learn to call tools?"}})
	if err != nil {
		t.Fatal(err)
	}
	if msg := p.Messages[0].Content.(*mcp.TextContent).Text; !strings.Contains(msg, "2302.04761v1, p.") || !strings.Contains(msg, "literature review") {
		t.Errorf("literature_review: %.400q", msg)
	}
	p, err = cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "topic_digest", Arguments: map[string]string{"topic": "tools", "since": "2000-01-01"}})
	if err != nil {
		t.Fatal(err)
	}
	if msg := p.Messages[0].Content.(*mcp.TextContent).Text; !strings.Contains(msg, `followed topic "tools"`) || !strings.Contains(msg, "# tools") {
		t.Errorf("topic_digest: %.400q", msg)
	}
	if _, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "topic_digest", Arguments: map[string]string{"topic": "nope"}}); err == nil || !strings.Contains(err.Error(), `no topic "nope"`) {
		t.Errorf("topic_digest of an unknown topic: %v", err)
	}
}

func TestRelated(t *testing.T) {
	cs, _ := session(t, mcpserver.Options{Library: library.Config{Dir: testLibrary(t)}}, nil)
	var out struct {
		ID      string `json:"id"`
		Related []struct {
			ID       string  `json:"id"`
			Title    string  `json:"title"`
			Score    float64 `json:"score"`
			Resource string  `json:"resource"`
		} `json:"related"`
		Note string `json:"note"`
	}
	call(t, cs, "related", map[string]any{"id": "https://arxiv.org/abs/2302.04761v1", "full": true}, &out)
	if out.ID != "2302.04761" || len(out.Related) != 1 || out.Related[0].ID != "2501.10120" ||
		!strings.HasPrefix(out.Related[0].Title, "PaSa") || out.Related[0].Score <= 0 || out.Related[0].Score > 1 || out.Related[0].Resource != "papers://2501.10120" {
		t.Fatalf("related to Toolformer: %+v", out)
	}
	call(t, cs, "related", map[string]any{"id": "2501.10120", "category": "cs.CL", "since": "2025-01-01"}, &out)
	if len(out.Related) != 1 || out.Related[0].ID != "2302.04761" {
		t.Errorf("related to PaSa in cs.CL since 2025: %+v", out)
	}
	// the topic tools holds only Toolformer itself; PaSa is of 2024
	for _, args := range []map[string]any{{"id": "2302.04761", "topic": "TOOLS"}, {"id": "2302.04761", "year": 2024, "category": "astro-ph"}} {
		call(t, cs, "related", args, &out)
		if len(out.Related) != 0 || !strings.Contains(out.Note, "passes the filters") {
			t.Errorf("related %v: %+v", args, out)
		}
	}
	failure(t, "unknown paper", call(t, cs, "related", map[string]any{"id": "2210.03629"}, nil), "2210.03629 is not in the library", "hint: ")
	failure(t, "unknown topic", call(t, cs, "related", map[string]any{"id": "2302.04761", "topic": "rl"}, nil), `no topic "rl"`)
	failure(t, "bad date", call(t, cs, "related", map[string]any{"id": "2302.04761", "since": "soon"}, nil), `invalid date "soon"`)
	failure(t, "k too large", call(t, cs, "related", map[string]any{"id": "2302.04761", "k": 500}, nil), "at most 50")
}

// TestEveryResultWithinItsBudget calls every tool that returns text with
// small budgets: each result is within its max_chars, or an error saying
// the budget is too small for one item, never more.
func TestEveryResultWithinItsBudget(t *testing.T) {
	cs, _ := session(t, mcpserver.Options{Library: library.Config{Dir: testLibrary(t)}}, nil)
	calls := []struct {
		tool string
		args map[string]any
	}{
		{"search", map[string]any{"query": "tools", "full": true}},
		{"ask", map[string]any{"question": "Which tools does Toolformer use?"}},
		{"get_paper", map[string]any{"id": "2302.04761"}},
		{"read_paper", map[string]any{"id": "2302.04761"}},
		{"list_papers", map[string]any{"full": true}},
		{"related", map[string]any{"id": "2302.04761", "full": true}},
		{"list_topics", map[string]any{}},
		{"momentum", map[string]any{"offline": true}},
		{"digest", map[string]any{"topic": "tools", "since": "2000-01-01"}},
		{"digest", map[string]any{"topic": "tools", "since": "2000-01-01", "markdown": true}},
		{"export_bibtex", map[string]any{"ids": []string{"2302.04761", "2501.10120"}}},
	}
	for _, c := range calls {
		for _, budget := range []int{400, 700, 1500, 4000} {
			args := map[string]any{"max_chars": budget}
			for k, v := range c.args {
				args[k] = v
			}
			res := call(t, cs, c.tool, args, nil)
			n := utf8.RuneCountInString(text(res))
			switch {
			case res.IsError && !strings.Contains(text(res), "is too small"):
				t.Errorf("%s in %d: %s", c.tool, budget, text(res))
			case !res.IsError && n > budget:
				t.Errorf("%s in %d: %d characters", c.tool, budget, n)
			}
		}
	}
}
