// Package pdf turns a PDF file into plain text per page, reading the file's
// objects through package syntax: it walks each page's content stream
// (following Form XObjects, then the appearance streams of visible
// annotations such as filled-in form fields), decodes fonts (simple
// encodings with /Differences, Type 1 built-in encodings, numeric glyph
// names of Type 3 and bitmap fonts, Type0 with ToUnicode or, for
// Identity-H without one, the embedded font's own cmap or glyph names; the
// standard widths of the 14 base fonts where /Widths is missing), drops
// glyphs outside the page's MediaBox as pdftotext does, rebuilds words,
// lines, columns and paragraphs from glyph positions, and keeps running
// heads, page numbers and the arXiv side stamp apart from the body text (as
// furniture) and margin line numbers out of it.
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
// Extract never panics and never runs unbounded: the file's objects,
// cross-reference data, encryption and filters are read by package syntax,
// which trusts no count in the file, malformed input is recovered per page
// and per document, and the work per document is capped (see MaxDuration,
// MaxOps, syntax.MaxDecodedBytes) on top of the caller's context.
package pdf

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strings"
	"time"

	"github.com/papers-cli/papers/ingest/pdf/syntax"
	"github.com/papers-cli/papers/internal/lazyre"

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
	// role.Footnote, role.Reference, role.Equation, or role.Furniture for
	// running heads and feet, page numbers and the arXiv stamp), with the
	// blank line after a run in it. A change of role always starts a
	// paragraph, so furniture never stands inside a sentence.
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

// Sentinel errors; callers branch on them with errors.Is. Those of the
// file's syntax are package syntax's own values.
var (
	ErrEncrypted = syntax.ErrEncrypted
	ErrNoText    = errors.New("no text layer")
	ErrNotPDF    = syntax.ErrNotPDF
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
	ErrTruncated = syntax.ErrTruncated
	// ErrUnsupported is a PDF feature the parser cannot read, such as a
	// security handler other than the standard one.
	ErrUnsupported = syntax.ErrUnsupported
	// ErrTooLarge means the document hit the work limit before it ended.
	ErrTooLarge = syntax.ErrTooLarge
	// ErrMalformed means the file is damaged past repair: no document
	// catalog, a page tree with no page.
	ErrMalformed = syntax.ErrMalformed
	// ErrScanned wraps ErrNoText when the pages hold images: a scan
	// without a text layer, which OCR can read.
	ErrScanned = fmt.Errorf("%w: its pages are images (scanned?)", ErrNoText)
)

// Limits per document. Extract also stops when ctx is done.
var (
	MaxDuration = 2 * time.Minute
	MaxOps      = int64(200_000_000) // content stream operators, all pages
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
	return extractGuarded(ctx, func(ctx context.Context) (*Document, error) {
		f, err := syntax.Open(ctx, data)
		if err != nil {
			return nil, err
		}
		return extractFile(ctx, ownFile{f}, f.Warnings)
	})
}

