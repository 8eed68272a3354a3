package ingest

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"unicode"

	"golang.org/x/sync/errgroup"

	"github.com/papers-cli/papers/ingest/arxiv"
	"github.com/papers-cli/papers/ingest/chunk"
	"github.com/papers-cli/papers/ingest/pdf"
	"github.com/papers-cli/papers/ingest/zotero"
	"github.com/papers-cli/papers/internal/localfile"
	"github.com/papers-cli/papers/internal/textkit"
	"github.com/papers-cli/papers/store"
)

// ErrZoteroUnreadable is the failure of a --zotero directory that holds no
// readable Zotero database.
var ErrZoteroUnreadable = errors.New("cannot read the Zotero library")

// Zotero imports the Zotero data directory dir (see package zotero for how
// it is read without touching it): every regular item not in the trash,
// and every standalone PDF, is a paper with the item's record (type,
// title, creators, date, DOI, URL, arXiv id, abstract, venue), its tags
// and its collections as tags "zotero:Collection/Sub" (source "zotero"),
// and the text of its first readable PDF attachment (the file's header is
// checked, not its name). An attachment whose file is absent is listed in
// Report.Missing and the item is imported without it.
//
// Items join the papers held with the same arXiv id, DOI or PDF (see
// merge.go). Each item's Zotero key is recorded with a stamp of its
// dateModified and its attachments' files, so a re-run reads again only
// the items changed since, reports the others unchanged, and removes
// nothing: an item gone to Zotero's trash stays in the library, with a
// note.
func (in *Ingester) Zotero(ctx context.Context, dir string) (*Report, error) {
	r := in.newRun()
	lib, err := zotero.Read(ctx, dir)
	if err != nil {
		if isCancel(ctx, err) {
			return r.report(), err
		}
		err = fmt.Errorf("%w %s: %w", ErrZoteroUnreadable, dir, err)
		r.lost(0, dir, err)
		return r.report(), err
	}
	held, err := in.Lib.Identifiers(ctx, store.IDZotero)
	if err != nil {
		return r.report(), err
	}
	var recs []record
	for i, it := range lib.Items {
		st := zoteroStamp(it)
		r.noteMissing(ctx, i, it)
		if h, ok := held[it.ID()]; ok && h.Stamp == st {
			r.record(i, outcome{id: h.PaperID, result: store.Unchanged, stored: true})
			r.emit(Event{Kind: Stored, Item: h.PaperID, Result: store.Unchanged})
			continue
		}
		recs = append(recs, record{c: zoteroCandidate(i, it, st), pdf: zoteroPDF(ctx, it)})
	}
	trashed := 0
	for _, k := range lib.Trashed {
		if _, ok := held[k]; ok {
			trashed++
		}
	}
	if trashed > 0 {
		r.emit(Event{Kind: Note, Item: dir, Msg: fmt.Sprintf("%d %s imported before %s in Zotero's trash now: kept in the library (papers rm removes papers)",
			trashed, textkit.Plural(trashed, "item", "items"), textkit.Plural(trashed, "is", "are"))})
	}
	err = in.putRecords(ctx, r, recs)
	return r.report(), err
}

// record is an item of a reference manager (a Zotero item, a BibTeX
// entry) on its way in: its candidate, with its title+abstract chunk not
// embedded yet, and the PDF it links ("" for none).
type record struct {
	c   candidate
	pdf string
}

