package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"

	"github.com/papers-cli/papers/internal/textkit"
	"github.com/papers-cli/papers/library"
	"github.com/papers-cli/papers/review"
	"github.com/papers-cli/papers/store"
)

func init() { register(newReviewCmd) }

type reviewOptions struct {
	*globalOptions
	filter    filterFlags
	llm       llmFlags
	format    formatFlags
	query     string
	max       int
	columns   []string
	file      string
	save      string
	recompute bool
	remove    bool

	maxGiven bool
	output   string
	args     []string
}

func newReviewCmd(g *globalOptions) *cobra.Command {
	o := &reviewOptions{globalOptions: g}
	c := &cobra.Command{
		Use:   "review [ID... | NAME] --column QUESTION...",
		Short: "A literature-review table: papers x questions, every cell quoted and paged",
		Long: `review asks every paper the same questions and prints the answers as a
table: a row per paper, a column per question. Each cell holds a short
answer, the sentence of the paper it comes from (found verbatim in the
paper) with its page and section, or "not stated" when the paper does not
say: never a guess.

Papers: ids, --topic, --tag, --saved, or the best papers of a search
(--query), narrowed by --category, --author, --since and --until; at most
--max (default 50). Columns: --column QUESTION (repeatable) or --columns
FILE (one per line, "name: question" to name the column; - reads stdin).
A bare name ("Datasets") is asked as "What are the datasets?".

Offline by default: each paper is asked as papers ask --paper ID asks it.
With --llm a model fills each cell from the passages retrieved for it, and
its quote is shown only when the paper holds it verbatim (otherwise the cell
is marked). Cells are cached in the library by paper version, question and
answerer: a re-run, or the same review after papers update added papers,
computes only the new cells (--recompute computes them all again). --save
NAME keeps the review's papers and columns; papers review NAME runs it
again. Ctrl-C keeps the cells done.

Formats: an aligned table (wrapped to the terminal, 100 columns when piped),
--format markdown (a pipe table for notes), --format csv (one row per paper,
answer, quote, page and section columns per question) and --json:
{"columns": [QUESTION...], "rows": [{"id", "title", "cells": [{"column",
"answer", "quote", "page", "section", "stated", "score"}]}]}.`,
		Example: `  papers review --topic rl-agents --column "What problem does it address?" --column "What method does it propose?"
  papers review 2501.12948 2302.04761 --columns questions.txt --format markdown > review.md
  papers review --query "credit assignment" --max 10 --column Datasets --column "Main result" --save credit
  papers review credit --format csv > credit.csv          # the saved review, new papers' cells only
  papers review --tag to-read --column "How much better is it?" --llm ollama:llama3.1
  papers review credit --json | jq -r '.rows[] | [.title, .cells[0].answer] | @tsv'`,
		RunE: func(c *cobra.Command, args []string) error {
			if err := o.complete(c, args); err != nil {
				return err
			}
			return runReview(c.Context(), o)
		},
	}
	o.filter.register(c, filterPapers)
	f := c.Flags()
	f.StringVar(&o.query, "query", "", "the papers whose passages best match this search, best first")
	f.IntVar(&o.max, "max", review.DefaultMax, "most papers in the review")
	f.StringArrayVar(&o.columns, "column", nil, `a question asked of every paper, or "name: question" (repeatable)`)
	f.StringVar(&o.file, "columns", "", "a file of columns, one per line (- for stdin)")
	f.StringVar(&o.save, "save", "", "keep the review's papers and columns as NAME: papers review NAME runs it again")
	f.BoolVar(&o.recompute, "recompute", false, "compute every cell again instead of reusing the cached ones")
	f.BoolVar(&o.remove, "rm", false, "remove the saved review NAME (its cached cells stay)")
	o.format.register(c, review.FormatTable, []string{review.FormatTable, review.FormatMarkdown, review.FormatCSV, "json"},
		map[string]string{"md": review.FormatMarkdown, "text": review.FormatTable}, "output: table, markdown, csv or json (--json)")
	o.format.shortcut(c, "json", "json", "print one JSON document: columns and rows with their cells (same as --format json)")
	o.llm.register(c, "answer offline even when --llm or PAPERS_LLM names a model")
	// a review is offline unless a model is named: OPENAI_API_KEY alone does not make 180 requests
	f.Lookup("llm").Usage = "a model fills each cell: openai:MODEL, ollama:MODEL or MODEL on OPENAI_BASE_URL (default: offline, even with OPENAI_API_KEY set)"
	return c
}

// complete checks the flags that need no library.
func (o *reviewOptions) complete(c *cobra.Command, args []string) error {
	o.args = args
	var err error
	if o.output, err = o.format.resolve(c); err != nil {
		return err
	}
	o.maxGiven = c.Flags().Changed("max")
	if o.maxGiven && o.max < 1 {
		return usageError("--max must be at least 1, got %d", o.max)
	}
	if o.save != "" {
		if err := review.CheckName(o.save); err != nil {
			return withExit(err, ExitUsage)
		}
	}
	if o.remove && (len(args) != 1 || o.selects() || len(o.columns) > 0 || o.file != "") {
		return usageError("--rm takes the saved review's name alone: papers review NAME --rm")
	}
	_, err = o.filter.check()
	return err
}

