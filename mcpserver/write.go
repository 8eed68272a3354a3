package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/papers-cli/papers/ask"
	"github.com/papers-cli/papers/ingest"
	"github.com/papers-cli/papers/ingest/chunk"
	"github.com/papers-cli/papers/resolve"
	"github.com/papers-cli/papers/store"
	"github.com/papers-cli/papers/topic"
)

// The tools that write: ingest and update.

type ingestIn struct {
	IDs           Names  `json:"ids,omitempty" jsonschema:"arXiv ids or URLs: 2501.12948, 2210.03629v3, https://arxiv.org/abs/1111.2011"`
	Query         string `json:"query,omitempty" jsonschema:"an arXiv search in arXiv's syntax (ti:, abs:, au:, cat:, AND, OR, ANDNOT, quoted phrases), newest first, up to max papers"`
	Max           int    `json:"max,omitempty" jsonschema:"most papers to take from the query (default 20)"`
	Paths         Names  `json:"paths,omitempty" jsonschema:"local PDF files or directories of them, on the server's machine"`
	AbstractsOnly bool   `json:"abstracts_only,omitempty" jsonschema:"skip PDFs: store titles and abstracts only (much faster)"`
}

func (s *Server) ingest(ctx context.Context, req *mcp.CallToolRequest, in ingestIn) (*ingest.Report, error) {
	if s.opts.ReadOnly {
		return nil, refused("ingest")
	}
	src := ingest.Sources{Query: strings.TrimSpace(in.Query), Max: in.Max}
	if src.Max <= 0 {
		src.Max = 20
	}
	for _, p := range in.Paths {
		src.PDFs = append(src.PDFs, p)
	}
	for _, id := range in.IDs {
		c := ingest.Classify([]string{id})
		if c.Query != "" {
			return nil, fmt.Errorf("%q is not an arXiv id or URL (give searches as query)", id)
		}
		src.IDs = append(src.IDs, c.IDs...)
		src.PDFs = append(src.PDFs, c.PDFs...)
	}
	if len(src.IDs) == 0 && len(src.PDFs) == 0 && src.Query == "" {
		return nil, errors.New("nothing to ingest: give ids, a query or paths")
	}
	if len(src.PDFs) > 0 {
		dirs, err := s.allowedDirs(ctx, req)
		if err != nil {
			return nil, err
		}
		allow := confine(dirs)
		for _, p := range src.PDFs {
			if err := allow(p); err != nil {
				return nil, err // nothing read, nothing done
			}
		}
	}
	start := time.Now()
	var report *ingest.Report
	err := s.write(ctx, req, in.AbstractsOnly, func(ing *ingest.Ingester) (added, updated int, err error) {
		report, err = ing.Run(ctx, src)
		if report != nil {
			added, updated = len(report.Added), len(report.Updated)
		}
		return added, updated, err
	})
	if report != nil && err == nil {
		report.Elapsed = time.Since(start).Seconds()
	}
	return report, err
}

type updateIn struct {
	Topic         Names  `json:"topic,omitempty" jsonschema:"the topics to update (default: every followed topic)"`
	Max           int    `json:"max,omitempty" jsonschema:"most papers to ingest per topic in this call (the rest come next time)"`
	Window        string `json:"window,omitempty" jsonschema:"how far back a topic's first update reads: 30d, 12w (default), 6m"`
	AbstractsOnly bool   `json:"abstracts_only,omitempty" jsonschema:"skip PDFs: store titles and abstracts only"`
}

func (s *Server) update(ctx context.Context, req *mcp.CallToolRequest, in updateIn) (*topic.Summary, error) {
	if s.opts.ReadOnly {
		return nil, refused("update")
	}
	now := time.Now()
	from, err := resolve.Date(cmpOr(in.Window, "12w"), now)
	if err != nil {
		return nil, err
	}
	if from.IsZero() || !from.Before(now) {
		return nil, fmt.Errorf("window must reach back from now, got %q: give a span like 30d, 12w, 6m, or a past date", in.Window)
	}
	lib, err := s.library(ctx, false)
	if err != nil {
		return nil, err
	}
	topics, err := resolve.Topics(ctx, lib, in.Topic)
	if err != nil {
		return nil, err
	}
	client, err := s.arxivClient()
	if err != nil {
		return nil, err
	}
	var sum *topic.Summary
	err = s.write(ctx, req, in.AbstractsOnly, func(ing *ingest.Ingester) (int, int, error) {
		sum = topic.UpdateAll(ctx, lib, client, ing, topics, topic.UpdateOptions{Window: now.Sub(from), Max: in.Max})
		var errs []error
		for _, r := range sum.Topics {
			if r.Err != nil {
				errs = append(errs, fmt.Errorf("topic %s: %w", r.Topic, r.Err))
			}
		}
		return len(sum.Added), len(sum.Updated), errors.Join(errs...)
	})
	if sum != nil && (err == nil || ctx.Err() == nil && len(sum.Topics) > 1) {
		sum.Elapsed = time.Since(now).Seconds()
		return sum, nil // per-topic failures are in the summary
	}
	return sum, err
}

