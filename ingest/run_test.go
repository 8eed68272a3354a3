package ingest

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestClassify: what papers ingest takes each argument for.
func TestClassify(t *testing.T) {
	dir := t.TempDir()
	pdf := filepath.Join(dir, "paper.pdf")
	if err := os.WriteFile(pdf, []byte("%PDF-1.4"), 0o644); err != nil {
		t.Fatal(err)
	}
	got := Classify([]string{
		pdf, dir, // existing file and directory
		"2501.12948", "2210.03629v3", "astro-ph/0601001", "https://arxiv.org/abs/1111.2011", "arXiv:2501.1", "2501.1294", // ids, malformed ones too
		"missing.pdf", "some/dir", // paths that do not exist
		`abs:"reinforcement learning"`, "AND", "cat:cs.LG", // the query
	})
	want := Sources{
		PDFs:  []string{pdf, dir, "missing.pdf", "some/dir"},
		IDs:   []string{"2501.12948", "2210.03629v3", "astro-ph/0601001", "https://arxiv.org/abs/1111.2011", "arXiv:2501.1", "2501.1294"},
		Query: `abs:"reinforcement learning" AND cat:cs.LG`,
	}
	if !slices.Equal(got.PDFs, want.PDFs) || !slices.Equal(got.IDs, want.IDs) || got.Query != want.Query {
		t.Errorf("Classify = %+v\nwant       %+v", got, want)
	}
}
