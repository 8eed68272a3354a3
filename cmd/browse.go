package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/spf13/cobra"

	"github.com/papers-cli/papers/browse"
	"github.com/papers-cli/papers/library"
	"github.com/papers-cli/papers/resolve"
)

func init() { register(newBrowseCmd) }

type browseOptions struct {
	*globalOptions
	topic string
	llm   llmFlags
}

func newBrowseCmd(g *globalOptions) *cobra.Command {
	o := &browseOptions{globalOptions: g}
	c := &cobra.Command{
		Use:   "browse [--topic NAME]",
		Short: "The topic page in the terminal: momentum, latest papers, reader, AskPDF, related",
		Long: `Browse a topic as a research feed's topic page shows it: its name and
description, its momentum ("70 papers in the last four weeks, up 141% on the
four weeks before. 0.7% of all new papers.") over a 12-week chart, then its
latest papers with date, category, title, authors, affiliations and tags.

Keys: j/k or arrows move, g/G first/last, PgDn/PgUp; Enter opens a paper
(abstract, authors, tags, sections with pages, its chunks); o opens its PDF
or arXiv page in the browser (or shows the address); s saves or unsaves it;
a asks about it (AskPDF) and A about the topic, answered as papers ask would
(by the model configured, else offline) and streamed with citations; /
searches; r lists related papers; t switches topic; ? lists the keys; Esc
goes back or cancels what runs; q quits.

Without --topic it opens the topic picker when topics are followed, else the
whole library. The momentum comes from the library at once, and from arXiv
when it answers (--offline, global: never asked). It needs a terminal: piped, it
exits 2 (papers list prints the same papers).`,
		Example: `  papers browse --topic rl-agents
  papers browse
  NO_COLOR=1 papers browse --topic rl-agents --offline`,
		Args: exactArgs(0),
		RunE: func(c *cobra.Command, args []string) error {
			if !o.io.InTTY || !o.io.OutTTY {
				list := "papers list"
				if o.topic != "" {
					list += " --topic " + shellArg(o.topic)
				}
				return withHint(usageError("papers browse needs a terminal"), "%s prints the same papers (--json for scripts)", list)
			}
			return runBrowse(c.Context(), o)
		},
	}
	c.Flags().StringVar(&o.topic, "topic", "", "the followed topic to open (default: the topic picker, or the whole library)")
	o.llm.register(c, "answer offline from the passages' own sentences, even when a model is configured")
	return c
}

func runBrowse(ctx context.Context, o *browseOptions) error {
	// momentum only asks arXiv once: the library's count is on screen meanwhile
	s, err := o.session(o.llm.set(true), func(c *library.Config) { c.Arxiv.MaxTries = 1 })
	if err != nil {
		return err
	}
	defer s.Close()
	if _, err := o.llm.resolve(s); err != nil {
		return err
	}
	lib, err := libraryOf(ctx, s)
	if err != nil {
		return err
	}
	if _, err := s.Embedder(ctx); err != nil {
		return err
	}
	be, err := browse.NewLibrary(ctx, s)
	if err != nil {
		return err
	}
	be.Extractive = o.llm.extractive
	defer be.Close()
	if !o.offline {
		be.Arxiv = s.Arxiv()
	}
	opts := browse.Options{Color: o.io.Color, Open: openInBrowser, Online: !o.offline, Width: o.io.Width}
	if o.topic != "" {
		tp, err := resolve.Topic(ctx, lib, o.topic)
		if err != nil {
			return err
		}
		opts.Topic = tp.Name
	} else if ts, err := lib.Topics(ctx); err != nil {
		return err
	} else {
		opts.PickTopic = len(ts) > 0
	}
	if !opts.PickTopic {
		// The first frame shows the page, not "loading".
		if opts.Page, err = be.Page(ctx, opts.Topic, browse.FirstPapers); err != nil {
			return err
		}
	}
	var out io.Writer = o.io.Out
	if f := fileOf(out); f != nil {
		out = f // the terminal itself: bubbletea sizes it and sets raw mode on it
	}
	popts := []tea.ProgramOption{tea.WithContext(ctx), tea.WithInput(o.io.In), tea.WithOutput(out)}
	if !o.io.Color {
		popts = append(popts, tea.WithColorProfile(colorprofile.Ascii))
	}
	_, err = tea.NewProgram(browse.New(be, opts), popts...).Run()
	if errors.Is(err, tea.ErrProgramKilled) && ctx.Err() != nil {
		return ctx.Err()
	}
	if err != nil {
		return fmt.Errorf("browse: %w", err)
	}
	return nil
}

// openInBrowser opens url with the desktop's opener (xdg-open, open). With
// none, or over ssh without a display, it fails and browse shows the URL.
func openInBrowser(url string) error {
	name := "xdg-open"
	if runtime.GOOS == "darwin" {
		name = "open"
	}
	if os.Getenv("SSH_CONNECTION") != "" && os.Getenv("DISPLAY") == "" && os.Getenv("WAYLAND_DISPLAY") == "" {
		return errors.New("no display over ssh")
	}
	path, err := exec.LookPath(name)
	if err != nil {
		return err
	}
	c := exec.Command(path, url)
	if err := c.Start(); err != nil {
		return err
	}
	go c.Wait() // reap it; the page does not wait for the browser
	return nil
}
