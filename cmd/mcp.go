package cmd

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/papers-cli/papers/library"
	"github.com/papers-cli/papers/mcpserver"
)

func init() { register(newMCPCmd) }

type mcpOptions struct {
	*globalOptions
	readOnly    bool
	allow       []string
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
refused with --read-only; ingest reads local PDFs only under the
directories given with --allow and the client's roots). Resources: each
paper as papers://ID. Prompts: literature_review, topic_digest. Errors
are tool results marked isError with the message papers would print; a
malformed message gets JSON-RPC's error and the server reads on. stdout
carries only the protocol; notes go to stderr.

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
  papers mcp --allow ~/papers/pdfs
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
	c.Flags().StringArrayVar(&o.allow, "allow", nil, "a directory the ingest tool may read local PDFs under (repeatable; the client's roots are allowed too)")
	c.Flags().IntVar(&o.workers, "workers", library.Workers, "papers ingest extracts and embeds at once")
	o.llm.register(c, "answer and digest offline even when a model is configured")
	return c
}

func runMCP(ctx context.Context, o *mcpOptions) error {
	if err := o.llm.check(); err != nil {
		return err
	}
	cfg, err := o.sessionConfig()
	if err != nil {
		return err
	}
	cfg.Logf = nil // the server's: "papers mcp: ..." on stderr
	o.llm.set(false)(&cfg)
	s := mcpserver.New(mcpserver.Options{
		Library: cfg, ReadOnly: o.readOnly, Allow: o.allow, Version: Version,
		Log: o.io.ErrOut, Workers: o.workers,
	})
	defer s.Close()
	return s.Run(ctx, &mcpserver.StdioTransport{R: o.io.In, W: o.io.Out})
}
