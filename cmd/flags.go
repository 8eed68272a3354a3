package cmd

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/papers-cli/papers/embed"
	"github.com/papers-cli/papers/library"
	"github.com/papers-cli/papers/llm"
	"github.com/papers-cli/papers/resolve"
	"github.com/papers-cli/papers/store"
)

// This file holds the flag groups commands share: each group declares its
// flags once, with one wording, and resolves them to the value the packages
// below take (a store.Filter, an llm.LLM, an embed.Options).

// filterSet names the filter flags a command takes.
type filterSet uint

const (
	filterPaper    filterSet = 1 << iota // --paper ID (repeatable)
	filterTopic                          // --topic NAME (repeatable)
	filterCategory                       // --category CAT (repeatable)
	filterAuthor                         // --author NAME (repeatable)
	filterDates                          // --since DATE, --until DATE
	filterTag                            // --tag NAME (repeatable)
	filterSaved                          // --saved

	// filterPapers is every flag that narrows by what a paper is, for
	// commands that list papers rather than search one.
	filterPapers = filterTopic | filterCategory | filterAuthor | filterDates | filterTag | filterSaved
	filterAll    = filterPaper | filterPapers
)

// filterFlags are the flags that narrow a command to some papers of the
// library. A new filter is a field here, a bit of filterSet, its flag in
// register and its value in resolve: every command that takes the group
// gets it with the same name, help and checks.
type filterFlags struct {
	set filterSet
	resolve.Filter
}

// register declares the flags of which on c.
func (f *filterFlags) register(c *cobra.Command, which filterSet) {
	f.set = which
	fl := c.Flags()
	if which&filterPaper != 0 {
		fl.StringArrayVar(&f.Papers, "paper", nil, "only this paper: an arXiv id in any form or a library id (repeatable)")
	}
	if which&filterTopic != 0 {
		fl.StringArrayVar(&f.Topics, "topic", nil, "only papers of this followed topic (repeatable: any of them)")
	}
	if which&filterCategory != 0 {
		fl.StringArrayVar(&f.Categories, "category", nil, "only papers in this arXiv category, e.g. cs.CL (repeatable: any of them)")
	}
	if which&filterAuthor != 0 {
		fl.StringArrayVar(&f.Authors, "author", nil, "only papers with an author whose name contains this (repeatable)")
	}
	if which&filterTag != 0 {
		fl.StringArrayVar(&f.Tags, "tag", nil, "only papers with this tag, of any source: yours (papers tag), Zotero's (a collection as zotero:Collection) or a corpus's (repeatable: any of them)")
	}
	if which&filterSaved != 0 {
		fl.BoolVar(&f.Saved, "saved", false, "only the papers you saved (papers save)")
	}
	if which&filterDates != 0 {
		fl.StringVar(&f.Since, "since", "", "only papers published on or after this date (YYYY-MM-DD, or 7d, 4w, 3m, 1y back)")
		fl.StringVar(&f.Until, "until", "", "only papers published on or before this date (YYYY-MM-DD, YYYY-MM or YYYY: the whole period)")
	}
}

// check validates what can be checked before the library is opened (dates,
// categories) and returns the filter so far: mistakes are usage errors.
func (f *filterFlags) check() (store.Filter, error) {
	sf, err := f.Filter.Check(time.Now())
	return sf, usage(err)
}

// resolve returns the store.Filter the flags name. Papers and topics are
// looked up in lib: one it does not hold is an error naming it, not an
// empty result.
func (f *filterFlags) resolve(ctx context.Context, lib *store.Library) (store.Filter, error) {
	sf, err := f.Filter.Resolve(ctx, lib, time.Now())
	return sf, usage(err)
}

// namesPapers reports whether --paper was given.
func (f *filterFlags) namesPapers() bool { return len(f.Papers) > 0 }

// selects reports whether any flag that selects papers by what they are
// was given (--topic, --tag, --saved): export needs one of them or ids.
func (f *filterFlags) selects() bool { return len(f.Topics) > 0 || len(f.Tags) > 0 || f.Saved }

