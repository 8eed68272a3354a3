package cmd

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/papers-cli/papers/librarycopy"
	"github.com/papers-cli/papers/pgstore"
)

func init() { register(newLibraryCmd) }

func newLibraryCmd(g *globalOptions) *cobra.Command {
	c := &cobra.Command{
		Use:   "library",
		Short: "Move a library between stores: a directory and PostgreSQL",
		Long: `A library lives in a directory (the default: one file and its search
index, on this machine) or in a PostgreSQL database with pgvector, which a
lab shares from several machines (see docs/shared-store.md).`,
		Example: `  papers library copy --to postgres://me@db.lab/papers
  papers library copy --from postgres://me@db.lab/papers --to ~/papers-offline`,
		Args: usageArgs(cobra.NoArgs), // an unknown subcommand is a usage error (exit 2)
		RunE: func(c *cobra.Command, args []string) error { return c.Help() },
	}
	c.AddCommand(newLibraryCopyCmd(g))
	return c
}

type libraryCopyOptions struct {
	*globalOptions
	from, to string
	json     bool
}

func newLibraryCopyCmd(g *globalOptions) *cobra.Command {
	o := &libraryCopyOptions{globalOptions: g}
	c := &cobra.Command{
		Use:   "copy --to DIR|postgres://...",
		Short: "Copy the library to PostgreSQL or to a directory, and check the copy",
		Long: `Copy every paper, chunk, vector, category, tag, identifier, topic (with
its members) and saved mark of a library into an empty one, then check that
the copy holds as many of each as the library.

The library copied is --from: a directory or a postgres:// URL; by default
the library of this run (--home). The destination --to is a postgres://
URL (the database needs the vector extension: see docs/shared-store.md) or
a directory, and must hold no paper: a copy never merges two libraries.
A copy that fails part way leaves the destination partly filled; empty it
(drop its schema, or remove the directory) and copy again.

A URL may name the schema the library lives in with ?schema=NAME (default
papers), so that one database holds several libraries.`,
		Example: `  papers library copy --to postgres://me@db.lab/papers
  papers library copy --to 'postgres://me@db.lab/lab?schema=nlp' --json
  papers library copy --from postgres://me@db.lab/papers --to ~/papers-offline`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(c *cobra.Command, args []string) error { return runLibraryCopy(c.Context(), o) },
	}
	c.Flags().StringVar(&o.from, "from", "", "the library to copy: a directory or postgres:// URL (default: the library of --home)")
	c.Flags().StringVar(&o.to, "to", "", "the empty library to copy into: a directory or postgres:// URL")
	addJSON(c, &o.json, `print {"from":..,"to":..,"counts":{table: rows}}`)
	return c
}

func runLibraryCopy(ctx context.Context, o *libraryCopyOptions) error {
	if o.to == "" {
		return withHint(withExit(errors.New("no destination"), ExitUsage), "papers library copy --to postgres://user@host/database (or --to DIR)")
	}
	from := o.from
	if from == "" {
		var err error
		if from, err = o.database(); err == nil && from == "" {
			from, err = o.libraryDir()
		}
		if err != nil {
			return err
		}
	}
	if sameLibrary(from, o.to) {
		return withExit(fmt.Errorf("--from and --to name the same library (%s)", redactURL(from)), ExitUsage)
	}
	src, err := o.libraryAt(ctx, from, false)
	if err != nil {
		return err
	}
	defer src.Close()
	dst, err := o.libraryAt(ctx, o.to, true)
	if err != nil {
		return err
	}
	defer dst.Close()
	counts, copied, err := librarycopy.Copy(ctx, src, dst, func(table string, rows int64) {
		if o.verbose {
			fmt.Fprintf(o.io.ErrOut, "%s: %d rows\n", table, rows)
		}
	})
	switch {
	case errors.Is(err, librarycopy.ErrNotEmpty):
		return withHint(err, "copy into a new library: another directory, or another schema (postgres://...?schema=NAME)")
	case err != nil:
		return err
	}
	if o.json {
		return writeJSON(o.io.Out, struct {
			From   string           `json:"from"`
			To     string           `json:"to"`
			Counts map[string]int64 `json:"counts"`
		}{redactURL(from), redactURL(o.to), copied})
	}
	for _, k := range counts.Keys() {
		fmt.Fprintf(o.io.Out, "%-18s %9d\n", k, copied[k])
	}
	fmt.Fprintf(o.io.Out, "copied %d papers and %d chunks to %s; the counts match\n", copied["papers"], copied["chunks"], redactURL(o.to))
	return nil
}

// sameLibrary reports whether a and b name one library (two spellings of
// a directory, or one URL).
func sameLibrary(a, b string) bool {
	if pgstore.IsURL(a) || pgstore.IsURL(b) {
		return a == b
	}
	fa, errA := filepath.Abs(a)
	fb, errB := filepath.Abs(b)
	if errA != nil || errB != nil {
		return a == b
	}
	if fa == fb {
		return true
	}
	sa, errA := os.Stat(fa)
	sb, errB := os.Stat(fb)
	return errA == nil && errB == nil && os.SameFile(sa, sb)
}

// redactURL hides a URL's password; a directory is returned as it is.
func redactURL(s string) string {
	if pgstore.IsURL(s) {
		return pgstore.Redact(s)
	}
	return s
}
