package cmd

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/papers-cli/papers/cost"
	"github.com/papers-cli/papers/embed"
	"github.com/papers-cli/papers/internal/openaicompat"
	"github.com/papers-cli/papers/internal/safetext"
	"github.com/papers-cli/papers/library"
	"github.com/papers-cli/papers/pgstore"
	"github.com/papers-cli/papers/store"
)

// sessionConfig is the library session of this run as the flags and the
// environment set it: the library of --home, the servers of
// OPENAI_BASE_URL/OPENAI_API_KEY/OLLAMA_HOST, arXiv's PAPERS_ARXIV_*,
// Crossref's PAPERS_CROSSREF_* and PAPERS_EMAIL, and notes on stderr. Commands that use a model set its LLM.
func (g *globalOptions) sessionConfig() (library.Config, error) {
	dir, err := g.libraryDir()
	if err != nil {
		return library.Config{}, err
	}
	ax, err := arxivConfig()
	if err != nil {
		return library.Config{}, err
	}
	cr, err := crossrefConfig()
	if err != nil {
		return library.Config{}, err
	}
	prices, err := prices(g.notef)
	if err != nil {
		return library.Config{}, err
	}
	if g.maxCost < 0 {
		return library.Config{}, usageError("--max-cost must not be negative, got %v", g.maxCost)
	}
	db, err := g.database()
	if err != nil {
		return library.Config{}, err
	}
	return library.Config{Dir: dir, Database: db, Embed: embedOptions(g.io), Arxiv: ax, Crossref: cr, Logf: g.notef, HTTPClient: g.httpClient(),
		Prices: prices, MaxCost: g.maxCost}, nil
}

// database is the URL of the run's library in PostgreSQL: --db, else
// PAPERS_DATABASE_URL (the name libraries and tools use for a database's
// URL); "" for the library in --home.
func (g *globalOptions) database() (string, error) {
	db := g.db
	if db == "" {
		db = strings.TrimSpace(os.Getenv("PAPERS_DATABASE_URL"))
	}
	if db != "" && !pgstore.IsURL(db) {
		return "", withHint(usageError("--db (or PAPERS_DATABASE_URL) must be a postgres:// URL, got %q", pgstore.Redact(db)),
			"papers --db postgres://user@host/database ..., or drop --db for the library in --home")
	}
	return db, nil
}

// prices is the user's price table of models: the prices file
// (prices.json in papers' configuration directory), then PAPERS_PRICES
// (MODEL=IN/OUT,... in dollars per million tokens, or the path of a
// prices file). Models it does not price are priced by cost.NewMeter. A
// prices file that cannot be read is warned about (note) and left out:
// it must not stop commands that use no model.
func prices(note func(format string, args ...any)) (cost.Prices, error) {
	p := cost.Prices{}
	if dir, err := os.UserConfigDir(); err == nil {
		f, err := cost.LoadPrices(filepath.Join(dir, "papers", "prices.json"))
		if err != nil {
			note(`warning: %v; its prices are not used (write it as {"MODEL": {"in": IN, "out": OUT}}, dollars per million tokens)`, err)
		}
		p = p.Merge(f)
	}
	v := strings.TrimSpace(os.Getenv("PAPERS_PRICES"))
	if v == "" {
		return p, nil
	}
	var env cost.Prices
	var err error
	if strings.Contains(v, "=") {
		env, err = cost.ParsePrices(v)
	} else {
		env, err = cost.LoadPrices(v)
		if err == nil && len(env) == 0 {
			err = fmt.Errorf("no prices file at %s", v)
		}
	}
	if err != nil {
		return nil, withExit(fmt.Errorf("invalid PAPERS_PRICES: %w", err), ExitUsage)
	}
	return p.Merge(env), nil
}

// reportUsage says on stderr what the session's model calls used and
// cost, when it made any.
func reportUsage(g *globalOptions, s *library.Session) {
	if u := s.Usage(); u.Calls > 0 {
		fmt.Fprintln(g.io.ErrOut, "model usage: "+u.String())
	}
}

// notef prints a note of the session on stderr: "note: ..." (a message
// that is a warning says so itself), made inert.
func (g *globalOptions) notef(format string, args ...any) {
	if !strings.HasPrefix(format, "warning: ") {
		format = "note: " + format
	}
	fmt.Fprintln(g.io.ErrOut, safetext.Line(fmt.Sprintf(format, args...)))
}

// session returns the library session of this run, changed by mods,
// without opening anything.
func (g *globalOptions) session(mods ...func(*library.Config)) (*library.Session, error) {
	cfg, err := g.sessionConfig()
	if err != nil {
		return nil, err
	}
	for _, m := range mods {
		m(&cfg)
	}
	return library.New(cfg), nil
}

// openLibrary opens (creating if needed) the library of this run.
func openLibrary(ctx context.Context, g *globalOptions, mods ...func(*library.Config)) (*library.Session, *store.Library, error) {
	s, err := g.session(mods...)
	if err != nil {
		return nil, nil, err
	}
	lib, err := s.Create(ctx)
	if err != nil {
		return nil, nil, err
	}
	return s, lib, nil
}

