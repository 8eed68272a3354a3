package cmd

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/papers-cli/papers/internal/safetext"
	"github.com/papers-cli/papers/resolve"
)

func init() { register(newRmCmd) }

type rmOptions struct {
	*globalOptions
	json bool

	refs []string
}

func newRmCmd(g *globalOptions) *cobra.Command {
	o := &rmOptions{globalOptions: g}
	c := &cobra.Command{
		Use:   "rm ID...",
		Short: "Remove papers from the library",
		Long: `Remove papers from the library: their metadata, text, chunks and vectors.

Every id must be in the library (arXiv ids in any form show takes, or the
ids of local PDFs and corpus records); if one is not, nothing is removed.
A removed paper of a followed topic comes back with the next papers update
that reads back to it; papers ingest adds it again.`,
		Example: `  papers rm 2501.12948
  papers rm pdf:3979a1c2e4f5a6b7 topic-012 --json`,
		Args: minArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			o.refs = args
			return runRm(c.Context(), o)
		},
	}
	addJSON(c, &o.json, `print {"removed":[ids]}`)
	return c
}

func runRm(ctx context.Context, o *rmOptions) error {
	refs, out := o.refs, o.io.Out
	s, lib, err := openExisting(ctx, o.globalOptions)
	if err != nil {
		return err
	}
	defer s.Close()
	ids, err := resolve.Held(ctx, lib, refs) // all or nothing: a typo, or a version not held, removes none
	if err != nil {
		return err
	}
	// One transaction for all: killed or failed, nothing or everything is removed.
	if err := lib.DeleteAll(ctx, ids); err != nil {
		return err
	}
	removed := ids
	if !o.json {
		for _, id := range ids {
			fmt.Fprintf(out, "removed %s\n", safetext.Line(id))
		}
	}
	// Searches then find the index current instead of building it.
	if err := lib.Refresh(ctx); err != nil && ctx.Err() == nil {
		return err
	}
	if o.json {
		return writeJSON(out, struct {
			Removed []string `json:"removed"`
		}{removed})
	}
	return nil
}
