package cmd

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/papers-cli/papers/internal/lazyre"
)

func TestExitCodes(t *testing.T) {
	home := t.TempDir()
	tests := []struct {
		name   string
		args   []string
		code   int
		stderr string
	}{
		{"help", []string{"--help"}, ExitOK, ""},
		{"unknown flag", []string{"list", "--bogus"}, ExitUsage, "unknown flag: --bogus"},
		{"extra arg", []string{"list", "x"}, ExitUsage, "hint: run `papers list --help`"},
		{"nothing to ingest", []string{"ingest"}, ExitUsage, "nothing to ingest"},
		{"bad max", []string{"ingest", "x", "--max", "-1"}, ExitUsage, "--max must be at least 1"},
		{"unknown command", []string{"frobnicate"}, ExitUsage, `unknown command "frobnicate"`},
		{"empty library", []string{"list"}, ExitError, "no papers in the library"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			t.Setenv("PAPERS_HOME", home)
			code := Run(context.Background(), tt.args, &out, &errb)
			if code != tt.code {
				t.Errorf("exit %d, want %d (stderr %q)", code, tt.code, errb.String())
			}
			if !strings.Contains(errb.String(), tt.stderr) {
				t.Errorf("stderr %q lacks %q", errb.String(), tt.stderr)
			}
		})
	}
}

func TestEnvBinding(t *testing.T) {
	t.Setenv("PAPERS_MAX", "zero")
	var out, errb bytes.Buffer
	code := Run(context.Background(), []string{"ingest", "x"}, &out, &errb)
	if code != ExitUsage || !strings.Contains(errb.String(), "invalid PAPERS_MAX") {
		t.Errorf("exit %d, stderr %q", code, errb.String())
	}
}

func TestInterruptedExit(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var out, errb bytes.Buffer
	t.Setenv("PAPERS_HOME", t.TempDir())
	code := Run(ctx, []string{"ingest", "--jsonl", "/nonexistent.jsonl"}, &out, &errb)
	if code != ExitInterrupted || !strings.Contains(errb.String(), "interrupted") {
		t.Errorf("exit %d, stderr %q", code, errb.String())
	}
}

// failingWriter fails every write, as a full disk does.
type failingWriter struct{}

func (failingWriter) Write(p []byte) (int, error) { return 0, errors.New("no space left on device") }

// TestLostOutputIsAnError: a command whose printed output could not be
// written exits 1, whether it printed text or JSON.
func TestLostOutputIsAnError(t *testing.T) {
	home := askLibrary(t)
	for _, args := range [][]string{{"search", "GRPO"}, {"search", "--json", "GRPO"}, {"list"}} {
		var errb bytes.Buffer
		code := Run(t.Context(), append([]string{"--home", home}, args...), failingWriter{}, &errb)
		if code != ExitError || !strings.Contains(errb.String(), "no space left") {
			t.Errorf("%v: exit %d, stderr %q", args, code, errb.String())
		}
	}
}

// TestEveryLazyExpressionCompiles: the packages' regular expressions
// compile on first use (internal/lazyre), not at start, so one that does
// not compile would panic only when its command ran; this binary links
// every package the commands use, and checks them all.
func TestEveryLazyExpressionCompiles(t *testing.T) {
	if n := lazyre.Count(); n < 50 {
		t.Errorf("%d lazy expressions linked: does cmd still link the packages?", n)
	}
	if err := lazyre.Check(); err != nil {
		t.Error(err)
	}
	// and that looking for each one's literals first changes no match, on
	// the repository's corpus: its lines, words and sentences as written
	// and lower-cased
	raw, err := os.ReadFile(filepath.Join("..", "testdata", "corpus.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var texts []string
	for _, line := range strings.Split(string(raw), "\n") {
		texts = append(texts, line, strings.ToLower(line))
		for _, s := range strings.SplitAfter(line, ". ") {
			texts = append(texts, s, strings.ToLower(s))
		}
		texts = append(texts, strings.Fields(line)...)
	}
	if err := lazyre.Agree(texts); err != nil {
		t.Error(err)
	}
}
