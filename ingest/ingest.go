// Package ingest fills the library: it takes papers from arXiv (search
// queries, ids, URLs), local PDFs and BEIR-style JSONL corpora, extracts their
// text, chunks it, embeds the chunks and stores each paper in one
// transaction. A failure on one item is reported and the run goes on.
package ingest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"syscall"
	"time"

	"github.com/papers-cli/papers/embed"
	"github.com/papers-cli/papers/ingest/arxiv"
	"github.com/papers-cli/papers/ingest/chunk"
	"github.com/papers-cli/papers/internal/openaicompat"
	"github.com/papers-cli/papers/store"
)

// Library is what ingest needs of the library on disk.
type Library interface {
	Get(ctx context.Context, id string) (store.Paper, error)
	// FindByIdentifiers returns the papers holding any of the identifiers.
	FindByIdentifiers(ctx context.Context, ids []store.Identifier) ([]store.Paper, error)
	// Identifiers returns the identifiers of one kind with their papers.
	Identifiers(ctx context.Context, kind string) (map[string]store.IdentifierRecord, error)
	// Identifier returns one identifier's paper and stamp (ErrNotFound).
	Identifier(ctx context.Context, kind, value string) (store.IdentifierRecord, error)
	// PutBatch commits papers with their chunks in one transaction.
	PutBatch(ctx context.Context, items []store.Item) ([]store.PutResult, error)
	// WithoutArxivRecord returns the papers with an arXiv id but not
	// arXiv's record.
	WithoutArxivRecord(ctx context.Context) ([]store.Paper, error)
	// PapersFrom returns the papers whose record comes from source.
	PapersFrom(ctx context.Context, source string) ([]store.Paper, error)
}

// Arxiv is what ingest needs of the arXiv client.
type Arxiv interface {
	Search(ctx context.Context, query string, max int) ([]arxiv.Entry, error)
	Lookup(ctx context.Context, ids []string) ([]arxiv.Entry, error)
	DownloadPDF(ctx context.Context, idv string, path string) (int64, error)
}

// Ingester runs ingest jobs against one library. Its fields are set once
// before use; Observer may be nil.
type Ingester struct {
	Lib      Library
	Embedder embed.Embedder
	Arxiv    Arxiv
	// Crossref, if not nil, looks up DOIs and fills local PDFs' records
	// (nil: DOIs cannot be ingested, PDFs keep their own record).
	Crossref Crossref
	// FullText fetches DOIs' open-access PDFs, which DOIPDFs asks for
	// (else a DOI's paper holds its record and abstract).
	FullText FullText
	DOIPDFs  bool
	CacheDir string // where downloaded PDFs are kept (the library's cache/pdf)
	Chunking chunk.Options
	// AbstractsOnly skips PDFs: papers get their title+abstract chunk only.
	AbstractsOnly bool
	// Workers bounds the papers extracted and embedded at once (default 2).
	Workers int
	// MaxRecordBytes bounds one line of a JSONL corpus (default
	// DefaultMaxRecordBytes); a longer record fails on its own.
	MaxRecordBytes int
	// RetryFailed tries again at once the PDFs of papers held without
	// their full text, ignoring the backoff schedule (see retryAfter).
	RetryFailed bool
	// Topic, if not nil, is the topic every paper stored joins, in the
	// transaction that stores it (a topic's update).
	Topic *store.Membership
	// AllowPath, if not nil, is asked about every local path before it is
	// read: a path given, and each file a directory walk finds (a symbolic
	// link may lead out of the directory). An error fails that item with
	// it, and nothing of the path is read. The MCP server confines its
	// clients with it; nil reads any path.
	AllowPath func(path string) error
	Observer  func(Event)
}

// EventKind says what happened to an item.
type EventKind int

// The events an ingest run reports, in the order an item meets them.
const (
	Queued     EventKind = iota // N items were found and will be processed
	Downloaded                  // a PDF arrived (Bytes)
	Extracted                   // a PDF's text was read (Pages)
	Embedded                    // chunks were embedded (Chunks)
	Stored                      // the paper was committed (Result)
	Failed                      // the item failed (Err); if Kept, its abstract was stored
	Note                        // a message worth showing (Msg)
	Warning                     // something the user should know about, though nothing failed (Msg)
	Skipped                     // the item was left out, not failed (Msg says why)
)

