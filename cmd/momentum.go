package cmd

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/spf13/cobra"

	"github.com/papers-cli/papers/internal/textkit"
	"github.com/papers-cli/papers/library"
	"github.com/papers-cli/papers/resolve"
	"github.com/papers-cli/papers/topic"
)

func init() { register(newMomentumCmd) }

type momentumOptions struct {
	*globalOptions
	json bool

	names []string
}

func newMomentumCmd(g *globalOptions) *cobra.Command {
	o := &momentumOptions{globalOptions: g}
	c := &cobra.Command{
		Use:   "momentum [NAME]...",
		Short: "How fast a topic grows: last 4 weeks vs the 4 before, share of arXiv, weekly chart",
		Long: `Count a topic's new papers (by first submission) in the last 4 weeks and the 4
weeks before, the change in percent, and the topic's share of all new arXiv
papers in the last 4 weeks; the last 12 weekly counts are drawn as a bar chart
on a terminal (tab-separated rows when piped). Weeks end today (UTC).

The counts come from arXiv: one search request per 2000 papers of the
topic's last 12 weeks, plus one count of all submissions. With --offline
(global: no request at all), or
when arXiv cannot be reached, they come from the library (papers held, as of
the last papers update) and the share is of the library's papers; the output
says so.`,
		Example: `  papers momentum rl-agents
  papers momentum --offline
  papers momentum rl-agents --json | jq '.change_pct'`,
		RunE: func(c *cobra.Command, args []string) error {
			o.names = args
			return runMomentum(c.Context(), o)
		},
	}
	addJSON(c, &o.json, "print JSON (NDJSON with several topics): topic, last_4_weeks, previous_4_weeks, change_pct, share_pct, weekly, source")
	return c
}

func runMomentum(ctx context.Context, o *momentumOptions) error {
	out, errw, offline := o.io.Out, o.io.ErrOut, o.offline
	// an unreachable arXiv falls back to the library soon
	s, lib, err := openExisting(ctx, o.globalOptions, func(c *library.Config) { c.Arxiv.MaxTries = 2 })
	if err != nil {
		return err
	}
	defer s.Close()
	topics, err := resolve.Topics(ctx, lib, o.names)
	if err != nil {
		return err
	}
	client := s.Arxiv()
	now := time.Now()
	for i, tp := range topics {
		m, unreachable, err := topic.Measure(ctx, client, lib, tp, now, offline)
		if unreachable != nil {
			fmt.Fprintf(errw, "warning: arXiv could not be asked (%v); counting from the library instead\n", unreachable)
			offline = true // do not wait for it again for the next topics
		}
		if err != nil {
			return err
		}
		if o.json {
			if err := writeJSON(out, m); err != nil {
				return err
			}
			continue
		}
		if i > 0 {
			fmt.Fprintln(out)
		}
		writeMomentum(o.io, m)
	}
	return nil
}

func writeMomentum(s *IOStreams, m *topic.Momentum) {
	out := s.Out
	change := "no papers in the 4 weeks before"
	if m.ChangePct != nil {
		change = fmt.Sprintf("%+.1f%%", *m.ChangePct)
	}
	whole := "of all new arXiv papers"
	if m.Source == "library" {
		whole = "of the library's papers from those weeks (counted from the library, not arXiv)"
	}
	share := "n/a"
	if m.SharePct != nil {
		share = fmt.Sprintf("%.2f%%", *m.SharePct)
	}
	fmt.Fprintf(out, "%s: %s in the last 4 weeks, %d in the 4 before (%s); %s %s\n",
		m.Topic, textkit.Count(m.Last4, "paper"), m.Prev4, change, share, whole)
	if s.OutTTY {
		width := 40
		if w := s.Width; w > 0 {
			width = max(10, min(60, w-20))
		}
		fmt.Fprint(out, topic.Bars(m.Weekly, width))
		return
	}
	for _, w := range m.Weekly {
		fmt.Fprintln(out, w.Start+"\t"+strconv.Itoa(w.Count))
	}
}
