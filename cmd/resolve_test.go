package cmd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/papers-cli/papers/embed"
	"github.com/papers-cli/papers/store"
)

// putPapers stores papers (with a title+abstract chunk each) straight into
// the library at home, as an older papers could have stored them.
func putPapers(t *testing.T, home string, ps ...store.Paper) {
	t.Helper()
	lib, err := store.Open(t.Context(), home)
	if err != nil {
		t.Fatal(err)
	}
	defer lib.Close()
	e := embed.NewLocal()
	if err := lib.EnsureEmbedder(t.Context(), e.Name(), e.Dimensions()); err != nil {
		t.Fatal(err)
	}
	for _, p := range ps {
		vs, err := e.EmbedDocuments(t.Context(), []string{p.Title})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := lib.Put(t.Context(), p, []store.Chunk{{Seq: 0, Text: p.Title, Vector: vs[0]}}); err != nil {
			t.Fatal(err)
		}
	}
}

// TestIDsNameOnePaper: an id names exactly one paper or is refused with
// both candidates named. A corpus record stored under "2501.12948v1" (as
// papers stored such _ids before refusing them) beside the arXiv paper
// 2501.12948: `rm 2501.12948v1` removed the arXiv paper.
func TestIDsNameOnePaper(t *testing.T) {
	arxivPaper := store.Paper{ID: "2501.12948", Version: 1, Title: "DeepSeek-R1", Source: "arxiv"}
	record := store.Paper{ID: "2501.12948v1", Title: "A corpus record keyed like an arXiv id", Source: "jsonl"}
	t.Run("ambiguous", func(t *testing.T) {
		home := t.TempDir()
		putPapers(t, home, arxivPaper, record)
		for _, args := range [][]string{{"rm", "2501.12948v1"}, {"show", "2501.12948v1"}, {"search", "--paper", "2501.12948v1", "corpus"}} {
			code, _, errs := runCmd(t, append([]string{"--home", home}, args...)...)
			if code != ExitError || !strings.Contains(errs, "2501.12948v1 (jsonl") || !strings.Contains(errs, "2501.12948 (arxiv v1") {
				t.Errorf("%v: exit %d, stderr %q: want both candidates named", args, code, errs)
			}
		}
		code, out, _ := runCmd(t, "--home", home, "list")
		if code != 0 || !strings.Contains(out, "2501.12948v1") || !strings.Contains(out, "DeepSeek-R1") {
			t.Fatalf("a refused rm removed a paper: list:\n%s", out)
		}
		// the bare id names the arXiv paper alone
		if code, out, errs := runCmd(t, "--home", home, "rm", "2501.12948"); code != 0 || out != "removed 2501.12948\n" {
			t.Fatalf("rm 2501.12948: exit %d, %q %q", code, out, errs)
		}
		if code, out, errs := runCmd(t, "--home", home, "show", "2501.12948v1"); code != 0 || !strings.Contains(out, record.Title) {
			t.Errorf("show of the record once alone: exit %d, %q %q", code, out, errs)
		}
	})
	t.Run("record alone", func(t *testing.T) {
		home := t.TempDir()
		putPapers(t, home, record, store.Paper{ID: "other", Title: "Other", Source: "jsonl"})
		if code, out, errs := runCmd(t, "--home", home, "rm", "2501.12948v1"); code != 0 || out != "removed 2501.12948v1\n" {
			t.Fatalf("rm: exit %d, %q %q", code, out, errs)
		}
	})
	t.Run("ingest refuses arXiv-form _ids", func(t *testing.T) {
		home := t.TempDir()
		corpus := filepath.Join(t.TempDir(), "c.jsonl")
		lines := `{"_id":"2501.12948v1","title":"versioned","text":"a"}
{"_id":"arXiv:2501.12948","title":"prefixed","text":"b"}
{"_id":"https://arxiv.org/abs/2302.04761","title":"url","text":"c"}
{"_id":"2302.04761","title":"bare arXiv id: its own key","text":"d"}
{"_id":4983,"title":"numeric","text":"e"}
{"_id":"evil\u001b]0;x\u0007","title":"escape","text":"f"}
`
		if err := os.WriteFile(corpus, []byte(lines), 0o644); err != nil {
			t.Fatal(err)
		}
		code, out, errs := runCmd(t, "--home", home, "ingest", "--jsonl", corpus, "--json")
		if code != ExitError {
			t.Errorf("exit %d, want %d", code, ExitError)
		}
		for _, want := range []string{`"added":["2302.04761","4983"]`, `give the record the _id \"2501.12948\"`, `c.jsonl:2`, `c.jsonl:3`, "control character"} {
			if !strings.Contains(out, want) {
				t.Errorf("report lacks %s:\n%s\n%s", want, out, errs)
			}
		}
		if strings.Contains(out+errs, "\x1b") || strings.Contains(out+errs, "\\u001b") && !strings.Contains(out, "control character") {
			t.Errorf("an escape reached the output:\n%q\n%q", out, errs)
		}
	})
}
