package mcpserver_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/papers-cli/papers/internal/localfile/localfiletest"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/papers-cli/papers/ingest/arxiv/arxivtest"
	"github.com/papers-cli/papers/library"
	"github.com/papers-cli/papers/mcpserver"
)

// pdfIn copies the shared PDF name into dir and returns its path.
func pdfIn(t *testing.T, dir, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(arxivtest.DataDir(t), "pdfs", "papers", name))
	if err != nil {
		t.Fatalf("shared test data missing (../shared/data beside the repository): %v", err)
	}
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

type ingestReport struct {
	Added  []string `json:"added"`
	Failed []struct {
		Item   string `json:"item"`
		Reason string `json:"reason"`
	} `json:"failed"`
}

// TestIngestConfinedToAllowedDirectories: the ingest tool reads local
// files only under --allow's directories and the client's roots. A path
// outside them, given as a path or as an "id", by "..", or through a
// symbolic link inside an allowed directory, is refused with a message
// naming --allow, and nothing of it is read. Before, any PDF the server's
// user could read came in, to be read back with search and read_paper.
func TestIngestConfinedToAllowedDirectories(t *testing.T) {
	allowed, outside := t.TempDir(), t.TempDir()
	inside := pdfIn(t, allowed, "papermage_emnlp2023demo.pdf")
	secret := pdfIn(t, outside, "adarefiner_naacl2024findings.pdf")
	if err := os.Symlink(secret, filepath.Join(allowed, "link.pdf")); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	cs, _ := session(t, mcpserver.Options{Library: library.Config{Dir: dir}, Allow: []string{allowed}}, nil)
	var rep ingestReport

	for _, args := range []map[string]any{
		{"paths": []string{secret}},
		{"paths": []string{outside}},
		{"paths": []string{filepath.Join(allowed, "..", filepath.Base(outside), filepath.Base(secret))}},
		{"ids": []string{secret}},
		{"paths": []string{inside, secret}}, // all or nothing
	} {
		res := call(t, cs, "ingest", args, &rep)
		failure(t, "ingest outside the allowed directories", res, "outside the directories this server may read", "papers mcp --allow DIR")
	}
	if _, err := os.Stat(filepath.Join(dir, "library.db")); err == nil {
		t.Error("a refused ingest created the library")
	}

	// inside: the file comes in; the link leading out of the directory
	// fails alone, unread
	res := call(t, cs, "ingest", map[string]any{"paths": []string{allowed}}, &rep)
	if res.IsError || len(rep.Added) != 1 || len(rep.Failed) != 1 || !strings.Contains(rep.Failed[0].Reason, "outside the directories") {
		t.Fatalf("ingest of the allowed folder: %s", text(res))
	}

	// without --allow and roots, nothing local is read
	bare, _ := session(t, mcpserver.Options{Library: library.Config{Dir: t.TempDir()}}, nil)
	failure(t, "ingest with nothing allowed", call(t, bare, "ingest", map[string]any{"paths": []string{inside}}, nil),
		"papers mcp was started without --allow and the client gave no roots", "papers mcp --allow DIR")
}

// TestIngestConfinedToClientRoots: a client that declares roots may have
// files under them ingested, and no others.
func TestIngestConfinedToClientRoots(t *testing.T) {
	root, other := t.TempDir(), t.TempDir()
	inside := pdfIn(t, root, "papermage_emnlp2023demo.pdf")
	secret := pdfIn(t, other, "adarefiner_naacl2024findings.pdf")
	client := &mcp.ClientOptions{Capabilities: &mcp.ClientCapabilities{RootsV2: &mcp.RootCapabilities{}}}
	s := mcpserver.New(mcpserver.Options{Library: library.Config{Dir: t.TempDir()}})
	st, ct := mcp.NewInMemoryTransports()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx, st) }()
	c := mcp.NewClient(&mcp.Implementation{Name: "roots", Version: "1"}, client)
	c.AddRoots(&mcp.Root{URI: "file://" + filepath.ToSlash(root)})
	cs, err := c.Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { cs.Close(); <-done; s.Close() }()
	var rep ingestReport
	failure(t, "ingest outside the client's roots", call(t, cs, "ingest", map[string]any{"paths": []string{secret}}, &rep), "outside the directories this server may read", root)
	res := call(t, cs, "ingest", map[string]any{"paths": []string{inside}}, &rep)
	if res.IsError || len(rep.Added) != 1 {
		t.Fatalf("ingest under the client's root: %s", text(res))
	}
}

