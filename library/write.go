package library

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"time"

	"github.com/papers-cli/papers/embed"
	"github.com/papers-cli/papers/ingest"
	"github.com/papers-cli/papers/ingest/chunk"
	"github.com/papers-cli/papers/resolve"
	"github.com/papers-cli/papers/store"
	"github.com/papers-cli/papers/topic"
)

// WriteOptions are what Ingest and Update share.
type WriteOptions struct {
	// Embedder, when set, embeds the chunks; it must be the library's (a
	// library with no vectors yet records it). nil: the library's own,
	// local for a new library.
	Embedder embed.Embedder
	// AbstractsOnly skips PDFs: titles and abstracts only.
	AbstractsOnly bool
	// RetryFailed tries again now the PDFs that failed before (else they
	// are retried on a schedule).
	RetryFailed bool
	// Workers bounds the papers extracted and embedded at once (0: Workers).
	Workers int
	// Observer receives the run's events (progress).
	Observer func(ingest.Event)
	// AllowPath, when set, is asked about each local path before it is
	// read (ingest.Ingester.AllowPath): the MCP server confines its
	// clients with it.
	AllowPath func(path string) error
	// Logf, when set, receives the notes of this write and the arXiv
	// client's instead of Config.Logf (a progress display that clears its
	// bar first).
	Logf func(format string, args ...any)
	// Waiting is called once when a papers reindex holds the library and
	// the write waits for it (nil: a note to Logf).
	Waiting func()
}

// IngestOptions tune Ingest.
type IngestOptions struct {
	WriteOptions
	// ChunkSize and ChunkOverlap (words) change the chunker for the papers
	// stored from now on; nil keeps the library's (Chunking for a new
	// library). A change is noted: the papers held keep their chunks. A
	// pair chunk.Options refuses is an error wrapping ErrChunking.
	ChunkSize, ChunkOverlap *int
	// Topic, when set, names the followed topic the papers of the run join
	// (as a topic's update makes them).
	Topic string
	// DOIPDFs fetches the open-access PDF of each DOI ingested (Crossref's
	// link, else its landing page's), for its full text.
	DOIPDFs bool
}

// ErrChunking is Ingest's error for a chunk size and overlap that do not
// go together (the overlap must be less than the size).
var ErrChunking = errors.New("invalid chunking")

// Ingest adds papers to the library (creating it if needed): what papers
// ingest and the MCP ingest tool do. It embeds with the library's
// embedder, cuts the papers with the library's chunker (recorded for a new
// library), and brings the search index up to date after. The report
// holds what was stored even when the run stopped on an error; on
// cancellation what finished is kept.
func (s *Session) Ingest(ctx context.Context, src ingest.Sources, o IngestOptions) (*ingest.Report, error) {
	if src.Max <= 0 {
		src.Max = IngestMax
	}
	var report *ingest.Report
	err := s.write(ctx, o.WriteOptions, o.chunking, func(lib *store.Library, in *ingest.Ingester) (int, int, error) {
		if o.Topic != "" {
			tp, err := resolve.Topic(ctx, lib, o.Topic)
			if err != nil {
				return 0, 0, err
			}
			in.Topic = &store.Membership{Topic: tp.Name}
		}
		in.DOIPDFs = o.DOIPDFs
		start := time.Now()
		var err error
		report, err = in.Run(ctx, src)
		if report == nil {
			return 0, 0, err
		}
		if in.Topic != nil && len(report.Unchanged) > 0 && ctx.Err() == nil {
			// papers held already were not stored, so did not join with
			// their store: they join the topic all the same
			if jerr := lib.AddToTopic(ctx, in.Topic.Topic, report.Unchanged); jerr != nil && err == nil {
				err = fmt.Errorf("add the papers held to topic %s: %w", in.Topic.Topic, jerr)
			}
		}
		report.Elapsed = time.Since(start).Seconds()
		return len(report.Added) + len(report.Failed), len(report.Updated), err
	})
	return report, writeError(err)
}

// chunking is the chunker of an ingest: the library's own (Chunking for a
// new library) with what o changes.
func (o IngestOptions) chunking(ctx context.Context, s *Session, lib *store.Library) (chunk.Options, error) {
	held, ok, err := libraryChunker(ctx, lib)
	if err != nil {
		return held, err
	}
	if !ok {
		held = Chunking
	}
	given := held
	if o.ChunkSize != nil {
		given.Size = *o.ChunkSize
	}
	if o.ChunkOverlap != nil {
		given.Overlap = *o.ChunkOverlap
	}
	if given.Size <= 0 || given.Check() != nil {
		return given, fmt.Errorf("%w: the chunk overlap must be from 0 to %d words (less than the chunk size), got %d", ErrChunking, given.Size-1, given.Overlap)
	}
	if _, chunks, err := lib.Count(ctx); err == nil && ok && chunks > 0 && held != given {
		s.logf("the library's papers were chunked with %s; papers stored from now on are chunked with %s (those held keep their chunks)", held.Version(), given.Version())
	}
	return given, nil
}

// libraryChunker is the chunker the library's manifest records, if it
// records one this version reads.
func libraryChunker(ctx context.Context, lib *store.Library) (chunk.Options, bool, error) {
	m, err := lib.Manifest(ctx)
	if err != nil {
		return chunk.Options{}, false, err
	}
	o, err := chunk.ParseVersion(m.Chunker)
	return o, err == nil, nil
}

