// Package cmd is the cobra command tree of papers. It is the only package
// that reads flags, environment variables, stdin/stdout or decides exit codes;
// the packages below it take a context and io.Writers.
package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/papers-cli/papers/ingest/pdfproc"
	"github.com/papers-cli/papers/internal/hint"
	"github.com/papers-cli/papers/internal/netlog"
	"github.com/papers-cli/papers/internal/safetext"
	"github.com/papers-cli/papers/library"
	"github.com/papers-cli/papers/resolve"
	"github.com/papers-cli/papers/store"
)

// Version is the version of papers, printed by --version and sent in the
// User-Agent of every request to arXiv.
var Version = "0.1.0"

// Exit codes shared with scripts (README.md documents them).
const (
	ExitOK          = 0
	ExitError       = 1
	ExitUsage       = 2
	ExitNoEvidence  = 3
	ExitOffline     = 4 // the command needs the network and runs offline
	ExitInterrupted = 130
)

// Main runs the command line with os.Args and returns the process exit
// code. PDFs are read in child processes of this program (package
// pdfproc), which Main serves when started as one.
func Main() int {
	if len(os.Args) > 1 && os.Args[1] == pdfproc.Arg {
		return pdfproc.Serve() // a child reading one PDF for its parent
	}
	pdfproc.Isolate()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	done := make(chan struct{})
	defer close(done)
	go func() {
		select {
		case <-sigs:
		case <-done:
			return
		}
		cancel()
		select {
		case <-sigs: // Ctrl-C twice: now
		case <-time.After(interruptGrace):
		case <-done:
			return // stopped in time, and said so
		}
		// Whatever had not stopped is cut short: the library is made for
		// that (each paper is one transaction, the index survives kill -9
		// at any instant), and a command that ignored the signal must not
		// hold the terminal, a lock or a cron slot.
		fmt.Fprintln(os.Stderr, "interrupted")
		os.Exit(ExitInterrupted)
	}()
	return Run(ctx, os.Args[1:], os.Stdout, os.Stderr)
}

// interruptGrace is how long a command has, after Ctrl-C or SIGTERM, to
// stop by itself (commit or roll back what it was doing and report what
// it kept) before the process exits regardless.
const interruptGrace = 1500 * time.Millisecond

// Run executes one command line with the given streams (stdin is the
// process's) and returns the exit code. Tests call it with a fresh tree
// each time.
func Run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	return RunIO(ctx, args, NewIOStreams(os.Stdin, stdout, stderr))
}

// RunIO is Run with streams whose terminal facts are given: tests render
// for a terminal by setting s.OutTTY.
func RunIO(ctx context.Context, args []string, s *IOStreams) int {
	if args == nil {
		args = []string{}
	}
	out := &checkedWriter{w: s.Out}
	streams := *s
	streams.Out = out
	root, g := newRoot(&streams)
	defer g.close()
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	if err == nil && out.err != nil {
		err = withHint(fmt.Errorf("write output: %w", out.err), "the output was lost: check the disk or the file it goes to")
	}
	if store.IsDamaged(err) {
		// said by every later command until papers check --repair
		if dir, derr := g.libraryDir(); derr == nil {
			store.MarkDamaged(dir, err)
		}
	}
	return report(ctx, err, s.ErrOut)
}

// report prints err once, with its hint, and maps it to an exit code.
func report(ctx context.Context, err error, stderr io.Writer) int {
	if err == nil {
		return ExitOK
	}
	if errors.Is(err, context.Canceled) || ctx.Err() != nil {
		fmt.Fprintln(stderr, "interrupted")
		return ExitInterrupted
	}
	code := ExitError
	if strings.HasPrefix(err.Error(), "unknown command") {
		code = ExitUsage // cobra's own usage error
	}
	var ec interface{ ExitCode() int }
	if errors.As(err, &ec) {
		code = ec.ExitCode()
	}
	var q quietError
	if errors.As(err, &q) {
		return code
	}
	var off *netlog.OfflineError
	if errors.As(err, &off) {
		// what was refused says more than how a client wrapped it
		fmt.Fprintf(stderr, "error: %s\n", safetext.Clean(off.Error()))
		fmt.Fprintf(stderr, "hint: %s\n", offlineHint)
		return ExitOffline
	}
	err = library.Explain(err)
	// An error may quote what a server, a feed, a corpus or a PDF said:
	// made inert before it reaches the terminal.
	fmt.Fprintf(stderr, "error: %s\n", safetext.Clean(err.Error()))
	var h interface{ Hint() string }
	if errors.As(err, &h) && h.Hint() != "" {
		fmt.Fprintf(stderr, "hint: %s\n", safetext.Clean(h.Hint()))
	}
	return code
}

