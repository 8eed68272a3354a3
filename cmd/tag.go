package cmd

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/papers-cli/papers/internal/safetext"
	"github.com/papers-cli/papers/resolve"
	"github.com/papers-cli/papers/store"
)

func init() {
	register(func(g *globalOptions) *cobra.Command { return newTagCmd(g, true) })
	register(func(g *globalOptions) *cobra.Command { return newTagCmd(g, false) })
	register(func(g *globalOptions) *cobra.Command { return newSaveCmd(g, true) })
	register(func(g *globalOptions) *cobra.Command { return newSaveCmd(g, false) })
}

type tagOptions struct {
	*globalOptions
	json bool
	add  bool // tag, else untag

	ref  string
	tags []string
}

func newTagCmd(g *globalOptions, add bool) *cobra.Command {
	o := &tagOptions{globalOptions: g, add: add}
	c := &cobra.Command{
		Use:   "tag ID TAG...",
		Short: "Give a paper your own tags (list, search, ask, digest and export take --tag)",
		Long: `Give a paper tags of your own. They sit beside the tags its sources gave it
(Zotero tags and collections, a corpus's tags), are matched without regard to
case, and stay through re-ingest and reindex. --tag NAME on list, search,
ask, digest and export selects the papers with a tag of any source.`,
		Example: `  papers tag 2501.12948 to-read "reading group"
  papers list --tag to-read
  papers untag 2501.12948 to-read`,
		Args: minArgs(2),
		RunE: func(c *cobra.Command, args []string) error {
			o.ref, o.tags = args[0], args[1:]
			return runTag(c.Context(), o)
		},
	}
	if !add {
		c.Use = "untag ID TAG..."
		c.Short = "Take your own tags off a paper"
		c.Long = `Take tags you gave a paper with papers tag off it. Tags that came from a
source (Zotero, a corpus) are the source's: they stay, and untag says so.`
		c.Example = `  papers untag 2501.12948 to-read`
	}
	addJSON(c, &o.json, `print {"id","changed":[tags],"tags":[{"name","source"}]}: what changed and the paper's tags after`)
	return c
}

func runTag(ctx context.Context, o *tagOptions) error {
	s, lib, err := openExisting(ctx, o.globalOptions)
	if err != nil {
		return err
	}
	defer s.Close()
	p, err := resolve.HeldPaper(ctx, lib, o.ref)
	if err != nil {
		return err
	}
	var changed []string
	if o.add {
		changed, err = lib.AddTags(ctx, p.ID, o.tags)
	} else {
		changed, err = lib.RemoveTags(ctx, p.ID, o.tags)
	}
	if errors.Is(err, store.ErrEmptyTag) {
		return withExit(err, ExitUsage)
	}
	if err != nil {
		return err
	}
	if p, err = lib.Get(ctx, p.ID); err != nil {
		return err
	}
	if o.json {
		if changed == nil {
			changed = []string{}
		}
		return writeJSON(o.io.Out, struct {
			ID      string      `json:"id"`
			Changed []string    `json:"changed"`
			Tags    []store.Tag `json:"tags"`
		}{p.ID, changed, newPaperRecord(p).Tags})
	}
	verb := "tagged"
	if !o.add {
		verb = "untagged"
	}
	id := safetext.Line(p.ID)
	if len(changed) > 0 {
		fmt.Fprintf(o.io.Out, "%s %s: %s\n", verb, id, safetext.Line(strings.Join(changed, ", ")))
	} else {
		fmt.Fprintf(o.io.Out, "%s: nothing changed\n", id)
	}
	if !o.add {
		for _, t := range p.Tags {
			for _, n := range o.tags {
				if t.Source != store.TagUser && strings.EqualFold(strings.TrimSpace(n), t.Name) {
					fmt.Fprintf(o.io.ErrOut, "note: %s's tag %q comes from %s and stays (it is the source's, not yours)\n", id, safetext.Line(t.Name), t.Source)
				}
			}
		}
	}
	return nil
}

type saveOptions struct {
	*globalOptions
	json bool
	save bool // save, else unsave

	refs []string
}

func newSaveCmd(g *globalOptions, save bool) *cobra.Command {
	o := &saveOptions{globalOptions: g, save: save}
	c := &cobra.Command{
		Use:   "save ID...",
		Short: "Save papers to read later (list --saved, export --saved)",
		Long: `Save papers: list --saved lists them (and every command with the filter
flags takes --saved), export --saved cites them, papers browse marks them
with ★ (s saves there too). Saves stay through re-ingest and reindex; every
id must be in the library, or nothing is saved.`,
		Example: `  papers save 2501.12948 2210.03629
  papers list --saved
  papers export --saved > reading.bib`,
		Args: minArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			o.refs = args
			return runSave(c.Context(), o)
		},
	}
	if !save {
		c.Use = "unsave ID..."
		c.Short = "Take papers off your saved papers"
		c.Long = `Take papers off the saved papers. A paper that was not saved is no error.`
		c.Example = `  papers unsave 2501.12948`
	}
	addJSON(c, &o.json, `print {"saved":[ids]} (unsave: {"unsaved":[ids]}), the papers named`)
	return c
}

func runSave(ctx context.Context, o *saveOptions) error {
	s, lib, err := openExisting(ctx, o.globalOptions)
	if err != nil {
		return err
	}
	defer s.Close()
	ids, err := resolve.Held(ctx, lib, o.refs) // all or nothing
	if err != nil {
		return err
	}
	verb := "saved"
	if o.save {
		_, err = lib.Save(ctx, ids)
	} else {
		verb = "unsaved"
		_, err = lib.Unsave(ctx, ids)
	}
	if err != nil {
		return err
	}
	if o.json {
		return writeJSON(o.io.Out, map[string][]string{verb: ids})
	}
	for _, id := range ids {
		fmt.Fprintf(o.io.Out, "%s %s\n", verb, safetext.Line(id))
	}
	return nil
}
