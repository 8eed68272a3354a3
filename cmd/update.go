package cmd

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/papers-cli/papers/internal/safetext"
	"github.com/papers-cli/papers/internal/textkit"
	"github.com/papers-cli/papers/library"
	"github.com/papers-cli/papers/store"
	"github.com/papers-cli/papers/topic"
)

func init() { register(newUpdateCmd) }

type updateOptions struct {
	*globalOptions
	abstractsOnly bool
	retryFailed   bool
	json          bool
	max           int
	window        string
	embedder      embedderFlags
	workers       int

	names []string
}

func newUpdateCmd(g *globalOptions) *cobra.Command {
	o := &updateOptions{globalOptions: g}
	c := &cobra.Command{
		Use:   "update [NAME]...",
		Short: "Fetch what is new or revised in followed topics (all by default)",
		Long: `Fetch what is new or revised on arXiv in each followed topic since its last
update, newest first, stopping at papers the library already holds at the
same version; ingest them (abstract and PDF, as papers ingest does) and
record when the update ran. The first update of a topic reads back --window.
Then the papers held with an arXiv id but not arXiv's record (local PDFs and
Zotero items ingested offline) get it, in one look-up; with no topic
followed, that is all an update does.

Safe from cron: no terminal needed (progress goes to stderr as plain lines),
exit 0 when every paper went in (a paper whose PDF failed is kept with its
abstract, reported, and its PDF retried later: after 6 h, 1 day, 4 days, then
weekly), 1 when some paper or topic failed (the rest is kept), 130 when
interrupted. Interrupting and re-running is safe: what was stored is
kept, and the next run goes over the same ground without downloading again.`,
		Example: `  papers update
  papers update rl-agents --abstracts-only
  papers update --json | jq -r '.added[]'
  # crontab: every morning, then mail the digest
  0 7 * * *  papers update && papers digest rl-agents --since 1d | mail -s digest me@example.org`,
		RunE: func(c *cobra.Command, args []string) error {
			if o.max <= 0 {
				return usageError("--max must be at least 1, got %d", o.max)
			}
			o.names = args
			return runUpdate(c.Context(), o)
		},
	}
	f := c.Flags()
	f.BoolVar(&o.abstractsOnly, "abstracts-only", false, "skip PDFs: store titles and abstracts only")
	f.BoolVar(&o.retryFailed, "retry-failed", false, "try again now the PDFs that failed before (else on a schedule: after 6 h, 1 day, 4 days, then weekly)")
	addJSON(c, &o.json, "print a JSON summary (added, updated, unchanged, failed, and per topic)")
	f.IntVar(&o.max, "max", library.UpdateMax, "most papers to ingest per topic in one run (the rest come next run)")
	f.StringVar(&o.window, "window", library.Window, "how far back a topic's first update reads (e.g. 30d, 12w, 6m)")
	o.embedder.register(c, "", "embedder for the chunks: local, openai:MODEL or ollama:MODEL (default: the library's)")
	f.IntVar(&o.workers, "workers", library.Workers, "papers extracted and embedded at once")
	return c
}

func runUpdate(ctx context.Context, o *updateOptions) error {
	stderr := o.io.ErrOut
	now := time.Now()
	from, err := parseDate(o.window, now)
	if err != nil {
		return err
	}
	window := now.Sub(from)
	if from.IsZero() || window <= 0 {
		return usageError("--window must reach back from now, got %q: give a span like 30d, 12w, 6m, or a past date", o.window)
	}
	s, lib, err := openExisting(ctx, o.globalOptions)
	if err != nil {
		return err
	}
	defer s.Close()
	e, err := o.embedder.parseIfGiven(s)
	if err != nil {
		return err
	}
	prog := newIngestProgress(o.io, o.verbose)
	sum, err := s.Update(ctx, o.names, library.UpdateOptions{
		WriteOptions: o.writeOptions(e, o.abstractsOnly, o.retryFailed, o.workers, prog),
		Window:       window, Max: o.max,
	})
	if sum == nil { // nothing ran: the topics, the library or the embedder refused
		prog.done()
		return err
	}
	var failed []error // one per failed topic, with its hint
	for _, r := range sum.Topics {
		if r.Gap != nil {
			warnGap(stderr, r.UpdateResult, now)
		}
		if r.Err != nil {
			failed = append(failed, r.Err) // with its hint (library.Session.Update)
		}
	}
	if sum.FillErr != nil {
		failed = append(failed, sum.FillErr)
	}
	_, kept := splitFailed(sum.Failed)
	if err := finishIngest(ctx, o.globalOptions, prog, len(sum.Added)+kept, len(sum.Updated), "; run papers update again to finish"); err != nil {
		return err
	}
	sum.Elapsed = time.Since(now).Seconds()
	if err := printUpdate(ctx, o, lib, sum); err != nil {
		return err
	}
	if len(failed) == 1 && len(sum.Topics) == 1 {
		return failed[0]
	}
	for _, err := range failed {
		report(ctx, err, stderr) // each once, with its hint
	}
	if len(failed) > 0 {
		return quietError{code: ExitError}
	}
	// Papers kept with their abstract (a PDF failed) are in the library:
	// they are reported, retried on their schedule, and do not fail the run,
	// so that `papers update && papers digest` sends the digest.
	for _, f := range sum.Failed {
		if !f.AbstractKept {
			return quietError{code: ExitError}
		}
	}
	return nil
}

