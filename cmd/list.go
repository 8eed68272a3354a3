package cmd

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/papers-cli/papers/store"
)

func init() { register(newListCmd) }

type listOptions struct {
	since, until string
	categories   []string
	authors      []string
	topics       []string
	limit        int
	json         bool
}

// paperRecord is the --json shape of a paper in list and show.
type paperRecord struct {
	ID         string   `json:"id"`
	Version    int      `json:"version"`
	Title      string   `json:"title"`
	Authors    []string `json:"authors"`
	Published  string   `json:"published"`
	Updated    string   `json:"updated"`
	Categories []string `json:"categories"`
	Pages      int      `json:"pages"`
	Chunks     int      `json:"chunks"`
	Source     string   `json:"source"`
	URL        string   `json:"url"` // "" when the source has none (corpus records)
}

func newPaperRecord(p store.Paper) paperRecord {
	r := paperRecord{
		ID: p.ID, Version: p.Version, Title: p.Title, Authors: p.Authors,
		Published: day(p.Published), Updated: day(p.Updated), Categories: p.Categories,
		Pages: p.Pages, Chunks: p.Chunks, Source: p.Source, URL: p.URL,
	}
	if r.Authors == nil {
		r.Authors = []string{}
	}
	if r.Categories == nil {
		r.Categories = []string{}
	}
	return r
}

func newListCmd(g *globalOptions) *cobra.Command {
	o := &listOptions{}
	c := &cobra.Command{
		Use:   "list",
		Short: "List the papers in the library, newest first",
		Example: `  papers list
  papers list --since 4w --category cs.LG
  papers list --json | jq -r 'select(.pages == 0) | .id'`,
		Args: exactArgs(0),
		RunE: func(c *cobra.Command, args []string) error {
			return runList(c.Context(), g, o, c.OutOrStdout())
		},
	}
	f := c.Flags()
	f.StringVar(&o.since, "since", "", "only papers published on or after this date (YYYY-MM-DD, or 7d, 4w, 3m, 1y back)")
	f.StringVar(&o.until, "until", "", "only papers published on or before this date")
	f.StringArrayVar(&o.categories, "category", nil, "only papers in this arXiv category, e.g. cs.CL (repeatable: any of them)")
	f.StringArrayVar(&o.authors, "author", nil, "only papers with an author whose name contains this (repeatable)")
	f.StringArrayVar(&o.topics, "topic", nil, "only papers of this followed topic (repeatable: any of them)")
	f.IntVar(&o.limit, "limit", 0, "print at most this many papers (0: all)")
	f.BoolVar(&o.json, "json", false, "print NDJSON: one object per paper")
	return c
}

// filter builds the store filter from list-style flags.
func buildFilter(since, until string, categories, authors []string) (store.Filter, error) {
	now := time.Now()
	f := store.Filter{Categories: categories, Authors: authors}
	var err error
	if f.Since, err = parseDate(since, now); err != nil {
		return f, err
	}
	if _, f.Until, err = parsePeriod(until, now); err != nil { // the whole day, month or year
		return f, err
	}
	if !f.Since.IsZero() && !f.Until.IsZero() && f.Since.After(f.Until) {
		return f, usageError("--since %s is after --until %s: nothing can match", since, until)
	}
	for _, c := range categories {
		if strings.ContainsAny(c, ", ") {
			return f, usageError("--category %q: give one category per flag (--category cs.LG --category cs.CL)", c)
		}
	}
	return f, nil
}

func runList(ctx context.Context, g *globalOptions, o *listOptions, out io.Writer) error {
	f, err := buildFilter(o.since, o.until, o.categories, o.authors)
	if err != nil {
		return err
	}
	f.Limit = o.limit
	f.Brief = true // list prints no abstracts
	lib, err := openExisting(ctx, g)
	if err != nil {
		return err
	}
	defer lib.Close()
	if f.Topics, err = topicFilter(ctx, lib, o.topics); err != nil {
		return err
	}
	papers, err := lib.List(ctx, f)
	if err != nil {
		return err
	}
	if !isTerminal(out) {
		bw := bufio.NewWriterSize(out, 64<<10) // one write per 64 KiB, not per row
		defer bw.Flush()
		out = bw
	}
	if o.json {
		for _, p := range papers {
			if err := writeJSON(out, newPaperRecord(p)); err != nil {
				return err
			}
		}
		return nil
	}
	t := newTable(out)
	if t.tty {
		t.row("ID", "VER", "PUBLISHED", "PAGES", "CHUNKS", "TITLE")
	}
	for _, p := range papers {
		v := ""
		if p.Version > 0 {
			v = "v" + strconv.Itoa(p.Version)
		}
		t.row(p.ID, v, day(p.Published), strconv.Itoa(p.Pages), strconv.Itoa(p.Chunks), p.Title)
	}
	t.flush()
	if t.tty {
		fmt.Fprintf(out, "%d papers\n", len(papers))
	}
	return nil
}
