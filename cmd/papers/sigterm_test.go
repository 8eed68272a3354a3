package main

import (
	"bytes"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// stalled is a server that accepts every request and never answers: an
// arXiv, an embedding server or a model that hangs.
func stalled(t *testing.T) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body) // read whole, the server notices the client leaving
		<-r.Context().Done()
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// TestSIGTERMEndsEveryCommand sends SIGTERM to commands in the middle of
// their work (a corpus, a folder of PDFs, a 619-page PDF, an evaluation,
// and requests to an arXiv, an embedding server and a model that never
// answer): each exits 130 saying "interrupted" (papers mcp, which a
// client stops with SIGTERM, exits 0), and the library is left whole. The deadline only tells a hang from an exit; how soon each ends
// is logged (BENCHMARKS.md has the figures).
func TestSIGTERMEndsEveryCommand(t *testing.T) {
	t.Parallel()
	data := sharedData(t)
	corpus := filepath.Join(data, "scifact", "corpus.jsonl")
	folder := t.TempDir()
	n := 0
	filepath.WalkDir(filepath.Join(data, "pdfs", "peer", "pdfs"), func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".pdf") {
			n++
			link(t, p, filepath.Join(folder, strconv.Itoa(n)+"-"+filepath.Base(p)))
		}
		return nil
	})
	stall := stalled(t)
	held := t.TempDir() // a library with a topic, for update, ask, digest
	run(t, plainCmd(t, held, "ingest", "--jsonl", filepath.Join(data, "topic", "rl-for-llm-agents.jsonl")))
	run(t, plainCmd(t, held, "topic", "add", "rl", "--query", "abs:agent"))
	run(t, plainCmd(t, held, "ingest", "--jsonl", filepath.Join(data, "topic", "rl-for-llm-agents.jsonl"), "--topic", "rl"))
	model := []string{"OPENAI_BASE_URL=" + stall + "/v1", "OPENAI_API_KEY=sk-test"}
	arxivStalls := []string{"PAPERS_ARXIV_API_URL=" + stall + "/api/query", "PAPERS_ARXIV_PDF_URL=" + stall + "/pdf/"}
	for _, c := range []struct {
		name  string
		home  string // "" for a new library
		args  []string
		env   []string
		after time.Duration // when it is in the middle of its work
	}{
		{"ingest of a corpus", "", []string{"ingest", "--jsonl", corpus}, nil, time.Second},
		{"ingest of a folder of PDFs", "", []string{"ingest", folder}, nil, time.Second},
		{"extract of 619 pages", "", []string{"extract", filepath.Join(data, "pdfs", "awkward", "DA-619p_large_pagecount.pdf")}, nil, 500 * time.Millisecond},
		{"eval of SciFact", "", []string{"eval", "--corpus", corpus, "--queries", filepath.Join(data, "scifact", "queries.jsonl"), "--qrels", filepath.Join(data, "scifact", "qrels", "train.tsv")}, nil, time.Second},
		{"ingest from an arXiv that never answers", "", []string{"ingest", "2501.12948"}, arxivStalls, 500 * time.Millisecond},
		{"update from an arXiv that never answers", held, []string{"update"}, arxivStalls, 500 * time.Millisecond},
		{"momentum from an arXiv that never answers", held, []string{"momentum", "rl"}, arxivStalls, 500 * time.Millisecond},
		{"reindex with an embedder that never answers", held, []string{"reindex", "--embedder", "openai:text-embedding-3-small"}, model, 500 * time.Millisecond},
		{"ask a model that never answers", held, []string{"ask", "--llm", "openai:gpt-4o-mini", "How do agents learn from sparse rewards?"}, model, 500 * time.Millisecond},
		{"digest by a model that never answers", held, []string{"digest", "rl", "--since", "5y", "--llm", "openai:gpt-4o-mini"}, model, 500 * time.Millisecond},
		{"mcp waiting for its client", held, []string{"mcp"}, nil, 500 * time.Millisecond},
	} {
		home := c.home
		if home == "" {
			home = t.TempDir()
		}
		cmd := plainCmd(t, home, c.args...)
		cmd.Env = append(cmd.Env, c.env...)
		var stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = io.Discard, &stderr
		if c.args[0] == "mcp" {
			in, err := cmd.StdinPipe() // open, and never written: a client that waits
			if err != nil {
				t.Fatal(err)
			}
			defer in.Close()
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		// a signal before the process catches it ends it as any process
		// (on a loaded machine its start can take longer than c.after)
		catching(t, cmd.Process.Pid, syscall.SIGTERM)
		time.Sleep(c.after)
		select {
		case err := <-done:
			t.Errorf("%s: ended before the signal (%v): make it longer\n%s", c.name, err, stderr.String())
			continue
		default:
		}
		sent := time.Now()
		cmd.Process.Signal(syscall.SIGTERM)
		select {
		case err := <-done:
			took := time.Since(sent)
			t.Logf("%-45s ended %v after SIGTERM", c.name, took.Round(time.Millisecond))
			var ee *exec.ExitError
			switch {
			case c.args[0] == "mcp":
				// the MCP specification's way for a client to stop a
				// stdio server: its normal end
				if err != nil {
					t.Errorf("%s: %v after SIGTERM, want exit 0:\n%s", c.name, err, stderr.String())
				}
			case !asExit(err, &ee) || ee.ExitCode() != 130 || !strings.HasSuffix(stderr.String(), "interrupted\n"):
				t.Errorf("%s: %v after SIGTERM, want exit 130 and \"interrupted\":\n%s", c.name, err, stderr.String())
			}
		case <-time.After(20 * time.Second):
			cmd.Process.Kill()
			t.Errorf("%s: still running 20 s after SIGTERM\n%s", c.name, stderr.String())
			continue
		}
		if c.args[0] != "extract" && c.args[0] != "eval" {
			checkLibrary(t, home, nil, c.name+", after SIGTERM")
		}
	}
}

// catching waits until process pid catches signal sig, as its status in
// /proc says (SigCgt, a mask of signals by number), for at most 20 s; where
// there is no /proc it returns at once.
func catching(t *testing.T, pid int, sig syscall.Signal) {
	t.Helper()
	status := filepath.Join("/proc", strconv.Itoa(pid), "status")
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		b, err := os.ReadFile(status)
		if err != nil {
			return // no /proc, or the process has ended: the caller finds out which
		}
		for _, line := range strings.Split(string(b), "\n") {
			if mask, ok := strings.CutPrefix(line, "SigCgt:"); ok {
				if m, err := strconv.ParseUint(strings.TrimSpace(mask), 16, 64); err == nil && m&(1<<(uint(sig)-1)) != 0 {
					return
				}
			}
		}
	}
	t.Errorf("process %d does not catch %v 20 s after it started", pid, sig)
}

func asExit(err error, ee **exec.ExitError) bool {
	e, ok := err.(*exec.ExitError)
	*ee = e
	return ok
}