// Event is one step of an ingest run, for progress display and logs.
type Event struct {
	Kind   EventKind
	Item   string // paper id, file path or "file:line"
	N      int    // Queued: number of items
	Bytes  int64
	Pages  int
	Chunks int
	Result store.PutResult
	Err    error
	Kept   bool // Failed: the abstract was stored all the same
	Msg    string
}

// Failure is an item that could not be ingested (or only partly).
type Failure struct {
	Item   string `json:"item"`
	Reason string `json:"reason"`
	// AbstractKept is true when the paper was stored without its full text.
	AbstractKept bool `json:"abstract_kept"`
}

// Skip is an item left out of a run though nothing is wrong with it, such
// as a file with the same content as another one of the run.
type Skip struct {
	Item   string `json:"item"`
	Reason string `json:"reason"`
}

// Missing is an attachment whose file could not be read (a Zotero item's
// PDF not synced, say). The item was imported without it.
type Missing struct {
	Item       string `json:"item"`       // the paper the item is in the library
	Zotero     string `json:"zotero"`     // the item's Zotero key ("<library>/<key>")
	Attachment string `json:"attachment"` // the attachment's Zotero key
	Path       string `json:"path,omitempty"`
	Reason     string `json:"reason"`
}

// Report summarises a run: ids by outcome, in input order. Each item is
// in one list: a paper stored without its full text (its PDF failed) is in
// Failed, with AbstractKept, not in Added or Updated.
type Report struct {
	Added     []string  `json:"added"`
	Updated   []string  `json:"updated"`
	Unchanged []string  `json:"unchanged"`
	Failed    []Failure `json:"failed"`
	Skipped   []Skip    `json:"skipped"`
	Missing   []Missing `json:"missing"`
	Pages     int       `json:"pages"`
	Chunks    int       `json:"chunks"`
	Elapsed   float64   `json:"elapsed_s"`
}

func newReport() *Report {
	return &Report{Added: []string{}, Updated: []string{}, Unchanged: []string{}, Failed: []Failure{}, Skipped: []Skip{}, Missing: []Missing{}}
}

// Merge adds other's outcomes to r.
func (r *Report) Merge(o *Report) {
	r.Added = append(r.Added, o.Added...)
	r.Updated = append(r.Updated, o.Updated...)
	r.Unchanged = append(r.Unchanged, o.Unchanged...)
	r.Failed = append(r.Failed, o.Failed...)
	r.Skipped = append(r.Skipped, o.Skipped...)
	r.Missing = append(r.Missing, o.Missing...)
	r.Pages += o.Pages
	r.Chunks += o.Chunks
	r.Elapsed += o.Elapsed
}

// run collects outcomes concurrently and emits events.
type run struct {
	in      *Ingester
	mergeMu sync.Mutex // serialises putCandidate
	mu      sync.Mutex
	start   time.Time
	// outcomes by input position, so the report keeps input order
	outcomes map[int]outcome
	wants    []arxivWant    // papers waiting for the run's arXiv look-up
	cwants   []crossrefWant // local PDFs waiting for the run's Crossref look-ups
	missing  map[int][]Missing
}

type outcome struct {
	id      string
	result  store.PutResult
	stored  bool
	failure *Failure
	skip    *Skip
	pages   int
	chunks  int
}

func (in *Ingester) newRun() *run {
	return &run{in: in, start: time.Now(), outcomes: map[int]outcome{}}
}

func (r *run) emit(e Event) {
	if r.in.Observer != nil {
		r.mu.Lock()
		defer r.mu.Unlock()
		r.in.Observer(e)
	}
}

func (r *run) record(pos int, o outcome) {
	r.mu.Lock()
	prev, ok := r.outcomes[pos]
	if ok && prev.failure != nil && o.failure == nil {
		o.failure = prev.failure // keep a PDF failure next to the stored abstract
	}
	r.outcomes[pos] = o
	r.mu.Unlock()
}

