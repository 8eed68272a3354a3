package cmd

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestCommandDocsAreCurrent: docs/commands holds exactly the pages
// CommandDocs makes from the command tree, so the reference cannot drift
// from --help. PAPERS_UPDATE_DOCS=1 (go generate ./cmd) rewrites them.
func TestCommandDocsAreCurrent(t *testing.T) {
	dir := filepath.Join("..", "docs", "commands")
	pages := CommandDocs()
	if os.Getenv("PAPERS_UPDATE_DOCS") != "" {
		os.RemoveAll(dir)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		for name, text := range pages {
			if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	have, _ := filepath.Glob(filepath.Join(dir, "*.md"))
	var names []string
	for _, p := range have {
		names = append(names, filepath.Base(p))
	}
	for name, want := range pages {
		got, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil || string(got) != want {
			t.Errorf("docs/commands/%s is not what the command tree says (run go generate ./cmd, or PAPERS_UPDATE_DOCS=1 go test ./cmd -run TestCommandDocsAreCurrent, and review the diff)", name)
		}
	}
	for _, name := range names {
		if _, ok := pages[name]; !ok {
			t.Errorf("docs/commands/%s documents no command (go generate ./cmd removes it)", name)
		}
	}
	if !slices.ContainsFunc(names, func(n string) bool { return strings.HasPrefix(n, "papers_ask") }) && len(names) > 0 {
		t.Error("no page for papers ask")
	}
}
