package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/papers-cli/papers/embed"
	"github.com/papers-cli/papers/ingest"
	"github.com/papers-cli/papers/ingest/crossref"
	"github.com/papers-cli/papers/internal/safetext"
	"github.com/papers-cli/papers/internal/textkit"
	"github.com/papers-cli/papers/library"
)

func init() { register(newIngestCmd) }

type ingestOptions struct {
	*globalOptions
	max           int
	abstractsOnly bool
	retryFailed   bool
	jsonl         []string
	zotero        string
	bibs          []string
	doiPDFs       bool
	json          bool
	chunkSize     int
	chunkOverlap  int
	sizeSet       bool // --chunk-size given
	overlapSet    bool // --chunk-overlap given
	embedder      embedderFlags
	workers       int
	topic         string

	args []string
}

func newIngestCmd(g *globalOptions) *cobra.Command {
	o := &ingestOptions{globalOptions: g}
	c := &cobra.Command{
		Use:   "ingest [QUERY | ARXIV-ID | DOI | URL | FILE.pdf | DIR | FILE.bib]...",
		Short: "Add papers to the library from arXiv, DOIs, local PDFs, BibTeX, Zotero or a JSONL corpus",
		Long: `Add papers to the library.

An argument is taken as
  - a BibTeX file if its name ends in .bib (also --bib FILE);
  - a local PDF file or a directory (searched recursively for *.pdf), if it exists;
  - a DOI: 10.1145/1327452.1327492, doi:10..., https://doi.org/10...
    (Crossref's record; arXiv's own DOIs 10.48550/arXiv.ID are that arXiv id);
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

A .bib file's entries come in with their type, fields and citation key
(show and export find them by it); an entry with an arXiv id or DOI is that
paper; a file field (Zotero, JabRef, Mendeley, BibDesk) brings the PDF's
text. Entries that cannot be read are reported by line and skipped.

A local PDF that names a DOI (first page, XMP, Info) is filled from
Crossref; one with neither a DOI nor an arXiv id is searched for by title
and first author, and Crossref's answer is taken only when its title is
0.85 alike (a note says when it is not). With --pdf a DOI's open-access
PDF (the link Crossref lists, else the landing page's citation_pdf_url)
brings its full text; without, the paper holds its record and the
abstract Crossref has. Offline the file's own record is
kept; papers update fills it in. PAPERS_EMAIL puts Crossref requests in its
polite pool; PAPERS_CROSSREF_API_URL points at a mirror.

One paper is one entry: a PDF, a Zotero item, a BibTeX entry or a corpus
record of a paper the library holds (same arXiv id, DOI or file) joins it. A local PDF that
names its arXiv id (the arXiv stamp, an arxiv.org URL) is keyed by it, and
arXiv's record replaces what the file says of itself (one request for all
the files of a run; offline, the next run fills it in).`,
		Example: `  papers ingest 'abs:"reinforcement learning" AND abs:agent' --max 20
  papers ingest 2501.12948 2210.03629v3 https://arxiv.org/abs/1111.2011
  papers ingest ./paper.pdf ./papers-dir/
  papers ingest 10.1145/1327452.1327492 https://doi.org/10.1371/journal.pone.0033693
  papers ingest refs.bib --json | jq .failed
  papers ingest --jsonl corpus.jsonl --json | jq .failed
  papers ingest --zotero --json | jq .missing
  papers ingest --zotero ~/snap/zotero-snap/common/Zotero`,
		RunE: func(c *cobra.Command, args []string) error {
			if c.Flags().Changed("zotero") {
				args = o.zoteroDir(args)
			}
			if len(args) == 0 && len(o.jsonl) == 0 && o.zotero == "" && len(o.bibs) == 0 {
				return withHint(withExit(errors.New("nothing to ingest"), ExitUsage),
					"give an arXiv query, ids, PDF files or --jsonl FILE (see papers ingest --help)")
			}
			if o.max <= 0 {
				return usageError("--max must be at least 1, got %d", o.max)
			}
			o.sizeSet, o.overlapSet = c.Flags().Changed("chunk-size"), c.Flags().Changed("chunk-overlap")
			size := library.Chunking.Size // the library's is checked with it when only the overlap is given
			if o.sizeSet {
				if o.chunkSize <= 0 {
					return usageError("--chunk-size must be at least 1 word, got %d", o.chunkSize)
				}
				size = o.chunkSize
			}
			if o.overlapSet && (o.chunkOverlap < 0 || o.chunkOverlap >= size && o.sizeSet) {
				return usageError("--chunk-overlap must be from 0 to %d (less than --chunk-size), got %d", size-1, o.chunkOverlap)
			}
			if o.workers <= 0 {
				return usageError("--workers must be at least 1, got %d", o.workers)
			}
			o.args = args
			return runIngest(c.Context(), o)
		},
	}
	f := c.Flags()
	f.IntVar(&o.max, "max", library.IngestMax, "most papers to take from an arXiv search")
	f.BoolVar(&o.abstractsOnly, "abstracts-only", false, "skip PDFs: store titles and abstracts only")
	f.BoolVar(&o.retryFailed, "retry-failed", false, "try again now the PDFs that failed before (else on a schedule: after 6 h, 1 day, 4 days, then weekly)")
	f.StringArrayVar(&o.jsonl, "jsonl", nil, "ingest a BEIR-style JSONL corpus (repeatable)")
	f.StringVar(&o.zotero, "zotero", "", "import the Zotero library in `DIR` (Zotero's data directory; default ~/Zotero)")
	f.StringArrayVar(&o.bibs, "bib", nil, "ingest the entries of a BibTeX `FILE` (repeatable; a FILE.bib argument does the same)")
	f.BoolVar(&o.doiPDFs, "pdf", false, "for DOIs, also fetch the open-access PDF (the link Crossref lists, else the landing page's) for the full text; PAPERS_PDF=1 always does")
	f.Lookup("zotero").NoOptDefVal = zoteroDefault
	addJSON(c, &o.json, "print a JSON summary (added, updated, unchanged, failed, skipped)")
	f.IntVar(&o.chunkSize, "chunk-size", 0, fmt.Sprintf("target words per chunk (default: the library's, %d for a new one)", library.Chunking.Size))
	f.IntVar(&o.chunkOverlap, "chunk-overlap", 0, fmt.Sprintf("words repeated between consecutive chunks, 0 for none (default: the library's, %d for a new one)", library.Chunking.Overlap))
	o.embedder.register(c, "", "embedder for the chunks: local, openai:MODEL or ollama:MODEL (default: the library's, local for a new one)")
	f.IntVar(&o.workers, "workers", library.Workers, "papers extracted and embedded at once")
	f.StringVar(&o.topic, "topic", "", "the papers of this run join the followed topic `NAME` (papers topic add it first), as a topic's update makes them: a corpus becomes a topic to browse, digest and ask")
	return c
}