// write runs one ingest as papers ingest does: it holds the library's
// embedder against a reindex, embeds with the library's embedder (local for
// a new library), records the chunker, reports progress to the client and
// brings the search index up to date after. One write runs at a time.
func (s *Server) write(ctx context.Context, req *mcp.CallToolRequest, abstractsOnly bool, run func(*ingest.Ingester) (added, updated int, err error)) error {
	select {
	case s.writing <- struct{}{}:
	case <-ctx.Done():
		return ctx.Err()
	}
	defer func() { <-s.writing }()
	lib, err := s.library(ctx, true)
	if err != nil {
		return err
	}
	release, err := lib.HoldEmbedder(ctx, func() {
		fmt.Fprintln(s.opts.Log, "papers mcp: waiting for the papers reindex running on this library to finish")
	})
	if err != nil {
		return err
	}
	defer release()
	e, err := ask.UseEmbedder(ctx, lib, nil, s.opts.Embed)
	if err != nil {
		return err
	}
	chunking := chunk.Options{}
	if err := lib.SetChunker(ctx, chunking.Version()); err != nil {
		return err
	}
	client, err := s.arxivClient()
	if err != nil {
		return err
	}
	prog := newProgress(ctx, req, s.opts.Log)
	var allow func(string) error
	allowOnce := sync.OnceFunc(func() {
		dirs, _ := s.allowedDirs(ctx, req) // an ingest of paths asked for the roots before
		allow = confine(dirs)
	})
	in := &ingest.Ingester{Lib: lib, Embedder: e, Arxiv: client, Chunking: chunking,
		CacheDir: filepath.Join(lib.Dir(), "cache", "pdf"), AbstractsOnly: abstractsOnly, Workers: s.opts.Workers, Observer: prog.event,
		AllowPath: func(path string) error { allowOnce(); return allow(path) }}
	added, updated, runErr := run(in)
	if added+updated > 0 && ctx.Err() == nil {
		if err := lib.Refresh(ctx); err != nil && ctx.Err() == nil {
			fmt.Fprintf(s.opts.Log, "papers mcp: could not refresh the search index (the next search rebuilds it): %v\n", err)
		}
		s.addPaperResources(ctx, lib)
	}
	if ctx.Err() != nil {
		fmt.Fprintf(s.opts.Log, "papers mcp: cancelled; kept %d added, %d updated\n", added, updated)
		return ctx.Err()
	}
	return runErr
}

// progress sends an ingest's events to the client as progress
// notifications on its token (none when the call has no token), and to
// the log.
type progress struct {
	ctx   context.Context
	req   *mcp.CallToolRequest
	token any
	log   interface{ Write([]byte) (int, error) }

	mu            sync.Mutex
	total, done   int
	sent          float64
	pages, chunks int
}

func newProgress(ctx context.Context, req *mcp.CallToolRequest, log interface{ Write([]byte) (int, error) }) *progress {
	return &progress{ctx: ctx, req: req, token: req.Params.GetProgressToken(), log: log}
}

func (p *progress) event(e ingest.Event) {
	p.mu.Lock()
	defer p.mu.Unlock()
	var msg string
	switch e.Kind {
	case ingest.Queued:
		p.total += e.N
		msg = fmt.Sprintf("%d papers to ingest", p.total)
	case ingest.Downloaded:
		msg = fmt.Sprintf("downloaded %s (%.1f MB)", e.Item, float64(e.Bytes)/1e6)
	case ingest.Extracted:
		p.pages += e.Pages
		return
	case ingest.Embedded:
		p.chunks += e.Chunks
		return
	case ingest.Stored:
		p.done++
		what := map[store.PutResult]string{store.Added: "added", store.Updated: "updated", store.Unchanged: "unchanged"}[e.Result]
		msg = fmt.Sprintf("%s %s", what, e.Item)
		if e.Pages > 0 {
			msg += fmt.Sprintf(" (%d pages, %d chunks)", e.Pages, e.Chunks)
		}
	case ingest.Failed:
		if !e.Kept {
			p.done++
		}
		msg = fmt.Sprintf("error: %s: %s", e.Item, e.Msg)
		if e.Kept {
			msg += " (abstract kept)"
		}
	case ingest.Skipped:
		msg = fmt.Sprintf("skipped %s: %s", e.Item, e.Msg)
	case ingest.Warning:
		msg = "warning: " + strings.TrimPrefix(e.Item+": "+e.Msg, ": ")
	default:
		return
	}
	fmt.Fprintf(p.log, "papers mcp: %s\n", msg)
	if p.token == nil || p.req.Session == nil {
		return
	}
	if p.ctx.Err() != nil {
		// the call was cancelled: the client has forgotten its token, and
		// a notification on it would reach the client as an error
		return
	}
	// progress must increase with every notification: count the events
	p.sent = max(p.sent+0.001, float64(p.done))
	params := &mcp.ProgressNotificationParams{ProgressToken: p.token, Progress: p.sent, Message: msg}
	if p.total > 0 {
		params.Total = float64(p.total)
	}
	p.req.Session.NotifyProgress(p.ctx, params) // a client that left is noticed by ctx
}
