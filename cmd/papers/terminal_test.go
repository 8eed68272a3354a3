package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/creack/pty"

	"github.com/papers-cli/papers/embed"
	"github.com/papers-cli/papers/ingest/arxiv"
	"github.com/papers-cli/papers/ingest/arxiv/arxivtest"
	"github.com/papers-cli/papers/store"
)

// hostileID retitles the terminal (OSC), clears it (CSI), and tries the C1
// CSI and a bidi override: what a corpus _id could hold before ingest
// refused it, and what a library made by an older papers still holds.
const hostileID = "evil\x1b]0;pwned\x07\x1b[2J\u009b2J\u202eid"

// onTerminal runs c with stdout and stderr on a pseudo-terminal and returns
// what the terminal received.
func onTerminal(t *testing.T, c *exec.Cmd) string {
	t.Helper()
	ptm, tty, err := pty.Open()
	if err != nil {
		t.Skipf("no pseudo-terminal here: %v", err)
	}
	defer ptm.Close()
	pty.Setsize(ptm, &pty.Winsize{Rows: 50, Cols: 200})
	c.Stdout, c.Stderr = tty, tty
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	tty.Close()
	var out bytes.Buffer
	done := make(chan struct{})
	go func() { io.Copy(&out, ptm); close(done) }() // ends with EIO once the process is gone
	c.Wait()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the terminal did not close")
	}
	return out.String()
}

// acts reports the sequences of hostileID that would act on a terminal.
func acts(s string) []string {
	var found []string
	for _, seq := range []string{"\x1b]", "\x07", "\x1b[2J", "\u009b", "\u202e"} {
		if strings.Contains(s, seq) {
			found = append(found, seq)
		}
	}
	return found
}

// TestUntrustedTextIsInert: ids, titles, file names and a PDF server's
// status line reach stdout and stderr inert, on a terminal (through a
// pseudo-terminal) and on a pipe; --json escapes them as JSON does, and
// decodes to the id as stored.
func TestUntrustedTextIsInert(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no pseudo-terminals on Windows")
	}
	data := sharedData(t)
	home := t.TempDir()
	ctx := context.Background()
	lib, err := store.Open(ctx, home)
	if err != nil {
		t.Fatal(err)
	}
	e := embed.NewLocal()
	lib.EnsureEmbedder(ctx, e.Name(), e.Dimensions())
	text := "Evil record: cancer cells evade the immune system by expressing PD-L1, which binds the PD-1 receptor on T cells and switches them off."
	vs, _ := e.EmbedDocuments(ctx, []string{text})
	if _, err := lib.Put(ctx, store.Paper{ID: hostileID, Title: "Evil record", Abstract: text, Source: "jsonl"}, []store.Chunk{{Seq: 0, Text: text, Vector: vs[0]}}); err != nil {
		t.Fatal(err)
	}
	lib.Close()

	// a PDF server whose status line carries escapes, behind a real feed
	entry := arxiv.Entry{ID: "2302.04761", Version: 1, Title: "Toolformer", Summary: "Language models can teach themselves to use tools.",
		Published: time.Now().Add(-time.Hour), Updated: time.Now().Add(-time.Hour)}
	api := arxivtest.NewServer(t, arxivtest.Options{DataDir: data, Entries: []arxiv.Entry{entry}})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go http.Serve(ln, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, buf, _ := w.(http.Hijacker).Hijack()
		buf.WriteString("HTTP/1.1 404 \x1b]0;pwned\x07\x1b[2JNot Found\r\nContent-Length: 0\r\n\r\n")
		buf.Flush()
		c.Close()
	}))
	badPDF := filepath.Join(t.TempDir(), "bad\x1b]0;pwned\x07.pdf")
	if err := os.WriteFile(badPDF, []byte("not a pdf"), 0o644); err != nil {
		t.Fatal(err)
	}
	withFakes := func(c *exec.Cmd) *exec.Cmd {
		c.Env = append(c.Env, "PAPERS_ARXIV_API_URL="+api.APIURL(), "PAPERS_ARXIV_PDF_URL=http://"+ln.Addr().String()+"/pdf/", "PAPERS_ARXIV_DELAY=0")
		return c
	}
	commands := [][]string{
		{"list"},
		{"show", hostileID, "--chunks"},
		{"search", "cancer cells immune system"},
		{"ask", "--extractive", "how do cancer cells evade the immune system?"},
		{"ingest", badPDF},
		{"ingest", "2302.04761"},
	}
	for _, args := range commands {
		name := strings.Join(args[:1], " ")
		t.Run(name+" on a terminal", func(t *testing.T) {
			out := onTerminal(t, withFakes(papersCmd(home, args...)))
			if seqs := acts(out); len(seqs) > 0 {
				t.Errorf("%q reached the terminal raw:\n%q", seqs, out)
			}
			if !strings.Contains(out, "evil") && !strings.Contains(out, "bad") && !strings.Contains(out, "404 Not Found") {
				t.Errorf("the terminal got nothing to check:\n%q", out)
			}
		})
		t.Run(name+" on a pipe", func(t *testing.T) {
			out, _ := withFakes(papersCmd(home, args...)).CombinedOutput()
			if bytes.ContainsAny(out, "\x1b\x07") || len(acts(string(out))) > 0 {
				t.Errorf("escapes in piped output:\n%q", out)
			}
		})
	}
	t.Run("json", func(t *testing.T) {
		for _, args := range [][]string{{"list", "--json"}, {"show", hostileID, "--json"}} {
			out, err := papersCmd(home, args...).Output()
			if err != nil {
				t.Fatalf("%v: %v", args, err)
			}
			if seqs := acts(string(out)); len(seqs) > 0 || !bytes.Contains(out, []byte(`\u001b]0;pwned\u0007`)) || !bytes.Contains(out, []byte(`\u009b2J\u202eid`)) {
				t.Errorf("%v: not escaped as JSON escapes (%q raw):\n%s", args, seqs, out)
			}
			found := false
			for _, line := range bytes.Split(bytes.TrimSpace(out), []byte("\n")) {
				var rec struct{ ID string }
				if err := json.Unmarshal(line, &rec); err != nil {
					t.Fatalf("%v: %v", args, err)
				}
				found = found || rec.ID == hostileID
			}
			if !found {
				t.Errorf("%v: no record decodes to the id as stored:\n%s", args, out)
			}
		}
	})
	if out := onTerminal(t, papersCmd(home, "rm", hostileID)); !strings.Contains(out, "removed evil") || len(acts(out)) > 0 {
		t.Errorf("rm of the hostile id on a terminal:\n%q", out)
	}
}