func runIngest(ctx context.Context, o *ingestOptions) error {
	start := time.Now()
	src := ingest.Classify(o.args)
	src.Corpora, src.Zotero, src.Max = o.jsonl, o.zotero, o.max
	src.Bibs = append(src.Bibs, o.bibs...)
	s, err := o.session()
	if err != nil {
		return err
	}
	defer s.Close()
	e, err := o.embedder.parseIfGiven(s)
	if err != nil {
		return err
	}
	prog := newIngestProgress(o.io, o.verbose)
	opts := library.IngestOptions{
		WriteOptions: o.writeOptions(e, o.abstractsOnly, o.retryFailed, o.workers, prog),
		Topic:        o.topic,
		DOIPDFs:      o.doiPDFs,
	}
	if o.sizeSet {
		opts.ChunkSize = &o.chunkSize
	}
	if o.overlapSet {
		opts.ChunkOverlap = &o.chunkOverlap
	}
	total, runErr := s.Ingest(ctx, src, opts)
	if errors.Is(runErr, library.ErrChunking) {
		prog.done()
		return withExit(runErr, ExitUsage)
	}
	if total == nil { // nothing ran: the library, the embedder or the topic refused
		prog.done()
		return runErr
	}
	_, kept := splitFailed(total.Failed)
	if err := finishIngest(ctx, o.globalOptions, prog, len(total.Added)+kept, len(total.Updated), ""); err != nil {
		return err
	}
	total.Elapsed = time.Since(start).Seconds() // the steps' own times leave out what failed early
	if o.json {
		if err := writeJSON(o.io.Out, total); err != nil {
			return err
		}
	} else {
		skipped := ""
		if len(total.Skipped) > 0 {
			skipped = fmt.Sprintf(", skipped %d", len(total.Skipped))
		}
		if len(total.Missing) > 0 {
			skipped += fmt.Sprintf(", %s missing", textkit.Count(len(total.Missing), "attachment"))
			warnMissing(o.io.ErrOut, total.Missing)
		}
		lost, kept := splitFailed(total.Failed)
		fmt.Fprintf(o.io.Out, "added %d, updated %d, unchanged %d, failed %d%s%s (%s, %s) in %.1fs\n",
			len(total.Added), len(total.Updated), len(total.Unchanged), lost, keptNote(kept), skipped, textkit.Count(total.Pages, "page"), textkit.Count(total.Chunks, "chunk"), total.Elapsed)
	}
	if runErr != nil {
		return runErr
	}
	if len(total.Failed) > 0 {
		return quietError{code: ExitError}
	}
	return nil
}