// selects reports flags that choose papers.
func (o *reviewOptions) selects() bool {
	return o.filter.selects() || o.query != "" || len(o.filter.Categories) > 0 || len(o.filter.Authors) > 0 ||
		o.filter.Since != "" || o.filter.Until != ""
}

// spec is the review the flags and arguments name.
func (o *reviewOptions) spec() (review.Spec, error) {
	s := review.Spec{Papers: o.args, Topics: o.filter.Topics, Tags: o.filter.Tags, Saved: o.filter.Saved,
		Categories: o.filter.Categories, Authors: o.filter.Authors, Since: o.filter.Since, Until: o.filter.Until,
		Query: strings.TrimSpace(o.query), Max: o.max}
	for _, q := range o.columns {
		col, err := review.ParseColumn(q)
		if err != nil {
			return s, withExit(fmt.Errorf("--column: %w", err), ExitUsage)
		}
		s.Columns = append(s.Columns, col)
	}
	if o.file != "" {
		var r io.Reader
		if o.file == "-" {
			r = o.io.In
		} else {
			f, err := os.Open(o.file)
			if err != nil {
				return s, withExit(fmt.Errorf("--columns: %w", err), ExitUsage)
			}
			defer f.Close()
			r = f
		}
		cols, err := review.ReadColumns(r)
		if err != nil {
			return s, withExit(fmt.Errorf("--columns %s: %w", o.file, err), ExitUsage)
		}
		s.Columns = append(s.Columns, cols...)
	}
	return s, nil
}

func runReview(ctx context.Context, o *reviewOptions) error {
	model := !o.llm.extractive && strings.TrimSpace(o.llm.spec) != "" // a review is offline unless a model is named
	var mods []func(*library.Config)
	if model {
		if err := o.llm.check(); err != nil {
			return err
		}
		mods = append(mods, o.llm.set(false))
	}
	s, lib, err := openExisting(ctx, o.globalOptions, mods...)
	if err != nil {
		return err
	}
	defer s.Close()
	spec, saved, err := o.resolveSpec(ctx, lib)
	if err != nil || saved == nil && spec.Columns == nil {
		return err // listed or removed saved reviews, or an error
	}
	if len(spec.Columns) == 0 {
		return errNoColumns
	}
	if spec.Columns, err = review.CheckColumns(spec.Columns); err != nil {
		return withExit(err, ExitUsage)
	}
	if !spec.Selects() {
		return withHint(withExit(fmt.Errorf("%w: name them by id, --topic, --tag, --saved or --query", review.ErrNoPapers), ExitUsage),
			"papers review --topic NAME --column QUESTION, or give ids; papers review alone lists the saved reviews")
	}
	if o.save != "" {
		b, err := spec.Encode()
		if err != nil {
			return err
		}
		if err := lib.SaveReview(ctx, o.save, b); err != nil {
			return err
		}
		fmt.Fprintf(o.io.ErrOut, "saved review %s: papers review %s runs it again\n", o.save, o.save)
	}
	start := time.Now()
	prog := newReviewProgress(o.io)
	res, err := s.Review(ctx, spec, library.ReviewOptions{Model: model, Recompute: o.recompute, Progress: prog.update})
	prog.done()
	reportUsage(o.globalOptions, s) // with a model: its tokens and cost; --max-cost stops the cells there, the done kept
	if res == nil || res.Table == nil {
		return usage(err)
	}
	t := res.Table
	if res.Papers == 0 {
		return withHint(withExit(errors.New("no paper of the library matches the review's selection"), ExitNoEvidence), "check the filters with papers list (same flags)")
	}
	if res.More > 0 {
		fmt.Fprintf(o.io.ErrOut, "note: the review has the first %d papers; more match (raise --max)\n", res.Papers)
	}
	for _, w := range t.Warnings {
		fmt.Fprintf(o.io.ErrOut, "warning: %s\n", w)
	}
	if o.verbose {
		fmt.Fprintf(o.io.ErrOut, "%d cells: %d cached, %d computed by %s in %s\n", t.Cached+t.Computed+t.Missing, t.Cached, t.Computed,
			t.Answerer, time.Since(start).Round(time.Millisecond))
		if t.Usage.PromptTokens > 0 {
			fmt.Fprintf(o.io.ErrOut, "model: %d prompt + %d completion tokens\n", t.Usage.PromptTokens, t.Usage.CompletionTokens)
		}
	}
	if err != nil {
		if t.Missing > 0 {
			fmt.Fprintf(o.io.ErrOut, "stopped with %d of %d cells done; they are kept: run the same command again to finish\n",
				t.Cached+t.Computed, t.Cached+t.Computed+t.Missing)
		}
		return err
	}
	switch o.output {
	case "json":
		return writeJSON(o.io.Out, t)
	case review.FormatMarkdown:
		return review.WriteMarkdown(o.io.Out, t)
	case review.FormatCSV:
		return review.WriteCSV(o.io.Out, t)
	}
	width := 0
	if o.io.OutTTY {
		width = o.io.Width
	}
	return review.WriteTable(o.io.Out, t, width)
}