// putRecords stores records: those without a PDF (most items of most
// libraries) in batches, those with one one by one, Workers at a time,
// with the text of the PDF (recordText). An item's own failure is
// reported under it; a cancellation or a failure every item would meet
// (Systemic) stops the run and is returned.
func (in *Ingester) putRecords(ctx context.Context, r *run, recs []record) error {
	r.emit(Event{Kind: Queued, N: len(recs)})
	var withPDF, plain []record
	for _, rec := range recs {
		if rec.pdf != "" {
			withPDF = append(withPDF, rec)
		} else {
			plain = append(plain, rec)
		}
	}
	for len(plain) > 0 {
		b := plain[:min(corpusBatch, len(plain))]
		plain = plain[len(b):]
		cs := make([]candidate, len(b))
		var chunks []store.Chunk
		for k, rec := range b {
			cs[k] = rec.c
			chunks = append(chunks, cs[k].chunks...)
		}
		err := embedChunks(ctx, in.Embedder, chunks)
		if err != nil && (isCancel(ctx, err) || Systemic(err)) {
			return err
		}
		for k := range cs {
			if err == nil {
				cs[k].chunks = chunks[k : k+1] // one title+abstract chunk each
			}
		}
		for k, out := range r.putCandidates(ctx, cs) {
			if err == nil {
				err = out.err
			}
			if err != nil {
				if isCancel(ctx, err) {
					return err
				}
				r.fail(b[k].c.pos, b[k].c.item, err, false)
			}
		}
	}
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(in.workers())
	for _, rec := range withPDF {
		g.Go(func() error {
			return r.itemErr(gctx, rec.c.pos, rec.c.item, in.recordText(gctx, r, rec.c, rec.pdf))
		})
	}
	return g.Wait()
}

// zoteroCandidate is a Zotero item's record as a candidate, with its
// title+abstract chunk (not embedded yet) and no text.
func zoteroCandidate(pos int, it zotero.Item, stamp string) candidate {
	zp := zoteroPaper(it)
	return candidate{pos: pos, item: zoteroRef(it), paper: zp, tagSource: "zotero",
		chunks: []store.Chunk{chunk.Abstract(zp.ID, zp.Title, zp.Abstract)},
		ids:    []store.Identifier{{Kind: store.IDZotero, Value: it.ID(), Stamp: stamp}}}
}

// recordText stores a record with the text of the PDF at path: the
// record's fields win, the file's own fill what it lacks (its arXiv id,
// say). A PDF that cannot be read is reported (abstract kept) and the
// record comes in all the same.
func (in *Ingester) recordText(ctx context.Context, r *run, c candidate, path string) error {
	rp := c.paper
	c.chunks = nil
	hash, err := hashFile(ctx, path)
	var doc *pdf.Document
	if err == nil && !in.holdsText(ctx, hash) {
		doc, err = readPDF(ctx, r, path)
	}
	switch {
	case isCancel(ctx, err):
		return err
	case err != nil:
		// the item comes in all the same, with its record and abstract
		c.paper.TextError = err.Error()
		r.fail(c.pos, c.item, fmt.Errorf("%s: %w", filepath.Base(path), err), true)
	case doc == nil:
		c.paper.ContentHash = hash // the library holds this file's text: it joins
	default:
		pc := pdfCandidate(doc, path, hash, in.Chunking)
		merged := mergeMeta(pc.paper, rp, false, false) // the record, the file for what it lacks
		if merged.ArxivID == "" {
			merged.ArxivID = pc.paper.ArxivID
		}
		if merged.Version == 0 {
			merged.Version = pc.paper.Version
		}
		merged.ID = rp.ID
		if merged.ArxivID != "" {
			merged.ID = merged.ArxivID
		}
		merged.Tags = rp.Tags
		c.paper, c.chunks, c.body, c.pages = merged, pc.chunks[1:], true, pc.pages
	}
	_, err = r.embedAndPut(ctx, c, true)
	return err
}

// zoteroPaper is a Zotero item's record as a paper (source "zotero"),
// keyed by its arXiv id if it has one, else "zotero:<key>" ("zotero:g<id>/<key>"
// for a group's item).
func zoteroPaper(it zotero.Item) store.Paper {
	f := it.Fields
	p := store.Paper{
		ID: zoteroRef(it), Source: "zotero", Title: strings.Join(strings.Fields(f["title"]), " "),
		Abstract: strings.TrimSpace(f["abstractNote"]), Authors: it.Authors(), DOI: it.DOI(), URL: strings.TrimSpace(f["url"]),
		Venue: it.Venue(), Volume: f["volume"], Issue: f["issue"], PageRange: f["pages"], Publisher: it.Publisher(),
	}
	if it.Type == "attachment" {
		// a standalone file: its title is often the file's name, and the
		// file knows more of itself
		if t := p.Title; strings.EqualFold(filepath.Ext(t), ".pdf") || strings.EqualFold(t, "Full Text PDF") || strings.EqualFold(t, "PDF") ||
			!strings.Contains(t, " ") && strings.Contains(t, "_") && !strings.ContainsFunc(t, isHan) {
			p.Title = "" // a file name
		}
		p.URL = ""
	} else {
		p.Type = it.CSLType()
	}
	if d := it.Date(); d != "" {
		if t, ok := issuedTime(d); ok {
			p.Published, p.Issued = t, d
		}
	}
	if id, v, err := arxiv.ParseID(it.ArxivID()); err == nil {
		p.ID, p.ArxivID, p.Version = id, id, v
	}
	for _, t := range it.Tags {
		p.Tags = append(p.Tags, store.Tag{Name: t, Source: "zotero"})
	}
	for _, c := range it.Collections {
		p.Tags = append(p.Tags, store.Tag{Name: "zotero:" + c, Source: "zotero"})
	}
	return p
}