// extractGuarded runs read in a goroutine of its own under MaxDuration,
// returning as soon as ctx is done; a panic in read (an abort, or a bug of
// ours: errInternal) becomes its error.
func extractGuarded(ctx context.Context, read func(context.Context) (*Document, error)) (*Document, error) {
	ctx, cancel := context.WithTimeoutCause(ctx, MaxDuration, ErrTooLarge)
	defer cancel()
	type result struct {
		doc *Document
		err error
	}
	done := make(chan result, 1)
	go func() {
		var res result
		defer func() {
			if x := recover(); x != nil {
				res = result{nil, fmt.Errorf("%w: %v", errInternal, x)}
				if a, ok := x.(syntax.Abort); ok {
					res.err = a.Err
				} else if os.Getenv("PAPERS_PDF_DEBUG") != "" {
					res.err = fmt.Errorf("%w\n%s", res.err, debug.Stack())
				}
			}
			done <- res
		}()
		res.doc, res.err = read(ctx)
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
// The file is read into memory and its objects are read by package syntax,
// so that nothing in the file can make the reader allocate without bound,
// recurse or loop; the page text then holds one page's decoded content at
// a time. The work runs in its own goroutine so that Extract returns as
// soon as ctx is done or MaxDuration has passed; the work itself checks
// the context at every object it reads and every content stream operator,
// and stops there: nothing keeps running after Extract returns.
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

func (e *extraction) tick() {
	e.ops++
	if e.ops&1023 == 0 {
		if err := e.ctx.Err(); err != nil {
			panic(syntax.Abort{Err: context.Cause(e.ctx)})
		}
		if e.ops > MaxOps || e.bytes > MaxContentBytes {
			panic(syntax.Abort{Err: ErrTooLarge})
		}
	}
}

// extractFile reads the text of every page of an open file, then the
// document's title and metadata; warnings are the file's repairs.
func extractFile(ctx context.Context, f source, warnings []string) (doc *Document, err error) {
	x := &extraction{ctx: ctx, fonts: map[objKey]*font{}}
	x.acroForm = f.Root().Key("AcroForm").Kind() == syntax.Dict
	doc = &Document{Warnings: warnings}
	layouts := make([]pageLayout, f.NumPages())
	var images, broken, streams, damaged, cut int
	for i := range layouts {
		if err := ctx.Err(); err != nil {
			return nil, context.Cause(ctx)
		}
		pl, perr := x.page(f.Page(i))
		if perr != nil {
			var a syntax.Abort
			if errors.As(perr, &a) {
				return nil, a.Err
			}
			doc.Warnings = append(doc.Warnings, fmt.Sprintf("page %d: %v", i+1, perr))
		}
		for _, wn := range pl.warnings {
			doc.Warnings = append(doc.Warnings, fmt.Sprintf("page %d: %s", i+1, wn))
		}
		images += pl.images
		broken += pl.brokenContent
		streams += pl.contentStreams
		damaged += pl.damagedContent
		if pl.cut {
			cut++
		}
		layouts[i] = pl
	}
	if damaged > 0 {
		doc.warnf("%d content streams are damaged and could not be decoded in full: text may be missing", damaged)
	}
	finish(doc, layouts)
	doc.Title = chooseTitle(f, layouts, doc)
	readMetadata(f, layouts, doc)
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
	case errors.Is(err, ErrNoText) && cut > 0:
		// a compression bomb: what was read is blank
		err = errorf(ErrTooLarge, "the content of %d of its pages decodes to more than %d MB, and none of what was read is text", cut, syntax.MaxStreamBytes>>20)
	case errors.Is(err, ErrNoText) && broken > 0:
		err = errorf(ErrMalformed, "its content streams are missing or damaged (%d of %d)", broken, streams)
	case errors.Is(err, ErrNoText) && images > 0:
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

// errorf is an extraction failure; its message is ours alone, never bytes
// from the file.
func errorf(sentinel error, format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{sentinel}, args...)...)
}

// unmappedPages warns of the pages whose text is partly or wholly in fonts
// that say nothing of the characters they draw (a Type 3 font whose glyphs
// are named by an index, an Identity-H font with no ToUnicode and no usable
// program): that text is left out, and the warning names the pages. A page
// counts when ten or more of its characters and a twentieth of them, or
// two hundred, are unmapped (a few stray symbols of a figure are not worth
// a warning).
func unmappedPages(doc *Document, pls []pageLayout) {
	var pages []int
	total, count := 0, 0
	for i, pl := range pls {
		if pl.unmapped >= 10 && pl.unmapped*20 >= pl.glyphs || pl.unmapped >= 200 {
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

// page walks one page, recovering from panics in our code so that one bad
// page does not lose the others. The glyphs read before a panic are kept.
func (x *extraction) page(pg object) (pl pageLayout, err error) {
	w := &walker{doc: x, forms: map[uint64]bool{}, glyphs: x.glyphBuf[:0]}
	defer func() { x.glyphBuf = w.glyphs[:0] }()
	done := func() {
		pl = layout(w.glyphs)
		pl.warnings = w.warnings
		pl.glyphs, pl.invisible, pl.unmapped = len(w.glyphs), w.invisible, w.unmapped
		pl.images, pl.brokenContent, pl.contentStreams, pl.damagedContent = w.images, w.brokenContent, w.contentStreams, w.damagedContent
		pl.cut = w.cut
	}
	defer func() {
		if r := recover(); r != nil {
			if a, ok := r.(syntax.Abort); ok {
				err = a
				return
			}
			err = fmt.Errorf("malformed content: %v", r)
			done()
		}
	}()
	res := &resources{v: pg.Key("Resources"), fonts: map[string]*font{}}
	g := gstate{ctm: identity, th: 1}
	w.page, w.clip = pageBox(pg.Key("MediaBox"))
	if contents := pg.Key("Contents"); !contents.IsNull() {
		w.run(contents, res, g)
	} else if pg.Has("Contents") {
		w.contentStreams++ // there is content, and it is missing
		w.brokenContent++
	}
	w.annotations(pg, res)
	done()
	return pl, nil
}

// errInternal marks a failure of our own code rather than of the file (a
// recovered panic): the fuzz test fails on it.
var errInternal = errors.New("malformed PDF (internal error)")

var arxivStamp = lazyre.New(`arXiv:\s*((?:\d{4}\.\d{4,5}|[a-z\-]+(?:\.[A-Z]{2})?/\d{7})(?:v\d+)?)\s*(?:\[[^\]]*\]\s*)?(\d{1,2}\s+[A-Z][a-z]{2}\s+\d{4})?`)

func (d *Document) warnf(format string, args ...any) {
	d.Warnings = append(d.Warnings, fmt.Sprintf(format, args...))
}
