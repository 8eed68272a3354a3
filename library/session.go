package library

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/papers-cli/papers/cost"
	"github.com/papers-cli/papers/embed"
	"github.com/papers-cli/papers/ingest/arxiv"
	"github.com/papers-cli/papers/ingest/crossref"
	"github.com/papers-cli/papers/ingest/fulltext"
	"github.com/papers-cli/papers/internal/hint"
	"github.com/papers-cli/papers/internal/netlog"
	"github.com/papers-cli/papers/llm"
	"github.com/papers-cli/papers/pgstore"
	"github.com/papers-cli/papers/store"
)

// Config says which library a session opens and how it reaches the
// outside world. Front ends fill it from flags and the environment; the
// session reads neither.
type Config struct {
	// Dir is the library directory; with Database, the directory of what
	// the library keeps on this machine (downloaded PDFs).
	Dir string
	// ReadOnly opens the library for reading only (store.OpenReadOnly):
	// nothing in Dir is written, the writes fail with store.ErrReadOnly.
	ReadOnly bool
	// Database, if set, is the URL of a library in PostgreSQL
	// (postgres://user@host/database?schema=NAME; package pgstore), which
	// the session opens instead of the library in Dir.
	Database string
	// Embed gives the server settings of remote embedders (OPENAI_BASE_URL,
	// OPENAI_API_KEY, OLLAMA_HOST, the timeout); its HTTPClient is the
	// session's.
	Embed embed.Options
	// LLM chooses the model of answers and digests; a zero Spec and APIKey
	// mean none (extractive answers). Its HTTPClient is the session's.
	LLM llm.LLMConfig
	// Arxiv sets the arXiv client: mirror, pacing, user agent.
	Arxiv ArxivConfig
	// Crossref sets the Crossref client: mirror, e-mail, pacing.
	Crossref CrossrefConfig
	// HTTPClient sends every outbound request of the session: arXiv API and
	// PDFs, Crossref, embedding and model servers. nil: DefaultHTTPClient().
	HTTPClient *http.Client
	// Prices are the user's prices of models (cost.NewMeter says how a
	// model is priced); MaxCost caps what the session's model calls may cost, in
	// dollars (0: no cap): a call whose estimate would pass it is refused
	// with cost.ErrOverBudget before it is sent.
	Prices  cost.Prices
	MaxCost float64
	// Logf receives notes for people (the library was upgraded, is
	// read-only, a reindex holds it, ...) and the arXiv client's retry
	// notices; a message that is a warning starts with "warning: ". nil
	// discards them.
	Logf func(format string, args ...any)
}

// ArxivConfig sets the session's arXiv client; zero fields keep the
// client's defaults (arxiv.New).
type ArxivConfig struct {
	APIURL, PDFURL string
	// Delay is the pacing between requests; negative: none.
	Delay     time.Duration
	UserAgent string
	// MaxTries bounds the attempts per request (browse asks once: the
	// library's count is on screen meanwhile).
	MaxTries int
	// Backoff is the wait before the first retry (tests shorten it).
	Backoff time.Duration
}

// CrossrefConfig sets the session's Crossref client; zero fields keep the
// client's defaults (see package crossref).
type CrossrefConfig struct {
	// APIURL is the API's root (default https://api.crossref.org).
	APIURL string
	// Mailto is the user's e-mail address, which puts requests in
	// Crossref's polite pool.
	Mailto    string
	UserAgent string
	// Delay is the least gap between requests until Crossref announces
	// its limit; negative: none.
	Delay time.Duration
	// DOIResolver is where a DOI's landing page is reached (default
	// https://doi.org/), for its open-access PDF.
	DOIResolver string
}

// DefaultHTTPClient is the HTTP client of a session whose Config gives
// none: the program's one transport (internal/netlog) recording nothing
// and online. It bounds connecting and waiting for response headers,
// never a whole request (a streamed answer or a PDF may rightly take
// long): the callers' contexts and the clients' own timeouts bound those.
// Front ends give the transport of their run instead, which records the
// network ledger and refuses offline.
func DefaultHTTPClient() *http.Client {
	return netlog.New(netlog.Options{}).Client()
}

// ErrNoLibrary is Store's error for a directory that holds no library.
var ErrNoLibrary = errors.New("no papers in the library")

