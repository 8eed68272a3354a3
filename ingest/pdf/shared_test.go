package pdf

import (
	"context"
	"sync"
)

// sharedDocs holds what ExtractFile made of each shared PDF, by path:
// several tests read the same papers (quality, metadata, xref rebuilding),
// and under -race one extraction of a paper takes seconds, of the 619-page
// PDF a minute. Tests must not modify a document they get from it.
var sharedDocs sync.Map // path -> *sharedDoc

type sharedDoc struct {
	once sync.Once
	doc  *Document
	err  error
}

// extractShared is ExtractFile of a file of the shared test data, made
// once per test binary.
func extractShared(path string) (*Document, error) {
	v, _ := sharedDocs.LoadOrStore(path, &sharedDoc{})
	d := v.(*sharedDoc)
	d.once.Do(func() { d.doc, d.err = ExtractFile(context.Background(), path) })
	return d.doc, d.err
}