// openExisting opens the library of this run; an absent library is an
// error that says how to fill one, and nothing is created.
func openExisting(ctx context.Context, g *globalOptions, mods ...func(*library.Config)) (*library.Session, *store.Library, error) {
	s, err := g.session(mods...)
	if err != nil {
		return nil, nil, err
	}
	lib, err := libraryOf(ctx, s)
	if err != nil {
		return nil, nil, err
	}
	return s, lib, nil
}

// libraryAt opens the library at where, a postgres:// URL or a directory,
// whatever --home and --db say; one that holds none is created only when
// create, else the error says how to fill one.
func (g *globalOptions) libraryAt(ctx context.Context, where string, create bool) (*store.Library, error) {
	cfg, err := g.sessionConfig()
	if err != nil {
		return nil, err
	}
	cfg.Database = ""
	if pgstore.IsURL(where) {
		cfg.Database = where
	} else {
		cfg.Dir = where
	}
	s := library.New(cfg)
	if create {
		return s.Create(ctx)
	}
	return libraryOf(ctx, s)
}

// libraryOf opens the library of s, which must exist: an absent library is
// an error that says how to fill one.
func libraryOf(ctx context.Context, s *library.Session) (*store.Library, error) {
	lib, err := s.Store(ctx)
	return lib, noLibraryHint(err)
}

// noLibraryHint says how to fill a library that does not exist.
func noLibraryHint(err error) error {
	if errors.Is(err, library.ErrNoLibrary) {
		return withHint(err, "papers ingest 'abs:\"reinforcement learning\" AND abs:agent' --max 20   (or papers ingest ./paper.pdf)")
	}
	return err
}

// waitingForReindex is what a write says when a papers reindex holds the
// library.
func waitingForReindex(g *globalOptions) func() {
	return func() {
		fmt.Fprintln(g.io.ErrOut, "waiting for the papers reindex running on this library to finish (Ctrl-C stops)...")
	}
}

// useEmbedder returns the embedder --embedder names (nil for none: the
// library's), checked against the library's by the session.
func useEmbedder(ctx context.Context, s *library.Session, spec string) (embed.Embedder, error) {
	e, err := (&embedderFlags{spec: spec}).parseIfGiven(s)
	if e == nil || err != nil {
		return nil, err
	}
	e, err = s.UseEmbedder(ctx, e)
	return e, err
}

// arxivConfig reads the arXiv client's settings from the environment
// (PAPERS_ARXIV_API_URL, PAPERS_ARXIV_PDF_URL, PAPERS_ARXIV_DELAY).
func arxivConfig() (library.ArxivConfig, error) {
	c := library.ArxivConfig{
		APIURL:    os.Getenv("PAPERS_ARXIV_API_URL"),
		PDFURL:    os.Getenv("PAPERS_ARXIV_PDF_URL"),
		UserAgent: fmt.Sprintf("papers/%s (+https://github.com/papers-cli/papers)", Version),
	}
	if v := os.Getenv("PAPERS_ARXIV_DELAY"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil {
			secs, err2 := strconv.ParseFloat(v, 64)
			if err2 != nil || secs < 0 {
				return c, usageError("invalid PAPERS_ARXIV_DELAY=%q: use a duration like 3s or 500ms", v)
			}
			d = time.Duration(secs * float64(time.Second))
		}
		c.Delay = d
		if d == 0 {
			c.Delay = -1 // the client reads 0 as its default; the user means none
		}
	}
	return c, nil
}

// crossrefConfig reads the Crossref client's settings from the
// environment: PAPERS_CROSSREF_API_URL (a mirror, a test's fake),
// PAPERS_EMAIL (Crossref's polite pool), PAPERS_CROSSREF_DELAY, and
// PAPERS_DOI_URL (the DOI resolver landing pages are reached through).
func crossrefConfig() (library.CrossrefConfig, error) {
	c := library.CrossrefConfig{
		APIURL:      os.Getenv("PAPERS_CROSSREF_API_URL"),
		Mailto:      strings.TrimSpace(os.Getenv("PAPERS_EMAIL")),
		UserAgent:   fmt.Sprintf("papers/%s (+https://github.com/papers-cli/papers)", Version),
		DOIResolver: os.Getenv("PAPERS_DOI_URL"),
	}
	if v := os.Getenv("PAPERS_CROSSREF_DELAY"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d < 0 {
			return c, usageError("invalid PAPERS_CROSSREF_DELAY=%q: use a duration like 200ms", v)
		}
		c.Delay = d
		if d == 0 {
			c.Delay = -1 // the client reads 0 as its default; the user means none
		}
	}
	return c, nil
}

// embedOptions reads the OpenAI-compatible server settings from the
// environment (the ecosystem's names; the key is never a flag).
func embedOptions(s *IOStreams) embed.Options {
	timeout, err := embedTimeout()
	if err != nil {
		fmt.Fprintf(s.ErrOut, "warning: %v; using %s\n", err, embed.DefaultTimeout)
	}
	return embed.Options{
		Timeout:   timeout,
		BaseURL:   os.Getenv("OPENAI_BASE_URL"),
		APIKey:    os.Getenv("OPENAI_API_KEY"),
		OllamaURL: openaicompat.OllamaURL(os.Getenv("OLLAMA_HOST")), // Ollama's own variable: "host:port" or a URL
		Warn:      func(msg string) { fmt.Fprintln(s.ErrOut, "warning: "+msg) },
	}
}
