package ingest

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"syscall"

	"github.com/papers-cli/papers/ingest/chunk"
	"github.com/papers-cli/papers/ingest/pdf"
	"github.com/papers-cli/papers/ingest/pdfproc"
	"github.com/papers-cli/papers/internal/localfile"
	"github.com/papers-cli/papers/store"
)

// extract reads a PDF's text and cuts it into body chunks numbered from 1.
func (in *Ingester) extract(ctx context.Context, r *run, id, path string) ([]store.Chunk, int, error) {
	doc, err := extractPDF(ctx, path)
	if err != nil {
		return nil, 0, err
	}
	for _, w := range doc.Warnings {
		r.emit(Event{Kind: Note, Item: id, Msg: w})
	}
	pages := toChunkPages(doc)
	r.emit(Event{Kind: Extracted, Item: id, Pages: len(doc.Pages)})
	return chunk.Body(id, pages, 1, in.Chunking), len(doc.Pages), nil
}

// readPDF extracts the local PDF at path, reporting it (and its warnings)
// under its path.
func readPDF(ctx context.Context, r *run, path string) (*pdf.Document, error) {
	doc, err := extractPDF(ctx, path)
	if err != nil {
		return nil, err
	}
	r.emit(Event{Kind: Extracted, Item: path, Pages: len(doc.Pages)})
	for _, w := range doc.Warnings {
		r.emit(Event{Kind: Note, Item: path, Msg: w})
	}
	return doc, nil
}

// extractPDF reads the text of the PDF at path (a regular file of at most
// pdfproc.MaxFileBytes, in a process of its own when the program isolates
// extraction: see package pdfproc). Its errors do not name the file: the
// failure is reported under the item, which does.
func extractPDF(ctx context.Context, path string) (*pdf.Document, error) {
	doc, err := extractFile(ctx, path)
	switch {
	case err == nil:
		return doc, nil
	case ctx.Err() != nil:
		return nil, context.Cause(ctx)
	case isReadError(err):
		return nil, fmt.Errorf("cannot read: %w", err)
	}
	return nil, fmt.Errorf("extract text: %w", err)
}

// isReadError tells an error of opening or reading the file from one of
// its content.
func isReadError(err error) bool {
	var errno syscall.Errno
	return errors.Is(err, localfile.ErrNotRegular) || errors.Is(err, localfile.ErrTooLarge) ||
		errors.Is(err, fs.ErrNotExist) || errors.Is(err, fs.ErrPermission) || errors.As(err, &errno)
}

// hashFile is the content hash (store.HashFile's) of the local PDF at
// path, opened as pdfproc opens it: a regular file of at most
// pdfproc.MaxFileBytes, read until ctx ends. Its errors do not name the
// file.
func hashFile(ctx context.Context, path string) (string, error) {
	f, err := localfile.Open(ctx, path, pdfproc.MaxFileBytes)
	if err != nil {
		return "", unwrapPathError(err)
	}
	defer f.Close()
	sum, err := store.HashReader(f)
	return sum, unwrapPathError(err)
}

// extractFile is pdfproc.Extract. The package's tests replace it with one
// that reads the file as pdfproc does and extracts each distinct PDF once
// per test binary (main_test.go): they ingest the same shared papers in
// test after test, and under the race detector the extraction is most of
// their CPU.
var extractFile = pdfproc.Extract

func toChunkPages(doc *pdf.Document) []chunk.Page {
	pages := make([]chunk.Page, len(doc.Pages))
	for i, p := range doc.Pages {
		hs := make([]chunk.Heading, len(p.Headings))
		for k, h := range p.Headings {
			hs[k] = chunk.Heading{Offset: h.Offset, Text: h.Text}
		}
		sp := make([]chunk.Span, len(p.Spans))
		for k, x := range p.Spans {
			sp[k] = chunk.Span{Start: x.Start, End: x.End, Role: x.Role}
		}
		pages[i] = chunk.Page{N: p.N, Text: p.Text, Headings: hs, Spans: sp}
	}
	return pages
}

// unwrapPathError drops the path from an error of opening a file: the
// item names it.
func unwrapPathError(err error) error { return localfile.Unnamed(err) }
