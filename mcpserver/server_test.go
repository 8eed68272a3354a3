package mcpserver_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/papers-cli/papers/ingest/arxiv"
	"github.com/papers-cli/papers/ingest/arxiv/arxivtest"
	"github.com/papers-cli/papers/internal/testmain"
	"github.com/papers-cli/papers/library"
	"github.com/papers-cli/papers/mcpserver"
	"github.com/papers-cli/papers/store"
)

// The tests drive the server through the SDK's in-memory transport with
// the SDK's own client, as an MCP client would, on a library made by the
// server's ingest tool from real PDFs served by a fake arXiv.

// papers are the shared PDFs of the test library, by arXiv id.
var papers = map[string]string{
	"2302.04761": "toolformer_2302.04761v1",
	"2501.10120": "pasa_2501.10120",
}

// entry is the arXiv record of a shared paper, from its reference text:
// the first line as title, the words after "Abstract" as summary.
func entry(t testing.TB, data, id string, published time.Time) arxiv.Entry {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(data, "pdfs", "reference-text", papers[id]+".txt"))
	if err != nil {
		t.Fatalf("shared test data missing (../shared/data beside the repository): %v", err)
	}
	text := strings.TrimSpace(string(b))
	title := strings.TrimSpace(strings.SplitN(text, "\n", 2)[0])
	if i := strings.Index(strings.ToLower(text), "abstract"); i >= 0 {
		text = text[i+len("abstract"):]
	}
	words := strings.Fields(text)
	return arxiv.Entry{ID: id, Version: 1, Title: title, Summary: strings.Join(words[:min(150, len(words))], " "),
		Authors:   []arxiv.Author{{Name: "Timo Schick"}, {Name: "Jane Dwivedi-Yu"}},
		Published: published, Updated: published, PrimaryCategory: "cs.CL", Categories: []string{"cs.CL", "cs.LG"},
		AbsURL: "https://arxiv.org/abs/" + id + "v1"}
}

// fakeArxiv serves the shared papers (and the recorded feeds) for t.
func fakeArxiv(t testing.TB, opts arxivtest.Options) *arxivtest.Server {
	data := arxivtest.DataDir(t)
	opts.DataDir = data
	opts.PDFs = map[string]string{}
	published := map[string]time.Time{
		"2302.04761": time.Date(2025, 2, 9, 12, 0, 0, 0, time.UTC), // newest: list_papers shows it first
		"2501.10120": time.Date(2024, 12, 20, 12, 0, 0, 0, time.UTC),
	}
	for id, f := range papers {
		opts.PDFs[id] = filepath.Join(data, "pdfs", "papers", f+".pdf")
		opts.Entries = append(opts.Entries, entry(t, data, id, published[id]))
	}
	return arxivtest.NewServer(t, opts)
}

func arxivOf(srv *arxivtest.Server, delay time.Duration) library.ArxivConfig {
	return library.ArxivConfig{APIURL: srv.APIURL(), PDFURL: srv.PDFURL(), Delay: delay, Backoff: time.Millisecond}
}

// session connects a client to a new server with opts; both end with t.
// Run's error is checked at the end: a disconnection is no error.
func session(t testing.TB, opts mcpserver.Options, copts *mcp.ClientOptions) (*mcp.ClientSession, *mcpserver.Server) {
	cs, s, _ := sessionOn(t, opts, copts)
	return cs, s
}

// cut is a client transport whose connection the test can break, as a
// client process that dies breaks its pipes, and that keeps the responses
// the client reads.
type cut struct {
	mcp.Transport
	conn mcp.Connection

	mu        sync.Mutex
	responses []*jsonrpc.Response
}

func (c *cut) Connect(ctx context.Context) (mcp.Connection, error) {
	conn, err := c.Transport.Connect(ctx)
	c.conn = conn
	return &cutConn{conn, c}, err
}

type cutConn struct {
	mcp.Connection
	c *cut
}

func (r *cutConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	msg, err := r.Connection.Read(ctx)
	if resp, ok := msg.(*jsonrpc.Response); ok {
		r.c.mu.Lock()
		r.c.responses = append(r.c.responses, resp)
		r.c.mu.Unlock()
	}
	return msg, err
}

