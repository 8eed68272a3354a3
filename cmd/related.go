package cmd

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/spf13/cobra"

	"github.com/papers-cli/papers/internal/textkit"
	"github.com/papers-cli/papers/related"
	"github.com/papers-cli/papers/resolve"
)

func init() { register(newRelatedCmd) }

type relatedOptions struct {
	*globalOptions
	k        int
	topic    string
	category string
	year     int
	since    string
	json     bool

	ref       string
	sinceTime time.Time
}

func newRelatedCmd(g *globalOptions) *cobra.Command {
	o := &relatedOptions{globalOptions: g}
	c := &cobra.Command{
		Use:   "related ID",
		Short: "The papers of the library most like this one",
		Long: `List the papers most like a paper of the library, by the similarity of
their vectors: each paper's vector is the mean of its chunks' vectors (its
title and abstract, and its full text when held), kept in the library
(papers.vec, rebuilt for what changed) and searched in a chromem-go
collection. --topic, --category and --year narrow with the collection's
filters; --since keeps papers published on or after a date. Scores are
cosine similarities; ties are ordered by id. papers browse shows the same
list with r, and ask --json lists the papers most like those an answer
cites as "see_also".

Exits 3 when no paper passes the filters.`,
		Example: `  papers related 2501.12948
  papers related 2501.12948 -k 5 --topic rl-agents --since 2025-01-01
  papers related topic-001 --json | jq -r '.related[] | "\(.score) \(.title)"'`,
		Args: exactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			o.ref = args[0]
			if err := checkK(c, o.k); err != nil {
				return err
			}
			var err error
			if o.sinceTime, err = parseDate(o.since, time.Now()); err != nil {
				return err
			}
			return runRelated(c.Context(), o)
		},
	}
	addK(c, &o.k, related.DefaultK, "how many related papers")
	f := c.Flags()
	f.StringVar(&o.topic, "topic", "", "only papers of this followed topic")
	f.StringVar(&o.category, "category", "", "only papers in this arXiv category (cs.CL) or archive (cs)")
	f.IntVar(&o.year, "year", 0, "only papers published in this year")
	f.StringVar(&o.since, "since", "", "only papers published on or after this date (YYYY-MM-DD, or 7d, 4w, 3m, 1y back)")
	addJSON(c, &o.json, `print {"id","related":[{paper as in list --json, "score"}]}`)
	return c
}

// relatedRecord is a related paper in --json: the paper as list prints it,
// and its score.
type relatedRecord struct {
	paperRecord
	Score float32 `json:"score"`
}

func runRelated(ctx context.Context, o *relatedOptions) error {
	s, lib, err := openExisting(ctx, o.globalOptions)
	if err != nil {
		return err
	}
	defer s.Close()
	p, err := resolve.Paper(ctx, lib, o.ref)
	if err != nil {
		return err
	}
	opts := related.Options{K: o.k, Category: o.category, Year: o.year, Since: o.sinceTime}
	if o.topic != "" {
		tp, err := resolve.Topic(ctx, lib, o.topic)
		if err != nil {
			return err
		}
		opts.Topic = tp.Name
	}
	res, err := related.Find(ctx, lib, p.ID, opts)
	if errors.Is(err, related.ErrNoVector) {
		return withHint(err, "the paper has no chunks to compare it by: papers ingest %s again", o.ref)
	}
	if err != nil {
		return err
	}
	if o.json {
		recs := make([]relatedRecord, len(res))
		for i, r := range res {
			recs[i] = relatedRecord{paperRecord: newPaperRecord(r.Paper), Score: r.Score}
		}
		if err := writeJSON(o.io.Out, struct {
			ID      string          `json:"id"`
			Related []relatedRecord `json:"related"`
		}{p.ID, recs}); err != nil {
			return err
		}
	} else {
		t := newTable(o.io.Out, o.io)
		if t.tty {
			t.row("SCORE", "ID", "PUBLISHED", "TITLE")
		}
		for _, r := range res {
			t.row(strconv.FormatFloat(float64(r.Score), 'f', 3, 32), r.Paper.ID, textkit.Day(r.Paper.Published), r.Paper.Title)
		}
		t.flush()
	}
	if len(res) == 0 {
		if !o.json {
			fmt.Fprintln(o.io.ErrOut, "no related paper passes the filters")
		}
		return quietError{code: ExitNoEvidence}
	}
	return nil
}
