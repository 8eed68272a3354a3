package scratch

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/papers-cli/papers/embed"
	"github.com/papers-cli/papers/eval"
	"github.com/papers-cli/papers/ingest"
	"github.com/papers-cli/papers/internal/shareddata"
)

// TestNew: the scratch library holds the corpus, with a bad line counted as
// failed; it is removed when asked; a corpus of nothing but bad lines is a
// NothingStoredError and leaves no directory behind.
func TestNew(t *testing.T) {
	ctx := context.Background()
	b, err := os.ReadFile(shareddata.Path(t, "topic", "rl-for-llm-agents.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	corpus := filepath.Join(t.TempDir(), "c.jsonl")
	if err := os.WriteFile(corpus, append(b, []byte("{oops\n")...), 0o644); err != nil {
		t.Fatal(err)
	}
	l, err := New(ctx, ingest.Sources{Corpora: []string{corpus}}, embed.NewLocal())
	if err != nil {
		t.Fatal(err)
	}
	papers, _, err := l.Count(ctx)
	if err != nil || papers != 30 || l.Stored != 30 || len(l.Failed) != 1 {
		t.Errorf("%d papers (%v), stored %d, failed %v; want 30 and the bad line", papers, err, l.Stored, l.Failed)
	}
	queries := []eval.Query{{ID: "q", Text: "agents"}}
	missing, judged, err := MissingJudged(ctx, l.Library, queries, eval.Qrels{"q": {"topic-001": 1, "nowhere": 1}})
	if err != nil || missing != 1 || judged != 2 {
		t.Errorf("MissingJudged = %d of %d (%v), want 1 of 2", missing, judged, err)
	}
	l.Close()
	if err := l.Remove(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(l.Dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("%s is still there after Remove: %v", l.Dir, err)
	}

	bad := filepath.Join(t.TempDir(), "bad.jsonl")
	os.WriteFile(bad, []byte("{oops\n"), 0o644)
	l, err = New(ctx, ingest.Sources{Corpora: []string{bad}}, embed.NewLocal())
	var none *NothingStoredError
	if !errors.As(err, &none) || l == nil || len(l.Failed) != 1 {
		t.Fatalf("New(bad corpus) = %v, %v; want a NothingStoredError with the failure", l, err)
	}
	if _, err := os.Stat(l.Dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the scratch library of a failed New is left at %s", l.Dir)
	}
}
