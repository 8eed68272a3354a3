package cmd

import (
	"context"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/papers-cli/papers/retrieve"
	"github.com/papers-cli/papers/store"
	"github.com/papers-cli/papers/topic"
)

// Shell completion (papers completion bash|zsh|fish): commands and flags
// come from cobra; paper ids, topic names and tags from the library, a few
// rows read by prefix (BenchmarkCompleteIDs: the whole command within 50
// ms at 10k papers); the values of enum flags from the lists the flags
// check against. A library that is not there, or cannot be read,
// completes nothing (and never files: an id is not a file name).

// completionLimit bounds the ids and tags offered at once: the shell shows
// them all, and more letters narrow them.
const completionLimit = 200

// argCompletions names what each command's arguments are: ids, topics or
// tags, and how many (-1: any number).
var argCompletions = map[string]struct {
	kind string
	n    int
}{
	"papers show":           {"id", 1},
	"papers rm":             {"id", -1},
	"papers related":        {"id", 1},
	"papers save":           {"id", -1},
	"papers unsave":         {"id", -1},
	"papers export":         {"id", -1},
	"papers tag":            {"id", 1}, // then tags: see completeArgs
	"papers untag":          {"id", 1},
	"papers topic show":     {"topic", 1},
	"papers topic rm":       {"topic", -1},
	"papers topic describe": {"topic", 1},
	"papers update":         {"topic", -1},
	"papers momentum":       {"topic", -1},
	"papers digest":         {"topic", 1},
	"papers review":         {"review", -1}, // ids, or the name of a saved review
}

// flagCompletions are the flags completed from the library, by name.
var flagCompletions = map[string]string{"paper": "id", "topic": "topic", "tag": "tag", "save": "saved-review"}

// addCompletions sets the completion of root's commands' arguments and
// flags.
func addCompletions(root *cobra.Command, g *globalOptions) {
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if a, ok := argCompletions[c.CommandPath()]; ok {
			c.ValidArgsFunction = g.completeArgs(a.kind, a.n)
		}
		for name, kind := range flagCompletions {
			if c.Flags().Lookup(name) != nil {
				c.RegisterFlagCompletionFunc(name, g.complete(kind))
			}
		}
		fixed := func(name string, values ...string) {
			if c.Flags().Lookup(name) != nil {
				c.RegisterFlagCompletionFunc(name, cobra.FixedCompletions(values, cobra.ShellCompDirectiveNoFileComp))
			}
		}
		if c.Flags().Lookup("mode") != nil && (c.Name() == "search" || c.Name() == "eval") {
			fixed("mode", string(retrieve.Hybrid), string(retrieve.BM25), string(retrieve.Dense))
		}
		fixed("rank", topic.RankDate, topic.RankRelevance)
		if c.Flags().Lookup("embedder") != nil {
			c.RegisterFlagCompletionFunc("embedder", cobra.FixedCompletions([]string{"local", "openai:", "ollama:"}, cobra.ShellCompDirectiveNoFileComp|cobra.ShellCompDirectiveNoSpace))
		}
		if c.Flags().Lookup("llm") != nil {
			c.RegisterFlagCompletionFunc("llm", cobra.FixedCompletions([]string{"openai:", "ollama:"}, cobra.ShellCompDirectiveNoFileComp|cobra.ShellCompDirectiveNoSpace))
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
}

// completeArgs completes the first n arguments (any number for n < 0) as
// kind; tag and untag complete tags after the id.
func (g *globalOptions) completeArgs(kind string, n int) cobra.CompletionFunc {
	return func(c *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		switch {
		case n < 0 || len(args) < n:
			return g.complete(kind)(c, args, toComplete)
		case c.Name() == "tag" || c.Name() == "untag":
			return g.complete("tag")(c, args, toComplete)
		}
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
}

// complete completes toComplete as a paper id (with its title as the
// description), a topic name (with its query), a tag of the library, a
// saved review's name, or for review's arguments either of the last two.
func (g *globalOptions) complete(kind string) cobra.CompletionFunc {
	return func(c *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		var out []cobra.Completion
		g.readLibrary(c, func(ctx context.Context, lib *store.Library) error {
			switch kind {
			case "id":
				ps, err := lib.PaperIDs(ctx, toComplete, completionLimit)
				for _, p := range ps {
					out = append(out, cobra.CompletionWithDesc(p[0], oneLineTitle(p[1])))
				}
				return err
			case "topic":
				ts, err := lib.Topics(ctx)
				for _, t := range ts {
					if strings.HasPrefix(strings.ToLower(t.Name), strings.ToLower(toComplete)) {
						out = append(out, cobra.CompletionWithDesc(t.Name, t.Query))
					}
				}
				return err
			case "tag":
				tags, err := lib.TagNames(ctx, toComplete, completionLimit)
				out = append(out, tags...)
				return err
			case "saved-review", "review":
				rs, err := lib.Reviews(ctx)
				for _, r := range rs {
					if strings.HasPrefix(strings.ToLower(r.Name), strings.ToLower(toComplete)) {
						out = append(out, cobra.CompletionWithDesc(r.Name, "saved review"))
					}
				}
				if err != nil || kind == "saved-review" {
					return err
				}
				ps, err := lib.PaperIDs(ctx, toComplete, completionLimit)
				for _, p := range ps {
					out = append(out, cobra.CompletionWithDesc(p[0], oneLineTitle(p[1])))
				}
				return err
			}
			return nil
		})
		return out, cobra.ShellCompDirectiveNoFileComp
	}
}

// readLibrary runs fn on the library of this run (--home, PAPERS_HOME),
// if there is one; it writes nothing and gives up after a second (the
// shell is waiting).
func (g *globalOptions) readLibrary(c *cobra.Command, fn func(context.Context, *store.Library) error) {
	if applyEnv(c) != nil { // completion runs no pre-run: PAPERS_HOME comes from here
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	s, err := g.session()
	if err != nil {
		return
	}
	defer s.Close()
	lib, err := s.Store(ctx)
	if err != nil {
		return
	}
	fn(ctx, lib)
}
