package ingest

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/gob"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/papers-cli/papers/ingest/pdf"
	"github.com/papers-cli/papers/ingest/pdfproc"
	"github.com/papers-cli/papers/internal/testmain"
)

// TestMain makes extractFile extract each distinct PDF once for all the
// tests (sharedExtract).
func TestMain(m *testing.M) {
	testmain.GC()
	extractFile = func(ctx context.Context, path string) (*pdf.Document, error) {
		data, err := pdfproc.ReadFile(ctx, path)
		if err != nil {
			return nil, err
		}
		return sharedExtract(ctx, data)
	}
	code := m.Run()
	if testing.Verbose() {
		os.Stderr.WriteString(extractStats())
	}
	os.Exit(code)
}

// extracted holds what pdf.ExtractBytes made of a PDF, by the SHA-256 of
// its bytes: the Document gob-encoded, so that each caller decodes its own
// copy and no test sees what another changed.
var extracted sync.Map // [32]byte -> *extraction

type extraction struct {
	once sync.Once
	gob  []byte
	ok   bool
}

var extractCalls, extractRuns atomic.Int64

// sharedExtract is pdf.ExtractBytes, run once per distinct PDF. Only a
// successful extraction is kept: a failure (a hostile file, a cancelled
// context, a limit) runs the extractor again every time, and a cancelled
// context always reaches it, so what ingest does with errors and
// cancellation is what it does without this.
func sharedExtract(ctx context.Context, data []byte) (*pdf.Document, error) {
	extractCalls.Add(1)
	if ctx.Err() != nil {
		extractRuns.Add(1)
		return pdf.ExtractBytes(ctx, data)
	}
	v, _ := extracted.LoadOrStore(sha256.Sum256(data), &extraction{})
	e := v.(*extraction)
	var doc *pdf.Document
	var err error
	ran := false
	e.once.Do(func() {
		ran = true
		extractRuns.Add(1)
		doc, err = pdf.ExtractBytes(ctx, data)
		if err != nil {
			return
		}
		var b bytes.Buffer
		if gob.NewEncoder(&b).Encode(doc) == nil {
			e.gob, e.ok = b.Bytes(), true
		}
	})
	if ran {
		return doc, err // the only copy but the gob
	}
	if !e.ok {
		extractRuns.Add(1)
		return pdf.ExtractBytes(ctx, data)
	}
	var d pdf.Document
	if err := gob.NewDecoder(bytes.NewReader(e.gob)).Decode(&d); err != nil {
		panic("decoding a gob of a pdf.Document: " + err.Error())
	}
	return &d, nil
}

func extractStats() string {
	return fmt.Sprintf("ingest tests: %d PDF extractions asked for, %d run\n", extractCalls.Load(), extractRuns.Load())
}
