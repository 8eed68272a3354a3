package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/papers-cli/papers/ask"
	"github.com/papers-cli/papers/export"
	"github.com/papers-cli/papers/ingest/arxiv"
	"github.com/papers-cli/papers/internal/doi"
	"github.com/papers-cli/papers/internal/localfile"
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
		Short: "Export papers as BibTeX, CSL-JSON or RIS for LaTeX and reference managers",
		Long: `Export papers of the library as citations: BibTeX (the default, also
--bibtex), typed by what is known of the paper (@article with journal,
volume, number, pages and doi for a journal article, @inproceedings for a
conference paper, @incollection, @book, @phdthesis, @techreport, else
@misc; papers on arXiv carry eprint, archivePrefix and primaryClass);
CSL-JSON (--json, or --format csl-json) for Zotero, pandoc and citeproc; or
RIS (--format ris) for EndNote, Zotero, Mendeley and RefWorks. Authors are
one person each whatever the source gave (a PDF's "A, B and C" is three);
an ADS journal macro (\apjs) is written as the journal's name. A paper
that came from a BibTeX file keeps its citation key; others get keys
surnameYYYYfirstword
("guo2025deepseek"); papers that would share one get a, b, ... suffixes;
LaTeX special characters are escaped, except in TeX math in titles ($\alpha$)
and in doi and url, which BibTeX reads verbatim.

Choose papers by id (with or without version; the library holds one version
of each paper, and asking for another exports it with a warning), by --topic,
by --tag, --saved (the papers you saved),
or --from the --json output of papers ask ("-" reads stdin): the papers the
answer cites. With none of these it is a usage error (exit 2).`,
		Example: `  papers export --bibtex 2501.12948 2210.03629v3 > refs.bib
  papers export --topic rl-agents --json > rl-agents.json
  papers export --tag to-read --format ris > to-read.ris
  papers export 10.1145/1327452.1327492 > mapreduce.bib
  papers ask --json "How is GRPO trained?" > answer.json && papers export --from answer.json
  papers ask --json "How is GRPO trained?" | papers export --from -`,
		RunE: func(c *cobra.Command, args []string) error {
			if err := o.complete(c, args); err != nil {
				return err
			}
			return runExport(c.Context(), o)
		},
	}
	o.format.register(c, "bibtex", []string{"bibtex", "csl-json", "ris"}, map[string]string{"bib": "bibtex", "csl": "csl-json", "csljson": "csl-json"}, "bibtex, csl-json or ris")
	o.format.shortcut(c, "bibtex", "bibtex", "BibTeX output (the default; same as --format bibtex)")
	o.format.shortcut(c, "json", "csl-json", "print CSL-JSON (same as --format csl-json)")
	o.filter.register(c, filterTopic|filterTag|filterSaved)
	c.Flags().Lookup("topic").Usage = "export the papers of this followed topic (repeatable), with the ids given"
	c.Flags().StringVar(&o.from, "from", "", "export the papers cited by the answer in `FILE`, written by papers ask --json (- for stdin)")
	return c
}

// complete checks the flags and takes the ids.
func (o *exportOptions) complete(c *cobra.Command, args []string) error {
	if len(args) == 0 && !o.filter.selects() && o.from == "" {
		return withHint(usageError("nothing to export"), "give paper ids, --topic NAME, --tag NAME, --saved or --from answer.json")
	}
	o.ids = args
	var err error
	o.output, err = o.format.resolve(c)
	return err
}

func runExport(ctx context.Context, o *exportOptions) error {
	refs := o.ids
	if o.from != "" {
		cited, err := citedIDs(ctx, o.from, o.io.In)
		if err != nil {
			return err
		}
		refs = append(refs, cited...)
	}
	s, lib, err := openExisting(ctx, o.globalOptions)
	if err != nil {
		return err
	}
	defer s.Close()
	sel := export.Selection{Refs: refs}
	if o.filter.selects() {
		f, err := o.filter.resolve(ctx, lib)
		if err != nil {
			return err
		}
		sel.Filter = &f
	}
	got, err := export.Select(ctx, lib, sel)
	if err != nil {
		return err
	}
	if len(got.Missing) > 0 {
		return missingPapers(got.Missing)
	}
	for _, v := range got.Versions {
		// The library keeps one version per paper; say which one the
		// citation names rather than silently cite another.
		fmt.Fprintf(o.io.ErrOut, "warning: %s: exporting v%d\n", versionHeld(v.ID, v.Asked, v.Held), v.Held)
	}
	if len(got.Papers) == 0 {
		return withExit(errors.New("no papers to export"), ExitNoEvidence)
	}
	switch o.output {
	case "csl-json":
		return export.CSLJSON(o.io.Out, got.Papers, got.Keys)
	case "ris":
		return export.RIS(o.io.Out, got.Papers, got.Keys)
	}
	return export.BibTeX(o.io.Out, got.Papers, got.Keys)
}

// versionHeld says that ref asked for another version than the library
// holds: "2501.12948v2 asked for, but the library holds 2501.12948v1".
func versionHeld(id string, asked, held int) string {
	return fmt.Sprintf("%sv%d asked for, but the library holds %sv%d", id, asked, id, held)
}

// missingPapers is the error for papers the library does not hold, with
// what would add them: papers ingest takes an arXiv id as one, but any
// other word as a search query, which is not what the user meant.
func missingPapers(ids []string) error {
	var arxivIDs, dois, others []string
	for _, id := range ids {
		if _, isDOI := doi.Parse(id); isDOI {
			dois = append(dois, id)
		} else if arxiv.LooksLikeID(id) {
			arxivIDs = append(arxivIDs, id)
		} else {
			others = append(others, id)
		}
	}
	err := fmt.Errorf("not in the library: %s", strings.Join(ids, ", "))
	var hints []string
	if len(arxivIDs) > 0 {
		hints = append(hints, "papers ingest "+strings.Join(arxivIDs, " ")+" adds them from arXiv")
	}
	if len(dois) > 0 {
		hints = append(hints, "papers ingest "+strings.Join(dois, " ")+" adds them from Crossref")
	}
	if len(others) > 0 {
		hints = append(hints, strings.Join(others, ", ")+" is not an arXiv id (papers ingest would search arXiv for it): papers list shows the ids the library holds")
	}
	return withHint(err, "%s", strings.Join(hints, "; "))
}

// maxAnswerBytes caps the answer export --from reads: an answer's JSON
// is tens of KB.
const maxAnswerBytes = 64 << 20

// citedIDs reads the papers cited by a `papers ask --json` document, in
// citation order.
func citedIDs(ctx context.Context, path string, stdin io.Reader) ([]string, error) {
	var r io.Reader = stdin
	if path != "-" {
		f, err := localfile.Open(ctx, path, maxAnswerBytes)
		if err != nil {
			return nil, withHint(fmt.Errorf("read answer: %w", err), "give the file written by papers ask --json")
		}
		defer f.Close()
		r = f
	}
	res, err := ask.ReadResult(r)
	if err != nil {
		return nil, withHint(fmt.Errorf("%s is %w", path, err), "make it with: papers ask --json \"QUESTION\" > answer.json")
	}
	ids := res.CitedPapers()
	if len(ids) == 0 {
		return nil, withExit(fmt.Errorf("the answer in %s cites no papers", path), ExitNoEvidence)
	}
	return ids, nil
}
