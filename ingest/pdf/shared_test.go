package pdf

import (
	"context"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/papers-cli/papers/internal/testmain"
)

// TestMain lifts the wall-clock guard of one extraction (MaxDuration, 2
// minutes) for the tests, whose documents are the project's own: under
// -race on a machine shared twentyfold the 619-page PDF took longer than
// that and failed as "too large" (CPU-bound limits, MaxOps and the sizes,
// still stop hostile input).
func TestMain(m *testing.M) {
	testmain.GC()
	MaxDuration = 20 * time.Minute
	os.Exit(m.Run())
}

// fullTests (PAPERS_FULL_TESTS=1) makes the race detector's run read the
// whole of the data sets it reads a part of (TestPeerReadable).
var fullTests = testmain.Full

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
