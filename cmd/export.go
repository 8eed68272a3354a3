package cmd

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/papers-cli/papers/export"
	"github.com/papers-cli/papers/ingest/arxiv"
	"github.com/papers-cli/papers/store"
)

func init() { register(newExportCmd) }

type exportOptions struct {
	*globalOptions
	format formatFlags
	filter filterFlags
	from   string

	ids    []string
	output string // bibtex or csl-json
}

func newExportCmd(g *globalOptions) *cobra.Command {
	o := &exportOptions{globalOptions: g}
	c := &cobra.Command{
		Use:   "export [ID]... [--topic NAME] [--from FILE]",
		Short: "Export papers as BibTeX or CSL-JSON for LaTeX and reference managers",
		Long: `Export papers of the library as citations: BibTeX (the default, also
--bibtex) as @misc entries with eprint, archivePrefix and primaryClass, doi and
journal when the paper was published; or CSL-JSON (--json, or --format
csl-json) for Zotero, pandoc and citeproc. Keys are surnameYYYYfirstword
("guo2025deepseek"); papers that would share one get a, b, ... suffixes;
LaTeX special characters are escaped, except in TeX math in titles ($\alpha$)
and in doi and url, which BibTeX reads verbatim.

Choose papers by id (with or without version; the library holds one version
of each paper, and asking for another exports it with a warning), by --topic,
or --from the --json output of papers ask ("-" reads stdin): the papers the
answer cites. With none of these it is a usage error (exit 2).`,
		Example: `  papers export --bibtex 2501.12948 2210.03629v3 > refs.bib
  papers export --topic rl-agents --json > rl-agents.json
  papers ask --json "How is GRPO trained?" > answer.json && papers export --from answer.json
  papers ask --json "How is GRPO trained?" | papers export --from -`,
		RunE: func(c *cobra.Command, args []string) error {
			if err := o.complete(c, args); err != nil {
				return err
			}
			return runExport(c.Context(), o)
		},
	}
	o.format.register(c, "bibtex", []string{"bibtex", "csl-json"}, map[string]string{"bib": "bibtex", "csl": "csl-json", "csljson": "csl-json"}, "bibtex or csl-json")
	o.format.shortcut(c, "bibtex", "bibtex", "BibTeX output (the default; same as --format bibtex)")
	o.format.shortcut(c, "json", "csl-json", "print CSL-JSON (same as --format csl-json)")
	o.filter.register(c, filterTopic)
	c.Flags().Lookup("topic").Usage = "export the papers of this followed topic (repeatable), with the ids given"
	c.Flags().StringVar(&o.from, "from", "", "export the papers cited by the answer in `FILE`, written by papers ask --json (- for stdin)")
	return c
}

// complete checks the flags and takes the ids.
func (o *exportOptions) complete(c *cobra.Command, args []string) error {
	if len(args) == 0 && len(o.filter.topics) == 0 && o.from == "" {
		return withHint(usageError("nothing to export"), "give paper ids, --topic NAME or --from answer.json")
	}
	o.ids = args
	var err error
	o.output, err = o.format.resolve(c)
	return err
}

func runExport(ctx context.Context, o *exportOptions) error {
	args, stdin, out, errw, format := o.ids, o.io.In, o.io.Out, o.io.ErrOut, o.output
	ids := []string{}
	asked := map[string]int{} // the version an argument names, by id
	for _, a := range args {
		if id, v, err := arxiv.ParseID(a); err == nil {
			a = id
			if _, ok := asked[id]; !ok && v > 0 {
				asked[id] = v
			}
		}
		ids = append(ids, a)
	}
	if o.from != "" {
		cited, err := citedIDs(o.from, stdin)
		if err != nil {
			return err
		}
		ids = append(ids, cited...)
	}
	lib, err := openExisting(ctx, o.globalOptions)
	if err != nil {
		return err
	}
	defer lib.Close()
	var papers []store.Paper
	seen := map[string]bool{}
	var missing []string
	for _, id := range ids {
		if seen[id] {
			continue
		}
		seen[id] = true
		p, err := lib.Get(ctx, id)
		if errors.Is(err, store.ErrNotFound) {
			missing = append(missing, id)
			continue
		} else if err != nil {
			return err
		}
		if v := asked[id]; v > 0 && p.Version > 0 && v != p.Version {
			// The library keeps one version per paper; say which one the
			// citation names rather than silently cite another.
			fmt.Fprintf(errw, "warning: %sv%d asked for, but the library holds %sv%d: exporting v%d\n", id, v, id, p.Version, p.Version)
		}
		papers = append(papers, p)
	}
	if len(missing) > 0 {
		return withHint(fmt.Errorf("not in the library: %s", strings.Join(missing, ", ")), "papers ingest %s", strings.Join(missing, " "))
	}
	if len(o.filter.topics) > 0 {
		f, err := o.filter.resolve(ctx, lib)
		if err != nil {
			return err
		}
		ps, err := lib.List(ctx, f)
		if err != nil {
			return err
		}
		for _, p := range ps {
			if !seen[p.ID] {
				seen[p.ID] = true
				papers = append(papers, p)
			}
		}
	}
	if len(papers) == 0 {
		return withExit(errors.New("no papers to export"), ExitNoEvidence)
	}
	if format == "csl-json" {
		return export.CSLJSON(out, papers)
	}
	return export.BibTeX(out, papers)
}

// citedIDs reads the papers cited by a `papers ask --json` document, in
// citation order.
func citedIDs(path string, stdin io.Reader) ([]string, error) {
	var r io.Reader = stdin
	if path != "-" {
		f, err := os.Open(path)
		if err != nil {
			return nil, withHint(fmt.Errorf("read answer: %w", err), "give the file written by papers ask --json")
		}
		defer f.Close()
		r = f
	}
	var doc struct {
		Citations []struct {
			ID string `json:"id"`
		} `json:"citations"`
		Question *string `json:"question"`
	}
	if err := json.NewDecoder(r).Decode(&doc); err != nil || doc.Question == nil {
		if err == nil {
			err = errors.New("no question field")
		}
		return nil, withHint(fmt.Errorf("%s is not the JSON of papers ask: %v", path, err), "make it with: papers ask --json \"QUESTION\" > answer.json")
	}
	var ids []string
	for _, c := range doc.Citations {
		if c.ID != "" {
			ids = append(ids, c.ID)
		}
	}
	if len(ids) == 0 {
		return nil, withExit(fmt.Errorf("the answer in %s cites no papers", path), ExitNoEvidence)
	}
	return ids, nil
}