// upgrade records that the paper stored under pos was stored again, with
// result: an unchanged paper becomes updated, an added one stays added.
func (r *run) upgrade(pos int, id string, result store.PutResult) {
	r.mu.Lock()
	o := r.outcomes[pos]
	o.id, o.stored = id, true
	if o.result == 0 || o.result == store.Unchanged {
		o.result = result
	}
	r.outcomes[pos] = o
	r.mu.Unlock()
	if result != store.Unchanged { // a Note: the item was counted stored once
		r.emit(Event{Kind: Note, Item: id, Msg: "arXiv's record merged in"})
	}
}

func (r *run) fail(pos int, item string, err error, kept bool) {
	f := &Failure{Item: item, Reason: err.Error(), AbstractKept: kept}
	r.mu.Lock()
	o := r.outcomes[pos]
	o.id, o.failure = item, f
	r.outcomes[pos] = o
	r.mu.Unlock()
	r.emit(Event{Kind: Failed, Item: item, Err: err, Kept: kept, Msg: f.Reason})
}

// lost records an item as failed without reporting it as an event: the
// error that cost it is returned to the caller, who shows it once.
func (r *run) lost(pos int, item string, err error) {
	r.mu.Lock()
	o := r.outcomes[pos]
	o.id, o.failure = item, &Failure{Item: item, Reason: err.Error()}
	r.outcomes[pos] = o
	r.mu.Unlock()
}

// skip records an item left out for a reason that is not a failure.
func (r *run) skip(pos int, item, reason string) {
	r.mu.Lock()
	r.outcomes[pos] = outcome{id: item, skip: &Skip{Item: item, Reason: reason}}
	r.mu.Unlock()
	r.emit(Event{Kind: Skipped, Item: item, Msg: reason})
}

func (r *run) report() *Report {
	rep := newReport()
	positions := make([]int, 0, len(r.outcomes))
	for p := range r.outcomes {
		positions = append(positions, p)
	}
	slices.Sort(positions)
	// Items of one paper (two Zotero items with one DOI, two files of one
	// arXiv paper) report it once, under the first item's place, in the
	// strongest list it reached: added, else updated, else unchanged.
	best := map[string]store.PutResult{}
	var order []string
	for _, p := range positions {
		o := r.outcomes[p]
		// A paper stored with its abstract because its PDF failed is
		// reported once: as failed, abstract kept.
		if o.stored && (o.failure == nil || !o.failure.AbstractKept) {
			res := o.result
			if res != store.Added && res != store.Updated {
				res = store.Unchanged
			}
			prev, seen := best[o.id]
			if !seen {
				order = append(order, o.id)
			}
			if !seen || rank(res) > rank(prev) {
				best[o.id] = res
			}
		}
		if o.failure != nil {
			rep.Failed = append(rep.Failed, *o.failure)
		}
		if o.skip != nil {
			rep.Skipped = append(rep.Skipped, *o.skip)
		}
		for _, m := range r.missing[p] {
			m.Item = o.id
			rep.Missing = append(rep.Missing, m)
		}
		rep.Pages += o.pages
		rep.Chunks += o.chunks
	}
	for _, id := range order {
		switch best[id] {
		case store.Added:
			rep.Added = append(rep.Added, id)
		case store.Updated:
			rep.Updated = append(rep.Updated, id)
		default:
			rep.Unchanged = append(rep.Unchanged, id)
		}
	}
	rep.Elapsed = time.Since(r.start).Seconds()
	return rep
}

// rank orders the outcomes a paper can be reported with.
func rank(res store.PutResult) int {
	switch res {
	case store.Added:
		return 2
	case store.Updated:
		return 1
	}
	return 0
}

// pending is a paper ready to be embedded and stored.
type pending struct {
	pos    int
	paper  store.Paper
	chunks []store.Chunk
	pages  int
}

// store embeds the chunks and commits the paper; it records the outcome.
func (r *run) store(ctx context.Context, pos int, p store.Paper, chunks []store.Chunk, pages int) error {
	return r.storeBatch(ctx, []pending{{pos: pos, paper: p, chunks: chunks, pages: pages}})
}

