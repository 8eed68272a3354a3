package main

import (
	"bufio"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestInterruptedIngestSaysWhatItKept: Ctrl-C during a folder ingest in
// which a file has failed says how many papers the library kept, and the
// library holds that many. It counted the failed files as kept ("kept 6
// added" for a library of 5).
func TestInterruptedIngestSaysWhatItKept(t *testing.T) {
	t.Parallel()
	data := sharedData(t)
	folder := t.TempDir()
	// a file that fails at once, then the peer PDFs: more than a run does
	// in the moment the test waits
	link(t, filepath.Join(data, "pdfs", "awkward", "user_password_is_password.pdf"), filepath.Join(folder, "000-encrypted.pdf"))
	n := 0
	filepath.WalkDir(filepath.Join(data, "pdfs", "peer", "pdfs"), func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".pdf") {
			n++
			link(t, p, filepath.Join(folder, "p"+strconv.Itoa(n)+"-"+filepath.Base(p)))
		}
		return nil
	})
	home := t.TempDir()
	c := plainCmd(t, home, "ingest", folder)
	stderr, err := c.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	c.Stdout = io.Discard
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	lines := make(chan string, 1024)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	failed, added := false, 0
	var said []string
	deadline := time.After(2 * time.Minute)
	for !failed || added < 3 {
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatalf("the ingest ended before it was interrupted:\n%s", strings.Join(said, "\n"))
			}
			said = append(said, l)
			failed = failed || strings.Contains(l, "000-encrypted.pdf") && strings.HasPrefix(l, "error:")
			if strings.HasPrefix(l, "added ") {
				added++
			}
		case <-deadline:
			t.Fatalf("no failure and 3 papers within 2 minutes:\n%s", strings.Join(said, "\n"))
		}
	}
	c.Process.Signal(syscall.SIGINT)
	for l := range lines {
		said = append(said, l)
	}
	c.Wait()
	m := regexp.MustCompile(`^kept (\d+) added, 0 updated before the interruption$`).FindStringSubmatch(said[len(said)-2])
	if m == nil || said[len(said)-1] != "interrupted" {
		t.Fatalf("the interrupted ingest ended with:\n%s", strings.Join(said[max(0, len(said)-5):], "\n"))
	}
	kept, _ := strconv.Atoi(m[1])
	if n := countPapers(t, home); n != kept {
		t.Errorf("it said it kept %d papers; the library holds %d", kept, n)
	}
}

// link makes new a symbolic link to old.
func link(t *testing.T, old, new string) {
	t.Helper()
	if err := os.Symlink(old, new); err != nil {
		t.Fatal(err)
	}
}
