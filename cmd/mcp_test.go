package cmd

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/papers-cli/papers/mcpserver"
)

// TestModelErrorAdviceIsTheSameInMCP: a model that cannot be reached gets
// the same advice from papers ask and from the MCP ask tool, made with the
// error (internal/openaicompat), not mapped by cmd: for the command line
// with flags (--extractive), for an assistant with the tool's arguments
// (mode "extractive").
func TestModelErrorAdviceIsTheSameInMCP(t *testing.T) {
	noModel(t)
	home := askLibrary(t)
	closed := httptest.NewServer(http.NotFoundHandler())
	url := closed.URL
	closed.Close()
	t.Setenv("OLLAMA_HOST", url)

	code, _, errs := runAskCmd(t, home, "--llm", "ollama:llama3.1", "How much does ReBel improve task success over GRPO?")
	_, cliHint, ok := strings.Cut(errs, "\nhint: ")
	if code != ExitError || !ok || !strings.Contains(errs, "cannot reach the model server") {
		t.Fatalf("papers ask: exit %d, stderr %q: want an error with a hint", code, errs)
	}
	cliHint = strings.TrimSpace(cliHint)

	g := &globalOptions{home: home, io: NewIOStreams(strings.NewReader(""), io.Discard, io.Discard)}
	cfg, err := g.sessionConfig()
	if err != nil {
		t.Fatal(err)
	}
	(&llmFlags{spec: "ollama:llama3.1"}).set(false)(&cfg)
	srv := mcpserver.New(mcpserver.Options{Library: cfg})
	defer srv.Close()
	st, ct := mcp.NewInMemoryTransports()
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	go srv.Run(ctx, st)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "ask", Arguments: map[string]any{"question": "How much does ReBel improve task success over GRPO?"}})
	if err != nil {
		t.Fatal(err)
	}
	var text string
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			text += tc.Text
		}
	}
	if !res.IsError || !strings.Contains(text, "cannot reach the model server") || !strings.Contains(text, `hint: call ask with mode "extractive"`) {
		t.Errorf("the MCP ask tool says %q; papers ask's hint was %q", text, cliHint)
	}
	if !strings.Contains(cliHint, "--extractive") || strings.Contains(text, "--extractive") {
		t.Errorf("papers ask's hint %q should name --extractive, and the tool's %q should not", cliHint, text)
	}
}