// storeBatch embeds the chunks of several papers together and commits them
// in one transaction, then records each outcome.
func (r *run) storeBatch(ctx context.Context, ps []pending) error {
	if len(ps) == 0 {
		return nil
	}
	var all []store.Chunk
	for _, p := range ps {
		all = append(all, p.chunks...)
	}
	if err := embedChunks(ctx, r.in.Embedder, all); err != nil {
		if len(ps) == 1 {
			return fmt.Errorf("embed %s: %w", ps[0].paper.ID, err)
		}
		return fmt.Errorf("embed %d papers: %w", len(ps), err)
	}
	items := make([]store.Item, len(ps))
	now := time.Now().UTC()
	off := 0
	for i, p := range ps {
		p.paper.AddedAt = now
		items[i] = store.Item{Paper: p.paper, Chunks: all[off : off+len(p.chunks)], Member: r.in.Topic}
		off += len(p.chunks)
		r.emit(Event{Kind: Embedded, Item: p.paper.ID, Chunks: len(p.chunks)})
	}
	results, err := r.in.Lib.PutBatch(ctx, items)
	if err != nil {
		return fmt.Errorf("store: %w", err)
	}
	for i, p := range ps {
		r.record(p.pos, outcome{id: p.paper.ID, result: results[i], stored: true, pages: p.pages, chunks: len(p.chunks)})
		r.emit(Event{Kind: Stored, Item: p.paper.ID, Result: results[i], Pages: p.pages, Chunks: len(p.chunks)})
	}
	return nil
}

// embedChunks fills each chunk's Vector, embedding in batches.
func embedChunks(ctx context.Context, e embed.Embedder, chunks []store.Chunk) error {
	const batch = 256
	for i := 0; i < len(chunks); i += batch {
		j := min(i+batch, len(chunks))
		texts := make([]string, j-i)
		for k := range texts {
			texts[k] = chunks[i+k].Text
		}
		vecs, err := e.EmbedDocuments(ctx, texts)
		if err != nil {
			return err
		}
		if len(vecs) != len(texts) {
			return fmt.Errorf("embedder returned %d vectors for %d texts", len(vecs), len(texts))
		}
		for k := range vecs {
			chunks[i+k].Vector = vecs[k]
		}
	}
	return nil
}

func (in *Ingester) workers() int {
	if in.Workers > 0 {
		return in.Workers
	}
	return 2
}

// Systemic reports whether err will fail every other item as well: the
// embedding server is unreachable, refuses the key, has no quota or does not
// know the model; the library's embedder changed under the run (a reindex)
// or another process held the library past the busy timeout; the disk is
// full or the library cannot be written. The run then
// stops with that one error instead of failing each paper in turn.
func Systemic(err error) bool {
	if errors.Is(err, embed.ErrUnreachable) || errors.Is(err, embed.ErrAuth) || errors.Is(err, embed.ErrQuota) {
		return true
	}
	if errors.Is(err, store.ErrEmbedderMismatch) || errors.Is(err, store.ErrBusy) {
		return true
	}
	// The disk is full or cannot be written: every later paper fails the same way.
	if errors.Is(err, store.ErrDiskFull) || errors.Is(err, store.ErrReadOnly) || errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EROFS) {
		return true
	}
	var ae *openaicompat.Error // a 404: no such model or no embeddings endpoint
	return errors.Is(err, embed.ErrModelNotFound) || errors.As(err, &ae) && ae.Service == openaicompat.Embeddings && ae.Status == 404
}

// IDClashError is the failure of an item whose id is held by a paper from
// another source (an arXiv id given as a corpus _id, say). The paper held
// is kept; the item is not stored.
type IDClashError struct {
	ID       string
	Held     string // Source of the paper in the library: "arxiv", "jsonl", "pdf"
	Incoming string // Source of the item refused
}

func (e *IDClashError) Error() string {
	return fmt.Sprintf("id %s is held by a paper from %s; this %s paper was not stored", e.ID, e.Held, e.Incoming)
}

// checkSource refuses to replace prev by a paper from another source.
func checkSource(prev store.Paper, source string) error {
	if prev.Source != "" && prev.Source != source {
		return &IDClashError{ID: prev.ID, Held: prev.Source, Incoming: source}
	}
	return nil
}

// isCancel reports whether err is the run being stopped rather than an
// item's own failure.
func isCancel(ctx context.Context, err error) bool {
	return ctx.Err() != nil || errors.Is(err, context.Canceled)
}
