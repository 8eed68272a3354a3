package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"

	"github.com/papers-cli/papers/ask"
	"github.com/papers-cli/papers/ingest"
	"github.com/papers-cli/papers/ingest/arxiv"
	"github.com/papers-cli/papers/internal/hint"
	"github.com/papers-cli/papers/internal/netlog"
	"github.com/papers-cli/papers/mcpserver"
)

func init() { register(newMCPCmd) }

type mcpOptions struct {
	*globalOptions
	readOnly    bool
	llm         llmFlags
	workers     int
	printConfig string   // the client whose configuration to print
	serverArgs  []string // the flags given, for the printed configuration
}

func newMCPCmd(g *globalOptions) *cobra.Command {
	o := &mcpOptions{globalOptions: g}
	c := &cobra.Command{
		Use:   "mcp",
		Short: "Serve the library to MCP clients (Claude Desktop, Cursor, VS Code, Zed) on stdin/stdout",
		Long: `Run a Model Context Protocol server on stdin and stdout, for an assistant
to search, ask, read and cite the library, browse topics and add papers.

Tools: search, ask, get_paper, read_paper, list_papers, related,
list_topics, momentum, digest, export_bibtex, ingest, update (the last two
refused with --read-only). Resources: each paper as papers://ID. Prompts:
literature_review, topic_digest. Errors are tool results marked isError
with the message papers would print. stdout carries only the protocol;
notes go to stderr.

Every result fits a budget (max_chars, default 6000 characters) and pages
with next_cursor; search and list_papers give compact rows unless full.

--print-config CLIENT (claude, cursor, vscode or zed) prints the client's
configuration for this binary and library, with absolute paths, and says
on stderr where the client keeps it on this system; the other flags given
are kept in it (--read-only, --llm, --offline, ...).

The library is $PAPERS_HOME (or --home); the model of ask and digest is
chosen as for papers ask (--llm, PAPERS_LLM, OPENAI_API_KEY, ...).`,
		Example: `  papers mcp --print-config claude
  papers mcp --print-config vscode --read-only
  papers mcp --read-only --home ~/papers-lab
  papers mcp --llm ollama:llama3.1`,
		Args: func(c *cobra.Command, args []string) error {
			if c.Flags().Changed("print-config") && len(args) == 1 && o.printConfig == "claude" {
				o.printConfig = args[0] // --print-config cursor: the client as an argument
				return nil
			}
			return exactArgs(0)(c, args)
		},
		RunE: func(c *cobra.Command, args []string) error {
			if o.workers <= 0 {
				return usageError("--workers must be at least 1, got %d", o.workers)
			}
			if c.Flags().Changed("print-config") {
				o.serverArgs = mcpServerArgs(func(name string) (string, bool) {
					f := c.Flags().Lookup(name)
					if f == nil || !f.Changed {
						return "", false
					}
					return f.Value.String(), true
				})
				return printMCPConfig(o, o.printConfig)
			}
			return runMCP(c.Context(), o)
		},
	}
	c.Flags().StringVar(&o.printConfig, "print-config", "", "print the configuration of an MCP client (claude, cursor, vscode, zed) for this binary and library, and where it goes")
	c.Flags().Lookup("print-config").NoOptDefVal = "claude"
	c.Flags().BoolVar(&o.readOnly, "read-only", false, "refuse the tools that write (ingest, update)")
	c.Flags().IntVar(&o.workers, "workers", 2, "papers ingest extracts and embeds at once")
	o.llm.register(c, g, "answer and digest offline even when a model is configured")
	return c
}

func runMCP(ctx context.Context, o *mcpOptions) error {
	dir, err := o.libraryDir()
	if err != nil {
		return err
	}
	if o.llm.firstToken < 0 || o.llm.idle < 0 {
		return usageError("--first-token-timeout and --idle-timeout must not be negative")
	}
	cfg := o.llm.config(false)
	if o.llm.extractive {
		cfg = ask.LLMConfig{} // no model
	}
	s := mcpserver.New(mcpserver.Options{
		Dir: dir, ReadOnly: o.readOnly, Version: Version,
		Embed: embedOptions(0, o.globalOptions), LLM: cfg, Arxiv: o.arxivClient,
		Explain: explainTool, Log: o.io.ErrOut, Workers: o.workers,
	})
	defer s.Close()
	t := &mcp.IOTransport{Reader: io.NopCloser(o.io.In), Writer: nopWriteCloser{o.io.Out}}
	return s.Run(ctx, t)
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

// explainTool adds to an error of an MCP tool the hint the command of the
// same name gives it, in two forms: for the command line, and for an
// assistant, which names tools and their arguments (mode "extractive",
// not --extractive) and says what only the user can do, in a terminal.
func explainTool(tool string, err error) error {
	var off *netlog.OfflineError
	if errors.As(err, &off) { // what was refused says more than how a client wrapped it
		return hint.For(off, offlineHint, toolHint(tool, off, ""))
	}
	if hint.Of(err) != "" {
		return err // the packages' own hint, with its tool form where it has one
	}
	cli := hint.Of(explainCLI(tool, err))
	if cli == "" {
		return err
	}
	return hint.For(err, cli, toolHint(tool, err, cli))
}

// explainCLI is the command line's hint for an error of tool.
func explainCLI(tool string, err error) error {
	err = libraryEmbedderHint(err)
	switch tool {
	case "search":
		return searchEmbedHint(err)
	case "ask", "digest":
		return askError(embedHint(err))
	case "ingest", "update":
		var api *arxiv.APIError
		if errors.Is(err, ingest.ErrZoteroUnreadable) || ingest.Systemic(err) || errors.As(err, &api) {
			return arxivHint(err)
		}
	}
	return embedHint(err)
}

// toolHint is the fix of an error of tool for an assistant; cli is the
// command line's, which it rephrases when no more fitting one is known.
func toolHint(tool string, err error, cli string) string {
	var api *arxiv.APIError
	switch {
	case errors.Is(err, netlog.ErrOffline):
		return "papers mcp runs offline: search (mode \"bm25\"), ask (mode \"extractive\") and the reading tools work; ingest, update and models do not"
	case errors.Is(err, ask.ErrUnknownEmbedder):
		return "the user must re-embed the library, in a terminal: papers reindex --embedder local"
	case errors.As(err, &api):
		return "check query's syntax: ti:, abs:, au:, cat:, AND, OR, ANDNOT, \"phrases\""
	case tool == "search":
		return "call search with mode \"bm25\", which needs no embedding server; the user fixes the server (OPENAI_BASE_URL, OPENAI_API_KEY, OLLAMA_HOST)"
	case (tool == "ask" || tool == "digest") && errors.Is(err, ask.ErrContextTooLong):
		return "call ask with a smaller k"
	case tool == "ask" || tool == "digest":
		arg := "mode \"extractive\""
		if tool == "digest" {
			arg = "extractive true"
		}
		return fmt.Sprintf("call %s with %s, which needs no model; the user configures the model (papers mcp --llm, OPENAI_API_KEY, OPENAI_BASE_URL)", tool, arg)
	case tool == "ingest" || tool == "update":
		return "try again later (what was stored is kept); the user can point papers at a mirror with PAPERS_ARXIV_API_URL"
	}
	return cli
}
