package review

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/papers-cli/papers/embed"
	"github.com/papers-cli/papers/ingest"
	"github.com/papers-cli/papers/internal/shareddata"
	"github.com/papers-cli/papers/internal/testmain"
	"github.com/papers-cli/papers/retrieve"
	"github.com/papers-cli/papers/store"
	"github.com/papers-cli/papers/store/storetest"
)

func TestMain(m *testing.M) { testmain.Main(m) }

// The tests' library: the topic corpus (30 real abstracts) and two real
// papers' full text, Toolformer (2302.04761, 17 pages) and PaSa
// (2501.10120, 15 pages), ingested as papers ingest does.
var (
	topicCorpus = filepath.Join(shareddata.Root(), "topic", "rl-for-llm-agents.jsonl")
	toolformer  = filepath.Join(shareddata.Root(), "pdfs", "papers", "toolformer_2302.04761v1.pdf")
	pasa        = filepath.Join(shareddata.Root(), "pdfs", "papers", "pasa_2501.10120.pdf")
)

// shared is the tests' library, built once per test binary.
var shared = storetest.Shared{Build: func(ctx context.Context, dir string) error {
	_, err := ingest.Build(ctx, dir, embed.NewLocal(), ingest.Sources{Corpora: []string{topicCorpus}, PDFs: []string{toolformer, pasa}})
	return err
}}

// testLibrary is a copy of the tests' library.
func testLibrary(t testing.TB) *store.Library {
	t.Helper()
	for _, f := range []string{topicCorpus, toolformer, pasa} {
		if _, err := os.Stat(f); err != nil {
			shareddata.Missing(t, f, err)
		}
	}
	return shared.Open(t)
}

// retriever is the library's retriever, as papers review makes it.
func retriever(t testing.TB, lib *store.Library) *retrieve.Retriever {
	t.Helper()
	e, err := retrieve.LibraryEmbedder(context.Background(), lib, embed.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return &retrieve.Retriever{Index: lib, Embedder: e}
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
