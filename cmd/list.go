package cmd

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/spf13/cobra"

	"github.com/papers-cli/papers/internal/textkit"
	"github.com/papers-cli/papers/store"
)

func init() { register(newListCmd) }

type listOptions struct {
	*globalOptions
	filter filterFlags
	limit  int
	json   bool
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
	// ArxivID is set for any paper known to be on arXiv, whatever its
	// source; Type, Venue and Issued come from Zotero or the PDF itself.
	ArxivID string      `json:"arxiv_id,omitempty"`
	Type    string      `json:"type,omitempty"`
	Venue   string      `json:"venue,omitempty"`
	Issued  string      `json:"issued,omitempty"`
	Tags    []store.Tag `json:"tags"` // [{"name", "source"}]; source "zotero", "corpus" or "user"
	Saved   bool        `json:"saved"`
	SavedAt string      `json:"saved_at,omitempty"` // RFC 3339, UTC
}

func newPaperRecord(p store.Paper) paperRecord {
	r := paperRecord{
		ID: p.ID, Version: p.Version, Title: p.Title, Authors: p.Authors,
		Published: textkit.Day(p.Published), Updated: textkit.Day(p.Updated), Categories: p.Categories,
		Pages: p.Pages, Chunks: p.Chunks, Source: p.Source, URL: p.URL,
		ArxivID: p.ArxivID, Type: p.Type, Venue: p.Venue, Issued: p.Issued, Tags: p.Tags,
	}
	if r.Tags == nil {
		r.Tags = []store.Tag{}
	}
	if !p.Saved.IsZero() {
		r.Saved, r.SavedAt = true, p.Saved.UTC().Format(time.RFC3339)
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
	o := &listOptions{globalOptions: g}
	c := &cobra.Command{
		Use:   "list",
		Short: "List the papers in the library, newest first",
		Example: `  papers list
  papers list --since 4w --category cs.LG
  papers list --json | jq -r 'select(.pages == 0) | .id'`,
		Args: exactArgs(0),
		RunE: func(c *cobra.Command, args []string) error {
			if _, err := o.filter.check(); err != nil {
				return err
			}
			return runList(c.Context(), o)
		},
	}
	o.filter.register(c, filterPapers)
	c.Flags().IntVar(&o.limit, "limit", 0, "print at most this many papers (0: all)")
	addJSON(c, &o.json, "print NDJSON: one object per paper")
	return c
}

func runList(ctx context.Context, o *listOptions) error {
	s, lib, err := openExisting(ctx, o.globalOptions)
	if err != nil {
		return err
	}
	defer s.Close()
	f, err := o.filter.resolve(ctx, lib)
	if err != nil {
		return err
	}
	f.Limit = o.limit
	f.Brief = true // list prints no abstracts
	var out io.Writer = o.io.Out
	if !o.io.OutTTY {
		bw := bufio.NewWriterSize(out, 64<<10) // one write per 64 KiB, not per row
		defer bw.Flush()
		out = bw
	}
	// Streamed: memory stays flat however many papers the library holds.
	if o.json {
		return lib.EachPaper(ctx, f, func(p store.Paper) error { return writeJSON(out, newPaperRecord(p)) })
	}
	t := newTable(out, o.io)
	if t.tty {
		t.row("ID", "VER", "PUBLISHED", "PAGES", "CHUNKS", "TITLE")
	}
	n := 0
	err = lib.EachPaper(ctx, f, func(p store.Paper) error {
		v := ""
		if p.Version > 0 {
			v = "v" + strconv.Itoa(p.Version)
		}
		t.row(p.ID, v, textkit.Day(p.Published), strconv.Itoa(p.Pages), strconv.Itoa(p.Chunks), p.Title)
		n++
		return nil
	})
	if err != nil {
		return err
	}
	t.flush()
	if t.tty {
		fmt.Fprintln(out, textkit.Count(n, "paper"))
	}
	return nil
}
