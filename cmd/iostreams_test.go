package cmd

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/papers-cli/papers/internal/textkit"
)

// runTTY runs a command line whose stdout is a terminal of the given width
// (colour as given), as IOStreams lets tests pretend.
func runTTY(t *testing.T, width int, color bool, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	s := &IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errb, OutTTY: true, Width: width, Color: color}
	code = RunIO(t.Context(), args, s)
	return code, out.String(), errb.String()
}

// TestTerminalRendering: the same results render as blocks and aligned
// tables on a terminal and as tab-separated rows when piped.
func TestTerminalRendering(t *testing.T) {
	home := askLibrary(t)
	t.Run("search", func(t *testing.T) {
		_, piped, _ := runCmd(t, "--home", home, "search", "-k", "2", "terminal agents world models")
		code, tty, errs := runTTY(t, 80, true, "--home", home, "search", "-k", "2", "terminal agents world models")
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errs)
		}
		if !strings.HasPrefix(piped, "1\ttopic-001\t") || strings.Contains(piped, "\x1b[") {
			t.Errorf("piped output is not plain rows:\n%s", piped)
		}
		if !strings.HasPrefix(tty, " 1. \x1b[1m") || !strings.Contains(tty, "\n    topic-001") || !strings.Contains(tty, "\x1b[1;33m") {
			t.Errorf("terminal output is not blocks with the title and query words in bold:\n%q", tty)
		}
		for _, line := range strings.Split(tty, "\n") {
			if n := textkit.Width(line); n > 80 {
				t.Errorf("line of %d columns on an 80-column terminal: %q", n, line)
			}
		}
		_, plain, _ := runTTY(t, 80, false, "--home", home, "search", "-k", "2", "terminal agents world models")
		if strings.Contains(plain, "\x1b[") || !strings.HasPrefix(plain, " 1. ") {
			t.Errorf("terminal output without colour has ANSI styles:\n%q", plain)
		}
	})
	t.Run("list", func(t *testing.T) {
		_, piped, _ := runCmd(t, "--home", home, "list", "--limit", "3")
		_, tty, _ := runTTY(t, 100, true, "--home", home, "list", "--limit", "3")
		if strings.HasPrefix(piped, "ID") || strings.Count(piped, "\n") != 3 || !strings.Contains(piped, "\t") {
			t.Errorf("piped list is not 3 tab-separated rows:\n%s", piped)
		}
		if !strings.HasPrefix(tty, "ID  ") || strings.Contains(tty, "\t") || !strings.HasSuffix(tty, "\n3 papers\n") {
			t.Errorf("terminal list is not an aligned table with a count:\n%s", tty)
		}
	})
}

// TestWideTitles: titles in CJK characters (two columns each) are cut and
// wrapped by display width, so search's blocks stay within the terminal
// and list's columns stay aligned.
func TestWideTitles(t *testing.T) {
	home := t.TempDir()
	corpus := filepath.Join(t.TempDir(), "cjk.jsonl")
	recs := `{"_id": "cjk-1", "title": "大规模语言模型的强化学习综述：方法、基准与未来的研究方向和开放问题", "text": "强化学习 reinforcement learning for large language model agents: a survey of reward models and policies."}
{"_id": "en-1", "title": "Reward models for agents", "text": "Reinforcement learning agents learn reward models from feedback."}
`
	if err := os.WriteFile(corpus, []byte(recs), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, errs := runCmd(t, "--home", home, "ingest", "--jsonl", corpus); code != 0 {
		t.Fatalf("ingest: exit %d: %s", code, errs)
	}
	_, out, _ := runTTY(t, 60, false, "--home", home, "search", "reinforcement learning reward models")
	if !strings.Contains(out, "大规模") {
		t.Fatalf("search does not show the CJK title:\n%s", out)
	}
	for _, line := range strings.Split(out, "\n") {
		if w := textkit.Width(line); w > 60 {
			t.Errorf("search line of %d columns on a 60-column terminal: %q", w, line)
		}
	}
	_, out, _ = runTTY(t, 60, false, "--home", home, "list")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 4 { // header, two papers, count
		t.Fatalf("list:\n%s", out)
	}
	col := -1 // the display column where TITLE starts, the same on every row
	for _, line := range lines[:3] {
		if w := textkit.Width(line); w > 60 {
			t.Errorf("list line of %d columns on a 60-column terminal: %q", w, line)
		}
		i := strings.LastIndex(line, "  ") + 2
		if c := textkit.Width(line[:i]); col < 0 {
			col = c
		} else if c != col {
			t.Errorf("the title starts at column %d, %d on the header: %q", c, col, line)
		}
	}
}

// TestPlurals: counts of one read "1 paper", "1 chunk", "1 passage".
func TestPlurals(t *testing.T) {
	home := ingestEnv(t)
	one := filepath.Join(t.TempDir(), "one.jsonl")
	if err := os.WriteFile(one, []byte(`{"_id": "a", "title": "Reward models", "text": "We train reward models for agents."}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs := runCmd(t, "ingest", "--jsonl", one)
	if code != 0 || !strings.Contains(out, "(0 pages, 1 chunk)") {
		t.Errorf("ingest: exit %d, %q %q", code, out, errs)
	}
	if _, out, _ := runTTY(t, 100, false, "--home", home, "list"); !strings.HasSuffix(out, "\n1 paper\n") {
		t.Errorf("list on a terminal ends %q", out)
	}
	if _, _, errs := runCmd(t, "-v", "search", "--mode", "bm25", "reward"); !strings.Contains(errs, "1 passage in") {
		t.Errorf("search -v says %q", errs)
	}
}
