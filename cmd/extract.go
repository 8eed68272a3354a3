package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/papers-cli/papers/ingest/pdf"
	"github.com/papers-cli/papers/ingest/pdfproc"
)

func init() { register(newExtractCmd) }

type extractOptions struct {
	*globalOptions
	json  bool
	roles bool

	path string
}

// extractRecord is the --json shape of papers extract.
type extractRecord struct {
	Pages     []extractPage `json:"pages"`
	Title     string        `json:"title"`
	ArxivID   string        `json:"arxiv_id,omitempty"`
	ArxivDate string        `json:"arxiv_date,omitempty"`
	Warnings  []string      `json:"warnings"`
}

type extractPage struct {
	N        int              `json:"n"`
	Text     string           `json:"text"`
	Headings []extractHeading `json:"headings,omitempty"`
	// Spans cover text in order: text[start:end] is of the span's role.
	Spans []extractSpan `json:"spans"`
}

type extractSpan struct {
	Start int    `json:"start"`
	End   int    `json:"end"`
	Role  string `json:"role"`
}

type extractHeading struct {
	Offset int    `json:"offset"`
	Text   string `json:"text"`
}

func newExtractCmd(g *globalOptions) *cobra.Command {
	o := &extractOptions{globalOptions: g}
	c := &cobra.Command{
		Use:   "extract FILE.pdf",
		Short: "Print the text of a PDF, page by page, as ingest reads it",
		Long: `extract prints the text of a PDF in reading order, pages separated by form
feeds (\f) as pdftotext does: words from glyph positions, ligatures and other
compatibility characters normalised, hyphenated line ends joined, margin
line numbers left out.

Every line has a role: body text, heading, caption, table, figure (text
inside a figure), footnote, reference (an entry of the reference list),
equation, or furniture (running heads and feet, page numbers, the arXiv
stamp: each a paragraph of its own, never inside a sentence); --roles prints
each line after its role and a tab, --json gives each page's spans of text
by role. Ingest cuts chunks at changes of role and leaves furniture out.

Warnings go to stderr.`,
		Example: `  papers extract paper.pdf | less
  papers extract paper.pdf | tr '\f' '\n' | wc -w
  papers extract --json paper.pdf | jq -r '.pages[] | select(.n == 3) | .text'
  papers extract --json paper.pdf | jq '[.pages[].headings[]?.text]'
  papers extract --roles paper.pdf | grep -P '^table\t'`,
		Args: exactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			o.path = args[0]
			return runExtract(c.Context(), o)
		},
	}
	addJSON(c, &o.json, `print one JSON object: {"pages":[{"n":1,"text":"...","spans":[{"start":0,"end":120,"role":"body"}]}],"title":...,"warnings":[...]}`)
	c.Flags().BoolVar(&o.roles, "roles", false, "print each line after its role and a tab (body, heading, caption, table, figure, footnote, reference, equation, furniture)")
	return c
}

func runExtract(ctx context.Context, o *extractOptions) error {
	path, stdout, stderr := o.path, o.io.Out, o.io.ErrOut
	// One file, read here: a child process would double the start-up of a
	// command that has nothing else to lose (pdfproc.ExtractHere).
	defer pdfproc.ReaderLimits()()
	doc, err := pdfproc.ExtractHere(ctx, path)
	if err != nil && !(errors.Is(err, pdf.ErrGarbled) && doc != nil) {
		return extractHint(fmt.Errorf("extract %s: %w", path, err))
	}
	if o.json {
		rec := extractRecord{Title: doc.Title, ArxivID: doc.ArxivID, ArxivDate: doc.ArxivDate, Warnings: doc.Warnings, Pages: []extractPage{}}
		if rec.Warnings == nil {
			rec.Warnings = []string{}
		}
		for _, p := range doc.Pages {
			ep := extractPage{N: p.N, Text: p.Text}
			for _, h := range p.Headings {
				ep.Headings = append(ep.Headings, extractHeading{Offset: h.Offset, Text: h.Text})
			}
			ep.Spans = []extractSpan{}
			for _, s := range p.Spans {
				ep.Spans = append(ep.Spans, extractSpan{Start: s.Start, End: s.End, Role: string(s.Role)})
			}
			rec.Pages = append(rec.Pages, ep)
		}
		return writeJSON(stdout, rec)
	}
	for _, w := range doc.Warnings {
		fmt.Fprintf(stderr, "warning: %s: %s\n", path, w)
	}
	if o.roles {
		return writeRoles(stdout, doc)
	}
	_, werr := io.WriteString(stdout, doc.Text())
	return werr
}

// writeRoles prints every line of the text after its role and a tab,
// pages separated by form feeds; blank lines stay blank.
func writeRoles(w io.Writer, doc *pdf.Document) error {
	var b strings.Builder
	for i, p := range doc.Pages {
		if i > 0 {
			b.WriteByte('\f')
		}
		for _, s := range p.Spans {
			for _, ln := range strings.SplitAfter(p.Text[s.Start:s.End], "\n") {
				switch strings.TrimSpace(ln) {
				case "":
					b.WriteString(ln)
				default:
					b.WriteString(string(s.Role) + "\t" + ln)
				}
			}
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// extractHint names the fix for the errors a user can do something about,
// and only those: a damaged file, a page tree with no page or a feature
// no tool here reads gets its one-line cause alone.
func extractHint(err error) error {
	switch {
	case errors.Is(err, pdf.ErrEncrypted):
		return withHint(err, "decrypt it first, e.g. `qpdf --decrypt --password=PASSWORD in.pdf out.pdf`")
	case errors.Is(err, pdf.ErrNoUnicode):
		return withHint(err, "only the glyphs' shapes can be read: run OCR on it, e.g. `ocrmypdf --force-ocr in.pdf out.pdf`")
	case errors.Is(err, pdf.ErrScanned):
		return withHint(err, "run OCR on it first, e.g. `ocrmypdf in.pdf out.pdf`")
	case errors.Is(err, pdf.ErrTruncated):
		return withHint(err, "the file is incomplete: download it again")
	case errors.Is(err, pdf.ErrNotPDF):
		return withHint(err, "check the file: a download that failed often saves an HTML error page")
	}
	return err
}