// llmFlags choose the model that writes answers and summaries (ask,
// digest): --llm and --extractive, with OPENAI_API_KEY, OPENAI_BASE_URL and
// OLLAMA_HOST from the environment (the key is never a flag).
type llmFlags struct {
	spec             string
	extractive       bool
	firstToken, idle time.Duration // bounds of a reply; 0: no limit
}

// register declares --llm, --extractive, --first-token-timeout and
// --idle-timeout on c; offline says what --extractive does instead of a
// model.
func (l *llmFlags) register(c *cobra.Command, offline string) {
	c.Flags().StringVar(&l.spec, "llm", "", "model: openai:MODEL, ollama:MODEL or MODEL on OPENAI_BASE_URL (default: "+llm.DefaultOpenAIModel+" when OPENAI_API_KEY is set, else extractive)")
	c.Flags().BoolVar(&l.extractive, "extractive", false, offline)
	c.Flags().DurationVar(&l.firstToken, "first-token-timeout", llm.DefaultFirstTokenTimeout, "give up when the model sends no text for this long after a request (a reply that is not streamed must come whole within it); 0: no limit")
	c.Flags().DurationVar(&l.idle, "idle-timeout", llm.DefaultIdleTimeout, "give up when a streamed reply pauses this long between two pieces; 0: no limit")
}

// config is the LLM configuration of the flags and the environment.
func (l *llmFlags) config(stream bool) llm.LLMConfig {
	return llm.LLMConfig{
		Spec:              l.spec,
		APIKey:            os.Getenv("OPENAI_API_KEY"),
		BaseURL:           os.Getenv("OPENAI_BASE_URL"),
		OllamaHost:        os.Getenv("OLLAMA_HOST"),
		NoStream:          !stream,
		FirstTokenTimeout: noLimit(l.firstToken),
		IdleTimeout:       noLimit(l.idle),
	}
}

// noLimit maps the flags' 0 (no limit) to LLMConfig's negative.
func noLimit(d time.Duration) time.Duration {
	if d == 0 {
		return -1
	}
	return d
}

// check refuses negative timeouts.
func (l *llmFlags) check() error {
	if l.firstToken < 0 || l.idle < 0 {
		return usageError("--first-token-timeout and --idle-timeout must not be negative")
	}
	return nil
}

// set gives a session the model of the flags (none with --extractive),
// streaming its replies or not.
func (l *llmFlags) set(stream bool) func(*library.Config) {
	return func(c *library.Config) {
		if !l.extractive {
			c.LLM = l.config(stream)
		}
	}
}

// resolve returns the session's model, nil for none (--extractive, or no
// model configured); a model that cannot be used is an error with its hint.
func (l *llmFlags) resolve(s *library.Session) (llm.LLM, error) {
	if err := l.check(); err != nil {
		return nil, err
	}
	if l.extractive {
		return nil, nil
	}
	m, err := s.LLM()
	if err != nil {
		return nil, err
	}
	return m, nil
}

// embedderFlags choose an embedder: --embedder, and for commands that embed
// a whole library (reindex, eval) --dimensions, --embed-batch and
// --embed-concurrency. The server comes from the environment.
type embedderFlags struct {
	spec        string
	dimensions  int
	batch       int
	concurrency int
}

// register declares --embedder on c with the given default and help.
func (e *embedderFlags) register(c *cobra.Command, def, usage string) {
	c.Flags().StringVar(&e.spec, "embedder", def, usage)
}

// registerTuning declares --dimensions, --embed-batch and --embed-concurrency.
func (e *embedderFlags) registerTuning(c *cobra.Command) {
	f := c.Flags()
	f.IntVar(&e.batch, "embed-batch", embed.DefaultBatchSize, "texts per request to an openai:/ollama: embedder")
	f.IntVar(&e.concurrency, "embed-concurrency", embed.DefaultConcurrency, "requests in flight to an openai:/ollama: embedder")
	f.IntVar(&e.dimensions, "dimensions", 0, "ask the embedding model for vectors this long (models that support it, e.g. text-embedding-3-*)")
}

