// Package sections writes a file as runs of bytes at fixed offsets, each
// through its own buffer: the search index's files are laid out as arrays
// whose sizes are known before their contents, and are written in one pass
// over their inputs without holding any array in memory.
package sections

import (
	"encoding/binary"
	"io"
)

// Writer writes consecutive bytes to w from an offset on, in large writes.
// Errors are sticky: after the first, writes do nothing and Flush returns it.
// It is not safe for concurrent use.
type Writer struct {
	w   io.WriterAt
	off int64
	buf []byte
	err error
}

// New returns a Writer that writes to w from off on, buffering up to size
// bytes (at least 4 KB).
func New(w io.WriterAt, off int64, size int) *Writer {
	return &Writer{w: w, off: off, buf: make([]byte, 0, max(size, 4096))}
}

// Write appends p.
func (s *Writer) Write(p []byte) {
	if s.err != nil {
		return
	}
	if len(s.buf)+len(p) > cap(s.buf) {
		s.Flush()
		if len(p) > cap(s.buf) {
			if s.err == nil {
				_, s.err = s.w.WriteAt(p, s.off)
				s.off += int64(len(p))
			}
			return
		}
	}
	s.buf = append(s.buf, p...)
}

// U16 appends v, little-endian.
func (s *Writer) U16(v uint16) {
	if len(s.buf)+2 > cap(s.buf) {
		s.Flush()
	}
	s.buf = binary.LittleEndian.AppendUint16(s.buf, v)
}

// U32 appends v, little-endian.
func (s *Writer) U32(v uint32) {
	if len(s.buf)+4 > cap(s.buf) {
		s.Flush()
	}
	s.buf = binary.LittleEndian.AppendUint32(s.buf, v)
}

// Flush writes what is buffered and returns the first error so far.
func (s *Writer) Flush() error {
	if len(s.buf) > 0 && s.err == nil {
		_, s.err = s.w.WriteAt(s.buf, s.off)
		s.off += int64(len(s.buf))
	}
	s.buf = s.buf[:0]
	return s.err
}

// Offset is where the next byte will go.
func (s *Writer) Offset() int64 { return s.off + int64(len(s.buf)) }

// Mem is an io.WriterAt in memory, growing as written.
type Mem struct{ B []byte }

// WriteAt writes p at off, growing m.B (zero-filled) as needed.
func (m *Mem) WriteAt(p []byte, off int64) (int, error) {
	if end := int(off) + len(p); end > len(m.B) {
		if end > cap(m.B) {
			nb := make([]byte, end, max(end, 2*cap(m.B)))
			copy(nb, m.B)
			m.B = nb
		} else {
			m.B = m.B[:end]
		}
	}
	return copy(m.B[off:], p), nil
}
