// Package pdf turns a PDF file into plain text per page, on top of
// github.com/ledongthuc/pdf: it walks each page's content stream itself
// (following Form XObjects, then the appearance streams of visible
// annotations such as filled-in form fields), decodes fonts (simple
// encodings with /Differences, Type 1 built-in encodings, numeric glyph
// names of Type 3 and bitmap fonts, Type0 with ToUnicode or, for
// Identity-H without one, the embedded font's own cmap or glyph names; the
// standard widths of the 14 base fonts where /Widths is missing), drops
// glyphs outside the page's MediaBox as pdftotext does, rebuilds words,
// lines, columns and paragraphs from glyph positions, and keeps running
// heads, page numbers, margin line numbers and the arXiv side stamp out of
// the body text.
//
// The text of a page is plain UTF-8 in NFKC (ligatures such as "ﬁ" become
// "fi"), words separated by single spaces, lines by "\n", paragraphs by a
// blank line where the layout shows them (vertical space, a first-line
// indent, a short line ending a sentence). Two-column pages are read column
// by column within bands separated by full-width lines. Words hyphenated at
// a line end are joined (see dehyphenate for when the hyphen is kept).
// Text that cannot be decoded (fonts without a Unicode mapping) is left out
// rather than emitted as garbage, with a warning.
//
// Extract never panics and never runs unbounded: the library reads only a
// file our own layer wrote from the input (normalize.go: the objects,
// cross-reference data, encryption and filters are read by our code, which
// trusts no count in the file), malformed input is recovered per page and
// per document, and the work per document is capped (see MaxDuration,
// MaxOps, MaxDecodedBytes) on top of the caller's context.
package pdf

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"runtime/debug"
	"strings"
	"time"

	lpdf "github.com/ledongthuc/pdf"

	"github.com/papers-cli/papers/role"
)

// Heading is a section heading detected in a page's text.
type Heading struct {
	Offset int    // byte offset into Page.Text where the heading's (first) line starts
	Text   string // e.g. "4.2 Results"; a heading set on two lines is joined with a space
}

// Page is the text of one page.
type Page struct {
	N        int    // 1-based page number
	Text     string // UTF-8, NFKC; lines end in "\n", paragraphs are separated by a blank line
	Headings []Heading
	// Spans say what each part of Text is there for: they cover Text
	// from 0 to len(Text) in order, each a run of whole lines of one role
	// (role.Body, role.Heading, role.Caption, role.Table, role.Figure,
	// role.Footnote, role.Reference or role.Equation; running heads and
	// page numbers are not in Text), with the blank line after a run in
	// it. A change of role always starts a paragraph.
	Spans []Span
}

// Span is the run Text[Start:End] of a page's text, of one role.
type Span struct {
	Start, End int
	Role       role.Role
}

// Document is the text of a PDF file.
type Document struct {
	Pages []Page
	// Title is the Info /Title when it looks like a title and is printed on
	// the first page, else the topmost lines of the first page set clearly
	// larger than the body text, else "".
	Title string
	// ArxivID ("2302.04761v1") and ArxivDate ("9 Feb 2023") come from the
	// arXiv side stamp, which is removed from the text.
	ArxivID, ArxivDate string
	// Meta is what the file says about itself besides its title: authors,
	// date, DOI, arXiv id, venue, each with where it came from.
	Meta Metadata
	// Warnings are problems that did not stop extraction, e.g. a page whose
	// content was malformed.
	Warnings []string
}

// Text returns the text of all pages separated by form feeds, as pdftotext
// writes them.
func (d *Document) Text() string {
	var b strings.Builder
	for i, p := range d.Pages {
		if i > 0 {
			b.WriteByte('\f')
		}
		b.WriteString(p.Text)
	}
	return b.String()
}

