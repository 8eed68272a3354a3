package cmd

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/papers-cli/papers/ingest"
	"github.com/papers-cli/papers/ingest/arxiv"
	"github.com/papers-cli/papers/ingest/chunk"
)

func init() { register(newIngestCmd) }

type ingestOptions struct {
	*globalOptions
	max           int
	abstractsOnly bool
	jsonl         []string
	zotero        string
	json          bool
	chunkSize     int
	chunkOverlap  int
	embedder      embedderFlags
	workers       int

	args []string
}

func newIngestCmd(g *globalOptions) *cobra.Command {
	o := &ingestOptions{globalOptions: g}
	c := &cobra.Command{
		Use:   "ingest [QUERY | ARXIV-ID | URL | FILE.pdf | DIR]...",
		Short: "Add papers to the library from arXiv, local PDFs or a JSONL corpus",
		Long: `Add papers to the library.

An argument is taken as
  - a local PDF file or a directory (searched recursively for *.pdf), if it exists;
  - an arXiv id or URL: 2501.12948, 2210.03629v3, astro-ph/0601001,
    https://arxiv.org/abs/1111.2011, https://arxiv.org/pdf/2501.12948v1;
  - otherwise an arXiv search query in arXiv syntax (ti:, abs:, au:, cat:,
    AND, OR, ANDNOT, "quoted phrases"), newest papers first, up to --max.

For each arXiv paper the abstract and the PDF are downloaded (one request
every PAPERS_ARXIV_DELAY, default 3s, as arXiv asks), the PDF's text is
extracted page by page, chunked and embedded. A paper whose PDF fails keeps
its abstract and is reported. Re-running is safe: papers held at the same
version are left alone, a newer version replaces the older one.

--jsonl takes a BEIR-style corpus: one {"_id","title","text","metadata"}
object per line (metadata: published, categories, authors, url, doi,
arxiv_id, tags). An _id given twice in one file keeps its first record; the
later one is skipped with a warning.

--zotero [DIR] imports a Zotero library (DIR is Zotero's data directory,
default ~/Zotero): every item not in the trash with its record, tags and
collections (as tags "zotero:Collection/Sub") and the text of its PDF.
zotero.sqlite is copied and the copy read, so Zotero may be running; nothing
of Zotero's is written. Attachments whose files are absent are listed as
missing; the items come in all the same. A re-run reads only items changed
since.

One paper is one entry: a PDF, a Zotero item or a corpus record of a paper
the library holds (same arXiv id, DOI or file) joins it. A local PDF that
names its arXiv id (the arXiv stamp, an arxiv.org URL) is keyed by it, and
arXiv's record replaces what the file says of itself (one request for all
the files of a run; offline, the next run fills it in).`,
		Example: `  papers ingest 'abs:"reinforcement learning" AND abs:agent' --max 20
  papers ingest 2501.12948 2210.03629v3 https://arxiv.org/abs/1111.2011
  papers ingest ./paper.pdf ./papers-dir/
  papers ingest --jsonl corpus.jsonl --json | jq .failed
  papers ingest --zotero --json | jq .missing
  papers ingest --zotero ~/snap/zotero-snap/common/Zotero`,
		RunE: func(c *cobra.Command, args []string) error {
			if c.Flags().Changed("zotero") {
				args = o.zoteroDir(args)
			}
			if len(args) == 0 && len(o.jsonl) == 0 && o.zotero == "" {
				return withHint(withExit(errors.New("nothing to ingest"), ExitUsage),
					"give an arXiv query, ids, PDF files or --jsonl FILE (see papers ingest --help)")
			}
			if o.max <= 0 {
				return usageError("--max must be at least 1, got %d", o.max)
			}
			if o.chunkSize <= 0 {
				return usageError("--chunk-size must be at least 1 word, got %d", o.chunkSize)
			}
			if o.chunkOverlap < 0 || o.chunkOverlap >= o.chunkSize {
				return usageError("--chunk-overlap must be from 0 to %d (less than --chunk-size), got %d", o.chunkSize-1, o.chunkOverlap)
			}
			if o.workers <= 0 {
				return usageError("--workers must be at least 1, got %d", o.workers)
			}
			o.args = args
			return runIngest(c.Context(), o)
		},
	}
	f := c.Flags()
	f.IntVar(&o.max, "max", 50, "most papers to take from an arXiv search")
	f.BoolVar(&o.abstractsOnly, "abstracts-only", false, "skip PDFs: store titles and abstracts only")
	f.StringArrayVar(&o.jsonl, "jsonl", nil, "ingest a BEIR-style JSONL corpus (repeatable)")
	f.StringVar(&o.zotero, "zotero", "", "import the Zotero library in `DIR` (Zotero's data directory; default ~/Zotero)")
	f.Lookup("zotero").NoOptDefVal = zoteroDefault
	addJSON(c, &o.json, "print a JSON summary (added, updated, unchanged, failed, skipped)")
	f.IntVar(&o.chunkSize, "chunk-size", 180, "target words per chunk")
	f.IntVar(&o.chunkOverlap, "chunk-overlap", 30, "words repeated between consecutive chunks")
	o.embedder.register(c, "", "embedder for the chunks: local, openai:MODEL or ollama:MODEL (default: the library's, local for a new one)")
	f.IntVar(&o.workers, "workers", 2, "papers extracted and embedded at once")
	return c
}

