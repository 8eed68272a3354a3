package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/papers-cli/papers/ingest"
	"github.com/papers-cli/papers/library"
	"github.com/papers-cli/papers/resolve"
	"github.com/papers-cli/papers/store"
	"github.com/papers-cli/papers/topic"
)

// The tools that write: ingest and update.

type ingestIn struct {
	IDs           Names  `json:"ids,omitempty" jsonschema:"arXiv ids or URLs, or DOIs"`
	Query         string `json:"query,omitempty" jsonschema:"arXiv search (ti:, abs:, au:, cat:, AND, OR), newest first"`
	Max           int    `json:"max,omitempty" jsonschema:"most papers from query (default 20)"`
	Paths         Names  `json:"paths,omitempty" jsonschema:"PDFs or folders on the server's machine"`
	AbstractsOnly bool   `json:"abstracts_only,omitempty" jsonschema:"no PDFs (faster)"`
	MaxChars      int    `json:"max_chars,omitempty"` // the report's longest lists are cut to fit
}

func (s *Server) ingest(ctx context.Context, req *mcp.CallToolRequest, in ingestIn) (*ingest.Report, error) {
	if s.opts.ReadOnly {
		return nil, refused("ingest")
	}
	src := ingest.Sources{Query: strings.TrimSpace(in.Query), Max: in.Max}
	if src.Max <= 0 {
		src.Max = toolIngestMax
	}
	for _, p := range in.Paths {
		src.PDFs = append(src.PDFs, p)
	}
	for _, id := range in.IDs {
		c := ingest.Classify([]string{id})
		if c.Query != "" {
			return nil, fmt.Errorf("%q is not an arXiv id, URL or DOI (give searches as query)", id)
		}
		src.IDs = append(src.IDs, c.IDs...)
		src.DOIs = append(src.DOIs, c.DOIs...)
		src.PDFs = append(src.PDFs, c.PDFs...)
	}
	if len(src.IDs) == 0 && len(src.DOIs) == 0 && len(src.PDFs) == 0 && src.Query == "" {
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
	report, err := s.lib.Ingest(ctx, src, library.IngestOptions{WriteOptions: s.writeOptions(ctx, req, in.AbstractsOnly)})
	if report != nil && len(report.Added)+len(report.Updated) > 0 {
		s.relist(ctx)
	}
	return report, s.interrupted(ctx, report, err)
}

// toolIngestMax is how many papers the ingest tool takes from a query by
// default: fewer than papers ingest (library.IngestMax), as a client waits
// on the call.
const toolIngestMax = 20

type updateIn struct {
	Topic         Names  `json:"topic,omitempty" jsonschema:"topics (default all)"`
	Max           int    `json:"max,omitempty" jsonschema:"most papers per topic this call"`
	Window        string `json:"window,omitempty" jsonschema:"how far a first update reads (default 12w)"`
	AbstractsOnly bool   `json:"abstracts_only,omitempty" jsonschema:"no PDFs"`
	MaxChars      int    `json:"max_chars,omitempty"` // the report's longest lists are cut to fit
}

func (s *Server) update(ctx context.Context, req *mcp.CallToolRequest, in updateIn) (*topic.Summary, error) {
	if s.opts.ReadOnly {
		return nil, refused("update")
	}
	now := time.Now()
	from, err := resolve.Date(cmpOr(in.Window, library.Window), now)
	if err != nil {
		return nil, err
	}
	if from.IsZero() || !from.Before(now) {
		return nil, fmt.Errorf("window must reach back from now, got %q: give a span like 30d, 12w, 6m, or a past date", in.Window)
	}
	if _, err := s.library(ctx, false); err != nil {
		return nil, err
	}
	sum, err := s.lib.Update(ctx, in.Topic, library.UpdateOptions{
		WriteOptions: s.writeOptions(ctx, req, in.AbstractsOnly),
		Window:       now.Sub(from), Max: in.Max,
	})
	if sum == nil {
		return nil, err
	}
	if len(sum.Added)+len(sum.Updated) > 0 {
		s.relist(ctx)
	}
	if ctx.Err() != nil {
		fmt.Fprintf(s.opts.Log, "papers mcp: cancelled; kept %d added, %d updated\n", len(sum.Added), len(sum.Updated))
		return sum, ctx.Err()
	}
	var errs []error
	for _, r := range sum.Topics {
		if r.Err != nil {
			errs = append(errs, fmt.Errorf("topic %s: %w", r.Topic, r.Err))
		}
	}
	if len(errs) > 0 && len(sum.Topics) == 1 {
		return sum, errors.Join(errs...) // a single topic's failure is the call's
	}
	sum.Elapsed = time.Since(now).Seconds()
	return sum, nil // per-topic failures are in the summary
}

// writeOptions are the options of an ingest or update called by req:
// progress to the client and the log.
func (s *Server) writeOptions(ctx context.Context, req *mcp.CallToolRequest, abstractsOnly bool) library.WriteOptions {
	var allow func(string) error
	allowOnce := sync.OnceFunc(func() {
		dirs, _ := s.allowedDirs(ctx, req) // an ingest of paths asked for the roots before
		allow = confine(dirs)
	})
	return library.WriteOptions{AbstractsOnly: abstractsOnly, Workers: s.opts.Workers, Observer: newProgress(ctx, req, s.opts.Log).event,
		AllowPath: func(path string) error { allowOnce(); return allow(path) }}
}

// relist lists the papers a write added as resources.
func (s *Server) relist(ctx context.Context) {
	if ctx.Err() != nil {
		return
	}
	if lib, err := s.library(ctx, false); err == nil {
		s.addPaperResources(ctx, lib)
	}
}

// interrupted notes what a cancelled ingest kept.
func (s *Server) interrupted(ctx context.Context, r *ingest.Report, err error) error {
	if ctx.Err() != nil && r != nil {
		fmt.Fprintf(s.opts.Log, "papers mcp: cancelled; kept %d added, %d updated\n", len(r.Added), len(r.Updated))
	}
	return err
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
