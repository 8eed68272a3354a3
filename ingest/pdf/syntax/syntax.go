// Package syntax reads a PDF file's objects with its own code, trusting
// nothing the file claims: the lexer, the object parser, the cross-reference
// tables and streams (rebuilt by a scan of the file when they are missing or
// wrong), object streams, decryption (RC4, AES-128 and AES-256 with an empty
// user password) and the stream filters. Whatever the input, it never
// panics out of its API, never recurses or loops without bound, and never
// allocates per a count written in the file: the streams it decodes are
// capped per stream and per document (MaxDecodedBytes) and every read checks
// the caller's context.
//
// Open reads a file into a File; Value is one of its objects, as page text
// reads it (Key, Index, Name, Stream, ...). WriteClean writes the file again
// as a plain PDF 1.7 that any reader can parse (the repair a second reader
// needs, see the ledongthuc adapter of package pdf).
package syntax

import (
	"errors"
	"fmt"
)

// Sentinel errors; callers branch on them with errors.Is (package pdf
// exports the same values).
var (
	ErrEncrypted = errors.New("encrypted: password required")
	ErrNotPDF    = errors.New("not a PDF file")
	// ErrTruncated means the file ends early (an incomplete download).
	ErrTruncated = errors.New("truncated PDF: file ends early")
	// ErrUnsupported is a PDF feature the parser cannot read.
	ErrUnsupported = errors.New("unsupported PDF")
	// ErrTooLarge means the document hit a work limit before it ended.
	ErrTooLarge = errors.New("PDF too large or too complex")
	// ErrMalformed means the file is damaged past repair: no document
	// catalog, a page tree with no page.
	ErrMalformed = errors.New("malformed PDF")
)

// Abort is the panic value that stops the reading of a file (its context
// is done, or a limit is reached). File's methods and Value's panic with it
// where they cannot return an error; the caller recovers it at the
// boundary of its own work (a page, a document) and returns Err.
type Abort struct{ Err error }

func (a Abort) Error() string { return a.Err.Error() }

// errorf is a failure of the file; its message is ours alone, never bytes
// from the file.
func errorf(sentinel error, format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{sentinel}, args...)...)
}

// Unhex is the value of a hexadecimal digit, or -1.
func Unhex(c byte) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c >= 'a' && c <= 'f':
		return int(c-'a') + 10
	case c >= 'A' && c <= 'F':
		return int(c-'A') + 10
	}
	return -1
}

// Limits of one file.
var (
	// MaxPages caps the pages read from a page tree.
	MaxPages = 10_000
)

// MaxStreamBytes caps what one stream decodes to.
const MaxStreamBytes = 64 << 20
