package ingest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/papers-cli/papers/ingest/arxiv"
	"github.com/papers-cli/papers/internal/cite"
	"github.com/papers-cli/papers/store"
)

// ArxivQuery ingests the newest max papers matching an arXiv search query
// (arXiv syntax: ti:, abs:, au:, cat:, AND/OR/ANDNOT, quoted phrases).
// If the search fails, the report lists the query as failed and the error
// is returned with it.
func (in *Ingester) ArxivQuery(ctx context.Context, query string, max int) (*Report, error) {
	r := in.newRun()
	entries, err := in.Arxiv.Search(ctx, query, max)
	if err != nil {
		if isCancel(ctx, err) {
			return r.report(), err
		}
		// the caller prints err with its hint; the report lists the query
		r.lost(0, query, err)
		return r.report(), err // the client's error names the search
	}
	if len(entries) == 0 {
		r.emit(Event{Kind: Note, Msg: fmt.Sprintf("arXiv has no papers matching %q", query)})
	}
	return in.ingestEntries(ctx, r, entries)
}

// ArxivIDs ingests papers by arXiv id or abs/pdf URL, with or without
// version. Ids arXiv does not know are reported as failures. If the look-up
// itself fails, the ids it did not return are listed as failed with its
// reason, and the error is returned along with the report.
func (in *Ingester) ArxivIDs(ctx context.Context, refs []string) (*Report, error) {
	r := in.newRun()
	var ids []string
	wanted := map[string]int{} // versionless id -> requested version (0: latest)
	pos := 0
	for _, ref := range refs {
		id, v, err := arxiv.ParseID(ref)
		if err != nil {
			r.fail(pos, ref, err, false)
			pos++
			continue
		}
		if _, dup := wanted[id]; dup {
			continue
		}
		wanted[id] = v
		if v > 0 {
			ids = append(ids, fmt.Sprintf("%sv%d", id, v))
		} else {
			ids = append(ids, id)
		}
	}
	if len(ids) == 0 {
		return r.report(), nil
	}
	entries, lookupErr := in.Arxiv.Lookup(ctx, ids)
	if isCancel(ctx, lookupErr) {
		return r.report(), lookupErr
	}
	found := map[string]bool{}
	for _, e := range entries {
		found[e.ID] = true
	}
	base := 1 << 20 // failures of unknown ids sort after the found papers
	for i, id := range ids {
		bare, _, _ := arxiv.ParseID(id)
		switch {
		case found[bare]:
		case lookupErr != nil:
			// the caller prints lookupErr with its hint; the report lists
			// each id it cost (the client's error names the look-up)
			r.lost(base+i, id, lookupErr)
		default:
			r.fail(base+i, id, errors.New("not found on arXiv (check the id)"), false)
		}
	}
	rep, err := in.ingestEntries(ctx, r, entries) // what the look-up returned before failing
	if err == nil {
		err = lookupErr
	}
	return rep, err
}

// job is one paper on its way through the pipeline.
type job struct {
	pos     int
	entry   arxiv.Entry
	prev    *store.Paper // the paper held as this arXiv paper, if any
	noPDF   bool         // the text held stays: only arXiv's record is merged in
	pdfPath string
	pdfErr  error
}

