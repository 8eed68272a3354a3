package ingest

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/papers-cli/papers/ingest/chunk"
	"github.com/papers-cli/papers/ingest/pdf"
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

// extractPDF reads the text of the PDF at path. Its errors do not name the
// file: the failure is reported under the item, which does.
func extractPDF(ctx context.Context, path string) (*pdf.Document, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("cannot read: %w", unwrapPathError(err))
	}
	doc, err := extractBytes(ctx, data)
	if err != nil {
		return nil, fmt.Errorf("extract text: %w", err)
	}
	return doc, nil
}

// extractBytes is pdf.ExtractBytes. The package's tests replace it with
// one that extracts each distinct PDF once per test binary (main_test.go):
// they ingest the same shared papers in test after test, and under the
// race detector the extraction is most of their CPU.
var extractBytes = pdf.ExtractBytes

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

// unwrapPathError drops the path from an os error: the item names it.
func unwrapPathError(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
