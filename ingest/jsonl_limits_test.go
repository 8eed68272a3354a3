package ingest

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/papers-cli/papers/ingest/arxiv/arxivtest"
)

// endless yields n bytes of one token, then a newline, without holding them.
type endless struct{ n int64 }

// endlessBlock is what endless copies from: a copy is one check of the
// race detector where a loop over the bytes was one per byte (200 million).
var endlessBlock = []byte(strings.Repeat("a", 64<<10))

func (e *endless) Read(p []byte) (int, error) {
	if e.n < 0 {
		return 0, io.EOF
	}
	k := 0
	for k < len(p) && e.n > 0 {
		c := copy(p[k:], endlessBlock[:min(int64(len(endlessBlock)), e.n)])
		k += c
		e.n -= int64(c)
	}
	if e.n == 0 && k < len(p) {
		p[k] = '\n'
		k++
		e.n = -1
	}
	return k, nil
}

// TestLineReaderBoundsMemory: a 200 MB one-token line is measured and
// skipped, never held: the reader's buffer stays within the cap (it held
// the whole line, 3.4 GB of memory for the record, before).
func TestLineReaderBoundsMemory(t *testing.T) {
	const max = 1 << 20
	next := strings.NewReader(`{"_id":"after","title":"kept"}` + "\n")
	lr := newLineReader(io.MultiReader(&endless{n: 200 << 20}, next), max)
	line, size, err := lr.next()
	if err != nil || line != nil || size != 200<<20+1 {
		t.Fatalf("next = %d bytes, size %d, %v; want nil and the size 200 MiB + 1", len(line), size, err)
	}
	if c := cap(lr.buf); c > 2*max {
		t.Errorf("the reader kept a buffer of %d bytes for a %d-byte cap", c, max)
	}
	line, size, err = lr.next()
	if string(line) != `{"_id":"after","title":"kept"}`+"\n" || size != 0 {
		t.Errorf("the line after: %q, size %d, %v", line, size, err)
	}
}

// TestCorpusRecordTooLarge: a record over MaxRecordBytes fails on its own,
// with its line, size and what to do; the records around it go in.
func TestCorpusRecordTooLarge(t *testing.T) {
	f := newFixture(t, arxivtest.Options{})
	src, err := os.ReadFile(filepath.Join(f.data, "topic", "rl-for-llm-agents.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(strings.TrimSpace(string(src)), "\n")
	big := `{"_id":"huge","title":"huge","text":"` + strings.Repeat("word ", 1<<20) + `"}` + "\n"
	corpus := filepath.Join(t.TempDir(), "corpus.jsonl")
	if err := os.WriteFile(corpus, []byte(lines[0]+big+lines[1]), 0o644); err != nil {
		t.Fatal(err)
	}
	f.in.MaxRecordBytes = 1 << 20
	rep, err := f.in.JSONL(context.Background(), corpus)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(rep.Added, ",") != "topic-001,topic-002" || len(rep.Failed) != 1 {
		t.Fatalf("report %+v, want the two records around the large one added and it failed", rep)
	}
	if f := rep.Failed[0]; f.Item != "corpus.jsonl:2" || !strings.Contains(f.Reason, "record of 6 MiB is larger than the 1 MiB") || !strings.Contains(f.Reason, "split its text") {
		t.Errorf("failure %+v", f)
	}
}