// withHint attaches a hint naming the fix to err, printed after the
// error; nil stays nil.
func withHint(err error, format string, args ...any) error { return hint.With(err, format, args...) }

// usage makes a value resolve found invalid (a malformed date, say) a
// usage error (exit 2); other errors pass as they are.
func usage(err error) error {
	if errors.Is(err, resolve.ErrInvalid) {
		return withExit(err, ExitUsage)
	}
	return err
}

// exitError gives err a specific exit code.
type exitError struct {
	err  error
	code int
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }
func (e *exitError) ExitCode() int { return e.code }

// withExit attaches an exit code to err.
func withExit(err error, code int) error { return &exitError{err: err, code: code} }

// usageError marks a command-line mistake (exit 2).
func usageError(format string, args ...any) error {
	return &exitError{err: fmt.Errorf(format, args...), code: ExitUsage}
}

// quietError ends the run with a code when everything was already reported
// (e.g. per-item failures of an ingest run).
type quietError struct{ code int }

func (e quietError) Error() string { return fmt.Sprintf("exit %d", e.code) }
func (e quietError) ExitCode() int { return e.code }

// offlineHint is the fix of a request refused offline.
const offlineHint = "run without --offline (and PAPERS_OFFLINE unset) to let papers reach the network; the library's own commands (search, list, show, export, ask --extractive) work offline"

// errNothingFound is returned by commands that found nothing to show (exit 3).
var errNothingFound = withExit(errors.New("the library holds no evidence for this"), ExitNoEvidence)

// globalOptions are the flags every command shares, and the streams of the
// run.
type globalOptions struct {
	home    string
	db      string // a library in PostgreSQL: --db, PAPERS_DATABASE_URL
	verbose bool
	offline bool
	maxCost float64 // dollars; 0: no cap
	io      *IOStreams

	netOnce sync.Once
	net     *netlog.Transport // the run's one way to the network
}

// transport is the run's one way to the network: every outbound client of
// the run (arXiv, models, embedders) sends through it, so that each request
// is recorded in the library's network ledger and none is made offline.
func (g *globalOptions) transport() *netlog.Transport {
	g.netOnce.Do(func() {
		o := netlog.Options{Offline: g.offline}
		if dir, err := g.libraryDir(); err == nil {
			o.Ledger = filepath.Join(dir, netlog.LedgerName)
		}
		if g.io != nil {
			errw := g.io.ErrOut
			o.Warn = func(msg string) { fmt.Fprintln(errw, "warning: "+msg) }
		}
		g.net = netlog.New(o)
	})
	return g.net
}

// httpClient is the HTTP client of the run's transport.
func (g *globalOptions) httpClient() *http.Client { return g.transport().Client() }

// close releases what the run opened for its commands (the ledger file).
func (g *globalOptions) close() {
	if g.net != nil {
		g.net.Close()
	}
}

// NewRoot builds a fresh command tree that reads and writes s.
func NewRoot(s *IOStreams) *cobra.Command {
	root, _ := newRoot(s)
	return root
}

