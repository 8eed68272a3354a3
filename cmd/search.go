package cmd

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/papers-cli/papers/embed"
	"github.com/papers-cli/papers/internal/safetext"
	"github.com/papers-cli/papers/internal/textkit"
	"github.com/papers-cli/papers/library"
	"github.com/papers-cli/papers/retrieve"
	"github.com/papers-cli/papers/role"
)

func init() { register(newSearchCmd) }

type searchOptions struct {
	*globalOptions
	k    int
	mode string
	rankingFlags
	filter      filterFlags
	perPaper    int
	perPaperSet bool
	json        bool

	query string
	ask   retrieve.Mode
}

// searchRecord is the --json shape of one passage (NDJSON, one per line).
type searchRecord struct {
	Rank    int    `json:"rank"`
	ID      string `json:"id"`
	Version int    `json:"version"`
	Title   string `json:"title"`
	Chunk   string `json:"chunk"`
	Pages   string `json:"pages"`
	Section string `json:"section"`
	// Role is what the passage's text is: "body" (prose), "caption",
	// "table", "figure", "footnote", "reference" or "equation".
	Role  string  `json:"role"`
	Score float64 `json:"score"`
	Text  string  `json:"text"`
}

func newSearchCmd(g *globalOptions) *cobra.Command {
	o := &searchOptions{globalOptions: g}
	c := &cobra.Command{
		Use:   "search QUERY...",
		Short: "Find the passages of the library that best match a query",
		Long: `Search the library and print the best-matching passages, best first, with
paper id, version, title, pages, section, score and a snippet.

--mode hybrid (the default) fuses two rankings: BM25 over the chunk text and
paper title (stemmed, as SQLite FTS5 does; the query is widened with the
terms most typical of its best matches), and the similarity of the
embedder's vectors (the embedder the library was built with; see papers
reindex).
--mode bm25 and --mode dense use one of them alone. At most --per-paper
passages of one paper are shown.

Exit status 3 when nothing in the library matches.

The embedder is the library's own (chosen at the first ingest with
--embedder; papers reindex changes it):

` + embed.Specs + "\n\n" + embed.LocalDescription + "\n\n" + embed.OpenAIDescription,
		Example: `  papers search 'reward hacking in RL agents'
  papers search -k 20 --per-paper 1 --since 2025-01 'process reward models'
  papers search --paper 2501.12948 'cold start data'
  papers search --json 'GRPO' | jq -r '"\(.id)v\(.version) p.\(.pages): \(.text[:80])"'`,
		Args: minArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			if err := o.complete(c, args); err != nil {
				return err
			}
			return runSearch(c.Context(), o)
		},
	}
	o.rankingFlags.register(c)
	o.filter.register(c, filterAll)
	f := c.Flags()
	addK(c, &o.k, library.SearchK, "passages to show")
	f.StringVar(&o.mode, "mode", "hybrid", "ranking: hybrid, bm25 or dense")
	f.IntVar(&o.perPaper, "per-paper", library.PerPaper, "at most this many passages of one paper (0: no limit)")
	addJSON(c, &o.json, "print NDJSON: one object per passage (id, version, title, chunk, pages, section, score, text)")
	return c
}

// complete checks the flags and takes the query from the arguments.
func (o *searchOptions) complete(c *cobra.Command, args []string) error {
	if err := checkK(c, o.k); err != nil {
		return err
	}
	mode, err := retrieve.ParseMode(o.mode)
	if err != nil {
		return withExit(err, ExitUsage)
	}
	o.ask = mode
	if err := o.rankingFlags.check(c); err != nil {
		return err
	}
	if o.perPaper < 0 {
		return usageError("--per-paper must be 0 (no limit) or more, got %d", o.perPaper)
	}
	o.perPaperSet = c.Flags().Changed("per-paper")
	// Unquoted words are one query: papers search reward hacking
	o.query = strings.Join(args, " ")
	if strings.TrimSpace(o.query) == "" {
		return usageError("the query is empty")
	}
	if _, err := o.filter.check(); err != nil {
		return err
	}
	return nil
}

