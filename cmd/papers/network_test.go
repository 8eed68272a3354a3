package main

import (
	"context"
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/creack/pty"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/papers-cli/papers/ingest/arxiv/arxivtest"
	"github.com/papers-cli/papers/internal/netlog"
)

// TestLedgerHoldsEveryRequestOfUpdate runs papers update against the fake
// arXiv, which answers one 429 and resets one connection on the way, and
// finds every request the fake received in the library's network ledger,
// in order, with its path, status and the bytes the fake wrote.
func TestLedgerHoldsEveryRequestOfUpdate(t *testing.T) {
	t.Parallel()
	data := sharedData(t)
	opts := arxivtest.Options{DataDir: data, PDFs: map[string]string{}, TooManyRequests: 1, Resets: 1}
	day := time.Now().UTC().AddDate(0, 0, -3)
	for i, id := range []string{"2302.04761", "1111.2011"} {
		opts.PDFs[id] = filepath.Join(data, "pdfs", "papers", scriptPapers[id])
		opts.Entries = append(opts.Entries, referenceEntry(func(err error) {
			if err != nil {
				t.Fatal(err)
			}
		}, data, id, day.AddDate(0, 0, -i)))
	}
	srv := arxivtest.NewServer(t, opts)
	home := t.TempDir()
	run := func(args ...string) {
		t.Helper()
		c := plainCmd(t, home, args...)
		c.Env = append(c.Env, "PAPERS_ARXIV_API_URL="+srv.APIURL(), "PAPERS_ARXIV_PDF_URL="+srv.PDFURL(), "PAPERS_ARXIV_DELAY=0",
			"OPENAI_API_KEY=", "OPENAI_BASE_URL=", "PAPERS_LLM=")
		if out, err := c.CombinedOutput(); err != nil {
			t.Fatalf("papers %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	run("topic", "add", "tools", "--query", "ti:tools")
	run("update")

	host := strings.TrimPrefix(srv.APIURL(), "http://")
	host = host[:strings.Index(host, "/")]
	all, err := netlog.Read(home, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	var recs []netlog.Record
	for _, r := range all {
		if r.Host == host {
			recs = append(recs, r)
		}
	}
	reqs := srv.Requests()
	if len(reqs) < 5 || len(recs) != len(reqs) {
		t.Fatalf("the fake arXiv received %d requests, the ledger holds %d of them:\nfake: %+v\nledger: %+v", len(reqs), len(recs), reqs, recs)
	}
	pdfs := 0
	for i, q := range reqs {
		r := recs[i]
		purpose := arxivPurpose(q.Kind)
		if r.Path != q.Path || r.Status != q.Status || r.Received != q.Bytes || r.Purpose != purpose || r.Method != "GET" {
			t.Errorf("request %d: fake saw %s %s -> %d, %d bytes; ledger %+v", i, q.Kind, q.Path, q.Status, q.Bytes, r)
		}
		if q.Status == 0 && r.Error == "" {
			t.Errorf("request %d: the reset connection has no error in the ledger: %+v", i, r)
		}
		if q.Kind == "pdf" && q.Status == 200 {
			pdfs++
		}
	}
	if pdfs != 2 {
		t.Errorf("%d PDFs downloaded, want 2", pdfs)
	}
}

func arxivPurpose(kind string) string {
	if kind == "pdf" {
		return "arxiv pdf"
	}
	return "arxiv api"
}

// listenerCounting accepts TCP connections, counts them and closes them.
func listenerCounting(t *testing.T) (addr string, accepted *atomic.Int64) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	accepted = &atomic.Int64{}
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			accepted.Add(1)
			c.Close()
		}
	}()
	return l.Addr().String(), accepted
}

// TestOfflineSessionOpensNoSocket runs a whole session of commands under
// PAPERS_OFFLINE=1 (and --offline) with every server papers knows of, and
// any proxy, pointed at a listener that counts the connections it
// accepts: ingest of local files, list, show, search, ask, related,
// export, momentum, browse on a terminal, papers mcp with a client's
// calls, network. Commands that need the network say so and exit 4.
// Nothing connects, and the ledger stays empty.
func TestOfflineSessionOpensNoSocket(t *testing.T) {
	t.Parallel()
	data := sharedData(t)
	addr, accepted := listenerCounting(t)
	home := t.TempDir()
	env := []string{
		"PAPERS_OFFLINE=1",
		"PAPERS_ARXIV_API_URL=http://" + addr + "/api/query", "PAPERS_ARXIV_PDF_URL=http://" + addr + "/pdf/", "PAPERS_ARXIV_DELAY=0",
		"OPENAI_BASE_URL=http://" + addr + "/v1", "OPENAI_API_KEY=sk-test-offline", "OLLAMA_HOST=" + addr, "PAPERS_LLM=",
		"HTTP_PROXY=http://" + addr, "HTTPS_PROXY=http://" + addr, "http_proxy=http://" + addr, "https_proxy=http://" + addr, "NO_PROXY=", "no_proxy=",
	}
	cmdOf := func(args ...string) *exec.Cmd {
		c := plainCmd(t, home, args...)
		c.Env = append(c.Env, env...)
		return c
	}
	run := func(code int, args ...string) string {
		t.Helper()
		out, err := cmdOf(args...).CombinedOutput()
		got := 0
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			got = ee.ExitCode()
		} else if err != nil {
			t.Fatalf("papers %s: %v", strings.Join(args, " "), err)
		}
		if got != code {
			t.Errorf("papers %s exited %d, want %d:\n%s", strings.Join(args, " "), got, code, out)
		}
		return string(out)
	}
	pdf := filepath.Join(data, "pdfs", "papers", scriptPapers["2302.04761"])
	run(0, "ingest", pdf)
	run(0, "ingest", "--jsonl", filepath.Join(data, "topic", "rl-for-llm-agents.jsonl"))
	run(0, "list")
	run(0, "show", "2302.04761")
	run(0, "search", "teach themselves to use tools")
	run(0, "ask", "--extractive", "How does Toolformer decide which API calls to keep?")
	if out := run(4, "ask", "How does Toolformer decide which API calls to keep?"); !strings.Contains(out, "offline") {
		t.Errorf("ask with a model offline does not say why it failed:\n%s", out)
	}
	if out := run(4, "ingest", "2501.12948"); !strings.Contains(out, "offline") {
		t.Errorf("ingest of an arXiv id offline does not say why it failed:\n%s", out)
	}
	run(0, "related", "2302.04761")
	run(0, "export", "--bibtex", "2302.04761")
	run(0, "topic", "add", "tools", "--query", "ti:toolformer")
	run(0, "--offline", "momentum", "tools")
	run(4, "update")

	// papers mcp, driven by a client: reading tools work, ingest says offline
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	client := mcp.NewClient(&mcp.Implementation{Name: "offline-test", Version: "1"}, nil)
	sess, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmdOf("mcp")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, call := range []struct {
		tool    string
		args    map[string]any
		failing bool
	}{
		{"search", map[string]any{"query": "tools"}, false},
		{"ask", map[string]any{"question": "What does Toolformer learn?", "mode": "extractive"}, false},
		{"read_paper", map[string]any{"id": "2302.04761", "page_start": 2, "page_end": 2}, false},
		{"ingest", map[string]any{"ids": []string{"2501.12948"}}, true},
	} {
		res, err := sess.CallTool(ctx, &mcp.CallToolParams{Name: call.tool, Arguments: call.args})
		if err != nil {
			t.Fatalf("mcp %s: %v", call.tool, err)
		}
		text := ""
		for _, c := range res.Content {
			if tc, ok := c.(*mcp.TextContent); ok {
				text += tc.Text
			}
		}
		if res.IsError != call.failing || call.failing && !strings.Contains(text, "offline") {
			t.Errorf("mcp %s: isError %v: %.300s", call.tool, res.IsError, text)
		}
	}
	sess.Close()

	if runtime.GOOS != "windows" {
		c := cmdOf("browse", "--topic", "tools")
		c.Env = append(c.Env, "TERM=xterm-256color")
		ptm, err := pty.StartWithSize(c, &pty.Winsize{Rows: 24, Cols: 80})
		if err != nil {
			t.Fatalf("start papers browse on a pseudo-terminal: %v", err)
		}
		s := newScreen(ptm, 80, 24)
		s.waitFor(t, "tools")
		s.press(t, "q")
		done := make(chan error, 1)
		go func() { done <- c.Wait() }()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("papers browse offline exited with %v", err)
			}
		case <-time.After(30 * time.Second):
			c.Process.Kill()
			t.Error("papers browse offline did not quit on q")
		}
		ptm.Close()
	}

	if n := accepted.Load(); n != 0 {
		t.Errorf("%d connections were opened offline", n)
	}
	if rs, err := netlog.Read(home, time.Time{}); err != nil || len(rs) != 0 {
		t.Errorf("the ledger holds %d requests after an offline session (err %v)", len(rs), err)
	}
	if _, err := os.Stat(filepath.Join(home, netlog.LedgerName)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a ledger was written offline (stat: %v)", err)
	}
}
