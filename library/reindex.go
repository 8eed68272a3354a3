package library

import (
	"context"
	"fmt"

	"github.com/papers-cli/papers/embed"
	"github.com/papers-cli/papers/store"
)

// ReindexBatch is how many chunks one embedding call of Reindex carries.
const ReindexBatch = 256

// ReindexOptions tune Reindex.
type ReindexOptions struct {
	// Batch is the chunks per embedding call (0: ReindexBatch).
	Batch int
	// Progress receives the chunks embedded so far and the total.
	Progress func(done, total int)
	// Waiting is called once when ingests or updates hold the library and
	// the reindex waits for them (nil: a note to Logf).
	Waiting func()
	// Logf, when set, receives this run's notes instead of Config.Logf.
	Logf func(format string, args ...any)
}

// ReindexReport is what Reindex did.
type ReindexReport struct {
	Embedder   string
	Dimensions int
	Chunks     int
}

// Reindex re-embeds every chunk of the library with e and records e as the
// library's embedder, in one transaction: on an error or cancellation the
// library keeps its previous vectors and embedder (the error says so). It
// then brings the search index up to date; a failure there is only noted,
// since the next search retries it.
func (s *Session) Reindex(ctx context.Context, e embed.Embedder, o ReindexOptions) (ReindexReport, error) {
	logf := s.logf
	if o.Logf != nil {
		logf = o.Logf
	}
	lib, err := s.Store(ctx)
	if err != nil {
		return ReindexReport{}, err
	}
	dims, err := embed.Dimensions(ctx, e)
	if err != nil {
		return ReindexReport{}, err
	}
	_, total, err := lib.Count(ctx)
	if err != nil {
		return ReindexReport{}, err
	}
	r := ReindexReport{Embedder: e.Name(), Dimensions: dims, Chunks: total}
	batch := o.Batch
	if batch <= 0 {
		batch = ReindexBatch
	}
	waiting := o.Waiting
	if waiting == nil {
		waiting = func() {
			logf("waiting for the papers ingest or update running on this library to finish (Ctrl-C stops)...")
		}
	}
	progress := o.Progress
	if progress == nil {
		progress = func(int, int) {}
	}
	err = lib.Reindex(ctx, e.Name(), dims, batch, func(ctx context.Context, cs []store.Chunk) ([][]float32, error) {
		texts := make([]string, len(cs))
		for i, c := range cs {
			texts[i] = c.Text
		}
		return e.EmbedDocuments(ctx, texts)
	}, progress, waiting)
	if err != nil {
		if ctx.Err() != nil {
			return r, fmt.Errorf("%w (the library keeps its previous vectors)", ctx.Err())
		}
		// err names the embedder already (store.Reindex).
		return r, fmt.Errorf("%w (the library keeps its previous vectors)", err)
	}
	// Build the search index now rather than in the next search.
	if err := lib.Refresh(ctx); err != nil && ctx.Err() == nil {
		logf("warning: %v (the next search will retry)", err)
	}
	return r, nil
}