// printUpdate writes the summary: --json, or per topic what it brought.
func printUpdate(ctx context.Context, o *updateOptions, lib *store.Library, sum *topic.Summary) error {
	stdout := o.io.Out
	if o.json {
		return writeJSON(stdout, sum)
	}
	for _, r := range sum.Topics {
		rep := r.Report
		if rep == nil {
			fmt.Fprintf(stdout, "%s: failed\n", r.Topic)
			continue
		}
		lost, kept := splitFailed(rep.Failed)
		fmt.Fprintf(stdout, "%s: added %d, updated %d, unchanged %d, failed %d%s\n", r.Topic, len(rep.Added), len(rep.Updated), len(rep.Unchanged), lost, keptNote(kept))
		if err := listPapers(ctx, lib, stdout, "  + ", rep.Added); err != nil {
			return err
		}
		if err := listPapers(ctx, lib, stdout, "  ~ ", rep.Updated); err != nil {
			return err
		}
		if r.Truncated {
			fmt.Fprintf(stdout, "  (stopped at --max %d; run papers update %s again for the rest)\n", o.max, shellArg(r.Topic))
		}
	}
	if len(sum.ArxivFilled) > 0 {
		fmt.Fprintf(stdout, "arXiv's record for papers held without it: %d\n", len(sum.ArxivFilled))
		if err := listPapers(ctx, lib, stdout, "  ~ ", sum.ArxivFilled); err != nil {
			return err
		}
	}
	if len(sum.CrossrefFilled) > 0 {
		fmt.Fprintf(stdout, "Crossref's record for local PDFs held without it: %d\n", len(sum.CrossrefFilled))
		return listPapers(ctx, lib, stdout, "  ~ ", sum.CrossrefFilled)
	}
	return nil
}

// warnGap says which span a run with too short a window left unread and
// which --window reads it.
func warnGap(w io.Writer, r *topic.UpdateResult, now time.Time) {
	week := 7 * 24 * time.Hour
	weeks := (now.Sub(r.Gap.From.Add(-topic.Lag)) + week - 1) / week
	fmt.Fprintf(w, "warning: topic %s: papers from %s to %s were not fetched: the last complete update reached %s, and --window reaches back only to %s\n",
		r.Topic, textkit.Day(r.Gap.From), textkit.Day(r.Gap.To), textkit.Day(r.Gap.From), textkit.Day(r.Gap.To))
	fmt.Fprintf(w, "hint: fill the gap with `papers update %s --window %dw`\n", shellArg(r.Topic), weeks)
}

func listPapers(ctx context.Context, lib *store.Library, w io.Writer, prefix string, ids []string) error {
	for _, id := range ids {
		p, err := lib.Get(ctx, id)
		if err != nil {
			fmt.Fprintf(w, "%s%s\n", prefix, safetext.Line(id))
			continue
		}
		fmt.Fprintf(w, "%s%sv%d  %s  %s\n", prefix, safetext.Line(p.ID), p.Version, textkit.Day(p.Published), safetext.Line(oneLineTitle(p.Title)))
	}
	return nil
}

func oneLineTitle(s string) string { return textkit.Truncate(safetext.OneLine(s), 100) }
