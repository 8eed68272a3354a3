// Package localfile opens the files a user names as input: PDFs, corpora,
// answers, question sets, qrels, a Zotero database. Only regular files are
// read: a device (/dev/zero, /dev/urandom), a named pipe, a socket or a
// directory given where a file is wanted is refused at once with an error
// that says what it is, never read until memory or patience runs out.
// Opening never blocks (a FIFO with no writer would block an ordinary
// open), the file's type is checked on the open file, not on its name (a
// file swapped for a pipe between a check and the open is still refused),
// sizes are capped, and reads stop when the context ends.
//
// Every place that opens a user's local input goes through Open (or
// ReadFile, or Map); the checks are made once, here.
package localfile

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
)

// ErrNotRegular is wrapped by the error for a path that is not a regular
// file (see NotRegularError).
var ErrNotRegular = errors.New("not a regular file")

// ErrTooLarge is wrapped by the error for a file over its size cap, or one
// that grew past it while being read.
var ErrTooLarge = errors.New("file too large")

// NotRegularError is a path that names something other than a regular
// file: Kind says what ("a directory", "a character device", "a named
// pipe (FIFO)", "a socket", ...).
type NotRegularError struct {
	Path string
	Kind string
}

func (e *NotRegularError) Error() string {
	return fmt.Sprintf("%s is %s, not a file", subject(e.Path), e.Kind)
}

// subject is how an error names the file: its path, or "it" (Unnamed).
func subject(path string) string {
	if path == "" {
		return "it"
	}
	return path
}

func (e *NotRegularError) Unwrap() error { return ErrNotRegular }

// Kind names the type of file mode m in words, for errors.
func Kind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a block device"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	case m&fs.ModeIrregular != 0:
		return "an irregular file"
	case m.IsRegular():
		return "a regular file"
	}
	return "not a regular file"
}

// Check stats path (following symbolic links) and returns its FileInfo
// when it is a regular file; anything else is a *NotRegularError. Open
// checks again on the open file: Check is for deciding early (which
// arguments are files, what a directory walk yields).
func Check(path string) (fs.FileInfo, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, &NotRegularError{Path: path, Kind: Kind(fi.Mode())}
	}
	return fi, nil
}

// TooLargeError is a file over its cap; Size is -1 for one that grew past
// the cap while it was read.
type TooLargeError struct {
	Path      string
	Size, Max int64
}

func (e *TooLargeError) Error() string {
	if e.Size < 0 {
		return fmt.Sprintf("%s grew past the %s papers reads while it was read", subject(e.Path), Size(e.Max))
	}
	return fmt.Sprintf("%s is %s, more than the %s papers reads", subject(e.Path), Size(e.Size), Size(e.Max))
}

func (e *TooLargeError) Unwrap() error { return ErrTooLarge }

// Size writes n bytes for people: 512 MiB, 3.2 GiB, 870 KiB, 12 bytes.
func Size(n int64) string {
	switch {
	case n >= 1<<30:
		return trim(float64(n)/(1<<30)) + " GiB"
	case n >= 1<<20:
		return trim(float64(n)/(1<<20)) + " MiB"
	case n >= 1<<10:
		return trim(float64(n)/(1<<10)) + " KiB"
	}
	return fmt.Sprintf("%d bytes", n)
}

func trim(f float64) string {
	if f >= 10 || f == float64(int64(f)) {
		return fmt.Sprintf("%.0f", f)
	}
	return fmt.Sprintf("%.1f", f)
}

// File is a regular file open for reading. Read honours the context it
// was opened with and refuses to read more than the cap (a file that
// grows while it is read is cut off with ErrTooLarge, not followed).
// It is not safe for concurrent use.
type File struct {
	f    *os.File
	ctx  context.Context
	path string
	size int64 // at open
	max  int64 // the cap; 0: none
	read int64
}

// Open opens path for reading when it is a regular file of at most max
// bytes (max <= 0: no cap). The open itself never blocks: it is made
// non-blocking, so that a named pipe with no writer is refused rather
// than waited on, then the file's type and size are checked on the open
// descriptor. The caller closes the File.
func Open(ctx context.Context, path string, max int64) (*File, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	// Stat first: a device is never opened (opening some has effects), a
	// socket cannot be (ENXIO), and each gets its name in the error.
	if _, err := Check(path); err != nil {
		return nil, err
	}
	f, err := openNonBlocking(path)
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, &NotRegularError{Path: path, Kind: Kind(fi.Mode())}
	}
	if max > 0 && fi.Size() > max {
		f.Close()
		return nil, &TooLargeError{Path: path, Size: fi.Size(), Max: max}
	}
	return &File{f: f, ctx: ctx, path: path, size: fi.Size(), max: max}, nil
}

// Size is the file's size when it was opened.
func (f *File) Size() int64 { return f.size }

// Name is the path the file was opened by.
func (f *File) Name() string { return f.path }

// OS returns the open *os.File, for handing to a child process or a
// mapping; reads through it bypass the context and the cap.
func (f *File) OS() *os.File { return f.f }

// chunk bounds one read, so that a cancelled context is noticed within
// one chunk's time.
const chunk = 1 << 20

// Read reads up to len(p) bytes; it returns the context's error once the
// context is done, and ErrTooLarge past the cap.
func (f *File) Read(p []byte) (int, error) {
	if err := f.ctx.Err(); err != nil {
		return 0, err
	}
	if len(p) > chunk {
		p = p[:chunk]
	}
	if f.max > 0 {
		if f.read > f.max {
			return 0, &TooLargeError{Path: f.path, Size: -1, Max: f.max}
		}
		if rest := f.max + 1 - f.read; int64(len(p)) > rest {
			p = p[:rest] // one byte past the cap tells a file that grew
		}
	}
	n, err := f.f.Read(p)
	f.read += int64(n)
	if f.max > 0 && f.read > f.max {
		return n, &TooLargeError{Path: f.path, Size: -1, Max: f.max}
	}
	return n, err
}

// Close closes the file.
func (f *File) Close() error { return f.f.Close() }

// ReadFile reads the whole of path when it is a regular file of at most
// max bytes (see Open), stopping when ctx ends.
func ReadFile(ctx context.Context, path string, max int64) ([]byte, error) {
	f, err := Open(ctx, path, max)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b := make([]byte, 0, f.size+1)
	for {
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
		n, err := f.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err == io.EOF {
			return b, nil
		}
		if err != nil {
			return nil, err
		}
	}
}

// Unnamed returns err without the path, for a caller whose message names
// the file already: "it is a named pipe (FIFO), not a file", "it is 3
// GiB, more than the 512 MiB papers reads", "no such file or directory".
// The error still matches ErrNotRegular, ErrTooLarge or the os error it
// wrapped; other errors, and nil, are returned as they are.
func Unnamed(err error) error {
	var nr *NotRegularError
	var tl *TooLargeError
	var pe *fs.PathError
	switch {
	case errors.As(err, &nr):
		return &NotRegularError{Kind: nr.Kind}
	case errors.As(err, &tl):
		return &TooLargeError{Size: tl.Size, Max: tl.Max}
	case errors.As(err, &pe):
		return pe.Err
	}
	return err
}