// newRoot is NewRoot that also returns the options every command shares.
func newRoot(s *IOStreams) (*cobra.Command, *globalOptions) {
	g := &globalOptions{io: s}
	root := &cobra.Command{
		Use:   "papers",
		Short: "A research assistant for your shell: ingest arXiv papers, search and ask them with citations",
		Long: `papers builds a personal library of research papers (arXiv metadata,
abstracts and full text from PDFs) on this machine and answers questions about
it with citations to paper, version and page.

It works offline with no API key (embedded library file, local embedder,
extractive answers). Set OPENAI_BASE_URL / OPENAI_API_KEY to use any
OpenAI-compatible server for generative answers and semantic embeddings.

Every flag can also be set as PAPERS_<FLAG> (e.g. PAPERS_HOME, PAPERS_MAX).`,
		Version:       Version,
		SilenceUsage:  true,
		SilenceErrors: true,
		PersistentPreRunE: func(c *cobra.Command, args []string) error {
			return applyEnv(c)
		},
	}
	root.SetIn(s.In)
	root.SetOut(s.Out)
	root.SetErr(s.ErrOut)
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return withHint(withExit(err, ExitUsage), "run `%s --help` for usage", c.CommandPath())
	})
	root.PersistentFlags().StringVar(&g.home, "home", "", "library directory (default $XDG_DATA_HOME/papers or ~/.local/share/papers)")
	root.PersistentFlags().StringVar(&g.db, "db", "", "a library in PostgreSQL, postgres://user@host/database[?schema=NAME], instead of the one in --home (PAPERS_DATABASE_URL; see docs/shared-store.md)")
	root.PersistentFlags().BoolVarP(&g.verbose, "verbose", "v", false, "more detail on stderr")
	root.PersistentFlags().BoolVar(&g.offline, "offline", false, "open no network connection: commands that need one say so and exit 4 (PAPERS_OFFLINE=1)")
	root.PersistentFlags().Float64Var(&g.maxCost, "max-cost", 0, "refuse model calls that would cost more than this many dollars in all, by their estimate (0: no cap; PAPERS_MAX_COST)")

	for _, add := range commands {
		root.AddCommand(add(g))
	}
	root.InitDefaultCompletionCmd() // now, not at Execute: its help is in docs/commands too
	addCompletions(root, g)
	return root, g
}

// commands lists the constructors of the subcommands; each file of this
// package registers its own in an init function, so adding a command never
// touches this file.
var commands []func(*globalOptions) *cobra.Command

func register(f func(*globalOptions) *cobra.Command) { commands = append(commands, f) }

// applyEnv sets every flag not given on the command line from PAPERS_<FLAG>
// (dashes become underscores). Secrets such as OPENAI_API_KEY are never flags.
func applyEnv(c *cobra.Command) error {
	var err error
	c.Flags().VisitAll(func(f *pflag.Flag) {
		if err != nil || f.Changed || f.Name == "help" || f.Name == "version" {
			return
		}
		name := "PAPERS_" + strings.ToUpper(strings.ReplaceAll(f.Name, "-", "_"))
		v, ok := os.LookupEnv(name)
		if !ok || v == "" && f.Value.Type() != "string" {
			return // PAPERS_OFFLINE= or PAPERS_MAX_COST= unsets, as an absent variable
		}
		if e := c.Flags().Set(f.Name, v); e != nil {
			err = withExit(fmt.Errorf("invalid %s=%q: %v", name, v, e), ExitUsage)
		}
	})
	return err
}

// libraryDir resolves where the library lives: --home / PAPERS_HOME, else
// $XDG_DATA_HOME/papers, else ~/.local/share/papers.
func (g *globalOptions) libraryDir() (string, error) {
	if g.home != "" {
		return g.home, nil
	}
	if x := os.Getenv("XDG_DATA_HOME"); x != "" {
		return filepath.Join(x, "papers"), nil
	}
	h, err := os.UserHomeDir()
	if err != nil {
		return "", withHint(fmt.Errorf("cannot find a home directory for the library: %w", err), "set PAPERS_HOME to a directory")
	}
	return filepath.Join(h, ".local", "share", "papers"), nil
}

// exactArgs, minArgs wrap cobra's validators so mistakes exit with code 2.
func exactArgs(n int) cobra.PositionalArgs { return usageArgs(cobra.ExactArgs(n)) }
func minArgs(n int) cobra.PositionalArgs   { return usageArgs(cobra.MinimumNArgs(n)) }

func usageArgs(v cobra.PositionalArgs) cobra.PositionalArgs {
	return func(c *cobra.Command, args []string) error {
		if err := v(c, args); err != nil {
			return withHint(withExit(err, ExitUsage), "run `%s --help` for usage", c.CommandPath())
		}
		return nil
	}
}
