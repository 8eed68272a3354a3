package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/papers-cli/papers/embed"
	"github.com/papers-cli/papers/eval"
	"github.com/papers-cli/papers/eval/scratch"
	"github.com/papers-cli/papers/ingest"
	"github.com/papers-cli/papers/internal/safetext"
	"github.com/papers-cli/papers/internal/textkit"
	"github.com/papers-cli/papers/retrieve"
	"github.com/papers-cli/papers/store"
)

func init() { register(newEvalCmd) }

type evalOptions struct {
	*globalOptions
	corpus, queries, qrels string
	library                string
	embedder               embedderFlags
	mode                   string
	rankingFlags
	qa          evalQAOptions
	qasper      string
	predictions string
	embedderSet bool
	keep        bool
	json        bool

	ask retrieve.Mode
}

func newEvalCmd(g *globalOptions) *cobra.Command {
	o := &evalOptions{globalOptions: g}
	c := &cobra.Command{
		Use:   "eval --corpus C.jsonl --queries Q.jsonl --qrels R.tsv | eval --questions Q.jsonl [--unanswerable U.jsonl]",
		Short: "Measure retrieval on a BEIR test collection, or answers on a question set",
		Long: `Measure how well search ranks papers on a test collection in BEIR format
(a corpus JSONL, a queries JSONL and a qrels TSV, e.g. SciFact), or how well
ask answers a question set (--questions, --unanswerable; see below).

The corpus is ingested into a scratch library in a temporary directory (the
same path as papers ingest --jsonl; removed afterwards unless --keep), or
--library DIR (or a postgres:// URL) names a library that already holds it. Every query with a
relevant judgement is searched (one passage per paper, 100 papers) and the
command reports nDCG@10, Recall@100, MRR@10 (the means over the queries) and
the query latency (mean and 95th percentile, in milliseconds).

--json prints {"ndcg@10","recall@100","mrr@10","queries","latency_ms":{"mean","p95"}}
plus the ingest time and the configuration.

Corpus records that cannot be ingested are skipped with a warning (their
number is "ingest_failed" in --json) and the rest is evaluated. Relevant
documents that are not in the library (a wrong or partial corpus) are
counted and warned about ("judged_missing"); the scores are still printed.

With --questions Q.jsonl (and/or --unanswerable U.jsonl) eval asks every
question as papers ask does (same retrieval, same answer; --llm, --extractive
and -k as in ask) and reports the share of answers that cite the paper
holding the answer first, cite one of its expected pages, state every
expected fact (case-insensitive, whitespace ignored), abstain on the
unanswerable questions, and abstain wrongly on answerable ones, with the
latency (median and 95th percentile, whole and beyond retrieval). One JSON
object per line: {"q","expect":[...],"pages":[N],"pdf":"FILE.pdf"} or
"id":"PAPER-ID" instead of "pdf"; unanswerable questions need only "q".
PDFs are found in --pdfs DIR and matched to the library by content; without
--library, the scratch library is built from --pdfs (full text) and --corpus.
--within-paper asks each question of its own paper only (as ask --paper).
-v prints every question's outcome and answer; --json holds them too.`,
		Example: `  papers eval --corpus scifact/corpus.jsonl --queries scifact/queries.jsonl --qrels scifact/qrels/train.tsv
  papers eval --corpus c.jsonl --queries q.jsonl --qrels test.tsv --mode bm25 --json | jq '."ndcg@10"'
  papers eval --pdfs data/pdfs/papers --questions data/qa/fulltext-dev.jsonl --unanswerable data/qa/fulltext-dev-unanswerable.jsonl
  papers eval --library ~/.local/share/papers --questions mine.jsonl --llm ollama:llama3.1 --json | jq '.questions[] | select(.fact_stated | not)'`,
		Args: exactArgs(0),
		RunE: func(c *cobra.Command, args []string) error {
			if o.qasper != "" {
				if err := o.checkQASPER(c); err != nil {
					return err
				}
				return runEvalQASPER(c.Context(), o)
			}
			if o.predictions != "" {
				return usageError("--predictions writes the predictions of --qasper: give --qasper DIR")
			}
			if o.qa.questions != "" || o.qa.unanswerable != "" {
				if err := o.checkQA(c); err != nil {
					return err
				}
				return runEvalQA(c.Context(), o)
			}
			if o.queries == "" || o.qrels == "" || (o.corpus == "" && o.library == "") {
				return withHint(withExit(errors.New("eval needs --queries, --qrels and --corpus (or --library)"), ExitUsage),
					"see papers eval --help")
			}
			if o.library != "" && o.corpus != "" {
				// which documents would the scores describe? Refuse rather than pick one.
				return withHint(usageError("--corpus and --library both name the documents to search"),
					"drop --corpus to evaluate the library as it is, or drop --library to ingest --corpus into a scratch library")
			}
			mode, err := retrieve.ParseMode(o.mode)
			if err != nil {
				return withExit(err, ExitUsage)
			}
			if err := o.rankingFlags.check(c); err != nil { // here, not after every query has run
				return err
			}
			o.embedderSet = c.Flags().Changed("embedder")
			o.ask = mode
			return runEval(c.Context(), o)
		},
	}
	o.rankingFlags.register(c)
	f := c.Flags()
	f.StringVar(&o.corpus, "corpus", "", "BEIR corpus.jsonl to ingest into a scratch library")
	f.StringVar(&o.queries, "queries", "", "BEIR queries.jsonl")
	f.StringVar(&o.qrels, "qrels", "", "BEIR qrels TSV (query-id, corpus-id, score)")
	f.StringVar(&o.library, "library", "", "evaluate this library (a directory or postgres:// URL) instead of ingesting --corpus")
	o.embedder.register(c, "local", "embedder for the scratch library: local, openai:MODEL or ollama:MODEL")
	o.embedder.registerTuning(c)
	f.StringVar(&o.mode, "mode", "hybrid", "ranking: hybrid, bm25 or dense")
	f.BoolVar(&o.keep, "keep", false, "keep the scratch library and print where it is")
	addJSON(c, &o.json, "print the report as one JSON object")
	o.qa.register(c)
	f.StringVar(&o.qasper, "qasper", "", "a QASPER split (DIR with corpus.jsonl[.gz] and questions.jsonl[.gz]): ask every question of its paper and report Answer-F1 and Evidence-F1")
	f.StringVar(&o.predictions, "predictions", "", "with --qasper: write the predictions here, one JSON object per line, as score.py reads them")
	return c
}

