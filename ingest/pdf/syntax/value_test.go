package syntax

import (
	"bytes"
	"compress/zlib"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/adler32"
	"io"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/papers-cli/papers/internal/shareddata"
)

// openShared opens rel (slash-separated) of the shared test data (see
// package shareddata); without it the test is left out, saying so.
func openShared(t *testing.T, rel string) *File {
	t.Helper()
	data, err := os.ReadFile(shareddata.Path(t, strings.Split(rel, "/")...))
	if err != nil {
		t.Fatal(err)
	}
	f, err := Open(context.Background(), data)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// TestValues reads a real paper's objects: the page tree with inherited
// attributes, fonts by name, numbers, the Info dictionary's text strings,
// a content stream's data; and the clean copy WriteClean makes reads back
// the same.
func TestValues(t *testing.T) {
	f := openShared(t, "pdfs/papers/toolformer_2302.04761v1.pdf")
	if f.NumPages() != 17 {
		t.Fatalf("%d pages, want 17", f.NumPages())
	}
	check := func(f *File, what string) {
		pg := f.Page(0)
		if box := pg.Key("MediaBox"); box.Kind() != Array || box.Len() != 4 || math.Abs(box.Index(2).Float64()-595.276) > 1e-9 {
			t.Errorf("%s: MediaBox %v of length %d, want [0 0 595.276 841.89]", what, box, box.Len())
		}
		fonts := pg.Key("Resources").Key("Font")
		if fonts.Kind() != Dict || len(fonts.Keys()) == 0 {
			t.Fatalf("%s: page 1 has no fonts", what)
		}
		for _, k := range fonts.Keys() {
			if fv := fonts.Key(k); fv.Key("Type").Name() != "Font" || fv.ID() == 0 || fonts.RefID(k) != fv.ID() {
				t.Errorf("%s: font %s: type %q, id %d, ref %d", what, k, fv.Key("Type").Name(), fv.ID(), fonts.RefID(k))
			}
		}
		content := pg.Key("Contents") // an array of two streams
		if content.Kind() != Array || content.Len() != 2 || content.Index(1).Kind() != Stream {
			t.Fatalf("%s: Contents %v", what, content)
		}
		data, err := content.Index(1).Bytes(MaxStreamBytes)
		if err != nil || !bytes.Contains(data, []byte("Tf")) {
			t.Errorf("%s: content of page 1: %d bytes, %v", what, len(data), err)
		}
		if short, err := content.Index(1).Bytes(100); len(short) != 100 || !errors.Is(err, ErrStreamTooLarge) {
			t.Errorf("%s: 100 bytes of the content: %d, %v", what, len(short), err)
		}
		if p := f.Trailer().Key("Info").Key("Producer").Text(); !strings.Contains(p, "pdfTeX") {
			t.Errorf("%s: Producer %q", what, p)
		}
		if n := f.Root().Key("Nothing").Key("At").Index(3); !n.IsNull() || n.Int64() != 0 || n.Name() != "" || n.Len() != 0 {
			t.Errorf("%s: a chain through missing entries is not null", what)
		}
	}
	check(f, "the file")
	clean, err := f.WriteClean()
	if err != nil {
		t.Fatal(err)
	}
	g, err := Open(context.Background(), clean)
	if err != nil || g.NumPages() != 17 || len(g.Warnings) != 0 {
		t.Fatalf("the clean copy: %v, %v", g, err)
	}
	check(g, "the clean copy")
}

// TestTextString decodes text strings as the spec has them.
func TestTextString(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"Plain ASCII", "Plain ASCII"},
		{"\xfe\xff\x00T\x00e\x01\x61", "Teš"},                         // UTF-16BE
		{"\xff\xfeT\x00e\x00", "Te"},                                  // UTF-16LE, as some writers do
		{"\xef\xbb\xbfTe\xc5\xa1", "Teš"},                             // UTF-8 (PDF 2.0)
		{"caf\xe9 \x8dfi\x8e \x84 \x93 \x18", "café “fi” — ﬁ \u02d8"}, // PDFDocEncoding
	} {
		if got := TextString(c.in); got != c.want {
			t.Errorf("TextString(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// TestChainedFlateIsHeldOnce: a stream compressed twice (a compression
// bomb) inflates through one pipe to at most the limit asked for; the
// intermediate stage is never held whole.
func TestChainedFlateIsHeldOnce(t *testing.T) {
	// the builder of the 200 MB stream, checked whole on 4 MB
	small, err := io.ReadAll(mustZlibReader(t, spacesZlib(4)))
	if err != nil || !bytes.Equal(small, bytes.Repeat([]byte(" "), 4<<20)) {
		t.Fatalf("spacesZlib(4) inflates to %d bytes (%v), want 4 MB of spaces", len(small), err)
	}
	inner := spacesZlib(200) // 200 MB of spaces
	var outer bytes.Buffer
	zw := zlib.NewWriter(&outer)
	zw.Write(inner)
	zw.Close()
	pdf := fmt.Sprintf("%%PDF-1.7\n1 0 obj\n<< /Type /Catalog /Pages 2 0 R >>\nendobj\n2 0 obj\n<< /Type /Pages /Kids [3 0 R] /Count 1 >>\nendobj\n"+
		"3 0 obj\n<< /Type /Page /Contents 4 0 R >>\nendobj\n4 0 obj\n<< /Filter [/FlateDecode /FlateDecode] /Length %d >>\nstream\n%s\nendstream\nendobj\ntrailer\n<< /Root 1 0 R >>\n%%%%EOF\n",
		outer.Len(), outer.String())
	f, err := Open(context.Background(), []byte(pdf))
	if err != nil {
		t.Fatal(err)
	}
	data, err := f.Page(0).Key("Contents").Bytes(1 << 20)
	if len(data) != 1<<20 || !errors.Is(err, ErrStreamTooLarge) || strings.TrimSpace(string(data)) != "" {
		t.Errorf("%d bytes, %v; want 1 MB of spaces and ErrStreamTooLarge", len(data), err)
	}
}

// spacesZlib is a zlib stream of mb megabytes of spaces. Compressing them
// all took 19 s of CPU under -race; here two are: deflate, flushed after
// each megabyte, writes the same bytes for every megabyte after the first
// (back-references into a window of spaces), so the stream is the first
// megabyte's bytes, the second's repeated, the end of the stream (an empty
// final block) and the Adler-32 of the whole, computed from its formula.
func spacesZlib(mb int) []byte {
	var buf bytes.Buffer
	zw := zlib.NewWriter(&buf)
	meg := bytes.Repeat([]byte(" "), 1<<20)
	var ends []int
	for range 3 {
		zw.Write(meg)
		zw.Flush()
		ends = append(ends, buf.Len())
	}
	zw.Close()
	b := buf.Bytes()
	first, again, third := b[:ends[0]], b[ends[0]:ends[1]], b[ends[1]:ends[2]]
	if !bytes.Equal(again, third) {
		panic("spacesZlib: deflate wrote the second and third megabytes of spaces differently")
	}
	final := b[ends[2] : len(b)-adler32.Size]
	out := append([]byte(nil), first...)
	for range mb - 1 {
		out = append(out, again...)
	}
	out = append(out, final...)
	// Adler-32 of n bytes c: a = 1 + n*c, b = n + c*n*(n+1)/2 (mod 65521)
	const mod, c = 65521, uint64(' ')
	n := uint64(mb) << 20
	a := (1 + n%mod*c) % mod
	s := (n%mod + c*((n*(n+1)/2)%mod)) % mod
	return binary.BigEndian.AppendUint32(out, uint32(s<<16|a))
}

// mustZlibReader reads the zlib stream b.
func mustZlibReader(t *testing.T, b []byte) io.Reader {
	t.Helper()
	r, err := zlib.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	return r
}