// Sentinel errors; callers branch on them with errors.Is.
var (
	ErrEncrypted = errors.New("encrypted: password required")
	ErrNoText    = errors.New("no text layer")
	ErrNotPDF    = errors.New("not a PDF file")
	// ErrGarbled means the text layer looks like garbage (a bad OCR layer)
	// or cannot be decoded (fonts without a Unicode mapping). When there is
	// text, Extract returns the Document along with it.
	ErrGarbled = errors.New("text layer looks garbled")
	// ErrNoUnicode wraps ErrGarbled when most glyphs use fonts that say
	// nothing of the characters they draw (no ToUnicode, no usable
	// encoding, an embedded font without cmap or glyph names): only their
	// shapes, so OCR, can read them.
	ErrNoUnicode = fmt.Errorf("%w: its fonts have no Unicode mapping", ErrGarbled)
	// ErrTruncated means the file ends early (an incomplete download).
	ErrTruncated = errors.New("truncated PDF: file ends early")
	// ErrUnsupported is a PDF feature the parser cannot read, such as
	// AES-256 encryption.
	ErrUnsupported = errors.New("unsupported PDF")
	// ErrTooLarge means the document hit the work limit before it ended.
	ErrTooLarge = errors.New("PDF too large or too complex")
	// ErrMalformed means the file is damaged past repair: no document
	// catalog, a page tree with no page.
	ErrMalformed = errors.New("malformed PDF")
	// ErrScanned wraps ErrNoText when the pages hold images: a scan
	// without a text layer, which OCR can read.
	ErrScanned = fmt.Errorf("%w: its pages are images (scanned?)", ErrNoText)
)

// Limits per document. Extract also stops when ctx is done.
var (
	MaxDuration = 2 * time.Minute
	MaxOps      = int64(200_000_000) // content stream operators, all pages
	MaxPages    = 10_000
	// MaxContentBytes caps the decoded content streams of all pages.
	MaxContentBytes = int64(2 << 30)
)

// ExtractFile reads the PDF at path into memory and extracts it.
func ExtractFile(ctx context.Context, path string) (*Document, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	doc, err := ExtractBytes(ctx, data)
	if err != nil {
		return doc, fmt.Errorf("extract %s: %w", path, err)
	}
	return doc, nil
}

// ExtractBytes extracts the PDF held in data, which it does not modify or
// keep. See Extract.
func ExtractBytes(ctx context.Context, data []byte) (*Document, error) {
	ctx, cancel := context.WithTimeoutCause(ctx, MaxDuration, ErrTooLarge)
	defer cancel()
	type result struct {
		doc *Document
		err error
	}
	done := make(chan result, 1)
	go func() {
		d, err := extract(ctx, data)
		done <- result{d, err}
	}()
	select {
	case res := <-done:
		return res.doc, res.err
	case <-ctx.Done():
		return nil, context.Cause(ctx)
	}
}

// Extract extracts the text of the PDF in r. It is safe to call from several
// goroutines at once. On ErrGarbled the Document is returned too.
//
// The file is read into memory and normalised by our own layer before the
// PDF library sees it (see normalize.go), so that nothing in the file can
// make the library allocate without bound, recurse or loop. The work runs
// in its own goroutine so that Extract returns as soon as ctx is done or
// MaxDuration has passed; the work itself checks the context at every
// object it reads, every read the library makes and every content stream
// operator, and stops there: nothing keeps running after Extract returns.
func Extract(ctx context.Context, r io.ReaderAt, size int64) (*Document, error) {
	if size < 0 || size > MaxFileBytes {
		return nil, errorf(ErrTooLarge, "the file is larger than %d MB", MaxFileBytes>>20)
	}
	data := make([]byte, size)
	if _, err := r.ReadAt(data, 0); err != nil && err != io.EOF {
		return nil, err
	}
	return ExtractBytes(ctx, data)
}

// MaxFileBytes caps the size of a file Extract reads into memory.
var MaxFileBytes = int64(1 << 30)

// extraction is the state of one document's extraction.
type extraction struct {
	ctx   context.Context
	ops   int64
	bytes int64 // decoded content stream bytes
	// glyphBuf is reused page after page; layout copies what it keeps.
	glyphBuf []glyph
	fonts    map[objKey]*font
	// acroForm says the document has form fields; links counts the
	// annotations in a row that were links (see walker.annotations).
	acroForm bool
	links    int
}

type abort struct{ err error }

func (e *extraction) tick() {
	e.ops++
	if e.ops&1023 == 0 {
		if err := e.ctx.Err(); err != nil {
			panic(abort{context.Cause(e.ctx)})
		}
		if e.ops > MaxOps || e.bytes > MaxContentBytes {
			panic(abort{ErrTooLarge})
		}
	}
}