// Session is an open library with everything wired. Its methods are safe
// for concurrent use.
type Session struct {
	cfg  Config
	http *http.Client

	mu  sync.Mutex
	lib *store.Library

	arxivOnce sync.Once
	arxiv     *arxiv.Client

	crossrefOnce sync.Once
	crossref     *crossref.Client

	llmOnce sync.Once
	llm     llm.LLM
	llmErr  error
	meter   *cost.Meter

	// writing holds a token while an Ingest or Update runs: one at a
	// time; a write waiting for it stops waiting when its context ends.
	writing chan struct{}

	logMu   sync.Mutex
	writeLf func(format string, args ...any) // the running write's notes, if it has its own
}

// New returns the session of cfg's library without opening anything.
func New(cfg Config) *Session {
	s := &Session{cfg: cfg, http: cfg.HTTPClient, writing: make(chan struct{}, 1)}
	if s.http == nil {
		s.http = DefaultHTTPClient()
	}
	return s
}

// Open returns the session of cfg's library, opened: an absent library is
// an error wrapping ErrNoLibrary, and nothing is created.
func Open(ctx context.Context, cfg Config) (*Session, error) {
	s := New(cfg)
	if _, err := s.Store(ctx); err != nil {
		return nil, err
	}
	return s, nil
}

// Attach returns the session of lib, a library already open (cfg.Dir is
// taken from it); the session's Close closes lib.
func Attach(cfg Config, lib *store.Library) *Session {
	cfg.Dir = lib.Dir()
	s := New(cfg)
	s.lib = lib
	return s
}

// Create is Open for a library that may not exist yet: it is created.
func Create(ctx context.Context, cfg Config) (*Session, error) {
	s := New(cfg)
	if _, err := s.Create(ctx); err != nil {
		return nil, err
	}
	return s, nil
}

// Dir is the library directory (with Config.Database, the local one).
func (s *Session) Dir() string { return s.cfg.Dir }

// Where names the library for people: its directory, or its database's
// URL without the password.
func (s *Session) Where() string {
	if s.cfg.Database != "" {
		return pgstore.Redact(s.cfg.Database)
	}
	return s.cfg.Dir
}

// HTTPClient is the client every outbound request of the session goes
// through.
func (s *Session) HTTPClient() *http.Client { return s.http }

// Store returns the library, opening it on first use; a library that does
// not exist is an error wrapping ErrNoLibrary (front ends add how to fill
// one).
func (s *Session) Store(ctx context.Context) (*store.Library, error) {
	return s.open(ctx, false)
}

// Create returns the library, opening it on first use and creating it when
// it does not exist.
func (s *Session) Create(ctx context.Context) (*store.Library, error) {
	return s.open(ctx, true)
}

func (s *Session) open(ctx context.Context, create bool) (*store.Library, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.lib != nil {
		return s.lib, nil
	}
	dir := s.cfg.Dir
	if s.cfg.Database != "" {
		lib, err := openDatabase(ctx, s.cfg.Database, dir, create)
		if err != nil {
			return nil, err
		}
		s.lib = lib
		return lib, nil
	}
	if !create {
		if _, err := os.Stat(filepath.Join(dir, store.FileName)); errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("%w (%s)", ErrNoLibrary, dir)
		}
	}
	open := store.Open
	if s.cfg.ReadOnly {
		open = store.OpenReadOnly
	}
	lib, err := open(ctx, dir)
	if err != nil {
		err = fmt.Errorf("open the library at %s: %w", dir, err)
		if h := s.Explain(err); h != err {
			return nil, h // a full disk, a read-only one: their fix
		}
		return nil, hint.With(err, "check the directory is writable, or point PAPERS_HOME (--home) elsewhere")
	}
	if store.Damaged(dir) != "" {
		s.logf("warning: the library file in %s is damaged (%s): what can be read is shown, nothing is written; %s", dir, store.Damaged(dir), RepairHint)
	} else if why := lib.ReadOnly(); why != "" && !s.cfg.ReadOnly {
		s.logf("the library at %s is read-only here (%s): reading works, changes fail", dir, why)
	}
	for _, n := range lib.MigrationNotes() { // said once: the next open has nothing to migrate
		s.logf("library upgraded: %s", n)
	}
	s.lib = lib
	return lib, nil
}

// openDatabase opens the library in PostgreSQL at url, with dir for its
// local files; an absent library is ErrNoLibrary unless create.
func openDatabase(ctx context.Context, url, dir string, create bool) (*store.Library, error) {
	lib, err := pgstore.Open(ctx, url, dir, create)
	switch {
	case errors.Is(err, pgstore.ErrNoLibrary):
		return nil, fmt.Errorf("%w (%s)", ErrNoLibrary, pgstore.Redact(url))
	case errors.Is(err, pgstore.ErrNoExtension):
		return nil, hint.With(err, "see docs/shared-store.md for setting up the server")
	case err != nil:
		return nil, hint.With(err, "check the server is up and the URL names it (user, host, port, database); the password comes from the URL, PGPASSWORD or ~/.pgpass")
	}
	return lib, nil
}