// parse builds the embedder the flags name, reaching its server through
// the session; a spec that names none is a usage error.
func (e *embedderFlags) parse(s *library.Session) (embed.Embedder, error) {
	em, err := s.ParseEmbedder(e.spec, library.Tuning{Dimensions: e.dimensions, Batch: e.batch, Concurrency: e.concurrency})
	if err != nil {
		return nil, withHint(withExit(err, ExitUsage), "use --embedder local, openai:MODEL or ollama:MODEL")
	}
	return em, nil
}

// parseIfGiven is parse when --embedder was given, else nil (the
// library's embedder).
func (e *embedderFlags) parseIfGiven(s *library.Session) (embed.Embedder, error) {
	if strings.TrimSpace(e.spec) == "" {
		return nil, nil
	}
	return e.parse(s)
}

// addJSON declares --json on c: every command that prints results has it,
// with this name and no shorthand; what says what is printed.
func addJSON(c *cobra.Command, v *bool, what string) {
	c.Flags().BoolVar(v, "json", false, what)
}

// addK declares -k/--k, the number of passages, on c (ask and search).
func addK(c *cobra.Command, v *int, def int, usage string) {
	c.Flags().IntVarP(v, "k", "k", def, usage)
}

// checkK validates -k when it was given: at least 1.
func checkK(c *cobra.Command, k int) error {
	if c.Flags().Changed("k") && k < 1 {
		return usageError("-k must be at least 1, got %d", k)
	}
	return nil
}

// formatFlags choose the output format of a command that prints more than
// one (digest: md or json; export: bibtex or csl-json): --format NAME, and
// boolean shortcuts for some formats, always --json for the JSON one (and
// kept spellings such as export's --bibtex). A shortcut that contradicts
// --format is a usage error.
type formatFlags struct {
	format    string
	names     map[string]string // every spelling --format takes, lower case -> its format
	formats   []string          // the formats, for the error message
	shortcuts []*formatShortcut
}

type formatShortcut struct {
	flag   string
	format string
	set    bool
}

// register declares --format on c with its default and formats; names maps
// further spellings to formats.
func (f *formatFlags) register(c *cobra.Command, def string, formats []string, names map[string]string, usage string) {
	f.formats = formats
	f.names = map[string]string{}
	for _, n := range formats {
		f.names[n] = n
	}
	for n, v := range names {
		f.names[n] = v
	}
	c.Flags().StringVar(&f.format, "format", def, usage)
	c.RegisterFlagCompletionFunc("format", cobra.FixedCompletions(formats, cobra.ShellCompDirectiveNoFileComp))
}

// shortcut declares the boolean flag name that means --format format
// (--json for the JSON format).
func (f *formatFlags) shortcut(c *cobra.Command, name, format, usage string) {
	s := &formatShortcut{flag: name, format: format}
	f.shortcuts = append(f.shortcuts, s)
	c.Flags().BoolVar(&s.set, name, false, usage)
}

// resolve returns the format the flags choose.
func (f *formatFlags) resolve(c *cobra.Command) (string, error) {
	format, ok := f.names[strings.ToLower(strings.TrimSpace(f.format))]
	if !ok {
		return "", usageError("--format must be %s, got %q", strings.Join(f.formats, " or "), f.format)
	}
	given := "--format " + f.format
	explicit := c.Flags().Changed("format")
	for _, s := range f.shortcuts {
		if !s.set {
			continue
		}
		if explicit && s.format != format {
			return "", usageError("--%s and %s contradict each other", s.flag, given)
		}
		format, given, explicit = s.format, "--"+s.flag, true
	}
	return format, nil
}

// embedTimeout reads PAPERS_EMBED_TIMEOUT, the bound of one request to an
// embedding server (0: the embedder's default; "0" in the variable: none).
func embedTimeout() (time.Duration, error) {
	v, ok := os.LookupEnv("PAPERS_EMBED_TIMEOUT")
	if !ok || v == "" {
		return 0, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil || d < 0 {
		return 0, fmt.Errorf("invalid PAPERS_EMBED_TIMEOUT=%q: want a duration such as 90s or 2m", v)
	}
	if d == 0 {
		return -1, nil
	}
	return d, nil
}