func extract(ctx context.Context, data []byte) (doc *Document, err error) {
	defer func() {
		if x := recover(); x != nil {
			if a, ok := x.(abort); ok {
				doc, err = nil, a.err
				return
			}
			doc, err = nil, fmt.Errorf("%w: %v", errInternal, x)
			if os.Getenv("PAPERS_PDF_DEBUG") != "" {
				err = fmt.Errorf("%w\n%s", err, debug.Stack())
			}
		}
	}()
	norm, err := normalize(ctx, data)
	if err != nil {
		return nil, err
	}
	rd, err := lpdf.NewReader(&guardedReader{ctx: ctx, b: norm.out}, int64(len(norm.out)))
	if err != nil {
		var a abort
		if errors.As(err, &a) {
			return nil, a.err
		}
		return nil, fmt.Errorf("%w: %v", errInternal, err)
	}
	x := &extraction{ctx: ctx, fonts: map[objKey]*font{}}
	x.acroForm = rd.Trailer().Key("Root").Key("AcroForm").Kind() == lpdf.Dict
	doc = &Document{Warnings: norm.warnings}
	pages, truncated := collectPages(rd.Trailer().Key("Root").Key("Pages"))
	if truncated {
		doc.Warnings = append(doc.Warnings, fmt.Sprintf("only the first %d pages were read", MaxPages))
	}
	layouts := make([]pageLayout, len(pages))
	for i, pg := range pages {
		if err := ctx.Err(); err != nil {
			return nil, context.Cause(ctx)
		}
		pl, perr := x.page(pg)
		if perr != nil {
			var a abort
			if errors.As(perr, &a) {
				return nil, a.err
			}
			doc.Warnings = append(doc.Warnings, fmt.Sprintf("page %d: %v", i+1, perr))
		}
		for _, wn := range pl.warnings {
			doc.Warnings = append(doc.Warnings, fmt.Sprintf("page %d: %s", i+1, wn))
		}
		layouts[i] = pl
	}
	finish(doc, layouts)
	doc.Title = chooseTitle(rd, layouts, doc)
	readMetadata(rd, layouts, doc)
	if len(pages) == 0 {
		return nil, errorf(ErrMalformed, "no pages")
	}
	var glyphs, invisible, unmapped int
	for _, pl := range layouts {
		glyphs += pl.glyphs
		invisible += pl.invisible
		unmapped += pl.unmapped
	}
	if glyphs > 0 && invisible*2 > glyphs {
		doc.warnf("the text is an OCR layer (invisible text over scanned images): it may be garbled")
	}
	unmappedPages(doc, layouts)
	err = judge(doc)
	if errors.Is(err, ErrNoText) && glyphs >= 100 && unmapped*2 > glyphs {
		return nil, ErrNoUnicode
	}
	switch {
	case errors.Is(err, ErrNoText) && norm.brokenContent > 0:
		err = errorf(ErrMalformed, "its content streams are missing or damaged (%d of %d)", norm.brokenContent, norm.contentStreams)
	case errors.Is(err, ErrNoText) && norm.images > 0:
		err = ErrScanned
	}
	if err != nil {
		if errors.Is(err, ErrGarbled) {
			return doc, err
		}
		return nil, err
	}
	return doc, nil
}

func (a abort) Error() string { return a.err.Error() }

// unmappedPages warns of the pages whose text is partly or wholly in fonts
// that say nothing of the characters they draw (a Type 3 font whose glyphs
// are named by an index, an Identity-H font with no ToUnicode and no usable
// program): that text is left out, and the warning names the pages. A page
// counts when ten or more of its characters, or a fifth, are unmapped (a
// stray symbol is not worth a warning).
func unmappedPages(doc *Document, pls []pageLayout) {
	var pages []int
	total, count := 0, 0
	for i, pl := range pls {
		if pl.unmapped > 0 && (pl.unmapped >= 10 || pl.unmapped*5 > pl.glyphs) {
			pages = append(pages, i+1)
			total += pl.glyphs
			count += pl.unmapped
		}
	}
	switch {
	case len(pages) == 0:
	case len(pages) == 1:
		doc.warnf("page %d: %d of its %d characters use fonts with no Unicode mapping and are left out", pages[0], count, total)
	default:
		doc.warnf("pages %s: %d of their %d characters use fonts with no Unicode mapping and are left out", pageRanges(pages), count, total)
	}
}

