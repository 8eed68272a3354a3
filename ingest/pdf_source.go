package ingest

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/papers-cli/papers/ingest/arxiv"
	"github.com/papers-cli/papers/ingest/chunk"
	"github.com/papers-cli/papers/ingest/pdf"
	"github.com/papers-cli/papers/internal/lazyre"
	"github.com/papers-cli/papers/role"
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
		if err := in.allowed(p); err != nil {
			r.fail(len(files), p, err, false)
			files = append(files, "") // keep positions aligned with failures
			continue
		}
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
		if err := in.allowed(f); err != nil {
			r.fail(i, f, err, false)
			continue
		}
		hash, err := hashFile(ctx, f)
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
			return r.itemErr(gctx, it.pos, it.path, in.ingestFile(gctx, r, it.pos, it.path, it.hash))
		})
	}
	if err := g.Wait(); err != nil {
		return r.report(), err
	}
	if err := in.enrichArxiv(ctx, r); err != nil {
		return r.report(), err
	}
	err := in.enrichCrossref(ctx, r)
	return r.report(), err
}

// allowed is AllowPath's verdict on path (nil without AllowPath).
func (in *Ingester) allowed(path string) error {
	if in.AllowPath == nil {
		return nil
	}
	return in.AllowPath(path)
}

// ingestFile stores one local PDF. A file whose text the library holds
// (by its hash, maybe inside the arXiv paper it is) is unchanged; else its
// text and what it says of itself join the paper held with the same arXiv
// id or DOI, or make a new one. Papers with an arXiv id whose record is
// not yet arXiv's are queued for the run's one arXiv look-up.
func (in *Ingester) ingestFile(ctx context.Context, r *run, pos int, path, hash string) error {
	held, err := in.Lib.FindByIdentifiers(ctx, []store.Identifier{{Kind: store.IDSHA256, Value: hash}})
	if err != nil {
		return err
	}
	if len(held) > 0 && held[0].Pages > 0 {
		r.record(pos, outcome{id: held[0].ID, result: store.Unchanged, stored: true})
		r.emit(Event{Kind: Stored, Item: held[0].ID, Result: store.Unchanged})
		r.wantArxiv(pos, held[0])
		r.wantCrossref(pos, held[0])
		return nil
	}
	doc, err := readPDF(ctx, r, path)
	if err != nil {
		return err
	}
	c := pdfCandidate(doc, path, hash, in.Chunking)
	c.pos, c.item = pos, path
	id, err := r.embedAndPut(ctx, c, false)
	if err != nil {
		return err
	}
	if p, err := in.Lib.Get(ctx, id); err == nil {
		r.wantArxiv(pos, p)
		r.wantCrossref(pos, p)
	}
	return nil
}

// pdfCandidate is a local PDF as a paper: its text, and what the file says
// of itself (each field's source "pdf:xmp", "pdf:info", "pdf:layout",
// "pdf:stamp" or "pdf:text"). It is keyed by its arXiv id when it has one,
// else by its hash ("pdf:" + 16 hex digits).
func pdfCandidate(doc *pdf.Document, path, hash string, opt chunk.Options) candidate {
	m := doc.Meta
	src := func(field string) string {
		if s := m.Sources[field]; s != "" {
			return "pdf:" + s
		}
		return "pdf:layout"
	}
	p := store.Paper{
		ID: "pdf:" + hash[:16], Title: localTitle(doc, path), Source: "pdf", Pages: len(doc.Pages),
		ContentHash: hash, Authors: m.Authors, DOI: m.DOI,
		Venue: m.Venue, Volume: m.Volume, Issue: m.Issue, PageRange: m.PageRange,
		MetadataSource: map[string]string{"title": src("title")},
	}
	if path != "" {
		p.URL = "file://" + absPath(path)
	}
	if doc.Title == "" {
		p.MetadataSource["title"] = "pdf:file" // the first line, or the file name
	}
	if id, v, err := arxiv.ParseID(m.ArxivID); err == nil {
		p.ID, p.ArxivID, p.Version = id, id, v
		p.MetadataSource["arxiv_id"] = src("arxiv_id")
		p.MetadataSource["version"] = src("arxiv_id")
	}
	if t, ok := issuedTime(m.Date); ok {
		p.Published, p.Issued = t, m.Date
		p.MetadataSource["published"] = src("date")
	}
	for _, f := range []struct{ field, value, src string }{{"authors", strings.Join(m.Authors, ","), "authors"}, {"doi", m.DOI, "doi"},
		{"venue", m.Venue, "venue"}, {"volume", m.Volume, "venue"}, {"issue", m.Issue, "venue"}, {"page_range", m.PageRange, "venue"}} {
		if f.value != "" {
			p.MetadataSource[f.field] = src(f.src)
		}
	}
	if p.Type = venueType(p.Venue, p.Volume, p.DOI); p.Type != "" {
		p.MetadataSource["type"] = src("venue")
	}
	pages := toChunkPages(doc)
	if p.Abstract = findAbstract(pages); p.Abstract != "" {
		p.MetadataSource["abstract"] = "pdf:text"
	}
	chunks := append([]store.Chunk{chunk.Abstract(p.ID, p.Title, p.Abstract)}, chunk.Body(p.ID, pages, 1, opt)...)
	return candidate{paper: p, chunks: chunks, body: true, pages: len(doc.Pages)}
}

var proceedingsRe = lazyre.New(`(?i)\b(conference|proceedings|symposium|workshop|congress|meeting)\b`)

// venueType is the CSL type a PDF's own venue (PRISM's publicationName)
// implies: a conference paper when the venue says it is one, a journal
// article when it has a volume or the paper a DOI; "" without a venue.
func venueType(venue, volume, doi string) string {
	switch {
	case venue == "":
		return ""
	case proceedingsRe.MatchString(venue):
		return "paper-conference"
	case volume != "" || doi != "":
		return "article-journal"
	}
	return ""
}

// issuedTime reads a date of the precision sources give ("2023",
// "2023-05", "2023-05-17") as its first day, UTC.
func issuedTime(s string) (time.Time, bool) {
	for _, layout := range []string{"2006-01-02", "2006-01", "2006"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t, true
		}
	}
	return time.Time{}, false
}

func absPath(p string) string {
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return p
}

// localTitle is the PDF's title, else its first non-trivial line, else the
// file name. A first line that is a heading ("1 Introduction", "Table of
// Contents") or a line of a contents page names no document: the file
// name does better.
func localTitle(doc *pdf.Document, path string) string {
	if t := strings.Join(strings.Fields(doc.Title), " "); t != "" {
		return t
	}
	if len(doc.Pages) > 0 {
		p := doc.Pages[0]
		var text strings.Builder
		for _, s := range p.Spans {
			if s.Role != role.Furniture { // a running head names the journal
				text.WriteString(p.Text[s.Start:s.End])
			}
		}
		for _, line := range strings.Split(text.String(), "\n") {
			line = strings.TrimSpace(line)
			if len(strings.Fields(line)) >= 2 && len(line) <= 200 {
				if pdf.SectionHeading(line) || strings.Contains(line, "....") {
					break
				}
				return line
			}
		}
	}
	return strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
}

var abstractHead = lazyre.New(`(?i)(^|\n)\s*abstract[\s.:—-]*`)

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
