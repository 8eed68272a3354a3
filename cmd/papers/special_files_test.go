package main

import (
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/papers-cli/papers/internal/localfile/localfiletest"
)

// TestSpecialFilesNeverHang gives every command that reads a local file
// /dev/zero, /dev/urandom, a named pipe called x.pdf (no writer: an
// ordinary open waits for ever) and a socket: each exits 1 at once,
// saying what the path is. ingest hashed /dev/zero for ever, ignoring
// Ctrl-C and SIGTERM, extract grew past 2.7 GB in 10 s, eval and export
// --from blocked on the pipe. The deadline is only there to tell a hang
// from an answer; the times are in BENCHMARKS.md.
func TestSpecialFilesNeverHang(t *testing.T) {
	t.Parallel()
	data := sharedData(t)
	fifo, sock := localfiletest.Specials(t)
	home := t.TempDir()
	run(t, plainCmd(t, home, "ingest", "--jsonl", filepath.Join(data, "topic", "rl-for-llm-agents.jsonl")))
	questions := filepath.Join(data, "qa", "fulltext-dev.jsonl")
	for _, f := range []struct{ path, kind string }{
		{"/dev/zero", "a character device"}, {"/dev/urandom", "a character device"},
		{fifo, "a named pipe (FIFO)"}, {sock, "a socket"},
	} {
		for _, args := range [][]string{
			{"ingest", f.path},
			{"ingest", "--jsonl", f.path},
			{"extract", f.path},
			{"export", "--from", f.path},
			{"eval", "--corpus", f.path, "--queries", f.path, "--qrels", f.path},
			{"eval", "--questions", f.path, "--library", home},
			{"eval", "--questions", questions, "--pdfs", f.path},
			{"list", "--home", f.path},
		} {
			name := strings.Join(args, " ")
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			c := plainCmd(t, home, args...)
			c = exec.CommandContext(ctx, c.Path, c.Args[1:]...)
			c.Env = plainCmd(t, home).Env
			start := time.Now()
			code, stderr := outcome(t, c)
			hung := ctx.Err() != nil
			cancel()
			if hung {
				t.Errorf("%s: still running after 20 s", name)
				continue
			}
			if code != 1 || !strings.Contains(stderr, f.kind) {
				t.Errorf("%s: exit %d after %v, want 1 saying it is %s:\n%s", name, code, time.Since(start).Round(time.Millisecond), f.kind, stderr)
			}
		}
	}
}
