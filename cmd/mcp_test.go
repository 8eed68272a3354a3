package cmd

import (
	"errors"
	"fmt"
	"regexp"
	"testing"

	"github.com/papers-cli/papers/ask"
	"github.com/papers-cli/papers/embed"
	"github.com/papers-cli/papers/ingest/arxiv"
	"github.com/papers-cli/papers/internal/hint"
	"github.com/papers-cli/papers/internal/netlog"
)

// cliCommand matches what an assistant cannot run: a papers command that
// has a tool, or a flag that is a tool's argument.
var cliCommand = regexp.MustCompile(`\bpapers (ask|search|list|show|ingest|update|export|related|digest|momentum)\b|(^|\s)--(extractive|mode|k|full|max)\b`)

// TestToolErrorsNameTools: the hints an assistant reads name tools and
// their arguments, where the command line's name commands and flags.
func TestToolErrorsNameTools(t *testing.T) {
	llmErr := func(kind error) error {
		return &ask.LLMError{Kind: kind, URL: "http://localhost:11434/v1", Model: "llama3.1"}
	}
	for _, c := range []struct {
		tool string
		err  error
		want string
	}{
		{"ask", llmErr(ask.ErrUnreachable), `mode "extractive"`},
		{"ask", llmErr(ask.ErrNoAPIKey), `mode "extractive"`},
		{"ask", llmErr(ask.ErrContextTooLong), "smaller k"},
		{"digest", llmErr(ask.ErrQuota), "extractive true"},
		{"search", fmt.Errorf("embed query: %w", embed.ErrUnreachable), `mode "bm25"`},
		{"search", ask.ErrUnknownEmbedder, "papers reindex"},
		{"ingest", &arxiv.APIError{Message: "incorrect id format"}, "query's syntax"},
		{"update", fmt.Errorf("get: %w", &netlog.OfflineError{Host: "export.arxiv.org", Purpose: "arxiv api"}), "runs offline"},
	} {
		t.Run(c.tool+"/"+c.err.Error(), func(t *testing.T) {
			err := explainTool(c.tool, c.err)
			cli, tool := hint.Of(err), hint.ToolOf(err)
			if cli == "" || tool == "" {
				t.Fatalf("no hint: cli %q, tool %q", cli, tool)
			}
			if !regexp.MustCompile(regexp.QuoteMeta(c.want)).MatchString(tool) {
				t.Errorf("tool hint %q does not say %q", tool, c.want)
			}
			if m := cliCommand.FindString(tool); m != "" {
				t.Errorf("tool hint %q names the command line's %q", tool, m)
			}
		})
	}
	// the command line keeps its own
	if h := hint.Of(explainTool("ask", llmErr(ask.ErrUnreachable))); !cliCommand.MatchString(h) {
		t.Errorf("the command line's hint %q no longer names --extractive", h)
	}
	if !errors.Is(explainTool("update", &netlog.OfflineError{}), netlog.ErrOffline) {
		t.Error("an offline error is no longer one")
	}
}
