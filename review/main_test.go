package review

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/papers-cli/papers/ask"
	"github.com/papers-cli/papers/embed"
	"github.com/papers-cli/papers/ingest"
	"github.com/papers-cli/papers/internal/testmain"
	"github.com/papers-cli/papers/store"
)

func TestMain(m *testing.M) { testmain.Main(m) }

// The tests' library: the topic corpus (30 real abstracts) and two real
// papers' full text, Toolformer (2302.04761, 17 pages) and PaSa
// (2501.10120, 15 pages), ingested as papers ingest does.
const (
	topicCorpus = "../../shared/data/topic/rl-for-llm-agents.jsonl"
	toolformer  = "../../shared/data/pdfs/papers/toolformer_2302.04761v1.pdf"
	pasa        = "../../shared/data/pdfs/papers/pasa_2501.10120.pdf"
)

var (
	buildOnce sync.Once
	builtDir  string
	buildErr  error
)

// testLibrary is a copy of the tests' library, built once per test binary.
func testLibrary(t testing.TB) *store.Library {
	t.Helper()
	for _, f := range []string{topicCorpus, toolformer, pasa} {
		if _, err := os.Stat(f); err != nil {
			t.Fatalf("test data missing: %v (the tests need ../shared/data next to the repository; see its README.md)", err)
		}
	}
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "review-test-*")
		if err != nil {
			buildErr = err
			return
		}
		builtDir = dir
		_, buildErr = ingest.Build(context.Background(), dir, embed.NewLocal(), ingest.Sources{Corpora: []string{topicCorpus}, PDFs: []string{toolformer, pasa}})
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	dir := t.TempDir()
	b, err := os.ReadFile(filepath.Join(builtDir, store.FileName))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, store.FileName), b, 0o600); err != nil {
		t.Fatal(err)
	}
	lib, err := store.Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { lib.Close() })
	return lib
}

// retriever is the library's retriever, as papers review makes it.
func retriever(t testing.TB, lib *store.Library) *ask.Retriever {
	t.Helper()
	e, err := ask.LibraryEmbedder(context.Background(), lib, embed.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return &ask.Retriever{Index: lib, Embedder: e}
}

// papersOf returns the library's papers with these ids, in this order.
func papersOf(t testing.TB, lib *store.Library, ids ...string) []store.Paper {
	t.Helper()
	var out []store.Paper
	for _, id := range ids {
		p, err := lib.Get(context.Background(), id)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, p)
	}
	return out
}

// textOf is a paper's text for finding quotes.
func textOf(t testing.TB, lib *store.Library, id string) *paperText {
	t.Helper()
	p, err := lib.Get(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := lib.Chunks(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return newPaperText(p, cs)
}
