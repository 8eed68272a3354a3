package cmd

import (
	"io"
	"os"

	"golang.org/x/term"
)

// IOStreams are the streams of one run and what is known about them, decided
// once when the run starts (gh's iostreams): whether stdout and stderr are
// terminals, the terminal's width and whether ANSI styles may be used.
// Commands read these facts from here and never probe a file themselves, so
// tests render for a terminal or a pipe by setting them.
type IOStreams struct {
	In     io.Reader
	Out    io.Writer
	ErrOut io.Writer

	InTTY  bool // stdin is a terminal: full-screen programs (browse) may run
	OutTTY bool // stdout is a terminal: aligned tables, wrapped blocks
	ErrTTY bool // stderr is a terminal: live progress bars
	Width  int  // columns of the terminal behind stdout; 0 when unknown
	Color  bool // terminal output may use ANSI styles (NO_COLOR, TERM=dumb)
}

// NewIOStreams wraps the given streams and detects what they are: a stream
// is a terminal only when it is an *os.File on one (a bytes.Buffer is a
// pipe).
func NewIOStreams(in io.Reader, out, errOut io.Writer) *IOStreams {
	s := &IOStreams{In: in, Out: out, ErrOut: errOut}
	if f, ok := in.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		s.InTTY = true
	}
	if f := fileOf(out); f != nil && term.IsTerminal(int(f.Fd())) {
		s.OutTTY = true
		if w, _, err := term.GetSize(int(f.Fd())); err == nil {
			s.Width = w
		}
	}
	if f := fileOf(errOut); f != nil && term.IsTerminal(int(f.Fd())) {
		s.ErrTTY = true
	}
	s.Color = os.Getenv("NO_COLOR") == "" && os.Getenv("TERM") != "dumb"
	return s
}

// fileOf returns the file behind w, or nil.
func fileOf(w io.Writer) *os.File {
	switch v := w.(type) {
	case *os.File:
		return v
	case *checkedWriter:
		return fileOf(v.w)
	}
	return nil
}

// checkedWriter remembers the first error writing to w (a full disk, a
// closed file), so that a command whose output was lost does not exit 0
// however it printed.
type checkedWriter struct {
	w   io.Writer
	err error
}

func (c *checkedWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	if err != nil && c.err == nil {
		c.err = err
	}
	return n, err
}
