package retrieve

import (
	"strings"
	"testing"

	"github.com/papers-cli/papers/embed"
)

func TestSnippetHighlightsQueryWords(t *testing.T) {
	text := "Reinforcement learning agents learn world models. Terminal agents execute commands."
	s := MakeSnippet(text, "terminal agent", 200)
	if s.Text != text {
		t.Errorf("a short text is cut: %q", s.Text)
	}
	got := s.Marked("<", ">")
	if got != "Reinforcement learning <agents> learn world models. <Terminal> <agents> execute commands." {
		t.Errorf("marked %q", got)
	}
	long := strings.Repeat("filler words here ", 40) + "the terminal agent" + strings.Repeat(" more filler", 40)
	plain := MakeSnippet(long, "terminal agent", 80)
	if !strings.Contains(plain.Text, "terminal agent") || len(plain.Text) > 90 ||
		!strings.HasPrefix(plain.Text, "…") || !strings.HasSuffix(plain.Text, " …") {
		t.Errorf("snippet %q does not centre on the match", plain.Text)
	}
	for _, h := range plain.Hits {
		if w := plain.Text[h[0]:h[1]]; w != "terminal" && w != "agent" {
			t.Errorf("hit %v is %q", h, w)
		}
	}
}

// TestSearchUsesTheLibrarysEmbedder: Search reads the embedder from the
// library (no embedder in BM25 mode), and UseEmbedder refuses another one
// once the library holds vectors.
func TestSearchUsesTheLibrarysEmbedder(t *testing.T) {
	lib, e := smallLibrary(t)
	ctx := t.Context()
	ps, got, err := Search(ctx, lib, "reward shaping", SearchOptions{Options: Options{K: 2}})
	if err != nil || got == nil || got.Name() != e.Name() || len(ps) == 0 || ps[0].PaperID != "p4" {
		t.Fatalf("Search: %v, embedder %v, %v", paperIDs(ps), got, err)
	}
	w := 0.0
	ps, got, err = Search(ctx, lib, "reward shaping", SearchOptions{Options: Options{K: 2, Mode: BM25}, DenseWeight: &w, NoFeedback: true})
	if err != nil || got != nil || len(ps) == 0 || ps[0].PaperID != "p4" {
		t.Fatalf("Search bm25: %v, embedder %v, %v", paperIDs(ps), got, err)
	}
	if e2, err := UseEmbedder(ctx, lib, nil, embed.Options{}); err != nil || e2.Name() != e.Name() {
		t.Errorf("UseEmbedder(nil) = %v, %v; want the library's %s", e2, err, e.Name())
	}
	other := &namedEmbedder{Embedder: e, name: "local/other-768"}
	if _, err := UseEmbedder(ctx, lib, other, embed.Options{}); err == nil || !strings.Contains(err.Error(), "local/other-768") {
		t.Errorf("UseEmbedder(another) = %v, want a mismatch", err)
	}
}

// namedEmbedder is an embedder under another name: the library takes it for
// another embedder.
type namedEmbedder struct {
	embed.Embedder
	name string
}

func (n *namedEmbedder) Name() string { return n.name }
