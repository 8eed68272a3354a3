package cmd

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
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
			if n := len([]rune(stripANSI(line))); n > 80 {
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