// TestIngestOfSpecialFilesAnswers: ingest of /dev/zero, /dev/urandom, a
// named pipe called x.pdf and a socket (in allowed directories) is
// answered at once, each a failure saying what the path is, and the
// server's next ingest runs. Before, the first never answered, cancelling
// it freed nothing, and every later ingest waited behind it for ever.
func TestIngestOfSpecialFilesAnswers(t *testing.T) {
	fifo, sock := localfiletest.Specials(t)
	tmp := filepath.Dir(fifo)
	cs, _ := session(t, mcpserver.Options{Library: library.Config{Dir: t.TempDir()}, Allow: []string{"/dev", tmp}}, nil)
	for _, c := range []struct{ path, kind string }{
		{"/dev/zero", "a character device"}, {"/dev/urandom", "a character device"},
		{fifo, "a named pipe (FIFO)"}, {sock, "a socket"},
	} {
		var rep ingestReport
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "ingest", Arguments: map[string]any{"paths": []string{c.path}}})
		cancel()
		if err != nil {
			t.Fatalf("ingest %s: %v (no answer within 20 s)", c.path, err)
		}
		if res.IsError {
			t.Fatalf("ingest %s: %s", c.path, text(res))
		}
		b, _ := json.Marshal(res.StructuredContent)
		if err := json.Unmarshal(b, &rep); err != nil {
			t.Fatal(err)
		}
		if len(rep.Failed) != 1 || !strings.Contains(rep.Failed[0].Reason, "it is "+c.kind+", not a file") {
			t.Errorf("ingest %s: %s", c.path, text(res))
		}
	}
	var rep ingestReport
	res := call(t, cs, "ingest", map[string]any{"paths": []string{pdfIn(t, tmp, "papermage_emnlp2023demo.pdf")}}, &rep)
	if res.IsError || len(rep.Added) != 1 {
		t.Fatalf("the ingest after them: %s", text(res))
	}
}

// TestIngestConfinedToRootsOfAnOlderClient: a client of protocol
// 2025-06-18 is asked for its roots with roots/list during the call.
func TestIngestConfinedToRootsOfAnOlderClient(t *testing.T) {
	root, other := t.TempDir(), t.TempDir()
	inside := pdfIn(t, root, "papermage_emnlp2023demo.pdf")
	secret := pdfIn(t, other, "adarefiner_naacl2024findings.pdf")
	p := rawServerWith(t, mcpserver.Options{Library: library.Config{Dir: t.TempDir()}}, `{"roots":{}}`)
	for i, c := range []struct {
		path string
		ok   bool
	}{{secret, false}, {inside, true}} {
		args, _ := json.Marshal(map[string]any{"paths": []string{c.path}})
		id := fmt.Sprintf(`"ingest-%d"`, i)
		p.send([]byte(`{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"ingest","arguments":` + string(args) + `}}`))
		var m map[string]json.RawMessage
		for m = p.next(); string(m["method"]) != `"roots/list"`; m = p.next() {
		}
		p.send([]byte(`{"jsonrpc":"2.0","id":` + string(m["id"]) + `,"result":{"roots":[{"uri":"file://` + filepath.ToSlash(root) + `","name":"papers"}]}}`))
		var res struct {
			IsError bool `json:"isError"`
			Content []struct {
				Text string `json:"text"`
			} `json:"content"`
		}
		if err := json.Unmarshal(p.answer(id)["result"], &res); err != nil || len(res.Content) == 0 {
			t.Fatalf("ingest %s: %v", c.path, err)
		}
		if res.IsError == c.ok || !c.ok && !strings.Contains(res.Content[0].Text, "outside the directories this server may read") {
			t.Errorf("ingest %s with the root %s: %s", c.path, root, res.Content[0].Text)
		}
	}
}
