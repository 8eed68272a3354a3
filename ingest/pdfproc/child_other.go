//go:build !unix

package pdfproc

import (
	"context"
	"fmt"
	"os"

	"github.com/papers-cli/papers/ingest/pdf"
)

// extractChild extracts in this process where descriptors cannot be
// handed to a child.
func extractChild(ctx context.Context, path string) (*pdf.Document, error) {
	data, err := ReadFile(ctx, path)
	if err != nil {
		return nil, err
	}
	return pdf.ExtractBytes(ctx, data)
}

// Serve is not used where extraction runs in the parent.
func Serve() int {
	fmt.Fprintln(os.Stderr, "papers: "+Arg+" is not used on this system")
	return 2
}

// ReaderLimits leaves the process's limits as they are where no child
// reads PDFs.
func ReaderLimits() (restore func()) { return func() {} }