// heldChunking is the chunker of an update: the library's own, as papers
// ingest cut the library's papers.
func heldChunking(ctx context.Context, _ *Session, lib *store.Library) (chunk.Options, error) {
	o, ok, err := libraryChunker(ctx, lib)
	if err != nil || !ok {
		return Chunking, err
	}
	return o, nil
}

// UpdateOptions tune Update.
type UpdateOptions struct {
	WriteOptions
	// Window is how far back a topic's first update reads (0:
	// topic.DefaultWindow).
	Window time.Duration
	// Max bounds the papers ingested per topic (0: UpdateMax).
	Max int
}

// Update fetches what is new or revised on arXiv in the followed topics
// names (all of them when none is named) and ingests it, then fills in
// arXiv's record of the papers held without it and Crossref's of local
// PDFs stored offline: what papers update and
// the MCP update tool do. With no topic followed the update only fills in
// records, and is an error only when there are none to fill. Per-topic
// failures are in the summary (TopicResult.Err, FillErr), not the error;
// on cancellation the summary holds what was kept and the error is the
// context's.
func (s *Session) Update(ctx context.Context, names []string, o UpdateOptions) (*topic.Summary, error) {
	lib, err := s.Store(ctx)
	if err != nil {
		return nil, err
	}
	topics, err := resolve.Topics(ctx, lib, names)
	if err != nil && (len(names) > 0 || !pendingFill(ctx, lib)) {
		return nil, err
	}
	if o.Max <= 0 {
		o.Max = UpdateMax
	}
	var sum *topic.Summary
	err = s.write(ctx, o.WriteOptions, heldChunking, func(lib *store.Library, in *ingest.Ingester) (int, int, error) {
		sum = topic.UpdateAll(ctx, lib, s.Arxiv(), in, topics, topic.UpdateOptions{Window: o.Window, Max: o.Max})
		errs := []error{sum.FillErr}
		for i, r := range sum.Topics {
			sum.Topics[i].Err = topicError(r.Err, r.Topic)
			errs = append(errs, r.Err)
		}
		return len(sum.Added) + len(sum.Failed), len(sum.Updated) + len(sum.ArxivFilled) + len(sum.CrossrefFilled), errors.Join(errs...)
	})
	if ctx.Err() != nil {
		return sum, ctx.Err()
	}
	if sum == nil {
		return nil, writeError(err)
	}
	return sum, nil
}

// pendingFill says whether the library holds papers an update fills in:
// with an arXiv id but not arXiv's record, or local PDFs with only their
// own record that Crossref was not asked about (stored offline).
func pendingFill(ctx context.Context, lib *store.Library) bool {
	ps, err := lib.WithoutArxivRecord(ctx)
	if err == nil && len(ps) > 0 {
		return true
	}
	ps, err = lib.PapersFrom(ctx, "pdf")
	in := &ingest.Ingester{CacheDir: pdfCache(lib)}
	return err == nil && slices.ContainsFunc(ps, in.CrossrefPending)
}

// pdfCache is where the library keeps downloaded PDFs and what the PDF
// sources remember of them.
func pdfCache(lib *store.Library) string { return filepath.Join(lib.Dir(), "cache", "pdf") }

// write runs one ingest: it holds the library's embedder against a
// reindex, embeds with the library's embedder, records the chunker, runs
// run, and brings the search index up to date when run stored papers
// (added, updated); a refresh that fails is noted (the next search
// rebuilds the index), and not at all when the run itself stopped on the
// full disk, whose error says it once. One write runs at a time.
func (s *Session) write(ctx context.Context, o WriteOptions, chunking func(context.Context, *Session, *store.Library) (chunk.Options, error),
	run func(*store.Library, *ingest.Ingester) (added, updated int, err error)) error {
	select {
	case s.writing <- struct{}{}:
	case <-ctx.Done():
		return ctx.Err()
	}
	defer func() { <-s.writing }()
	if o.Logf != nil {
		s.logMu.Lock()
		s.writeLf = o.Logf
		s.logMu.Unlock()
		defer func() {
			s.logMu.Lock()
			s.writeLf = nil
			s.logMu.Unlock()
		}()
	}
	lib, err := s.Create(ctx)
	if err != nil {
		return err
	}
	waiting := o.Waiting
	if waiting == nil {
		waiting = func() { s.logf("waiting for the papers reindex running on this library to finish") }
	}
	release, err := lib.HoldEmbedder(ctx, waiting)
	if err != nil {
		return err
	}
	defer release()
	e, err := s.UseEmbedder(ctx, o.Embedder)
	if err != nil {
		return err
	}
	c, err := chunking(ctx, s, lib)
	if err != nil {
		return err
	}
	if err := lib.SetChunker(ctx, c.Version()); err != nil {
		return err
	}
	workers := o.Workers
	if workers <= 0 {
		workers = Workers
	}
	in := &ingest.Ingester{
		Lib: lib, Embedder: e, Arxiv: s.Arxiv(), Crossref: s.Crossref(), FullText: s.FullText(), Chunking: c,
		CacheDir:      pdfCache(lib),
		AbstractsOnly: o.AbstractsOnly, RetryFailed: o.RetryFailed, Workers: workers,
		Observer: o.Observer, AllowPath: o.AllowPath,
	}
	added, updated, runErr := run(lib, in)
	if added+updated > 0 && ctx.Err() == nil {
		err := lib.Refresh(ctx)
		if errors.Is(err, store.ErrDiskFull) && errors.Is(runErr, store.ErrDiskFull) {
			err = nil
		}
		if err != nil && ctx.Err() == nil {
			s.logf("could not refresh the search index (the next search rebuilds it): %v", err)
		}
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return runErr
}