// checkQASPER validates the flags of the QASPER mode.
func (o *evalOptions) checkQASPER(c *cobra.Command) error {
	switch {
	case o.queries != "" || o.qrels != "" || o.qa.questions != "" || o.qa.unanswerable != "":
		return withHint(usageError("--qasper is an evaluation of its own"),
			"run one at a time: --qasper measures answers on QASPER, --questions on a question set, --queries with --qrels retrieval")
	case o.corpus != "":
		return withHint(usageError("--qasper brings its own corpus"), "drop --corpus (or give --library DIR, a library that holds the split's papers)")
	}
	return o.checkAnswerFlags(c)
}

// checkAnswerFlags checks the flags an answer evaluation (--questions,
// --qasper) shares: -k, the retrieval mode and the ranking flags.
func (o *evalOptions) checkAnswerFlags(c *cobra.Command) error {
	if err := checkK(c, o.qa.k); err != nil {
		return err
	}
	mode, err := retrieve.ParseMode(o.mode)
	if err != nil {
		return withExit(err, ExitUsage)
	}
	o.ask = mode
	o.embedderSet = c.Flags().Changed("embedder")
	return o.rankingFlags.check(c)
}

// evalReport is the --json shape: eval.Report's stable fields plus context.
type evalReport struct {
	eval.Report
	Mode        string  `json:"mode"`
	DenseWeight float64 `json:"dense_weight"`
	Feedback    bool    `json:"feedback"`
	Library     string  `json:"library,omitempty"` // the scratch library, with --keep
	Embedder    string  `json:"embedder"`
	Papers      int     `json:"papers"`
	Chunks      int     `json:"chunks"`
	IngestS     float64 `json:"ingest_s"`
	Failed      int     `json:"ingest_failed"`  // corpus records skipped (warned about on stderr)
	Missing     int     `json:"judged_missing"` // relevant documents not in the library (warned about)
	TotalS      float64 `json:"total_s"`
}

