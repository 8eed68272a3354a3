package cmd

import (
	"bytes"
	"context"
	"strings"
	"testing"
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