// ingestEntries downloads PDFs one at a time (the client paces them) while
// up to Workers papers are extracted, embedded and stored concurrently.
func (in *Ingester) ingestEntries(ctx context.Context, r *run, entries []arxiv.Entry) (*Report, error) {
	r.emit(Event{Kind: Queued, N: len(entries)})
	jobs := make(chan job)
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() error {
		defer close(jobs)
		for i, e := range entries {
			j := job{pos: i, entry: e}
			prev, err := in.heldArxiv(gctx, e.ID)
			if err != nil {
				var clash *IDClashError
				if errors.As(err, &clash) {
					r.fail(i, e.ID, err, false)
					continue
				}
				return fmt.Errorf("read %s from the library: %w", e.ID, err)
			}
			if prev != nil {
				j.prev = prev
				skip, why, keepText := in.upToDate(*prev, e)
				if skip {
					r.record(i, outcome{id: prev.ID, result: store.Unchanged, stored: true})
					r.emit(Event{Kind: Stored, Item: prev.ID, Result: store.Unchanged, Msg: why})
					continue
				}
				j.noPDF = keepText
				if why := in.deferred(e.IDVersion(), time.Now()); why != "" && !j.noPDF && !in.AbstractsOnly && prev.Version == e.Version && prev.Pages == 0 {
					r.record(i, outcome{id: prev.ID, result: store.Unchanged, stored: true})
					r.emit(Event{Kind: Stored, Item: prev.ID, Result: store.Unchanged, Msg: why})
					continue
				}
			}
			if !in.AbstractsOnly && !j.noPDF {
				j.pdfPath, j.pdfErr = in.fetchPDF(gctx, r, e)
				if isCancel(gctx, j.pdfErr) {
					return gctx.Err()
				}
			}
			select {
			case jobs <- j:
			case <-gctx.Done():
				return gctx.Err()
			}
		}
		return nil
	})
	for w := 0; w < in.workers(); w++ {
		g.Go(func() error {
			for j := range jobs {
				if err := in.processEntry(gctx, r, j); err != nil {
					if isCancel(gctx, err) {
						return gctx.Err()
					}
					if Systemic(err) {
						return err
					}
					r.fail(j.pos, j.entry.ID, err, false)
				}
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return r.report(), err
	}
	return r.report(), nil
}

// heldArxiv returns the paper the library holds as arXiv paper id (keyed
// by it, or carrying it as its arXiv id), or nil. A corpus record keyed by
// the id without being the arXiv paper is an IDClashError.
func (in *Ingester) heldArxiv(ctx context.Context, id string) (*store.Paper, error) {
	ps, err := in.Lib.FindByIdentifiers(ctx, []store.Identifier{{Kind: store.IDArxiv, Value: id}})
	if err != nil {
		return nil, err
	}
	if len(ps) > 0 {
		return &ps[0], nil
	}
	p, err := in.Lib.Get(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		return nil, nil
	} else if err != nil {
		return nil, err
	}
	if p.Source == "jsonl" && p.ArxivID == "" {
		return nil, &IDClashError{ID: p.ID, Held: p.Source, Incoming: "arxiv"}
	}
	return &p, nil
}

// upToDate tells whether the library already holds this entry as well as
// this run would store it (skip), or holds its text but not arXiv's
// record of this version (keepText: merge the record, fetch no PDF).
func (in *Ingester) upToDate(prev store.Paper, e arxiv.Entry) (skip bool, why string, keepText bool) {
	arxivRecord := prev.Source == "arxiv" && prev.MetadataSource["version"] == ""
	switch {
	case prev.Version > e.Version:
		if !arxivRecord && prev.Version > 0 {
			return false, "", true // a newer local file: arXiv's record of it comes with its own look-up
		}
		return true, fmt.Sprintf("library holds v%d, newer than v%d", prev.Version, e.Version), false
	case prev.Version < e.Version:
		return false, "", false
	case in.AbstractsOnly || prev.Pages > 0:
		return arxivRecord, "", true
	}
	return false, "", false // same version, full text still missing: try again
}

// fetchPDF downloads the entry's PDF into the cache unless it is there.
func (in *Ingester) fetchPDF(ctx context.Context, r *run, e arxiv.Entry) (string, error) {
	idv := fmt.Sprintf("%sv%d", e.ID, e.Version)
	path := filepath.Join(in.CacheDir, strings.ReplaceAll(idv, "/", "_")+".pdf")
	if _, err := os.Stat(path); err == nil {
		return path, nil // only complete, checked downloads are renamed into place
	}
	if err := os.MkdirAll(in.CacheDir, 0o700); err != nil {
		return "", fmt.Errorf("create PDF cache: %w", err)
	}
	n, err := in.Arxiv.DownloadPDF(ctx, idv, path)
	if err != nil {
		return "", err // the client's error names the download
	}
	r.emit(Event{Kind: Downloaded, Item: e.ID, Bytes: n})
	return path, nil
}

// processEntry extracts, chunks, embeds and stores one arXiv paper, merged
// with what the library holds of it (a local PDF of it, a Zotero item). A
// PDF that fails leaves the paper with its abstract, and the failure
// reported; a PDF whose bytes the library holds already (a local copy) is
// not read again.
func (in *Ingester) processEntry(ctx context.Context, r *run, j job) error {
	e := j.entry
	c := candidate{pos: j.pos, item: e.ID, paper: paperFromEntry(e)}
	if !in.AbstractsOnly && !j.noPDF {
		if err := in.entryText(ctx, r, j, &c); err != nil {
			return err
		}
	}
	_, err := r.embedAndPut(ctx, c, true)
	return err
}

// entryText gives c the body of the job's PDF, unless the library holds
// the text of that very file already. A PDF that cannot be read is
// reported, and c keeps its abstract with the reason as TextError; only a
// cancellation is returned.
func (in *Ingester) entryText(ctx context.Context, r *run, j job, c *candidate) error {
	err := j.pdfErr
	if err == nil {
		var hash string
		if hash, err = hashFile(ctx, j.pdfPath); err == nil {
			c.paper.ContentHash = hash
			if in.holdsText(ctx, hash) {
				return nil // a local copy, byte for byte: its text joins this paper
			}
			var body []store.Chunk
			var pages int
			if body, pages, err = in.extract(ctx, r, c.paper.ID, j.pdfPath); err == nil {
				c.chunks, c.body, c.pages, c.paper.Pages = body, true, pages, pages
				in.clearTextFailure(j.entry.IDVersion())
				return nil
			}
		}
	}
	if isCancel(ctx, err) {
		return err
	}
	c.paper.TextError, c.paper.ContentHash = err.Error(), ""
	r.fail(j.pos, j.entry.ID, err, true)
	if !Systemic(err) { // the paper's own failure, not the disk's: try again later, not every run
		in.noteTextFailure(j.entry.IDVersion(), err.Error(), time.Now())
	}
	return nil
}

// holdsText says whether the library holds the text of the file with this
// hash (a local PDF byte for byte arXiv's).
func (in *Ingester) holdsText(ctx context.Context, hash string) bool {
	ps, err := in.Lib.FindByIdentifiers(ctx, []store.Identifier{{Kind: store.IDSHA256, Value: hash}})
	return err == nil && len(ps) > 0 && ps[0].Pages > 0
}

func paperFromEntry(e arxiv.Entry) store.Paper {
	p := store.Paper{
		ID: e.ID, Version: e.Version, Title: e.Title, Abstract: e.Summary,
		Published: e.Published, Updated: e.Updated, Categories: e.Categories,
		Comment: e.Comment, JournalRef: e.JournalRef, DOI: e.DOI,
		URL: e.AbsURL, Source: "arxiv", ArxivID: e.ID,
	}
	if p.URL == "" {
		p.URL = cite.ArxivURL(e.ID, e.Version)
	}
	seen := map[string]bool{}
	for _, a := range e.Authors {
		p.Authors = append(p.Authors, a.Name)
		for _, af := range a.Affiliations {
			if !seen[af] {
				seen[af] = true
				p.Affiliations = append(p.Affiliations, af)
			}
		}
	}
	return p
}
