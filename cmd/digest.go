package cmd

import (
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/papers-cli/papers/ask"
	"github.com/papers-cli/papers/topic"
)

func init() { register(newDigestCmd) }

type digestOptions struct {
	since      string
	rank       string
	format     string
	json       bool
	model      modelFlags
	extractive bool
	max        int
}

func newDigestCmd(g *globalOptions) *cobra.Command {
	o := &digestOptions{}
	c := &cobra.Command{
		Use:   "digest NAME",
		Short: "Summarise a topic's papers of the last days, each with its citation",
		Long: `Summarise the papers new to a followed topic in a window (--since, default
7d): those papers update stored in it, including papers arXiv announced days
after their submission and revised versions (a topic's first update, which
fills --window back, counts its papers by submission date). Newest first or
by --rank relevance to the topic's query and description. Each paper gets one or two sentences on what it contributes and
its citation; with a model (--llm, PAPERS_LLM or OPENAI_API_KEY, as for ask)
the summaries are written by the model and an opening overview groups the
papers into themes, citing them as [n]. Offline, each summary is the
abstract's key-contribution sentence ("we propose/introduce/present...").

Markdown (the default) reads well as an e-mail body; --format json gives
{"topic","since","overview","mode","papers":[{"n","id","title","published","summary","url",...}]}.
Run papers update first to fetch the newest papers.`,
		Example: `  papers digest rl-agents --since 7d
  papers digest rl-agents --since 2026-01-01 --rank relevance --llm ollama:llama3.1
  papers update && papers digest rl-agents --since 1d | mail -s "rl-agents today" me@example.org
  papers digest rl-agents --format json | jq -r '.papers[].url'`,
		Args: exactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			ctx := c.Context()
			if o.json {
				o.format = "json"
			}
			if o.format != "md" && o.format != "json" {
				return usageError("--format must be md or json, got %q", o.format)
			}
			if o.rank != topic.RankDate && o.rank != topic.RankRelevance {
				return usageError("--rank must be date or relevance, got %q", o.rank)
			}
			since, err := parseDate(o.since, time.Now())
			if err != nil {
				return err
			}
			if since.IsZero() {
				return usageError("--since must not be empty")
			}
			var llm ask.LLM
			if !o.extractive {
				cfg, err := o.model.config(true)
				if err != nil {
					return err
				}
				if llm, err = ask.ResolveLLM(cfg); err != nil {
					return askError(err)
				}
			}
			lib, tp, err := openTopic(ctx, g, args[0])
			if err != nil {
				return err
			}
			defer lib.Close()
			d, err := topic.Digest(ctx, lib, tp, topic.DigestOptions{Since: since, Rank: o.rank, LLM: llm, Max: o.max})
			if err != nil {
				return askError(err)
			}
			for _, w := range d.Warnings {
				fmt.Fprintf(c.ErrOrStderr(), "warning: %s\n", w)
			}
			if len(d.Papers) == 0 && tp.LastUpdate.IsZero() {
				fmt.Fprintf(c.ErrOrStderr(), "topic %s was never updated; run papers update %s first\n", tp.Name, shellArg(tp.Name))
			}
			if o.format == "json" {
				return writeJSON(c.OutOrStdout(), d)
			}
			return topic.WriteMarkdown(c.OutOrStdout(), d)
		},
	}
	f := c.Flags()
	f.StringVar(&o.since, "since", "7d", "papers new to the topic on or after this date (YYYY-MM-DD, or 1d, 7d, 4w back)")
	f.StringVar(&o.rank, "rank", topic.RankDate, "order: date (newest first) or relevance (to the topic's query and description)")
	f.StringVar(&o.format, "format", "md", "output: md or json")
	f.BoolVar(&o.json, "json", false, "same as --format json")
	o.model.add(f)
	f.BoolVar(&o.extractive, "extractive", false, "no model: summaries are the abstracts' key sentences")
	f.IntVar(&o.max, "max", 50, "most papers in the digest")
	return c
}
