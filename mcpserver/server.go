// Package mcpserver serves the library over the Model Context Protocol
// (github.com/modelcontextprotocol/go-sdk): its searches, answers, papers,
// topics and citations as tools, each paper as a resource papers://ID, and
// prompts for a literature review and a topic digest, for any MCP client
// (Claude Desktop, Cursor, VS Code, Zed, ...).
//
// Each tool calls the package function its command calls (retrieve.Search,
// ask.Ask, topic.Digest, export.Select, ingest.Ingester.Run,
// ...): a tool and its command give the same results. A tool's failure is
// a result marked isError whose text is what the command prints (the error
// and its hint), never a protocol error. Nothing is written to stdout but
// the protocol: notes go to Options.Log. Ingest and update report progress
// with the client's progress token, keep arXiv's pacing (one client for
// the server's lifetime) and stop when the client cancels the call or
// disconnects; the papers stored by then are kept, as with Ctrl-C.
package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/papers-cli/papers/internal/hint"
	"github.com/papers-cli/papers/internal/netlog"
	"github.com/papers-cli/papers/library"
	"github.com/papers-cli/papers/store"
)

// Options configure a Server. The command line fills them from its flags
// and the environment.
type Options struct {
	// Library is the library session the server serves: the library
	// directory (a library that does not exist yet is created by the first
	// ingest; the other tools say how to fill it), the model of ask and
	// digest (none: extractive answers; its replies are not streamed), the
	// embedding servers, the arXiv client (one for the server's life, so
	// one pacing for every call) and the HTTP client. Its Logf is the
	// server's (notes to Log) when nil.
	Library library.Config
	// ReadOnly refuses the tools that write (ingest, update).
	ReadOnly bool
	// Allow are the directories ingest may read local files under, with
	// the client's roots (see confine.go): none, and no roots, refuses
	// every local path.
	Allow []string
	// Version is papers' version, sent as the server's.
	Version string
	// Log receives notes (stderr); nil discards them.
	Log io.Writer
	// Workers bounds the papers ingest extracts and embeds at once (default 2).
	Workers int
}

// Server is the MCP server of one library. Its tools may run concurrently.
type Server struct {
	opts Options
	srv  *mcp.Server
	lib  *library.Session // opens the library on the first call that needs it

	mu     sync.Mutex
	listed map[string]bool // papers listed as resources

	calls sync.WaitGroup
	// ended is cancelled when the client has gone: the calls still
	// running stop (see bind).
	ended context.Context
	end   context.CancelFunc
}

// New builds the server with its tools, resources and prompts.
func New(o Options) *Server {
	if o.Log == nil {
		o.Log = io.Discard
	}
	if o.Workers <= 0 {
		o.Workers = 2
	}
	cfg := o.Library
	cfg.ReadOnly = cfg.ReadOnly || o.ReadOnly // --read-only writes nothing, not even a migration or the index
	cfg.LLM.NoStream = true                   // a tool's result is sent whole
	if cfg.Logf == nil {
		cfg.Logf = func(format string, args ...any) { fmt.Fprintf(o.Log, "papers mcp: "+format+"\n", args...) }
	}
	s := &Server{opts: o, lib: library.New(cfg)}
	s.ended, s.end = context.WithCancel(context.Background())
	s.srv = mcp.NewServer(&mcp.Implementation{Name: "papers", Title: "papers: your research library", Version: o.Version},
		&mcp.ServerOptions{Instructions: instructions})
	s.addTools()
	s.addResources()
	s.addPrompts()
	return s
}

const instructions = `papers is the user's local library of research papers (arXiv metadata, abstracts, full text).
Every result is at most max_chars characters (default 6000); when more is left it has next_cursor: call the same tool with the same arguments and cursor to go on. search and list_papers give compact rows; full=true gives whole records.
Cite papers as id vVERSION p. PAGES; export_bibtex gives BibTeX. ingest and update are slow (arXiv allows one request every 3 seconds) and refused on a read-only server.`

// MCP returns the SDK server, to connect to a transport.
func (s *Server) MCP() *mcp.Server { return s.srv }

// Run serves one client on t (the process's stdin and stdout for papers
// mcp) until the client disconnects or ctx ends, then waits for the calls
// in flight, which the disconnection cancelled, to finish. A call the
// client cancels gets no response (see quietCancels).
func (s *Server) Run(ctx context.Context, t mcp.Transport) error {
	if lib, err := s.library(ctx, false); err == nil {
		s.addPaperResources(ctx, lib)
	}
	err := s.srv.Run(ctx, quietCancels{t})
	s.end() // the client is gone: stop what it asked for
	s.calls.Wait()
	if errors.Is(err, context.Canceled) || errors.Is(err, io.EOF) {
		return nil
	}
	return err
}

// bind returns ctx, cancelled also when the client has gone (whatever the
// transport tells the SDK), and the function that releases it.
func (s *Server) bind(ctx context.Context) (context.Context, func()) {
	ctx, cancel := context.WithCancel(ctx)
	stop := context.AfterFunc(s.ended, cancel)
	return ctx, func() { stop(); cancel() }
}

// Wait waits for the calls in flight to return.
func (s *Server) Wait() { s.calls.Wait() }

// Close closes the library, once the calls in flight have returned.
func (s *Server) Close() error {
	s.calls.Wait()
	return s.lib.Close()
}

// library returns the library, opening it on first use. A library that
// does not exist is created only when create is set (ingest); the others
// are told how to fill one.
func (s *Server) library(ctx context.Context, create bool) (*store.Library, error) {
	if create {
		return s.lib.Create(ctx)
	}
	lib, err := s.lib.Store(ctx)
	if errors.Is(err, library.ErrNoLibrary) {
		return nil, hint.With(err, "add some with the ingest tool (arXiv ids, an arXiv query or PDF paths), or papers ingest on the command line")
	}
	return lib, err
}

// toolError is a failed call as its command reports it: the error and its
// hint. The SDK sends it as a result with isError set.
type toolError struct{ msg string }

func (e *toolError) Error() string { return e.msg }

// fail turns err into the tool error of tool, with its hint, the same the
// command line prints. A cancelled call stays the context's error: nobody
// reads it.
func (s *Server) fail(ctx context.Context, tool string, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	var off *netlog.OfflineError
	if errors.As(err, &off) { // what was refused says more than how a client wrapped it
		err = hint.For(off, "", "papers mcp runs offline: search (mode \"bm25\"), ask (mode \"extractive\") and the reading tools work; ingest, update and models do not")
	}
	return &toolError{msg: hint.ToolMessage(s.lib.Explain(err))}
}

// refused is the error of a write tool on a read-only server.
func refused(tool string) error {
	return hint.With(fmt.Errorf("%s is refused: papers mcp runs with --read-only", tool),
		"restart the server without --read-only to let this client add papers (papers ingest on the command line works meanwhile)")
}