func runEval(ctx context.Context, o *evalOptions) error {
	out, errw, mode := o.io.Out, o.io.ErrOut, o.ask
	start := time.Now()
	queries, err := eval.ReadQueries(o.queries)
	if err != nil {
		return fmt.Errorf("read queries: %w", err)
	}
	qrels, err := eval.ReadQrels(o.qrels)
	if err != nil {
		return fmt.Errorf("read qrels: %w", err)
	}
	if len(eval.Judged(queries, qrels)) == 0 {
		return errors.New("no query of --queries has a relevant document in --qrels")
	}
	// counted once (eval.Judged), but said: two records may not be one query
	dups := eval.Duplicates(queries)
	for _, id := range dups[:min(5, len(dups))] {
		fmt.Fprintf(errw, "warning: query id %s appears more than once in %s: counted once, as its first record\n", id, o.queries)
	}
	if len(dups) > 5 {
		fmt.Fprintf(errw, "warning: %s more appear more than once\n", textkit.Count(len(dups)-5, "query id"))
	}
	logf := func(format string, args ...any) {
		if !o.json || o.verbose {
			fmt.Fprintf(errw, format+"\n", args...)
		}
	}

	el, err := openEvalLibrary(ctx, o, ingest.Sources{Corpora: []string{o.corpus}}, logf)
	if err != nil {
		return err
	}
	defer el.close()
	lib, e, papers, chunks := el.lib, el.embedder, el.papers, el.chunks
	kept, ingestTime, failed := el.keptDir(), el.ingestTime(), el.failed()
	missing, judged, err := scratch.MissingJudged(ctx, lib, queries, qrels)
	if err != nil {
		return err
	}
	if missing > 0 {
		// said even with --json (where it is also a field): the scores cannot be trusted
		fmt.Fprintf(errw, "warning: %d of %d judged documents are not in the library: is it the right corpus?\n", missing, judged)
	}
	var so retrieve.SearchOptions
	o.rankingFlags.apply(&so)
	r := so.Retriever(lib, e)
	search := func(ctx context.Context, q string) ([]string, error) {
		ps, err := r.Retrieve(ctx, q, retrieve.Options{K: 100, Mode: mode, PerPaper: 1})
		if err != nil {
			return nil, err
		}
		ids := make([]string, len(ps))
		for i, p := range ps {
			ids[i] = p.PaperID
		}
		return ids, nil
	}
	// Load the search index before timing queries: it is paid once per
	// process, like opening the library.
	if _, err := search(ctx, "warm up"); err != nil {
		return err
	}
	tty := o.io.ErrTTY && !o.json
	rep, err := eval.Run(ctx, search, queries, qrels, func(done, total int) {
		if tty && (done%20 == 0 || done == total) {
			fmt.Fprintf(errw, "\rqueries %d/%d", done, total)
			if done == total {
				fmt.Fprintln(errw)
			}
		}
	})
	if err != nil {
		return err
	}
	full := evalReport{Report: rep, Mode: string(mode), DenseWeight: r.Fusion.DenseWeight, Feedback: !o.noFeedback, Library: kept, Embedder: e.Name(), Papers: papers, Chunks: chunks, Failed: failed, Missing: missing,
		IngestS: round(ingestTime.Seconds(), 2), TotalS: round(time.Since(start).Seconds(), 2)}
	if o.json {
		return writeJSON(out, full)
	}
	fmt.Fprintf(out, "queries     %d\n", rep.Queries)
	fmt.Fprintf(out, "nDCG@10     %.4f\n", rep.NDCG10)
	fmt.Fprintf(out, "Recall@100  %.4f\n", rep.Recall100)
	fmt.Fprintf(out, "MRR@10      %.4f\n", rep.MRR10)
	fmt.Fprintf(out, "latency     mean %.1f ms, p95 %.1f ms\n", rep.Latency.Mean, rep.Latency.P95)
	fmt.Fprintf(out, "library     %s, %s, %s, mode %s\n", textkit.Count(papers, "paper"), textkit.Count(chunks, "chunk"), e.Name(), mode)
	if ingestTime > 0 {
		fmt.Fprintf(out, "ingest      %.1f s\n", ingestTime.Seconds())
	}
	fmt.Fprintf(out, "total       %.1f s\n", time.Since(start).Seconds())
	return nil
}

// evalLibrary is the library an eval run searches: --library, or a
// scratch library, with its embedder and size.
type evalLibrary struct {
	lib            *store.Library
	scratch        *scratch.Library // nil with --library
	keep           bool
	embedder       embed.Embedder
	papers, chunks int
}

// close closes the library, then removes it if it is a scratch library
// not kept.
func (l *evalLibrary) close() {
	l.lib.Close()
	if l.scratch != nil && !l.keep {
		l.scratch.Remove()
	}
}