// answered returns the responses the client has read.
func (c *cut) answered() []*jsonrpc.Response {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]*jsonrpc.Response(nil), c.responses...)
}

// sessionOn is session that also returns the client's connection.
func sessionOn(t testing.TB, opts mcpserver.Options, copts *mcp.ClientOptions) (*mcp.ClientSession, *mcpserver.Server, *cut) {
	t.Helper()
	if opts.Library.Crossref.APIURL == "" {
		opts.Library.Crossref.APIURL = "http://127.0.0.1:1" // no test reaches Crossref (local PDFs are looked up there)
	}
	s := mcpserver.New(opts)
	st, it := mcp.NewInMemoryTransports()
	ct := &cut{Transport: it}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx, st) }()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, copts).Connect(context.Background(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cs.Close()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("Run: %v", err)
			}
		case <-time.After(30 * time.Second):
			t.Error("the server did not end when the client disconnected")
		}
		cancel()
		s.Close()
	})
	return cs, s, ct
}

var shared struct {
	once sync.Once
	dir  string
	err  string
}

// library is the test library, made once per test binary by the server's
// own ingest tool (the test of ingest with full text), with a topic
// holding Toolformer, Toolformer tagged To-Read and PaSa saved. Tests only
// read it.
func testLibrary(t testing.TB) string {
	t.Helper()
	arxivtest.DataDir(t) // left out, saying so, without the shared data
	shared.once.Do(func() {
		dir, err := os.MkdirTemp("", "papers-mcp-test-")
		if err != nil {
			shared.err = err.Error()
			return
		}
		shared.dir = dir
		srv := fakeArxiv(t, arxivtest.Options{})
		cs, _ := session(t, mcpserver.Options{Library: library.Config{Dir: dir, Arxiv: arxivOf(srv, -1)}}, nil)
		var rep struct {
			Added  []string `json:"added"`
			Failed []any    `json:"failed"`
			Pages  int      `json:"pages"`
		}
		res := call(t, cs, "ingest", map[string]any{"ids": []string{"2302.04761", "https://arxiv.org/abs/2501.10120v1"}}, &rep)
		if res.IsError || len(rep.Added) != 2 || len(rep.Failed) != 0 || rep.Pages < 20 {
			shared.err = "ingest of the test library: " + text(res)
			return
		}
		lib, err := store.Open(context.Background(), dir)
		if err != nil {
			shared.err = err.Error()
			return
		}
		defer lib.Close()
		ctx := context.Background()
		if err := lib.AddTopic(ctx, store.Topic{Name: "tools", Query: "abs:tool", Description: "LMs that use tools"}); err != nil {
			shared.err = err.Error()
			return
		}
		if err := lib.AddToTopic(ctx, "tools", []string{"2302.04761"}); err != nil {
			shared.err = err.Error()
		}
		if _, err := lib.AddTags(ctx, "2302.04761", []string{"To-Read"}); err != nil {
			shared.err = err.Error()
		}
		if _, err := lib.Save(ctx, []string{"2501.10120"}); err != nil {
			shared.err = err.Error()
		}
	})
	if shared.err != "" {
		t.Fatal(shared.err)
	}
	return shared.dir
}

func TestMain(m *testing.M) {
	testmain.GC()
	code := m.Run()
	if shared.dir != "" {
		os.RemoveAll(shared.dir)
	}
	os.Exit(code)
}

// call calls a tool and decodes its structured content into out (when the
// call succeeded and out is not nil). A protocol error fails the test:
// every failure must be a result.
func call(t testing.TB, cs *mcp.ClientSession, name string, args map[string]any, out any) *mcp.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: protocol error %v (tool failures must be results with isError)", name, err)
	}
	if out != nil {
		reflect.ValueOf(out).Elem().SetZero() // fields a result omits are not left from the last one
	}
	if res.IsError || out == nil {
		return res
	}
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, out); err != nil {
		t.Fatalf("%s: structured content %s: %v", name, b, err)
	}
	// the text content is the same JSON, for clients that read only text
	if tc, ok := res.Content[0].(*mcp.TextContent); !ok || !json.Valid([]byte(tc.Text)) {
		t.Errorf("%s: the text content is not the JSON of the result: %v", name, res.Content)
	}
	return res
}