// splitFailed counts the failures of a run: items that are not in the
// library (lost), and papers stored with their abstract only because
// their PDF failed (kept), which the summary must not count as lost.
func splitFailed(fs []ingest.Failure) (lost, kept int) {
	for _, f := range fs {
		if f.AbstractKept {
			kept++
		} else {
			lost++
		}
	}
	return lost, kept
}

// keptNote is the summary's note of the papers stored with their abstract
// only: ", abstract only 19 (PDF failed, tried again later)".
func keptNote(kept int) string {
	if kept == 0 {
		return ""
	}
	return fmt.Sprintf(", abstract only %d (PDF failed, tried again later)", kept)
}

// writeOptions are the options of a write (ingest, update) from the flags:
// progress on stderr, the embedder given (nil: the library's).
func (g *globalOptions) writeOptions(e embed.Embedder, abstractsOnly, retryFailed bool, workers int, prog *ingestProgress) library.WriteOptions {
	return library.WriteOptions{
		Embedder: e, AbstractsOnly: abstractsOnly, RetryFailed: retryFailed, Workers: workers,
		Observer: prog.event, Logf: prog.logf, Waiting: waitingForReindex(g),
	}
}

// warnMissing names the Zotero attachments whose files are absent, the
// first ten of them (a library never synced can miss thousands; --json
// lists all).
func warnMissing(w io.Writer, ms []ingest.Missing) {
	const shown = 10
	for _, m := range ms[:min(shown, len(ms))] {
		fmt.Fprintf(w, "warning: %s: attachment %s is missing: %s\n", safetext.Line(m.Item), safetext.Line(m.Attachment), safetext.Line(m.Reason))
	}
	if len(ms) > shown {
		what := "attachments are"
		if len(ms)-shown == 1 {
			what = "attachment is"
		}
		fmt.Fprintf(w, "warning: %d more %s missing (--json lists them all)\n", len(ms)-shown, what)
	}
}

// finishIngest is the tail of ingest and update: it ends the progress
// display; on an interruption it says what the library kept (added: the
// papers stored new, with their full text or their abstract only, nothing
// that failed), then again, and returns the context's error.
func finishIngest(ctx context.Context, g *globalOptions, prog *ingestProgress, added, updated int, again string) error {
	prog.done()
	if ctx.Err() != nil {
		// what finished is committed; say what that is before exiting 130
		fmt.Fprintf(g.io.ErrOut, "kept %d added, %d updated before the interruption%s\n", added, updated, again)
		return ctx.Err()
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
	if errors.Is(err, ingest.ErrBibUnreadable) {
		return "give a BibTeX file (@article{key, title = {...}, ...}) that exists: check its path"
	}
	if errors.Is(err, crossref.ErrNotFound) {
		return "check the DOI (https://doi.org/ followed by it opens the paper's page); DOIs registered with DataCite (Zenodo, figshare, datasets) are not in Crossref"
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