func (l *evalLibrary) keptDir() string {
	if l.scratch != nil && l.keep {
		return l.scratch.Dir
	}
	return ""
}

func (l *evalLibrary) ingestTime() time.Duration {
	if l.scratch == nil {
		return 0
	}
	return l.scratch.Took
}

func (l *evalLibrary) failed() int {
	if l.scratch == nil {
		return 0
	}
	return len(l.scratch.Failed)
}

// openEvalLibrary opens --library, or builds a scratch library from src
// (records that fail to ingest are warned about and skipped: the
// evaluation runs on the rest); a library with no papers is an error.
func openEvalLibrary(ctx context.Context, o *evalOptions, src ingest.Sources, logf func(string, ...any)) (*evalLibrary, error) {
	l := &evalLibrary{keep: o.keep}
	s, err := o.session()
	if err != nil {
		return nil, err
	}
	if o.library != "" {
		// read only what is there: a mistyped path must not become an empty library
		lib, err := o.libraryAt(ctx, o.library, false)
		if err != nil {
			return nil, withHint(err, "check --library: eval reads an existing library and creates none; or give --corpus to evaluate a scratch library")
		}
		if o.embedderSet {
			if err := checkLibrarySpec(ctx, lib, o); err != nil {
				lib.Close()
				return nil, err
			}
		}
		l.lib = lib
	} else {
		e, err := o.embedder.parse(s)
		if err != nil {
			return nil, err
		}
		sl, err := scratch.New(ctx, src, e)
		if sl != nil {
			warnFailed(o.io.ErrOut, sl, err == nil)
		}
		var none *scratch.NothingStoredError
		if errors.As(err, &none) {
			return nil, withHint(err, "check --corpus is a BEIR corpus.jsonl: one {\"_id\",\"title\",\"text\"} object per line")
		}
		if err != nil {
			return nil, err
		}
		if o.keep {
			// asked for, so said even with --json (where it is also a field)
			fmt.Fprintf(o.io.ErrOut, "scratch library: %s\n", sl.Dir)
		}
		logf("ingested %s in %.1f s", textkit.Count(sl.Stored, "paper"), sl.Took.Seconds())
		l.lib, l.scratch = sl.Library, sl
	}
	if l.embedder, err = s.LibraryEmbedder(ctx, l.lib); err == nil {
		l.papers, l.chunks, err = l.lib.Count(ctx)
	}
	if err == nil && l.papers == 0 {
		err = fmt.Errorf("the library at %s holds no papers", l.lib.Dir())
	}
	if err != nil {
		l.close()
		return nil, err
	}
	return l, nil
}

// warnFailed warns about the records of a scratch library that could not
// be ingested, and, when some were stored, that the rest is evaluated.
func warnFailed(errw io.Writer, sl *scratch.Library, someStored bool) {
	if len(sl.Failed) == 0 {
		return
	}
	for _, f := range sl.Failed[:min(5, len(sl.Failed))] {
		fmt.Fprintln(errw, safetext.Line("warning: "+f.Item+": "+f.Reason))
	}
	if someStored {
		// said even with --json (where it is also a field): the scores leave these out
		fmt.Fprintf(errw, "warning: %d of %d corpus records failed to ingest; evaluating the %d that did\n",
			len(sl.Failed), len(sl.Failed)+sl.Stored, sl.Stored)
	}
}

// checkLibrarySpec refuses an --embedder (and --dimensions) other than the
// one the --library was built with: its vectors can only be searched with
// their own embedder, so the flag cannot apply. Naming the library's own
// embedder is fine (e.g. PAPERS_EMBEDDER set for papers ingest).
func checkLibrarySpec(ctx context.Context, lib *store.Library, o *evalOptions) error {
	m, err := lib.Manifest(ctx)
	if err != nil || m.Embedder == "" {
		return err
	}
	spec, dims, err := embed.SpecOf(m.Embedder)
	if err != nil {
		return nil // libraryEmbedder says what to do about it
	}
	given := strings.TrimSpace(o.embedder.spec)
	if given == "" {
		given = "local"
	}
	if given == spec && o.embedder.dimensions == dims {
		return nil
	}
	return withHint(usageError("--embedder %s does not apply to --library: the library was built with %q", o.embedder.spec, m.Embedder),
		"drop --embedder (eval searches a library with the embedder it was built with), or re-embed it first: papers --home %s reindex --embedder %s", lib.Dir(), o.embedder.spec)
}
