package cmd

import (
	"context"
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/papers-cli/papers/ask"
	"github.com/papers-cli/papers/cost"
	"github.com/papers-cli/papers/topic"
)

type describeOptions struct {
	*globalOptions
	llm    llmFlags
	dryRun bool
	json   bool

	name string
}

func newTopicDescribeCmd(g *globalOptions) *cobra.Command {
	o := &describeOptions{globalOptions: g}
	c := &cobra.Command{
		Use:   "describe NAME",
		Short: "Have a model write the topic's description from its papers, citing them",
		Long: `Give a model the topic's newest papers (up to 30, with their abstracts) and
have it write the paragraph a research feed's topic page opens with ("This
field studies how ..."), citing the papers it speaks of. Citations of papers
it was not given are removed; the others are written as the papers' ids
("[2501.12948]"). The paragraph becomes the topic's description (topic show,
digest, browse), unless --dry-run.

It needs a model: --llm openai:MODEL or ollama:MODEL, PAPERS_LLM, or
OPENAI_API_KEY (see papers ask). topic add --description sets one by hand.`,
		Example: `  papers topic describe rl-agents
  papers topic describe rl-agents --dry-run --llm ollama:llama3.1
  papers topic describe rl-agents --json | jq -r .description`,
		Args: exactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			o.name = args[0]
			return runTopicDescribe(c.Context(), o)
		},
	}
	o.llm.register(c, "not available: a description needs a model")
	c.Flags().Lookup("extractive").Hidden = true
	c.Flags().BoolVar(&o.dryRun, "dry-run", false, "print the paragraph without storing it")
	addJSON(c, &o.json, "print one JSON document: topic, description, papers, cited, model, stored, warnings")
	return c
}

// describeRecord is the --json document of topic describe: the
// description and what its model call used.
type describeRecord struct {
	*topic.Description
	Usage cost.Usage `json:"usage"`
}

func runTopicDescribe(ctx context.Context, o *describeOptions) error {
	s, err := o.session(o.llm.set(false))
	if err != nil {
		return err
	}
	defer s.Close()
	llm, err := o.llm.resolve(s)
	if err != nil {
		return err
	}
	if llm == nil {
		return withHint(withExit(errors.New("topic describe needs a language model"), ExitUsage),
			"choose one with --llm openai:MODEL (and OPENAI_API_KEY) or --llm ollama:MODEL; or set it by hand: papers topic add NAME --description TEXT")
	}
	lib, tp, err := openTopic(ctx, s, o.name)
	if err != nil {
		return err
	}
	d, err := topic.Describe(ctx, lib, llm, tp)
	reportUsage(o.globalOptions, s)
	if errors.Is(err, topic.ErrNoPapers) {
		return withHint(err, "fetch its papers first: papers update %s", shellArg(tp.Name))
	}
	if errors.Is(err, ask.ErrNeedsModel) {
		return withExit(err, ExitUsage)
	}
	if err != nil {
		return err
	}
	for _, w := range d.Warnings {
		fmt.Fprintf(o.io.ErrOut, "warning: %s\n", w)
	}
	if !o.dryRun {
		if err := lib.SetTopicDescription(ctx, tp.Name, d.Text); err != nil {
			return err
		}
		d.Stored = true
	}
	if o.json {
		return writeJSON(o.io.Out, describeRecord{Description: d, Usage: s.Usage()})
	}
	fmt.Fprintln(o.io.Out, d.Text)
	if !o.dryRun && o.io.ErrTTY {
		fmt.Fprintf(o.io.ErrOut, "stored as the description of %s (papers topic show %s)\n", tp.Name, shellArg(tp.Name))
	}
	return nil
}