// resolveSpec is the review to run: the one the flags name, or the saved
// review named by the only argument (no columns given). With no argument
// and no selection it lists the saved reviews; with --rm it removes one:
// both return a nil spec.
func (o *reviewOptions) resolveSpec(ctx context.Context, lib *store.Library) (review.Spec, *review.Spec, error) {
	spec, err := o.spec()
	if err != nil {
		return spec, nil, err
	}
	if len(o.args) == 0 && !o.selects() && spec.Columns == nil {
		return spec, nil, o.listSaved(ctx, lib)
	}
	if len(o.args) == 1 && review.CheckName(o.args[0]) == nil {
		sr, err := lib.Review(ctx, o.args[0])
		switch {
		case err == nil && (spec.Columns != nil || o.selects()):
			return spec, nil, withHint(usageError("review %s is saved: run it alone (papers review %s)", sr.Name, sr.Name),
				"to change it, give its papers and columns again with --save %s", sr.Name)
		case err == nil && o.remove:
			if err := lib.RemoveReview(ctx, sr.Name); err != nil {
				return spec, nil, err
			}
			fmt.Fprintf(o.io.ErrOut, "removed review %s\n", sr.Name)
			return spec, nil, nil
		case err == nil:
			saved, err := review.Decode(sr.Spec)
			if err != nil {
				return spec, nil, err
			}
			if o.maxGiven {
				saved.Max = o.max
			}
			return saved, &saved, nil
		case !errors.Is(err, store.ErrNotFound):
			return spec, nil, err
		case spec.Columns == nil && !o.selects():
			return spec, nil, withHint(withExit(fmt.Errorf("no saved review %q", o.args[0]), ExitUsage),
				"papers review lists the saved reviews; a new review needs --column QUESTION")
		}
	}
	if o.remove {
		return spec, nil, usageError("--rm takes the saved review's name alone: papers review NAME --rm")
	}
	return spec, &spec, nil
}

func (o *reviewOptions) listSaved(ctx context.Context, lib *store.Library) error {
	rs, err := lib.Reviews(ctx)
	if err != nil {
		return err
	}
	if len(rs) == 0 {
		return errNoColumns
	}
	tb := newTable(o.io.Out, o.io)
	for _, r := range rs {
		s, err := review.Decode(r.Spec)
		if err != nil {
			tb.row(r.Name, r.Updated.Format("2006-01-02"), "unreadable: "+err.Error())
			continue
		}
		var qs []string
		for _, c := range s.Columns {
			qs = append(qs, c.Name)
		}
		tb.row(r.Name, r.Updated.Format("2006-01-02"), specSummary(s), strings.Join(qs, ", "))
	}
	tb.flush()
	return nil
}

// errNoColumns is the error of a review with no question.
var errNoColumns = withHint(withExit(errors.New("no columns: a review asks every paper the questions given with --column QUESTION or --columns FILE"), ExitUsage),
	`papers review --topic NAME --column "What problem does it address?" --column "What method does it propose?"`)

// specSummary says which papers a saved review has: "topic rl-agents",
// "3 papers", "search "credit assignment"".
func specSummary(s review.Spec) string {
	var parts []string
	if len(s.Papers) > 0 {
		parts = append(parts, textkit.Count(len(s.Papers), "paper"))
	}
	for _, t := range s.Topics {
		parts = append(parts, "topic "+t)
	}
	for _, t := range s.Tags {
		parts = append(parts, "tag "+t)
	}
	if s.Saved {
		parts = append(parts, "saved")
	}
	if s.Query != "" {
		parts = append(parts, fmt.Sprintf("search %q", s.Query))
	}
	if s.Since != "" {
		parts = append(parts, "since "+s.Since)
	}
	return strings.Join(parts, ", ")
}

// reviewProgress draws a bar of cells on a terminal's stderr; nothing
// when stderr is not a terminal.
type reviewProgress struct {
	mu  sync.Mutex
	bar *progressbar.ProgressBar
}

func newReviewProgress(s *IOStreams) *reviewProgress {
	p := &reviewProgress{}
	if s.ErrTTY {
		p.bar = progressbar.NewOptions(-1,
			progressbar.OptionSetWriter(s.ErrOut),
			progressbar.OptionSetDescription("cells"),
			progressbar.OptionShowCount(),
			progressbar.OptionSetWidth(30),
			progressbar.OptionThrottle(100*time.Millisecond),
			progressbar.OptionClearOnFinish(),
		)
	}
	return p
}

func (p *reviewProgress) update(pr review.Progress) {
	if p.bar == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.bar.ChangeMax(pr.Total)
	if pr.Cached > 0 {
		p.bar.Describe(fmt.Sprintf("cells (%d cached)", pr.Cached))
	}
	p.bar.Set(pr.Done)
}

func (p *reviewProgress) done() {
	if p.bar != nil {
		p.bar.Finish()
	}
}