// text is a result's text content.
func text(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// failure checks that res is a tool error whose text holds each of want.
func failure(t *testing.T, what string, res *mcp.CallToolResult, want ...string) {
	t.Helper()
	if !res.IsError {
		t.Errorf("%s: want a tool error, got %s", what, text(res))
		return
	}
	for _, w := range want {
		if !strings.Contains(text(res), w) {
			t.Errorf("%s: the error %q does not say %q", what, text(res), w)
		}
	}
}

// shared are the fields that search describes and other tools take
// without describing them again (the filters; the budget, which the
// server's instructions explain).
var sharedArgs = map[string]bool{"paper": true, "topic": true, "tag": true, "saved": true, "category": true, "author": true,
	"since": true, "until": true, "max_chars": true, "cursor": true}

// selfExplaining are the arguments whose name says what the tool's
// description does not (related's topic and year, full).
var selfExplaining = map[string]bool{"topic": true, "year": true, "full": true}

func TestToolsHaveSchemas(t *testing.T) {
	cs, _ := session(t, mcpserver.Options{Library: library.Config{Dir: t.TempDir()}}, nil)
	want := []string{"ask", "digest", "export_bibtex", "get_paper", "ingest", "list_papers", "list_topics", "momentum", "read_paper", "related", "review", "search", "update"}
	var got []string
	for tool, err := range cs.Tools(context.Background(), nil) {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, tool.Name)
		if len(tool.Description) < 60 || len(tool.Description) > 160 {
			t.Errorf("%s: description %q: want one or two short sentences to choose the tool by", tool.Name, tool.Description)
		}
		if tool.OutputSchema != nil {
			t.Errorf("%s: has an output schema (it would triple tools/list)", tool.Name)
		}
		in, _ := json.Marshal(tool.InputSchema)
		var schema struct {
			Type       any `json:"type"`
			Properties map[string]struct {
				Description string `json:"description"`
			} `json:"properties"`
		}
		if err := json.Unmarshal(in, &schema); err != nil || schema.Type != "object" {
			t.Errorf("%s: the input schema's type is %v, want \"object\": %s", tool.Name, schema.Type, in)
		}
		if strings.Contains(string(in), "additionalProperties") {
			t.Errorf("%s: additionalProperties in the schema (unknown arguments are refused by the server): %s", tool.Name, in)
		}
		for name, p := range schema.Properties {
			if p.Description == "" && (!sharedArgs[name] || tool.Name == "search") && !selfExplaining[name] {
				t.Errorf("%s: argument %s has no description", tool.Name, name)
			}
		}
	}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("tools %v, want %v", got, want)
	}
	doc, err := os.ReadFile(filepath.Join("..", "docs", "mcp.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range got {
		if !strings.Contains(string(doc), "| `"+name+"` |") {
			t.Errorf("docs/mcp.md's table of the tools has no row for %s", name)
		}
	}
}

// TestToolsListSize measures what tools/list costs an assistant's
// context: its JSON is at most 10,000 bytes, about 2,500 tokens of
// o200k_base (2,398 for 9,821 bytes, counted by the TypeScript client of
// cmd/papers/mcp_e2e_test.go with js-tiktoken; 9,021 before the budgets
// of issue 30).
func TestToolsListSize(t *testing.T) {
	cs, _ := session(t, mcpserver.Options{Library: library.Config{Dir: t.TempDir()}}, nil)
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("tools/list: %d bytes", len(b))
	if len(b) > 10000 {
		t.Errorf("tools/list is %d bytes, want at most 10,000 (about 2,500 tokens)", len(b))
	}
}

func TestNoLibrary(t *testing.T) {
	cs, _ := session(t, mcpserver.Options{Library: library.Config{Dir: t.TempDir()}}, nil)
	for tool, args := range map[string]map[string]any{
		"search": {"query": "tool use"}, "ask": {"question": "What is Toolformer?"}, "list_papers": {},
		"get_paper": {"id": "2302.04761"}, "list_topics": {}, "update": {},
	} {
		failure(t, tool+" on an empty library", call(t, cs, tool, args, nil), "no papers in the library", "hint: ", "ingest")
	}
	res := call(t, cs, "search", map[string]any{"query": 3}, nil)
	failure(t, "a query that is no string", res, "query")
}
