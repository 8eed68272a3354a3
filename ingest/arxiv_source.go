package ingest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sync/errgroup"

	"github.com/papers-cli/papers/ingest/arxiv"
	"github.com/papers-cli/papers/ingest/chunk"
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
	prev    *store.Paper
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
			if prev, err := in.Lib.Get(gctx, e.ID); err == nil {
				if err := checkSource(prev, "arxiv"); err != nil {
					r.fail(i, e.ID, err, false)
					continue
				}
				j.prev = &prev
				if skip, why := in.upToDate(prev, e); skip {
					r.record(i, outcome{id: e.ID, result: store.Unchanged, stored: true})
					r.emit(Event{Kind: Stored, Item: e.ID, Result: store.Unchanged, Msg: why})
					continue
				}
			} else if !errors.Is(err, store.ErrNotFound) {
				return fmt.Errorf("read %s from the library: %w", e.ID, err)
			}
			if !in.AbstractsOnly {
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

// upToDate tells whether the library already holds this entry as well as
// this run would store it.
func (in *Ingester) upToDate(prev store.Paper, e arxiv.Entry) (bool, string) {
	switch {
	case prev.Version > e.Version:
		return true, fmt.Sprintf("library holds v%d, newer than v%d", prev.Version, e.Version)
	case prev.Version < e.Version:
		return false, ""
	case in.AbstractsOnly || prev.Pages > 0:
		return true, ""
	}
	return false, "" // same version, full text still missing: try again
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

// processEntry extracts, chunks, embeds and stores one arXiv paper. A PDF
// that fails leaves the paper with its abstract, and the failure reported.
func (in *Ingester) processEntry(ctx context.Context, r *run, j job) error {
	e := j.entry
	p := paperFromEntry(e)
	chunks := []store.Chunk{chunk.Abstract(p.ID, p.Title, p.Abstract)}
	pages := 0
	if !in.AbstractsOnly {
		err := j.pdfErr
		var body []store.Chunk
		if err == nil {
			body, pages, err = in.extract(ctx, r, p.ID, j.pdfPath)
		}
		if err != nil {
			if isCancel(ctx, err) {
				return err
			}
			p.TextError = err.Error()
			r.fail(j.pos, p.ID, err, true)
			if j.prev != nil && j.prev.Version == e.Version && j.prev.Pages > 0 {
				return nil // never replace held full text by an abstract
			}
		} else {
			chunks = append(chunks, body...)
			p.Pages = pages
		}
	}
	return r.store(ctx, j.pos, p, chunks, pages)
}

func paperFromEntry(e arxiv.Entry) store.Paper {
	p := store.Paper{
		ID: e.ID, Version: e.Version, Title: e.Title, Abstract: e.Summary,
		Published: e.Published, Updated: e.Updated, Categories: e.Categories,
		Comment: e.Comment, JournalRef: e.JournalRef, DOI: e.DOI,
		URL: e.AbsURL, Source: "arxiv",
	}
	if p.URL == "" {
		p.URL = fmt.Sprintf("https://arxiv.org/abs/%sv%d", e.ID, e.Version)
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