func runSearch(ctx context.Context, o *searchOptions) error {
	out, errw := o.io.Out, o.io.ErrOut
	s, lib, err := openExisting(ctx, o.globalOptions)
	if err != nil {
		return err
	}
	defer s.Close()
	f, err := o.filter.resolve(ctx, lib)
	if err != nil {
		return err
	}
	so := library.SearchOptions{K: o.k, Mode: o.ask, Filter: f}
	if o.perPaperSet {
		so.PerPaper = &o.perPaper
	}
	so.DenseWeight, so.NoFeedback = o.rankingFlags.ranking()
	mode, query := o.ask, o.query
	start := time.Now()
	ps, e, err := s.Search(ctx, query, so)
	if err != nil {
		return err
	}
	if o.verbose {
		name := "no embedder"
		if e != nil {
			name = e.Name()
		}
		fmt.Fprintf(errw, "%s in %.1f ms (%s, %s)\n", textkit.Count(len(ps), "passage"), float64(time.Since(start).Microseconds())/1e3, mode, name)
	}
	if len(ps) == 0 {
		if len(embed.ContentWords(query)) == 0 {
			return withExit(withHint(errors.New("the query has only words too common to search for"),
				"add the words that matter (a name, a method, a result)"), ExitNoEvidence)
		}
		return withExit(withHint(errors.New("nothing in the library matches this query"),
			"try other words, --mode dense, fewer filters, or papers ingest more papers"), ExitNoEvidence)
	}
	if o.json {
		for _, p := range ps {
			rec := searchRecord{Rank: p.Rank, ID: p.PaperID, Version: p.Paper.Version, Title: p.Paper.Title,
				Chunk: p.ChunkID, Pages: p.Pages(), Section: p.Section, Role: string(p.Role.OfChunk()), Score: round(p.Score, 4), Text: p.Text}
			if err := writeJSON(out, rec); err != nil {
				return err
			}
		}
		return nil
	}
	printPassages(o.io, ps, query)
	return nil
}

func round(x float64, places int) float64 {
	v, _ := strconv.ParseFloat(strconv.FormatFloat(x, 'f', places, 64), 64)
	return v
}

// printPassages prints passages for people: a block per passage on a
// terminal, with the query's words in bold; tab-separated rows when piped.
func printPassages(s *IOStreams, ps []retrieve.Passage, query string) {
	out := s.Out
	if !s.OutTTY {
		t := newTable(out, s)
		for _, p := range ps {
			t.row(strconv.Itoa(p.Rank), p.PaperID, version(p.Paper.Version), p.Pages(), p.Section,
				strconv.FormatFloat(p.Score, 'f', 4, 64), p.Paper.Title, snippet(body(p), query, 240, false))
		}
		t.flush()
		return
	}
	width := s.Width
	if width <= 0 || width > 120 {
		width = 100
	}
	color := s.Color
	for i, p := range ps {
		if i > 0 {
			fmt.Fprintln(out)
		}
		where := p.PaperID + version(p.Paper.Version)
		if pg := p.Pages(); pg != "" {
			where += "  p. " + pg
		} else {
			where += "  abstract"
		}
		if p.Section != "" {
			where += "  § " + p.Section
		}
		if r := p.Role.OfChunk(); r != role.Body {
			where += "  [" + string(r) + "]"
		}
		// Libraries made before Put cleaned text may hold escape sequences.
		title := textkit.Truncate(safetext.OneLine(p.Paper.Title), width-4)
		if color {
			title = "\x1b[1m" + title + "\x1b[0m"
		}
		fmt.Fprintf(out, "%2d. %s\n    %s  score %.3f\n", p.Rank, title, safetext.Clean(where), p.Score)
		if lines := rowLines(p, width-4); lines != nil {
			for _, line := range lines {
				fmt.Fprintln(out, "    "+line)
			}
			continue
		}
		for _, line := range textkit.Wrap(snippet(safetext.Clean(body(p)), query, 3*width-12, color), width-4) {
			fmt.Fprintln(out, "    "+line)
		}
	}
}

// rowLines shows a table (or an equation, or a figure's text) as it is
// laid out, a row a line, each cut to width: its first rows, up to a
// dozen. Prose gives nil (it is shown as a snippet).
func rowLines(p retrieve.Passage, width int) []string {
	switch p.Role.OfChunk() {
	case role.Table, role.Equation, role.Figure:
	default:
		return nil
	}
	var out []string
	for _, l := range strings.Split(safetext.Clean(p.Text), "\n") {
		if strings.TrimSpace(l) == "" {
			continue
		}
		if len(out) == 12 {
			out = append(out, "…")
			break
		}
		out = append(out, textkit.Truncate(l, width))
	}
	return out
}

// body is the passage text without the paper title that opens the
// title+abstract chunk (the title is printed already).
func body(p retrieve.Passage) string {
	if p.Seq == 0 && p.Paper.Title != "" {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(p.Text), p.Paper.Title); ok && strings.TrimSpace(rest) != "" {
			return strings.TrimSpace(rest)
		}
	}
	return p.Text
}

func version(v int) string {
	if v <= 0 {
		return ""
	}
	return "v" + strconv.Itoa(v)
}

// snippet cuts about n bytes of text around the densest run of query
// words (retrieve.MakeSnippet); with bold, matching words are wrapped in ANSI
// bold.
func snippet(text, query string, n int, bold bool) string {
	s := retrieve.MakeSnippet(text, query, n)
	if bold {
		return s.Marked("\x1b[1;33m", "\x1b[0m")
	}
	return s.Text
}