// Close closes the library, if it was opened.
func (s *Session) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.lib == nil {
		return nil
	}
	err := s.lib.Close()
	s.lib = nil
	return err
}

// logf sends a note to the running write's Logf when it has one, else to
// the session's.
func (s *Session) logf(format string, args ...any) {
	s.logMu.Lock()
	f := s.writeLf
	s.logMu.Unlock()
	if f == nil {
		f = s.cfg.Logf
	}
	if f != nil {
		f(format, args...)
	}
}

// Arxiv returns the session's arXiv client, built on first use: one client,
// so one pacing, for every request of the session.
func (s *Session) Arxiv() *arxiv.Client {
	s.arxivOnce.Do(func() {
		c := arxiv.New()
		a := s.cfg.Arxiv
		if a.APIURL != "" {
			c.APIURL = a.APIURL
		}
		if a.PDFURL != "" {
			c.PDFURL = a.PDFURL
		}
		if a.Delay != 0 {
			c.Delay = a.Delay
		}
		if a.UserAgent != "" {
			c.UserAgent = a.UserAgent
		}
		if a.MaxTries > 0 {
			c.MaxTries = a.MaxTries
		}
		if a.Backoff > 0 {
			c.Backoff = a.Backoff
		}
		c.HTTPClient = s.http
		c.Logf = s.logf
		s.arxiv = c
	})
	return s.arxiv
}

// Crossref returns the session's Crossref client, built on first use: one
// client, so one pacing, for every request of the session.
func (s *Session) Crossref() *crossref.Client {
	s.crossrefOnce.Do(func() {
		c := s.cfg.Crossref
		s.crossref = &crossref.Client{HTTPClient: s.http, BaseURL: c.APIURL, Mailto: c.Mailto, UserAgent: c.UserAgent, Delay: c.Delay, Logf: s.logf}
	})
	return s.crossref
}

// FullText returns the client that fetches DOIs' open-access PDFs, with
// the session's HTTP client.
func (s *Session) FullText() *fulltext.Client {
	c := s.cfg.Crossref
	return &fulltext.Client{HTTPClient: s.http, Resolver: c.DOIResolver, UserAgent: c.UserAgent}
}

// LLM returns the model Config.LLM chooses, resolved on first use, or nil
// (and no error) when none is configured: answers are then extractive.
//
// Every call of the model is counted and kept under Config.MaxCost by the
// session's meter (see Usage).
func (s *Session) LLM() (llm.LLM, error) {
	s.llmOnce.Do(func() {
		cfg := s.cfg.LLM
		cfg.HTTPClient = s.http
		var model llm.LLM
		model, s.llmErr = llm.ResolveLLM(cfg)
		s.meter = cost.NewMeter(s.cfg.Prices, s.cfg.MaxCost, localModel(cfg))
		s.llm = s.meter.Wrap(model)
	})
	return s.llm, s.llmErr
}

// Usage is what the session's model calls used and cost so far; Calls is
// 0 when none was made.
func (s *Session) Usage() cost.Usage {
	if _, err := s.LLM(); err != nil || s.meter == nil {
		return cost.Usage{}
	}
	return s.meter.Usage()
}

// localModel reports whether cfg's model runs on this machine (Ollama, or
// a server on localhost): its calls cost nothing.
func localModel(cfg llm.LLMConfig) bool {
	if strings.HasPrefix(cfg.Spec, "ollama:") {
		h := cfg.OllamaHost
		return h == "" || isLocalHost(h)
	}
	return cfg.BaseURL != "" && isLocalHost(cfg.BaseURL)
}

func isLocalHost(addr string) bool {
	if !strings.Contains(addr, "://") {
		addr = "http://" + addr
	}
	u, err := url.Parse(addr)
	if err != nil {
		return false
	}
	h := u.Hostname()
	if h == "localhost" {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}

// embedOptions are Config.Embed with the session's HTTP client and the
// warnings sent to Logf.
func (s *Session) embedOptions() embed.Options {
	o := s.cfg.Embed
	o.HTTPClient = s.http
	if o.Warn == nil {
		o.Warn = func(msg string) { s.logf("warning: %s", msg) }
	}
	return o
}
