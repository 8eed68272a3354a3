//go:build unix

package pdfproc

import (
	"context"
	"encoding/gob"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime/debug"
	"time"

	"github.com/papers-cli/papers/ingest/pdf"
	"github.com/papers-cli/papers/internal/localfile"
)

// result is what a child writes on its stdout.
type result struct {
	Doc   *pdf.Document
	Err   string
	Kinds []int // indexes into sentinels
}

// extractChild extracts the file in a child process (see the package doc).
func extractChild(ctx context.Context, path string) (*pdf.Document, error) {
	f, err := localfile.Open(ctx, path, MaxFileBytes)
	if err != nil {
		return nil, Unnamed(err)
	}
	defer f.Close()
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("start the PDF reader: %w", err)
	}
	c := exec.CommandContext(ctx, exe)
	c.Args = []string{os.Args[0], Arg} // the name it was started by: a multi-call test binary dispatches on it
	c.ExtraFiles = []*os.File{f.OS()}
	c.SysProcAttr = childAttr()
	c.WaitDelay = time.Second
	stderr := &head{max: 8 << 10}
	c.Stderr = stderr
	out, err := c.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("start the PDF reader: %w", err)
	}
	if err := c.Start(); err != nil {
		return nil, fmt.Errorf("start the PDF reader: %w", err)
	}
	var res result
	decErr := gob.NewDecoder(out).Decode(&res)
	waitErr := c.Wait()
	if ctx.Err() != nil {
		return nil, context.Cause(ctx)
	}
	if decErr != nil || waitErr != nil {
		if waitErr == nil {
			waitErr = decErr
		}
		return nil, died(stderr.String(), waitErr)
	}
	if res.Err != "" {
		return res.Doc, decodeError(res.Err, res.Kinds)
	}
	if res.Doc == nil {
		return nil, died(stderr.String(), errors.New("no result"))
	}
	return res.Doc, nil
}

// Limits of a child: a stack that nests deeper than any real PDF needs
// fails fast (the default, 1 GB, would exhaust memory first), and the
// garbage collector works harder as the heap nears what a PDF may use.
const (
	childMaxStack  = 64 << 20
	childSoftLimit = 768 << 20
)

// ReaderLimits sets this process's stack and garbage-collector limits to
// a PDF reader's (a child's): call it before ExtractHere from a command
// that reads a PDF in its own process. Without the soft limit the heap of
// a compression bomb grows to twice what is live between collections, and
// a process under a 1 GiB address-space cap dies of it. It returns a
// function that restores the previous limits.
func ReaderLimits() (restore func()) {
	stack := debug.SetMaxStack(childMaxStack)
	soft := debug.SetMemoryLimit(childSoftLimit)
	return func() {
		debug.SetMaxStack(stack)
		debug.SetMemoryLimit(soft)
	}
}

// Serve is the child: it extracts the file open as descriptor 3 (mapped,
// not copied) and writes the result to stdout, then returns the exit
// code. Call it from main when the program was started with Arg.
func Serve() int {
	ReaderLimits()
	f := os.NewFile(3, "pdf")
	if f == nil {
		fmt.Fprintln(os.Stderr, "papers: "+Arg+" is started by papers itself, with the PDF as descriptor 3")
		return 2
	}
	var data []byte
	unmap := func() error { return nil }
	fi, err := f.Stat()
	if err == nil && fi.Size() > MaxFileBytes {
		err = &localfile.TooLargeError{Size: fi.Size(), Max: MaxFileBytes}
	}
	if err == nil {
		data, unmap, err = localfile.Map(f) // a fault on a file cut short kills this process alone
	}
	var res result
	if err == nil {
		defer unmap()
		var doc *pdf.Document
		doc, err = pdf.ExtractBytes(context.Background(), data)
		res.Doc = doc
	}
	if err != nil {
		res.Err, res.Kinds = encodeError(Unnamed(err))
	}
	if err := gob.NewEncoder(os.Stdout).Encode(&res); err != nil {
		fmt.Fprintln(os.Stderr, "papers: "+Arg+": write the result:", err)
		return 1
	}
	return 0
}

// head keeps the first max bytes written to it: a Go runtime's fatal
// error comes first, its goroutines' stacks after.
type head struct {
	max int
	b   []byte
}

func (h *head) Write(p []byte) (int, error) {
	if n := min(len(p), h.max-len(h.b)); n > 0 {
		h.b = append(h.b, p[:n]...)
	}
	return len(p), nil
}

func (h *head) String() string { return string(h.b) }