// newArxivClient builds the arXiv client from the environment
// (PAPERS_ARXIV_API_URL, PAPERS_ARXIV_PDF_URL, PAPERS_ARXIV_DELAY).
func newArxivClient() (*arxiv.Client, error) {
	c := arxiv.New()
	c.UserAgent = fmt.Sprintf("papers/%s (+https://github.com/papers-cli/papers)", Version)
	if v := os.Getenv("PAPERS_ARXIV_API_URL"); v != "" {
		c.APIURL = v
	}
	if v := os.Getenv("PAPERS_ARXIV_PDF_URL"); v != "" {
		c.PDFURL = v
	}
	if v := os.Getenv("PAPERS_ARXIV_DELAY"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil {
			secs, err2 := strconv.ParseFloat(v, 64)
			if err2 != nil || secs < 0 {
				return nil, usageError("invalid PAPERS_ARXIV_DELAY=%q: use a duration like 3s or 500ms", v)
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

// idShaped matches arguments meant as arXiv ids even when malformed:
// digits and dots ("2501.1294"), "arXiv:..." and arxiv.org URLs.
var idShaped = regexp.MustCompile(`^(?i:[0-9][0-9.]*(v[0-9]*)?|arxiv:.*|https?://(www\.|export\.)?arxiv\.org/.*)$`)

// classify sorts the arguments into local paths, arXiv ids and a query.
func classify(args []string) (paths, ids []string, query string) {
	var q []string
	for _, a := range args {
		if _, err := os.Stat(a); err == nil {
			paths = append(paths, a)
			continue
		}
		if arxiv.LooksLikeID(a) || idShaped.MatchString(a) {
			ids = append(ids, a) // a malformed id is reported as such, not searched for
			continue
		}
		if strings.HasSuffix(strings.ToLower(a), ".pdf") || strings.ContainsRune(a, filepath.Separator) && !strings.Contains(a, ":") {
			paths = append(paths, a) // a path that does not exist: reported as unreadable
			continue
		}
		q = append(q, a)
	}
	return paths, ids, strings.Join(q, " ")
}

func runIngest(ctx context.Context, o *ingestOptions) error {
	stdout, stderr := o.io.Out, o.io.ErrOut
	start := time.Now()
	paths, ids, query := classify(o.args)
	lib, err := openLibrary(ctx, o.globalOptions)
	if err != nil {
		return err
	}
	defer lib.Close()
	release, err := holdEmbedder(ctx, lib, stderr)
	if err != nil {
		return err
	}
	defer release()
	e, err := embedderFor(ctx, lib, o.embedder.spec, o.io)
	if err != nil {
		return err
	}
	opts := chunk.Options{Size: o.chunkSize, Overlap: o.chunkOverlap}
	if err := lib.SetChunker(ctx, opts.Version()); err != nil {
		return err
	}
	client, err := newArxivClient()
	if err != nil {
		return err
	}
	prog := newIngestProgress(o.io, o.verbose)
	in := &ingest.Ingester{
		Lib: lib, Embedder: e, Arxiv: client, Chunking: opts,
		CacheDir:      filepath.Join(lib.Dir(), "cache", "pdf"),
		AbstractsOnly: o.abstractsOnly, Workers: o.workers,
		Observer: prog.event,
	}
	client.Logf = prog.logf

	total := &ingest.Report{Added: []string{}, Updated: []string{}, Unchanged: []string{}, Failed: []ingest.Failure{}, Skipped: []ingest.Skip{}, Missing: []ingest.Missing{}}
	var runErr error
	step := func(rep *ingest.Report, err error) bool {
		if rep != nil {
			total.Merge(rep)
		}
		if err != nil {
			runErr = err
			return false
		}
		return true
	}
	ok := true
	if len(paths) > 0 {
		ok = step(in.Paths(ctx, paths))
	}
	for _, f := range o.jsonl {
		if ok {
			rep, err := in.JSONL(ctx, f)
			if errors.Is(err, ingest.ErrCorpusUnreadable) {
				err = nil // one argument's failure, in the report: the run goes on
			}
			ok = step(rep, err)
		}
	}
	if ok && o.zotero != "" {
		ok = step(in.Zotero(ctx, o.zotero))
	}
	if ok && len(ids) > 0 {
		ok = step(in.ArxivIDs(ctx, ids))
	}
	if ok && query != "" {
		ok = step(in.ArxivQuery(ctx, query, o.max))
	}
	if len(total.Added)+len(total.Updated) > 0 && ctx.Err() == nil {
		// pay the search index rebuild now, not in the next search
		if err := lib.Refresh(ctx); err != nil && ctx.Err() == nil {
			prog.logf("could not refresh the search index (the next search rebuilds it): %v", err)
		}
	}
	prog.done()
	total.Elapsed = time.Since(start).Seconds() // the steps' own times leave out what failed early
	if ctx.Err() != nil {
		// what finished is committed; say what that is before exiting 130
		fmt.Fprintf(stderr, "kept %d added, %d updated before the interruption\n", len(total.Added), len(total.Updated))
		return ctx.Err()
	}
	if o.json {
		if err := writeJSON(stdout, total); err != nil {
			return err
		}
	} else {
		skipped := ""
		if len(total.Skipped) > 0 {
			skipped = fmt.Sprintf(", skipped %d", len(total.Skipped))
		}
		if len(total.Missing) > 0 {
			noun := "attachments"
			if len(total.Missing) == 1 {
				noun = "attachment"
			}
			skipped += fmt.Sprintf(", %d %s missing", len(total.Missing), noun)
		}
		fmt.Fprintf(stdout, "added %d, updated %d, unchanged %d, failed %d%s (%d pages, %d chunks) in %.1fs\n",
			len(total.Added), len(total.Updated), len(total.Unchanged), len(total.Failed), skipped, total.Pages, total.Chunks, total.Elapsed)
	}
	if runErr != nil {
		return arxivHint(runErr)
	}
	if len(total.Failed) > 0 {
		return quietError{code: ExitError}
	}
	return nil
}

// zoteroDefault stands for --zotero given without a directory.
const zoteroDefault = "~/Zotero"

// zoteroDir settles --zotero's directory: given as --zotero DIR (a
// positional argument that is a Zotero data directory), as --zotero=DIR,
// or not at all (~/Zotero). It returns the other arguments.
func (o *ingestOptions) zoteroDir(args []string) []string {
	if o.zotero == zoteroDefault {
		for i, a := range args {
			if st, err := os.Stat(filepath.Join(a, "zotero.sqlite")); err == nil && !st.IsDir() {
				o.zotero = a
				return append(args[:i:i], args[i+1:]...)
			}
		}
	}
	if rest, ok := strings.CutPrefix(o.zotero, "~"); ok && (rest == "" || rest[0] == '/' || rest[0] == filepath.Separator) {
		if home, err := os.UserHomeDir(); err == nil {
			o.zotero = filepath.Join(home, rest)
		}
	}
	return args
}

// itemHint names the fix for one item's failure, or "" when there is none
// to give.
func itemHint(err error) string {
	if errors.Is(err, ingest.ErrZoteroUnreadable) {
		return "give Zotero's data directory, the one holding zotero.sqlite: papers ingest --zotero DIR (Zotero shows it in Settings > Advanced > Files and Folders)"
	}
	if errors.Is(err, ingest.ErrCorpusUnreadable) {
		return `--jsonl takes a file with one {"_id","title","text"} object per line: check its path`
	}
	var clash *ingest.IDClashError
	if errors.As(err, &clash) {
		if clash.Incoming == "jsonl" {
			return `ids are shared by every source: give the corpus record another _id (e.g. "corpus:` + clash.ID + `"); the paper held is kept`
		}
		return "ids are shared by every source: give the corpus record another _id in its file (or papers rm " + clash.ID + " first); the paper held is kept"
	}
	var h interface{ Hint() string }
	if errors.As(extractHint(err), &h) { // what papers extract says of the same PDF
		return h.Hint()
	}
	return ""
}

// arxivHint adds what to do about an error that stopped the run.
func arxivHint(err error) error {
	if errors.Is(err, ingest.ErrZoteroUnreadable) {
		return withHint(err, "%s", itemHint(err))
	}
	if ingest.Systemic(err) {
		return withHint(err, "check the embedding server (OPENAI_BASE_URL, OPENAI_API_KEY, or OLLAMA_HOST for ollama:) and the model name, or use --embedder local; what was ingested before is kept")
	}
	var api *arxiv.APIError
	if errors.As(err, &api) {
		return withHint(err, "check the query syntax: ti:, abs:, au:, cat:, AND, OR, ANDNOT, \"phrases\" (https://info.arxiv.org/help/api/user-manual.html)")
	}
	return withHint(err, "check the network, or set PAPERS_ARXIV_API_URL to a mirror; what was ingested before is kept")
}
