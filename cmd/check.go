package cmd

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/papers-cli/papers/internal/safetext"
	"github.com/papers-cli/papers/internal/textkit"
	"github.com/papers-cli/papers/library"
	"github.com/papers-cli/papers/store"
)

func init() { register(newCheckCmd) }

type checkOptions struct {
	*globalOptions
	repair, json bool
}

func newCheckCmd(g *globalOptions) *cobra.Command {
	o := &checkOptions{globalOptions: g}
	c := &cobra.Command{
		Use:   "check [--repair]",
		Short: "Verify the library file, its search index and paper vectors; --repair fixes what is damaged",
		Long: `Verify the library: SQLite's integrity check of library.db, every
paper's chunks, the checksums of the paper vectors (papers.vec) and of the
search index, and that the index holds exactly the library's chunks. Each
problem is printed with its fix; exit 1 when there is one.

--repair fixes them: a damaged library file is copied, every paper whose
rows can be read, into a new library.db, the damaged one kept beside it
(library.db.damaged-DATE) and the papers that could not be read listed; a
damaged search index or paper vectors file is rebuilt from the library
file. Run it when no other papers command uses the library.`,
		Example: `  papers check
  papers check --repair
  papers check --json | jq .problems`,
		Args: exactArgs(0),
		RunE: func(c *cobra.Command, args []string) error {
			return runCheck(c.Context(), o)
		},
	}
	c.Flags().BoolVar(&o.repair, "repair", false, "fix what is damaged: copy the readable papers into a new library file, rebuild the index and paper vectors")
	addJSON(c, &o.json, `print {"papers","chunks","problems":[{"part","what","fix"}],"repaired":{"recovered","lost","unreadable_rows","damaged_file"},"rebuilt","ok"}`)
	return c
}

func runCheck(ctx context.Context, o *checkOptions) error {
	s, err := o.session()
	if err != nil {
		return err
	}
	defer s.Close()
	if _, err := libraryOf(ctx, s); err != nil && !(o.repair && store.IsDamaged(err)) {
		return err
	}
	rep, err := s.Check(ctx, o.repair)
	if rep != nil {
		if o.json {
			if werr := writeJSON(o.io.Out, rep); werr != nil {
				return werr
			}
		} else {
			writeCheck(o, rep)
		}
	}
	if err != nil {
		return err
	}
	if !rep.OK {
		return quietError{code: ExitError}
	}
	return nil
}

// writeCheck prints what check found and did.
func writeCheck(o *checkOptions, rep *library.CheckReport) {
	out := o.io.Out
	for _, p := range rep.Problems {
		fmt.Fprintf(out, "damaged: %s: %s\n", p.Part, safetext.Line(p.What))
		if !o.repair {
			fmt.Fprintf(out, "  fix: %s\n", p.Fix)
		}
	}
	if r := rep.Repaired; r != nil {
		fmt.Fprintf(out, "repaired: %s of the damaged file in the new library file", textkit.Count(r.Recovered, "paper"))
		if len(r.Lost) > 0 || r.Unreadable > 0 {
			fmt.Fprintf(out, "; %d lost (their rows could not be read), %s unreadable", len(r.Lost), textkit.Count(r.Unreadable, "row"))
		}
		fmt.Fprintf(out, "\nthe damaged file is kept at %s\n", r.Damaged)
		for _, id := range r.Lost {
			fmt.Fprintf(out, "  lost: %s\n", safetext.Line(id))
		}
	}
	for _, part := range rep.Rebuilt {
		fmt.Fprintf(out, "rebuilt: %s\n", part)
	}
	if rep.OK {
		fmt.Fprintf(out, "the library checks out: %s, %s; the search index and the paper vectors match it\n", textkit.Count(rep.Papers, "paper"), textkit.Count(rep.Chunks, "chunk"))
	}
}
