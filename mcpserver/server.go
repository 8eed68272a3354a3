// Package mcpserver serves the library over the Model Context Protocol
// (github.com/modelcontextprotocol/go-sdk): its searches, answers, papers,
// topics and citations as tools, each paper as a resource papers://ID, and
// prompts for a literature review and a topic digest, for any MCP client
// (Claude Desktop, Cursor, VS Code, Zed, ...).
//
// Each tool calls the package function its command calls (ask.Search,
// ask.Retriever.Ask, topic.Digest, export.Select, ingest.Ingester.Run,
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
	"os"
	"path/filepath"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/papers-cli/papers/ask"
	"github.com/papers-cli/papers/embed"
	"github.com/papers-cli/papers/ingest/arxiv"
	"github.com/papers-cli/papers/internal/hint"
	"github.com/papers-cli/papers/store"
)

// Options configure a Server. The command line fills them from its flags
// and the environment.
type Options struct {
	// Dir is the library directory. A library that does not exist yet is
	// created by the first ingest; the other tools say how to fill it.
	Dir string
	// ReadOnly refuses the tools that write (ingest, update).
	ReadOnly bool
	// Allow are the directories ingest may read local files under, with
	// the client's roots (see confine.go): none, and no roots, refuses
	// every local path.
	Allow []string
	// Version is papers' version, sent as the server's.
	Version string
	// Embed gives the settings of remote embedders (OPENAI_BASE_URL, ...).
	Embed embed.Options
	// LLM chooses the model of ask and digest (none: extractive answers).
	LLM ask.LLMConfig
	// Arxiv builds the arXiv client (the environment's mirror and pacing);
	// it is called once, so one pacing holds for every call of the server.
	Arxiv func() (*arxiv.Client, error)
	// Explain adds the hint the command line gives for an error of tool
	// (the name of the tool); nil adds none beyond the packages' own.
	Explain func(tool string, err error) error
	// Log receives notes (stderr); nil discards them.
	Log io.Writer
	// Workers bounds the papers ingest extracts and embeds at once (default 2).
	Workers int
}

// Server is the MCP server of one library. Its tools may run concurrently.
type Server struct {
	opts Options
	srv  *mcp.Server

	mu     sync.Mutex
	lib    *store.Library  // opened by the first call that needs it
	listed map[string]bool // papers listed as resources

	arxivOnce sync.Once
	arxiv     *arxiv.Client
	arxivErr  error

	// writing holds a token while an ingest or update runs: one at a
	// time, as the command line's runs; waiting for it ends with the
	// waiting call's context.
	writing chan struct{}
	calls   sync.WaitGroup
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
	s := &Server{opts: o, writing: make(chan struct{}, 1)}
	s.ended, s.end = context.WithCancel(context.Background())
	s.srv = mcp.NewServer(&mcp.Implementation{Name: "papers", Title: "papers: your research library", Version: o.Version},
		&mcp.ServerOptions{Instructions: instructions})
	s.addTools()
	s.addResources()
	s.addPrompts()
	return s
}

const instructions = `papers is the user's local library of research papers (arXiv metadata, abstracts and full text) with search, cited answers and followed topics.
Find evidence with search (passages with paper id, version and pages) or ask (an answer with numbered citations); read a paper with get_paper (metadata, abstract, sections) and read_paper (its text, a bounded piece per call: continue from next_start).
Cite papers as id vVERSION p. PAGES, and give BibTeX with export_bibtex. list_papers, related (the papers most like one), list_topics, momentum and digest browse the library; ingest adds papers from arXiv or local PDFs and update fetches what is new in followed topics (both slow: arXiv allows one request every 3 seconds).`

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
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.lib == nil {
		return nil
	}
	err := s.lib.Close()
	s.lib = nil
	return err
}

// library returns the library, opening it on first use. A library that
// does not exist is created only when create is set (ingest); the others
// are told how to fill one.
func (s *Server) library(ctx context.Context, create bool) (*store.Library, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.lib != nil {
		return s.lib, nil
	}
	if !create {
		if _, err := os.Stat(filepath.Join(s.opts.Dir, store.FileName)); errors.Is(err, os.ErrNotExist) {
			return nil, hint.With(fmt.Errorf("no papers in the library (%s)", s.opts.Dir),
				"add some with the ingest tool (arXiv ids, an arXiv query or PDF paths), or papers ingest on the command line")
		}
	}
	lib, err := store.Open(ctx, s.opts.Dir)
	if err != nil {
		return nil, hint.With(fmt.Errorf("open the library at %s: %w", s.opts.Dir, err),
			"check the directory is writable, or point PAPERS_HOME (--home) elsewhere")
	}
	for _, n := range lib.MigrationNotes() {
		fmt.Fprintf(s.opts.Log, "papers: library upgraded: %s\n", n)
	}
	s.lib = lib
	return lib, nil
}

// arxivClient is the server's one arXiv client: its pacing spans calls.
func (s *Server) arxivClient() (*arxiv.Client, error) {
	s.arxivOnce.Do(func() {
		if s.opts.Arxiv == nil {
			s.arxiv = arxiv.New()
			return
		}
		s.arxiv, s.arxivErr = s.opts.Arxiv()
	})
	return s.arxiv, s.arxivErr
}

// toolError is a failed call as its command reports it: the error and its
// hint. The SDK sends it as a result with isError set.
type toolError struct{ msg string }

func (e *toolError) Error() string { return e.msg }

// fail turns err into the tool error of tool, with the command line's
// hint. A cancelled call stays the context's error: nobody reads it.
func (s *Server) fail(ctx context.Context, tool string, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if s.opts.Explain != nil {
		err = s.opts.Explain(tool, err)
	}
	return &toolError{msg: hint.Message(err)}
}

// refused is the error of a write tool on a read-only server.
func refused(tool string) error {
	return hint.With(fmt.Errorf("%s is refused: papers mcp runs with --read-only", tool),
		"restart the server without --read-only to let this client add papers (papers ingest on the command line works meanwhile)")
}
