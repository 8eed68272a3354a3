package pdf

import (
	"bytes"
	"compress/zlib"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDecodeFilter: each filter on the examples of the PDF specification
// (ISO 32000-1, 7.4) or data built by an independent encoder.
func TestDecodeFilter(t *testing.T) {
	zl := func(b []byte) []byte {
		var buf bytes.Buffer
		w := zlib.NewWriter(&buf)
		w.Write(b)
		w.Close()
		return buf.Bytes()
	}
	// PNG predictor rows (filter byte + 3 columns): None, Sub, Up, Average, Paeth.
	png := []byte{0, 10, 20, 30, 1, 1, 1, 1, 2, 5, 5, 5, 3, 2, 2, 2, 4, 1, 1, 1}
	pngOut := []byte{10, 20, 30, 1, 2, 3, 6, 7, 8, 5, 8, 10, 6, 9, 11}
	cases := []struct {
		name   pdfName
		parms  pdfDict
		in     []byte
		want   []byte
		errors bool
	}{
		// 7.4.4.2, Example 2: "-----A---B" with early change.
		{name: "LZWDecode", in: []byte{0x80, 0x0B, 0x60, 0x50, 0x22, 0x0C, 0x0C, 0x85, 0x01}, want: []byte("-----A---B")},
		{name: "LZW", in: []byte{0x80, 0x0B, 0x60, 0x50, 0x22, 0x0C, 0x0C, 0x85, 0x01}, want: []byte("-----A---B")},
		{name: "ASCIIHexDecode", in: []byte("48 65 6c6C6f7>"), want: []byte("Hellop")},
		{name: "AHx", in: []byte("4142 43"), want: []byte("ABC")},
		{name: "ASCIIHexDecode", in: []byte("41zz42"), want: []byte("AB")},
		// "Man " is "9jqo^"; z is four zeros; a final group of 4 gives 3 bytes.
		{name: "ASCII85Decode", in: []byte("<~9jqo^z\n9jqo~>"), want: []byte("Man \x00\x00\x00\x00Man")},
		{name: "A85", in: []byte("9jqo^"), want: []byte("Man ")},
		{name: "RunLengthDecode", in: []byte{2, 'a', 'b', 'c', 253, 'x', 128, 'z'}, want: []byte("abcxxxx")},
		{name: "FlateDecode", in: zl([]byte("BT (Hi) Tj ET")), want: []byte("BT (Hi) Tj ET")},
		// /Predictor 1 is no prediction (the library panicked on it).
		{name: "FlateDecode", parms: pdfDict{"Predictor": int64(1)}, in: zl([]byte("q Q")), want: []byte("q Q")},
		{name: "FlateDecode", parms: pdfDict{"Predictor": int64(12), "Columns": int64(3)}, in: zl(png), want: pngOut},
		// TIFF predictor 2: each byte adds the one before it.
		{name: "FlateDecode", parms: pdfDict{"Predictor": int64(2), "Columns": int64(4)}, in: zl([]byte{1, 1, 1, 1}), want: []byte{1, 2, 3, 4}},
		{name: "LZWDecode", parms: pdfDict{"Predictor": int64(2), "Columns": int64(10)}, in: []byte{0x80, 0x0B, 0x60, 0x50, 0x22, 0x0C, 0x0C, 0x85, 0x01},
			want: tiffSum([]byte("-----A---B"))},
		// raw deflate without the zlib header, as some producers write
		{name: "FlateDecode", in: zl([]byte("raw deflate"))[2:], want: []byte("raw deflate")},
		{name: "Crypt", in: []byte("as is"), want: []byte("as is")},
	}
	for i, c := range cases {
		t.Run(fmt.Sprintf("%d-%s", i, c.name), func(t *testing.T) {
			got, err := decodeFilter(c.name, c.parms, c.in, 1<<20)
			if !bytes.Equal(got, c.want) {
				t.Errorf("got %q, want %q", got, c.want)
			}
			if (err != nil) != c.errors {
				t.Errorf("err = %v, want an error: %v", err, c.errors)
			}
		})
	}
	for _, name := range []pdfName{"DCTDecode", "JPXDecode", "CCITTFaxDecode", "JBIG2Decode"} {
		if _, err := decodeFilter(name, nil, []byte{1, 2}, 100); !errors.Is(err, errImageFilter) {
			t.Errorf("%s: err = %v, want errImageFilter", name, err)
		}
	}
	if _, err := decodeFilter("BrotliDecode", nil, []byte{1}, 100); !errors.Is(err, errUnknownFilter) {
		t.Errorf("unknown filter: err = %v", err)
	}
}

func tiffSum(b []byte) []byte {
	out := append([]byte(nil), b...)
	for i := 1; i < len(out); i++ {
		out[i] += out[i-1]
	}
	return out
}

// TestDecodeLimit: a decompression bomb stops at the limit.
func TestDecodeLimit(t *testing.T) {
	var buf bytes.Buffer
	w := zlib.NewWriter(&buf)
	w.Write(make([]byte, 8<<20)) // 8 MB of zeros: 8 KB compressed
	w.Close()
	got, err := decodeFilter("FlateDecode", nil, buf.Bytes(), 1<<20)
	if len(got) != 1<<20 || !errors.Is(err, errStreamTooLarge) {
		t.Errorf("%d bytes, err %v; want 1 MB and errStreamTooLarge", len(got), err)
	}
	rl := bytes.Repeat([]byte{129, 'x'}, 1<<16) // 128 bytes each
	if got, err := decodeFilter("RunLengthDecode", nil, rl, 1<<20); len(got) != 1<<20 || !errors.Is(err, errStreamTooLarge) {
		t.Errorf("run length: %d bytes, err %v", len(got), err)
	}
}

// TestRepairs: damage done to a real paper is repaired, or reported in one
// line, without quoting the file.
func TestRepairs(t *testing.T) {
	paper, err := os.ReadFile(filepath.Join(needData(t, "pdfs/hostile"), "page_tree_loop.pdf"))
	if err != nil {
		t.Fatal(err)
	}
	const text = "Hostile PDF test document"
	cases := []struct {
		name string
		edit func(b []byte) []byte
		err  error // nil: text expected
	}{
		{"xref header claims 2^32 entries", func(b []byte) []byte {
			return bytes.Replace(b, []byte("xref\n0 7\n"), []byte("xref\n0 4294967296\n"), 1)
		}, nil},
		{"no xref table at all", func(b []byte) []byte {
			i := bytes.Index(b, []byte("xref\n0 7"))
			return append(append([]byte(nil), b[:i]...), "trailer\n<< /Root 1 0 R >>\n%%EOF\n"...)
		}, nil},
		{"trailer /Size 2", func(b []byte) []byte {
			return bytes.Replace(b, []byte("/Size 7"), []byte("/Size 2"), 1)
		}, nil},
		{"an unknown escape in a string", func(b []byte) []byte {
			return bytes.Replace(b, []byte("/Type /Catalog"), []byte("/Type /Catalog /Lang (e\\ n\\q)"), 1)
		}, nil},
		{"no catalog", func(b []byte) []byte {
			return bytes.ReplaceAll(bytes.ReplaceAll(b, []byte("/Catalog"), []byte("/Katalog")), []byte("/Root 1 0 R"), []byte("/Root 9 0 R"))
		}, ErrMalformed},
		{"cut after the first object", func(b []byte) []byte {
			return b[:bytes.Index(b, []byte("endobj"))+6]
		}, ErrTruncated},
		{"a security handler we do not have", func(b []byte) []byte {
			b = bytes.Replace(b, []byte("/Size 7"), []byte("/Size 7 /Encrypt 8 0 R"), 1)
			i := bytes.Index(b, []byte("xref"))
			obj := "8 0 obj\n<< /Filter /FOPN#0a_foweb\x01 /V 1 /R 2 >>\nendobj\n"
			return append(append(append([]byte(nil), b[:i]...), obj...), b[i:]...)
		}, ErrUnsupported},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			doc, err := ExtractBytes(context.Background(), c.edit(append([]byte(nil), paper...)))
			if wantOutcome(t, err, c.err, "") && !strings.Contains(doc.Text(), text) {
				t.Fatalf("text %.60q, want %q", doc.Text(), text)
			}
		})
	}
}
