package pdf

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

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
