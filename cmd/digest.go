package cmd

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/papers-cli/papers/cost"
	"github.com/papers-cli/papers/topic"
)

func init() { register(newDigestCmd) }

type digestOptions struct {
	*globalOptions
	since  string
	rank   string
	format formatFlags
	llm    llmFlags
	max    int
	filter filterFlags // --tag

	name      string
	sinceTime time.Time
	output    string // md or json
}

func newDigestCmd(g *globalOptions) *cobra.Command {
	o := &digestOptions{globalOptions: g}
	c := &cobra.Command{
		Use:   "digest NAME",
		Short: "Summarise a topic's papers of the last days, each with its citation",
		Long: `Summarise the papers new to a followed topic in a window (--since, default
7d): those papers update stored in it, including papers arXiv announced days
after their submission and revised versions (a topic's first update, which
fills --window back, counts its papers by submission date). Newest first or
by --rank relevance to the topic's query and description (BM25 over titles
and abstracts: the words that name a subject weigh most). An opening
overview groups the papers into themes, citing them as [n]: offline, by the
tags, key terms and categories they share; with a model (--llm, PAPERS_LLM
or OPENAI_API_KEY, as for ask) written by the model. Each paper gets one or
two sentences on what it contributes and its citation (arXiv:ID for papers
on arXiv, else the library's id): the model's, or offline the abstract's
key-contribution sentence ("we propose/introduce/present..."). An empty
window says which wider window holds papers.

Markdown (the default) reads well as an e-mail body; --json gives
{"topic","since","overview","themes":[{"name","by","papers":[n]}],"mode",
"papers":[{"n","id","title","published","summary","url","arxiv_id",...}],"wider"}.
Run papers update first to fetch the newest papers.`,
		Example: `  papers digest rl-agents --since 7d
  papers digest rl-agents --since 2026-01-01 --rank relevance --llm ollama:llama3.1
  papers update && papers digest rl-agents --since 1d | mail -s "rl-agents today" me@example.org
  papers digest rl-agents --json | jq -r '.papers[].url'`,
		Args: exactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			if err := o.complete(c, args); err != nil {
				return err
			}
			return runDigest(c.Context(), o)
		},
	}
	f := c.Flags()
	f.StringVar(&o.since, "since", "7d", "papers new to the topic on or after this date (YYYY-MM-DD, or 1d, 7d, 4w back)")
	f.StringVar(&o.rank, "rank", topic.RankDate, "order: date (newest first) or relevance (to the topic's query and description)")
	o.format.register(c, "md", []string{"md", "json"}, map[string]string{"markdown": "md"}, "output: md or json (--json)")
	o.format.shortcut(c, "json", "json", "print one JSON document: topic, since, overview, mode, papers (same as --format json)")
	o.llm.register(c, "no model: summaries are the abstracts' key sentences")
	f.IntVar(&o.max, "max", 50, "most papers in the digest")
	o.filter.register(c, filterTag)
	return c
}

// complete checks the flags and takes the topic's name.
func (o *digestOptions) complete(c *cobra.Command, args []string) error {
	o.name = args[0]
	var err error
	if o.output, err = o.format.resolve(c); err != nil {
		return err
	}
	if o.rank != topic.RankDate && o.rank != topic.RankRelevance {
		return usageError("--rank must be date or relevance, got %q", o.rank)
	}
	if o.sinceTime, err = parseDate(o.since, time.Now()); err != nil {
		return err
	}
	if o.sinceTime.IsZero() {
		return usageError("--since must not be empty")
	}
	return nil
}

func runDigest(ctx context.Context, o *digestOptions) error {
	s, err := o.session(o.llm.set(false))
	if err != nil {
		return err
	}
	defer s.Close()
	llm, err := o.llm.resolve(s)
	if err != nil {
		return err
	}
	lib, tp, err := openTopic(ctx, s, o.name)
	if err != nil {
		return err
	}
	d, err := topic.Digest(ctx, lib, tp, topic.DigestOptions{Since: o.sinceTime, Rank: o.rank, LLM: llm, Max: o.max, Tags: o.filter.Tags})
	reportUsage(o.globalOptions, s)
	if err != nil {
		return err
	}
	for _, w := range d.Warnings {
		fmt.Fprintf(o.io.ErrOut, "warning: %s\n", w)
	}
	if len(d.Papers) == 0 && d.Wider == nil && tp.LastUpdate.IsZero() {
		fmt.Fprintf(o.io.ErrOut, "topic %s was never updated; run papers update %s first\n", tp.Name, shellArg(tp.Name))
	}
	if o.output == "json" {
		return writeJSON(o.io.Out, digestRecord{DigestResult: d, Usage: s.Usage()})
	}
	return topic.WriteMarkdown(o.io.Out, d)
}

// digestRecord is the --json document of digest: the digest and what its
// model calls used.
type digestRecord struct {
	*topic.DigestResult
	Usage cost.Usage `json:"usage"`
}
