// Package pdfproc reads the text of a local PDF file (package pdf) in a
// process of its own, so that one file that exhausts memory, overflows
// the stack or crashes the reader fails alone: a Go program that runs out
// of memory dies whole, with no recover, and a folder ingest or an MCP
// server must outlive any one file.
//
// A program opts in by calling Serve when it is started with Arg as its
// first argument, and Isolate once at start: Extract then starts the
// program itself (os.Executable, with Arg) for each file, hands it the
// open file as descriptor 3, and reads the Document back on the child's
// stdout. The child maps the file instead of copying it onto the heap.
// It is killed when the context ends (cancelling frees its memory at
// once) and dies with its parent. Without Isolate (tests, other
// programs), Extract reads the file in this process.
//
// Either way the file is opened with package localfile: only a regular
// file of at most MaxFileBytes is read, and a device, a named pipe or a
// socket is refused before a byte is read.
package pdfproc

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/papers-cli/papers/ingest/pdf"
	"github.com/papers-cli/papers/internal/localfile"
)

// MaxFileBytes is the largest PDF read: far above any paper (arXiv's
// largest are tens of MB), below what would not fit in memory.
const MaxFileBytes = 512 << 20

// Arg is the first argument of the child process: a program that calls
// Isolate must call Serve, and nothing else, when started with it.
const Arg = "__extract-pdf"

// isolated is set by Isolate.
var isolated bool

// Isolate makes Extract run each extraction in a child process of this
// program. Call it once, from main, before any Extract; the program must
// serve Arg (see Serve).
func Isolate() { isolated = true }

// Extract reads the text of the PDF at path: in a child process after
// Isolate, else here. Errors wrap the pdf package's sentinels as
// pdf.ExtractBytes's do (a child that ran out of memory or overflowed its
// stack is pdf.ErrTooLarge; one that crashed otherwise is ErrCrashed);
// those of opening the file are localfile's (ErrNotRegular,
// ErrTooLarge) or the os package's, and do not name the path. As with
// pdf.ExtractBytes, a Document may come with pdf.ErrGarbled.
func Extract(ctx context.Context, path string) (*pdf.Document, error) {
	if isolated {
		return extractChild(ctx, path)
	}
	return ExtractHere(ctx, path)
}

// ExtractHere reads the PDF at path in this process, after Isolate too.
// It is for a command that reads one file and has nothing else to lose
// (papers extract), where a child process would double the start-up: the
// reader bounds what it decodes and holds (the hostile files of
// shared/data peak under 200 MB), so a bomb ends in pdf.ErrTooLarge here
// as well. A folder ingest or a server, which must outlive any one file,
// calls Extract.
func ExtractHere(ctx context.Context, path string) (*pdf.Document, error) {
	data, err := ReadFile(ctx, path)
	if err != nil {
		return nil, err
	}
	return pdf.ExtractBytes(ctx, data)
}

// ReadFile reads the PDF at path whole, as Extract opens it (a regular
// file of at most MaxFileBytes, reads that stop when ctx ends).
func ReadFile(ctx context.Context, path string) ([]byte, error) {
	b, err := localfile.ReadFile(ctx, path, MaxFileBytes)
	return b, Unnamed(err)
}

// ErrCrashed is wrapped by the error of an extraction whose process died
// of something other than memory or stack: a fault on the mapped file
// (truncated while read), a signal, a bug.
var ErrCrashed = errors.New("the PDF reader crashed on it")

// Unnamed drops the path from an error of opening or reading a file (the
// caller's message names the file already): "it is a named pipe (FIFO),
// not a file", "no such file or directory". Other errors are returned as
// they are.
func Unnamed(err error) error { return localfile.Unnamed(err) }

// sentinels are the pdf package's errors a child's error is matched
// against, to be matched again in the parent: their order is the wire's.
var sentinels = []error{
	pdf.ErrEncrypted, pdf.ErrNoText, pdf.ErrNotPDF, pdf.ErrGarbled, pdf.ErrNoUnicode,
	pdf.ErrTruncated, pdf.ErrUnsupported, pdf.ErrTooLarge, pdf.ErrMalformed, pdf.ErrScanned,
	ErrCrashed, context.Canceled, context.DeadlineExceeded,
}

// childError is an error made in the child: its message, and the
// sentinels it matched there.
type childError struct {
	msg string
	is  []error
}

func (e *childError) Error() string { return e.msg }

func (e *childError) Is(target error) bool {
	for _, s := range e.is {
		if s == target {
			return true
		}
	}
	return false
}

// encodeError is err on the wire: its message and which sentinels it is.
func encodeError(err error) (string, []int) {
	var kinds []int
	for i, s := range sentinels {
		if errors.Is(err, s) {
			kinds = append(kinds, i)
		}
	}
	return err.Error(), kinds
}

func decodeError(msg string, kinds []int) error {
	e := &childError{msg: msg}
	for _, k := range kinds {
		if k >= 0 && k < len(sentinels) {
			e.is = append(e.is, sentinels[k])
		}
	}
	return e
}

// died is the error for a child that exited without a result: what its
// stderr says it died of.
func died(stderr string, exit error) error {
	switch {
	case strings.Contains(stderr, "out of memory") || strings.Contains(stderr, "cannot allocate memory") ||
		strings.Contains(stderr, "failed to reserve") || strings.Contains(stderr, "memory limit"):
		return fmt.Errorf("%w: reading it ran out of memory", pdf.ErrTooLarge)
	case strings.Contains(stderr, "stack overflow") || strings.Contains(stderr, "stack exceeds"):
		return fmt.Errorf("%w: it nests too deep", pdf.ErrTooLarge)
	}
	return fmt.Errorf("%w (%v)", ErrCrashed, exit)
}
