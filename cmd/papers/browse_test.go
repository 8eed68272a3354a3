package main

import (
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/charmbracelet/x/vt"
	"github.com/creack/pty"
)

// screen is a terminal emulator (charmbracelet/x/vt) reading what a
// program writes to a pseudo-terminal and answering its queries, as the
// user's terminal would.
type screen struct {
	mu  sync.Mutex
	emu *vt.Emulator
	ptm *os.File
}

func newScreen(ptm *os.File, w, h int) *screen {
	s := &screen{emu: vt.NewEmulator(w, h), ptm: ptm}
	go func() { // the program's output onto the screen
		buf := make([]byte, 32<<10)
		for {
			n, err := ptm.Read(buf)
			if n > 0 {
				s.mu.Lock()
				s.emu.Write(buf[:n])
				s.mu.Unlock()
			}
			if err != nil {
				return
			}
		}
	}()
	go io.Copy(ptm, s.emu) // the terminal's replies to the program's queries
	return s
}

func (s *screen) text() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.emu.String()
}

// waitFor waits until the screen shows every one of want.
func (s *screen) waitFor(t *testing.T, want ...string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second) // a loaded machine under -race
	for {
		txt := s.text()
		ok := true
		for _, w := range want {
			ok = ok && strings.Contains(txt, w)
		}
		if ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the screen never showed %q; it shows:\n%s", want, txt)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// press types keys as a user would: Esc alone is followed by a pause, so
// that it is not read as the start of a sequence.
func (s *screen) press(t *testing.T, keys ...string) {
	t.Helper()
	for _, k := range keys {
		if _, err := s.ptm.WriteString(k); err != nil {
			t.Fatal(err)
		}
		pause := 30 * time.Millisecond
		if k == "\x1b" {
			pause = 300 * time.Millisecond
		}
		time.Sleep(pause)
	}
}

// offlineCmd is papersCmd with no model configured: answers are offline.
func offlineCmd(home string, args ...string) *exec.Cmd {
	c := papersCmd(home, args...)
	c.Env = append(c.Env, "OPENAI_API_KEY=", "OPENAI_BASE_URL=", "PAPERS_LLM=")
	return c
}

// TestBrowseOnTerminal drives papers browse on a real pseudo-terminal, as
// a user would, reading the screen through a terminal emulator: the topic
// page opens, j moves, Enter opens the paper, s saves it (papers list
// --saved then lists it), a asks it (AskPDF, offline) with citations, /
// searches, r lists related papers, q quits with status 0.
func TestBrowseOnTerminal(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no pseudo-terminals on Windows")
	}
	data := sharedData(t)
	home := t.TempDir()
	for _, args := range [][]string{
		{"topic", "add", "rl", "--query", "abs:agent", "--description", "RL for LLM Agents"},
		{"ingest", "--jsonl", filepath.Join(data, "topic", "rl-for-llm-agents.jsonl"), "--topic", "rl"},
	} {
		if out, err := offlineCmd(home, args...).CombinedOutput(); err != nil {
			t.Fatalf("papers %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	c := offlineCmd(home, "browse", "--topic", "rl", "--offline")
	c.Env = append(c.Env, "TERM=xterm-256color")
	ptm, err := pty.StartWithSize(c, &pty.Winsize{Rows: 24, Cols: 80}) // stdin, stdout, stderr on it, its controlling terminal
	if err != nil {
		t.Fatalf("start papers browse on a pseudo-terminal: %v", err)
	}
	defer ptm.Close()
	exited := make(chan error, 1)
	go func() { exited <- c.Wait() }()
	t.Cleanup(func() {
		if c.ProcessState == nil {
			c.Process.Kill()
		}
	})
	s := newScreen(ptm, 80, 24)

	s.waitFor(t, "rl · RL for LLM Agents", "Latest papers 30", "▸ 2026-05-23 cs.LG    ECHO")
	s.press(t, "j")
	s.waitFor(t, "▸ 2026-05-22 cs.AI    When Does Multi-Agent RL")
	s.press(t, "\r")
	s.waitFor(t, "topic-002 ·", "authors:", "Abstract")
	s.press(t, "s")
	s.waitFor(t, "saved topic-002")
	s.press(t, "a")
	s.waitFor(t, "Ask topic-002:")
	s.press(t, "How does policy sharing change training?", "\r")
	s.waitFor(t, "Q: How does policy sharing change training?", "Sources:", "[1] topic-002")
	s.press(t, "\x1b", "\x1b") // back to the paper, back to the page
	s.waitFor(t, "Latest papers 30", "Workflo… ★")
	s.press(t, "/")
	s.press(t, "memory consolidation", "\r")
	s.waitFor(t, `Search "memory consolidation" in rl`, "Auto-Dreamer")
	s.press(t, "\x1b", "r")
	s.waitFor(t, "Related to topic-002")
	s.press(t, "q")
	select {
	case err := <-exited:
		if err != nil {
			t.Fatalf("papers browse exited with %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("q did not quit")
	}
	out, err := papersCmd(home, "list", "--saved").Output()
	if err != nil || !strings.Contains(string(out), "topic-002") {
		t.Errorf("papers list --saved after s: %q, %v", out, err)
	}
}

// Without a terminal papers browse exits 2 and points at papers list.
func TestBrowseNeedsTerminal(t *testing.T) {
	home := t.TempDir()
	out, err := papersCmd(home, "browse").CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 2 || !strings.Contains(string(out), "papers list") {
		t.Errorf("papers browse on a pipe: %v\n%s", err, out)
	}
	out, err = papersCmd(home, "browse", "--topic", "my agents").CombinedOutput()
	if !errors.As(err, &ee) || ee.ExitCode() != 2 || !strings.Contains(string(out), "hint: papers list --topic 'my agents' prints the same papers") {
		t.Errorf("papers browse --topic on a pipe: %v\n%s", err, out)
	}
}
