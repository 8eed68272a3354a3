package cmd

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"

	"github.com/papers-cli/papers/embed"
	"github.com/papers-cli/papers/internal/textkit"
	"github.com/papers-cli/papers/library"
)

func init() { register(newReindexCmd) }

type reindexOptions struct {
	*globalOptions
	embedder embedderFlags
	batch    int
	json     bool
}

func newReindexCmd(g *globalOptions) *cobra.Command {
	o := &reindexOptions{globalOptions: g}
	c := &cobra.Command{
		Use:   "reindex --embedder SPEC",
		Short: "Re-embed every chunk of the library with another embedder",
		Long: `Re-embed every chunk of the library with the embedder SPEC and record it as
the library's embedder. It runs in one transaction: if it fails or is
interrupted, the library keeps its old vectors and embedder. Other papers
processes can read (search, ask) meanwhile. It first waits for the ingests and
updates running on the library to finish; those started during the reindex
wait for it, then embed with the new embedder.

Searches use the library's recorded embedder, so after a reindex they need
no --embedder.

` + embed.Help,
		Example: `  papers reindex --embedder ollama:nomic-embed-text
  OPENAI_API_KEY=sk-... papers reindex --embedder openai:text-embedding-3-small --dimensions 512
  papers reindex --embedder local`,
		Args: exactArgs(0),
		RunE: func(c *cobra.Command, args []string) error {
			if o.embedder.spec == "" {
				return usageError("--embedder is required (local, openai:MODEL or ollama:MODEL)")
			}
			if o.batch <= 0 {
				return usageError("--batch must be at least 1, got %d", o.batch)
			}
			return runReindex(c.Context(), o)
		},
	}
	o.embedder.register(c, "", "the new embedder: local, openai:MODEL or ollama:MODEL")
	o.embedder.registerTuning(c)
	c.Flags().IntVar(&o.batch, "batch", library.ReindexBatch, "chunks per embedding call (a provider batches further by its own limit)")
	addJSON(c, &o.json, `print {"embedder","dimensions","chunks","elapsed_s"} when done`)
	return c
}

func runReindex(ctx context.Context, o *reindexOptions) error {
	out, errw := o.io.Out, o.io.ErrOut
	s, err := o.session()
	if err != nil {
		return err
	}
	defer s.Close()
	e, err := o.embedder.parse(s)
	if err != nil {
		return err
	}
	lib, err := libraryOf(ctx, s)
	if err != nil {
		return err
	}
	_, total, err := lib.Count(ctx)
	if err != nil {
		return err
	}
	start := time.Now()
	prog := newReindexProgress(o.io, total)
	r, err := s.Reindex(ctx, e, library.ReindexOptions{
		Batch:    o.batch,
		Progress: prog.update,
		Waiting: func() {
			fmt.Fprintln(errw, "waiting for the papers ingest or update running on this library to finish (Ctrl-C stops)...")
		},
	})
	prog.finish()
	if err != nil {
		if ctx.Err() != nil {
			fmt.Fprintln(errw, "the library keeps its previous vectors")
			return ctx.Err()
		}
		return err
	}
	elapsed := time.Since(start)
	if o.json {
		return writeJSON(out, map[string]any{"embedder": r.Embedder, "dimensions": r.Dimensions, "chunks": r.Chunks, "elapsed_s": round(elapsed.Seconds(), 2)})
	}
	fmt.Fprintf(out, "re-embedded %s with %s (%d dimensions) in %.1f s\n", textkit.Count(r.Chunks, "chunk"), r.Embedder, r.Dimensions, elapsed.Seconds())
	return nil
}

// reindexProgress shows chunks embedded on stderr: a bar on a terminal, a
// line every 10% otherwise.
type reindexProgress struct {
	w     io.Writer
	bar   *progressbar.ProgressBar
	total int
	next  int
}

func newReindexProgress(s *IOStreams, total int) *reindexProgress {
	w := s.ErrOut
	p := &reindexProgress{w: w, total: total}
	if s.ErrTTY && total > 0 {
		p.bar = progressbar.NewOptions(total,
			progressbar.OptionSetWriter(w),
			progressbar.OptionSetDescription("embedding chunks"),
			progressbar.OptionShowCount(),
			progressbar.OptionShowIts(),
			progressbar.OptionSetItsString("chunks"),
			progressbar.OptionSetWidth(30),
			progressbar.OptionThrottle(100*time.Millisecond),
			progressbar.OptionClearOnFinish(),
		)
	}
	return p
}

func (p *reindexProgress) update(done, total int) {
	if p.bar != nil {
		p.bar.Set(done)
		return
	}
	if total > 0 && done*10 >= p.next*total {
		fmt.Fprintf(p.w, "embedded %d/%d chunks\n", done, total)
		for done*10 >= p.next*total {
			p.next++
		}
	}
}

func (p *reindexProgress) finish() {
	if p.bar != nil {
		p.bar.Finish()
	}
}