// pageRanges writes ascending page numbers as "1, 3-5, 9".
func pageRanges(ps []int) string {
	var b strings.Builder
	for i := 0; i < len(ps); {
		j := i
		for j+1 < len(ps) && ps[j+1] == ps[j]+1 {
			j++
		}
		if b.Len() > 0 {
			b.WriteString(", ")
		}
		if j > i {
			fmt.Fprintf(&b, "%d-%d", ps[i], ps[j])
		} else {
			fmt.Fprintf(&b, "%d", ps[i])
		}
		i = j + 1
	}
	return b.String()
}

// page walks one page, recovering from panics in the library so that one
// bad page does not lose the others. The glyphs read before a panic are kept.
func (x *extraction) page(pg pageRef) (pl pageLayout, err error) {
	w := &walker{doc: x, forms: map[uint64]bool{}, glyphs: x.glyphBuf[:0]}
	defer func() { x.glyphBuf = w.glyphs[:0] }()
	defer func() {
		if r := recover(); r != nil {
			if a, ok := r.(abort); ok {
				err = a
				return
			}
			err = fmt.Errorf("malformed content: %v", r)
			pl = layout(w.glyphs)
			pl.warnings = w.warnings
			pl.glyphs, pl.invisible, pl.unmapped = len(w.glyphs), w.invisible, w.unmapped
		}
	}()
	res := &resources{v: pg.res, fonts: map[string]*font{}}
	g := gstate{ctm: identity, th: 1}
	w.page, w.clip = pageBox(pg.media)
	if contents := pg.v.Key("Contents"); !contents.IsNull() {
		w.run(contents, res, g)
	}
	w.annotations(pg.v, res)
	pl = layout(w.glyphs)
	pl.warnings = w.warnings
	pl.glyphs, pl.invisible, pl.unmapped = len(w.glyphs), w.invisible, w.unmapped
	return pl, nil
}

type pageRef struct {
	v     lpdf.Value
	res   lpdf.Value // inherited resources
	media lpdf.Value // inherited /MediaBox
}

// collectPages walks the page tree depth first with a visited set and a
// depth limit: the library's own Page(n) loops forever on a cyclic tree.
func collectPages(root lpdf.Value) (pages []pageRef, truncated bool) {
	seen := map[uint64]bool{}
	var walk func(n, res, media lpdf.Value, depth int)
	walk = func(n, res, media lpdf.Value, depth int) {
		if depth > 64 || len(pages) >= MaxPages {
			truncated = truncated || len(pages) >= MaxPages
			return
		}
		if id := valueID(n); id != 0 {
			if seen[id] {
				return
			}
			seen[id] = true
		}
		if r := n.Key("Resources"); r.Kind() == lpdf.Dict {
			res = r
		}
		if m := n.Key("MediaBox"); m.Kind() == lpdf.Array {
			media = m
		}
		kids := n.Key("Kids")
		if n.Key("Type").Name() == "Page" || (kids.Kind() != lpdf.Array && n.Key("Contents").Kind() != lpdf.Null) {
			pages = append(pages, pageRef{v: n, res: res, media: media})
			return
		}
		for i := 0; i < kids.Len(); i++ {
			walk(kids.Index(i), res, media, depth+1)
		}
	}
	walk(root, lpdf.Value{}, lpdf.Value{}, 0)
	return pages, truncated
}

// errInternal marks a failure of our own code rather than of the file (a
// recovered panic): the fuzz test fails on it.
var errInternal = errors.New("malformed PDF (internal error)")

// guardedReader is the file as the library reads it: every read checks the
// context, so the library stops at its next read once the work is over
// budget or cancelled (its own loops all read).
type guardedReader struct {
	ctx context.Context
	b   []byte
}

func (g *guardedReader) ReadAt(p []byte, off int64) (int, error) {
	if err := g.ctx.Err(); err != nil {
		panic(abort{context.Cause(g.ctx)})
	}
	if off < 0 || off >= int64(len(g.b)) {
		return 0, io.EOF
	}
	n := copy(p, g.b[off:])
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

var arxivStamp = regexp.MustCompile(`arXiv:\s*((?:\d{4}\.\d{4,5}|[a-z\-]+(?:\.[A-Z]{2})?/\d{7})(?:v\d+)?)\s*(?:\[[^\]]*\]\s*)?(\d{1,2}\s+[A-Z][a-z]{2}\s+\d{4})?`)

func (d *Document) warnf(format string, args ...any) {
	d.Warnings = append(d.Warnings, fmt.Sprintf(format, args...))
}
