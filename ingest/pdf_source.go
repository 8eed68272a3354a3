package ingest

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/papers-cli/papers/ingest/chunk"
	"github.com/papers-cli/papers/ingest/pdf"
	"github.com/papers-cli/papers/store"
)

// Paths ingests local PDFs; directories are walked recursively for *.pdf.
// A directory that cannot be read is skipped with a Warning; one that yields
// no PDF at all is also reported as failed.
// Files are keyed by content hash, so a renamed or copied file is the same
// paper: a second file with the content of one before it in the run is
// reported as skipped, with the first one's name.
func (in *Ingester) Paths(ctx context.Context, paths []string) (*Report, error) {
	r := in.newRun()
	var files []string
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			r.fail(len(files), p, fmt.Errorf("cannot read: %w", unwrapPathError(err)), false)
			files = append(files, "") // keep positions aligned with failures
			continue
		}
		if !st.IsDir() {
			files = append(files, p)
			continue
		}
		var found []string
		err = filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				r.emit(Event{Kind: Warning, Item: path, Msg: "skipped: " + unwrapPathError(err).Error()})
				return nil
			}
			if !d.IsDir() && strings.EqualFold(filepath.Ext(path), ".pdf") {
				found = append(found, path)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		if len(found) == 0 {
			// a directory given to be ingested that yields nothing is a
			// mistake worth a warning, and a failure of the run
			r.emit(Event{Kind: Warning, Item: p, Msg: "nothing to ingest: no readable PDF files in it"})
			r.lost(len(files), p, errors.New("no readable PDF files in it"))
			files = append(files, "") // keep positions aligned with failures
			continue
		}
		sort.Strings(found)
		files = append(files, found...)
	}
	// hash first, so a file given twice (or copied) is one paper
	type item struct {
		pos  int
		path string
		hash string
	}
	var items []item
	byHash := map[string]int{}
	for i, f := range files {
		if f == "" {
			continue
		}
		hash, err := hashFile(f)
		if err != nil {
			r.fail(i, f, fmt.Errorf("cannot read: %w", unwrapPathError(err)), false)
			continue
		}
		if first, dup := byHash[hash]; dup {
			if filepath.Clean(f) != filepath.Clean(files[first]) { // not merely given twice
				r.skip(i, f, "same content as "+files[first])
			}
			continue
		}
		byHash[hash] = i
		items = append(items, item{pos: i, path: f, hash: hash})
	}
	r.emit(Event{Kind: Queued, N: len(items)})
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(in.workers())
	for _, it := range items {
		g.Go(func() error {
			if err := in.ingestFile(gctx, r, it.pos, it.path, it.hash); err != nil {
				if isCancel(gctx, err) {
					return gctx.Err()
				}
				if Systemic(err) {
					return err
				}
				r.fail(it.pos, it.path, err, false)
			}
			return nil
		})
	}
	err := g.Wait()
	return r.report(), err
}

// ingestFile stores one local PDF.
func (in *Ingester) ingestFile(ctx context.Context, r *run, pos int, path, hash string) error {
	if prev, err := in.Lib.FindByHash(ctx, hash); err == nil {
		r.record(pos, outcome{id: prev.ID, result: store.Unchanged, stored: true})
		r.emit(Event{Kind: Stored, Item: prev.ID, Result: store.Unchanged})
		return nil
	} else if !errors.Is(err, store.ErrNotFound) {
		return err
	}
	id := "pdf:" + hash[:16]
	if prev, err := in.Lib.Get(ctx, id); err == nil {
		if err := checkSource(prev, "pdf"); err != nil {
			return err
		}
	} else if !errors.Is(err, store.ErrNotFound) {
		return err
	}
	doc, err := extractPDF(ctx, path)
	if err != nil {
		return err
	}
	r.emit(Event{Kind: Extracted, Item: path, Pages: len(doc.Pages)})
	for _, w := range doc.Warnings {
		r.emit(Event{Kind: Note, Item: path, Msg: w})
	}
	pages := toChunkPages(doc)
	p := store.Paper{
		ID: id, Title: localTitle(doc, path), Source: "pdf", Pages: len(doc.Pages),
		ContentHash: hash, URL: "file://" + absPath(path),
	}
	p.Abstract = findAbstract(pages)
	if doc.ArxivID != "" {
		p.Comment = "arXiv:" + doc.ArxivID
		if t, err := time.Parse("2 Jan 2006", doc.ArxivDate); err == nil {
			p.Published = t
		}
	}
	chunks := append([]store.Chunk{chunk.Abstract(id, p.Title, p.Abstract)}, chunk.Body(id, pages, 1, in.Chunking)...)
	return r.store(ctx, pos, p, chunks, len(doc.Pages))
}

func absPath(p string) string {
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return p
}

func hashFile(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// localTitle is the PDF's title, else its first non-trivial line, else the
// file name.
func localTitle(doc *pdf.Document, path string) string {
	if t := strings.Join(strings.Fields(doc.Title), " "); t != "" {
		return t
	}
	if len(doc.Pages) > 0 {
		for _, line := range strings.Split(doc.Pages[0].Text, "\n") {
			line = strings.TrimSpace(line)
			if len(strings.Fields(line)) >= 2 && len(line) <= 200 {
				return line
			}
		}
	}
	return strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
}

var abstractHead = regexp.MustCompile(`(?i)(^|\n)\s*abstract[\s.:—-]*`)

// findAbstract returns the text after an "Abstract" heading on the first two
// pages, up to the next blank line that follows at least 40 words (or 350
// words), or "" when there is no such heading.
func findAbstract(pages []chunk.Page) string {
	for _, p := range pages[:min(2, len(pages))] {
		loc := abstractHead.FindStringIndex(p.Text)
		if loc == nil {
			continue
		}
		var words []string
		for _, para := range strings.Split(p.Text[loc[1]:], "\n\n") {
			words = append(words, strings.Fields(para)...)
			if len(words) >= 40 {
				break
			}
		}
		return strings.Join(words[:min(len(words), 350)], " ")
	}
	return ""
}
