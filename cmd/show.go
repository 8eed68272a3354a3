package cmd

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"github.com/papers-cli/papers/ingest/arxiv"
	"github.com/papers-cli/papers/internal/cite"
	"github.com/papers-cli/papers/internal/safetext"
	"github.com/papers-cli/papers/internal/textkit"
	"github.com/papers-cli/papers/resolve"
	"github.com/papers-cli/papers/role"
)

func init() { register(newShowCmd) }

type showOptions struct {
	*globalOptions
	json   bool
	chunks bool

	ref string
}

// showRecord is the --json shape of show.
type showRecord struct {
	paperRecord
	Abstract     string   `json:"abstract"`
	Affiliations []string `json:"affiliations,omitempty"`
	Comment      string   `json:"comment,omitempty"`
	JournalRef   string   `json:"journal_ref,omitempty"`
	DOI          string   `json:"doi,omitempty"`
	Volume       string   `json:"volume,omitempty"`
	Issue        string   `json:"issue,omitempty"`
	PageRange    string   `json:"page_range,omitempty"`
	Publisher    string   `json:"publisher,omitempty"`
	// MetadataSource says where each field came from when not from the
	// paper's source: "arxiv", "zotero", "jsonl", "pdf:xmp", "pdf:info",
	// "pdf:layout", "pdf:stamp", "pdf:text".
	MetadataSource map[string]string `json:"metadata_source"`
	TextError      string            `json:"text_error,omitempty"`
	Sections       []string          `json:"sections"`
	ChunkList      []chunkRecord     `json:"chunk_list,omitempty"`
}

type chunkRecord struct {
	Seq     int    `json:"seq"`
	Pages   string `json:"pages"`
	Section string `json:"section,omitempty"`
	// Role is what the chunk's text is: "body" (prose), "caption",
	// "table", "figure", "footnote", "reference" or "equation".
	Role string `json:"role"`
	Text string `json:"text"`
}

func newShowCmd(g *globalOptions) *cobra.Command {
	o := &showOptions{globalOptions: g}
	c := &cobra.Command{
		Use:   "show ID",
		Short: "Show a paper of the library: metadata, abstract, pages and chunks",
		Example: `  papers show 2501.12948
  papers show https://arxiv.org/abs/2302.04761v1 --chunks
  papers show 2501.12948 --json | jq .sections`,
		Args: exactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			o.ref = args[0]
			return runShow(c.Context(), o)
		},
	}
	addJSON(c, &o.json, "print one JSON object")
	c.Flags().BoolVar(&o.chunks, "chunks", false, "also print every chunk's text")
	return c
}

func runShow(ctx context.Context, o *showOptions) error {
	ref, out := o.ref, o.io.Out
	s, lib, err := openExisting(ctx, o.globalOptions)
	if err != nil {
		return err
	}
	defer s.Close()
	p, err := resolve.Paper(ctx, lib, ref)
	if err != nil {
		return err
	}
	if _, v, err := arxiv.ParseID(ref); err == nil && v > 0 && p.Version > 0 && v != p.Version {
		// the library keeps one version of a paper: say it is another one
		fmt.Fprintf(o.io.ErrOut, "warning: %s: showing v%d\n", versionHeld(p.ID, v, p.Version), p.Version)
	}
	chunks, err := lib.Chunks(ctx, p.ID)
	if err != nil {
		return err
	}
	rec := showRecord{paperRecord: newPaperRecord(p), Abstract: p.Abstract, Affiliations: p.Affiliations,
		Comment: p.Comment, JournalRef: p.JournalRef, DOI: p.DOI, TextError: p.TextError, Sections: []string{},
		Volume: p.Volume, Issue: p.Issue, PageRange: p.PageRange, Publisher: p.Publisher, MetadataSource: p.MetadataSource}
	if rec.MetadataSource == nil {
		rec.MetadataSource = map[string]string{}
	}
	seen := map[string]bool{}
	for _, c := range chunks {
		if c.Section != "" && !seen[c.Section] {
			seen[c.Section] = true
			rec.Sections = append(rec.Sections, c.Section)
		}
		if o.chunks {
			rec.ChunkList = append(rec.ChunkList, chunkRecord{Seq: c.Seq, Pages: cite.Pages(c.PageStart, c.PageEnd), Section: c.Section, Role: string(c.Role.OfChunk()), Text: c.Text})
		}
	}
	if o.json {
		return writeJSON(out, rec)
	}
	// Ids are stored as given, and a library made before Put cleaned text
	// may hold anything: nothing printed may act on the terminal.
	w := func(label, v string) {
		if v != "" {
			fmt.Fprintf(out, "%-12s %s\n", label+":", safetext.Line(v))
		}
	}
	fmt.Fprintln(out, safetext.Line(p.Title))
	fmt.Fprintln(out)
	w("id", p.ID)
	if p.Version > 0 {
		w("version", fmt.Sprintf("v%d", p.Version))
	}
	w("authors", strings.Join(p.Authors, ", "))
	w("affiliations", strings.Join(p.Affiliations, "; "))
	w("published", textkit.Day(p.Published))
	w("updated", textkit.Day(p.Updated))
	w("categories", strings.Join(p.Categories, " "))
	if p.ArxivID != "" && p.ArxivID != p.ID {
		w("arxiv id", p.ArxivID)
	}
	w("type", p.Type)
	w("venue", strings.Join(nonEmpty(p.Venue, p.Volume, p.Issue, p.PageRange), ", "))
	w("issued", p.Issued)
	w("comment", p.Comment)
	w("journal", p.JournalRef)
	w("doi", p.DOI)
	w("url", p.URL)
	w("source", p.Source)
	var tags []string
	for _, t := range p.Tags {
		tags = append(tags, t.Name+" ("+t.Source+")")
	}
	w("tags", strings.Join(tags, ", "))
	if !p.Saved.IsZero() {
		w("saved", textkit.Day(p.Saved))
	}
	var srcs []string
	for _, f := range sortedKeys(p.MetadataSource) {
		srcs = append(srcs, f+" from "+p.MetadataSource[f])
	}
	w("metadata", strings.Join(srcs, ", "))
	w("pages", fmt.Sprint(p.Pages))
	w("chunks", fmt.Sprint(p.Chunks))
	if p.TextError != "" {
		w("full text", "missing: "+p.TextError)
	}
	if len(rec.Sections) > 0 {
		w("sections", strings.Join(rec.Sections, " · "))
	}
	if p.Abstract != "" {
		fmt.Fprintf(out, "\n%s\n", safetext.Clean(p.Abstract))
	}
	for _, c := range rec.ChunkList {
		head := fmt.Sprintf("[%d]", c.Seq)
		if c.Pages != "" {
			head += " p. " + c.Pages
		}
		if c.Section != "" {
			head += " · " + c.Section
		}
		if c.Role != string(role.Body) {
			head += " · " + c.Role
		}
		fmt.Fprintf(out, "\n%s\n%s\n", safetext.Line(head), safetext.Clean(c.Text))
	}
	return nil
}

func nonEmpty(ss ...string) []string {
	var out []string
	for _, s := range ss {
		if strings.TrimSpace(s) != "" {
			out = append(out, s)
		}
	}
	return out
}

func sortedKeys(m map[string]string) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}
