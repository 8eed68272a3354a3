package syntax

import (
	"bytes"
	"compress/zlib"
	"errors"
	"fmt"
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
	if len(got) != 1<<20 || !errors.Is(err, ErrStreamTooLarge) {
		t.Errorf("%d bytes, err %v; want 1 MB and ErrStreamTooLarge", len(got), err)
	}
	rl := bytes.Repeat([]byte{129, 'x'}, 1<<16) // 128 bytes each
	if got, err := decodeFilter("RunLengthDecode", nil, rl, 1<<20); len(got) != 1<<20 || !errors.Is(err, ErrStreamTooLarge) {
		t.Errorf("run length: %d bytes, err %v", len(got), err)
	}
}