func isHan(r rune) bool { return unicode.Is(unicode.Han, r) }

// zoteroRef names a Zotero item in papers: "zotero:<key>" for an item of
// the user's library, "zotero:g<group>/<key>" for a group's. Items known to
// arXiv are keyed by their arXiv id instead.
func zoteroRef(it zotero.Item) string {
	if it.Lib == "u" {
		return "zotero:" + it.Key
	}
	return "zotero:" + it.ID()
}

// zoteroPDF is the item's first attachment that is a readable PDF (by its
// first bytes, whatever its name), or "".
func zoteroPDF(ctx context.Context, it zotero.Item) string {
	atts := it.Attachments
	if it.File != nil {
		atts = []zotero.Attachment{*it.File}
	}
	for _, a := range atts {
		if a.Missing == "" && a.Path != "" && notPDF(ctx, a.Path) == "" {
			return a.Path
		}
	}
	return ""
}

// noteMissing records the item's attachments whose files are absent, and
// those named as PDFs that are not.
func (r *run) noteMissing(ctx context.Context, pos int, it zotero.Item) {
	atts := it.Attachments
	if it.File != nil {
		atts = []zotero.Attachment{*it.File}
	}
	var ms []Missing
	for _, a := range atts {
		m := Missing{Zotero: it.ID(), Attachment: a.Key, Path: a.Path, Reason: a.Missing}
		if m.Path == "" {
			m.Path = a.Stored
		}
		if a.Missing == "" {
			if a.Path == "" || !a.PDF() {
				continue
			}
			if m.Reason = notPDF(ctx, a.Path); m.Reason == "" {
				continue
			}
		}
		ms = append(ms, m)
	}
	if len(ms) == 0 {
		return
	}
	r.mu.Lock()
	if r.missing == nil {
		r.missing = map[int][]Missing{}
	}
	r.missing[pos] = append(r.missing[pos], ms...)
	r.mu.Unlock()
	for _, m := range ms {
		r.emit(Event{Kind: Note, Item: zoteroRef(it), Msg: "attachment " + m.Attachment + " missing: " + m.Reason})
	}
}

// notPDF says why the file at path is no PDF to read, "" when it is one:
// it is not a regular file, cannot be read, or does not start (within its
// first KB) with %PDF-, as readers require.
func notPDF(ctx context.Context, path string) string {
	f, err := localfile.Open(ctx, path, 0)
	if err != nil {
		return unwrapPathError(err).Error()
	}
	defer f.Close()
	buf := make([]byte, 1024)
	n, _ := io.ReadFull(f, buf)
	if !bytes.Contains(buf[:n], []byte("%PDF-")) {
		return "named as a PDF but is not one (its first bytes are not %PDF-)"
	}
	return ""
}

// zoteroStamp is what tells a re-run whether an item changed: its
// dateModified and, for each attachment, its key, dateModified and file
// (size, modification time, or why it is missing).
func zoteroStamp(it zotero.Item) string {
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s\x00", it.DateModified, it.Type)
	atts := it.Attachments
	if it.File != nil {
		atts = []zotero.Attachment{*it.File}
	}
	for _, a := range atts {
		fmt.Fprintf(h, "%s\x00%s\x00%d\x00%d\x00%s\x00", a.Key, a.DateModified, a.Size, a.ModTime.UnixNano(), a.Missing)
	}
	return it.DateModified + " " + hex.EncodeToString(h.Sum(nil))[:16]
}
