package main

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
)

// tmpfs mounts a small tmpfs at a new directory for the test, or skips the
// test saying why (mounting needs root on Linux).
func tmpfs(t *testing.T, size string) string {
	t.Helper()
	if runtime.GOOS != "linux" || os.Geteuid() != 0 {
		t.Skipf("read-only and full file systems are made with a tmpfs mount, which needs root on Linux (running as uid %d on %s)", os.Geteuid(), runtime.GOOS)
	}
	dir := filepath.Join(t.TempDir(), "mnt")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size="+size, "tmpfs", dir).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a tmpfs here (a container without CAP_SYS_ADMIN?): %v %s", err, out)
	}
	t.Cleanup(func() { exec.Command("umount", dir).Run() })
	return dir
}

func remount(t *testing.T, dir, mode string) {
	t.Helper()
	if out, err := exec.Command("mount", "-o", "remount,"+mode, dir).CombinedOutput(); err != nil {
		t.Fatalf("remount %s %s: %v %s", mode, dir, err, out)
	}
}

// fill writes a file until the file system at dir is full, leaving free
// bytes free.
func fill(t *testing.T, dir string, free int64) string {
	t.Helper()
	path := filepath.Join(dir, "filler")
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	n := int64(st.Bavail)*int64(st.Bsize) - free
	buf := make([]byte, 64<<10)
	for n > 0 {
		w, err := f.Write(buf[:min(int64(len(buf)), n)])
		n -= int64(w)
		if err != nil {
			if free == 0 {
				break // full: what was asked
			}
			t.Fatal(err)
		}
	}
	if free == 0 { // to the last block
		for {
			if _, err := f.Write(buf[:512]); err != nil {
				break
			}
		}
	}
	return path
}

// outcome runs c and returns its exit code and stderr.
func outcome(t *testing.T, c *exec.Cmd) (int, string) {
	t.Helper()
	var stderr strings.Builder
	c.Stdout, c.Stderr = io.Discard, &stderr
	err := c.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode(), stderr.String()
	} else if err != nil {
		t.Fatal(err)
	}
	return 0, stderr.String()
}

// readsWork runs the reading commands on the library at home: each exits
// 0 and says once that the library is read-only, and why.
func readsWork(t *testing.T, home, why string) {
	t.Helper()
	for _, args := range [][]string{{"list"}, {"search", "cancer"}, {"show", "4983"}, {"ask", "--extractive", "what causes cancer"}, {"topic", "list"},
		{"review", "4983", "--column", "What causes cancer?"}} {
		code, stderr := outcome(t, papersCmd(home, args...))
		if code != 0 || strings.Count(stderr, "note: the library") != 1 || !strings.Contains(stderr, why) {
			t.Errorf("%s on a library that %s: exit %d, stderr:\n%s", strings.Join(args, " "), why, code, stderr)
		}
	}
}

// writeRefused runs an ingest of new records and an rm: each fails with
// one error naming the cause, and the library holds its papers, intact.
func writeRefused(t *testing.T, home, corpus, cause string) {
	t.Helper()
	code, stderr := outcome(t, papersCmd(home, "ingest", "--jsonl", corpus))
	if code != 1 || strings.Count(stderr, "error:") != 1 || !strings.Contains(stderr, cause) {
		t.Errorf("ingest: exit %d, want 1 with one error naming %q:\n%s", code, cause, stderr)
	}
	code, stderr = outcome(t, papersCmd(home, "rm", "4983"))
	if code != 1 || !strings.Contains(stderr, cause) {
		t.Errorf("rm: exit %d, want 1 naming %q:\n%s", code, cause, stderr)
	}
}

// TestReadOnlyMedia: a library on a read-only tmpfs, on a full one, and in
// files this user may not write is read as usual (it was "unable to open
// database file" and "disk I/O error"); writes fail once with the cause
// and leave it as it was; an ingest that fills the disk stops at once with
// one message (it printed one line per record and went on).
func TestReadOnlyMedia(t *testing.T) {
	t.Parallel()
	mnt := tmpfs(t, "32m")
	data := sharedData(t)
	home := filepath.Join(mnt, "lib")
	corpus := filepath.Join(data, "scifact", "corpus.jsonl")
	first, more := filepath.Join(t.TempDir(), "first.jsonl"), filepath.Join(t.TempDir(), "more.jsonl")
	writeLines(t, corpus, first, 0, 100)
	writeLines(t, corpus, more, 100, 1200)
	run(t, papersCmd(home, "ingest", "--jsonl", first))
	intact := func(when string, n int) {
		t.Helper()
		checkSearchAgrees(t, home, when, 10)
		if tmps, _ := filepath.Glob(filepath.Join(home, "*.tmp*")); len(tmps) > 0 {
			t.Errorf("%s: %v left behind", when, tmps)
		}
		if got := countPapers(t, home); got != n {
			t.Errorf("%s: the library holds %d papers, want %d", when, got, n)
		}
	}

	t.Run("read-only file system", func(t *testing.T) {
		remount(t, mnt, "ro")
		readsWork(t, home, "read-only file system")
		writeRefused(t, home, more, "read-only file system")
		remount(t, mnt, "rw")
		intact("after the read-only medium", 100)
	})
	t.Run("full disk", func(t *testing.T) {
		filler := fill(t, mnt, 0)
		readsWork(t, home, "disk holding it is full")
		writeRefused(t, home, more, "disk holding the library is full")
		os.Remove(filler)
		intact("after the full disk", 100)
	})
	t.Run("first ingest on a full disk", func(t *testing.T) {
		// a library to create, not one of schema 0 to migrate, and no empty
		// library.db left behind to say so again
		filler := fill(t, mnt, 0)
		fresh := filepath.Join(mnt, "new")
		for range 2 {
			code, stderr := outcome(t, papersCmd(fresh, "ingest", "--jsonl", first))
			if code != 1 || !strings.Contains(stderr, "create the library") || !strings.Contains(stderr, "disk holding the library is full") ||
				!strings.Contains(stderr, "hint: free some space") || strings.Contains(stderr, "schema") {
				t.Errorf("the first ingest on a full disk: exit %d, want 1 saying the library cannot be created:\n%s", code, stderr)
			}
			if _, err := os.Stat(filepath.Join(fresh, "library.db")); err == nil {
				t.Error("an empty library.db was left behind")
			}
		}
		os.Remove(filler)
		run(t, papersCmd(fresh, "ingest", "--jsonl", first))
		if n := countPapers(t, fresh); n != 100 {
			t.Errorf("with space again: %d papers, want 100", n)
		}
	})
	t.Run("disk fills during ingest", func(t *testing.T) {
		filler := fill(t, mnt, 1<<20)
		code, stderr := outcome(t, papersCmd(home, "ingest", "--jsonl", more))
		var errs []string
		for _, l := range strings.Split(stderr, "\n") {
			if !strings.HasPrefix(l, "added ") && l != "" {
				errs = append(errs, l)
			}
		}
		if code != 1 || len(errs) != 2 || !strings.Contains(errs[0], "disk holding the library is full") || !strings.HasPrefix(errs[1], "hint: free some space") {
			t.Errorf("ingest filling the disk: exit %d, want 1 with one error about the full disk and its hint; said:\n%s", code, strings.Join(errs, "\n"))
		}
		os.Remove(filler)
		checkSearchAgrees(t, home, "after the disk filled", 10)
	})
	t.Run("files this user may not write", func(t *testing.T) {
		// another user: root's library, readable by all, written by none;
		// the test binary beside the mount, not in it (the race detector's
		// binary outgrew what the 32 MB tmpfs had left)
		bin := filepath.Join(filepath.Dir(mnt), "papers.test")
		copyFile(t, os.Args[0], bin)
		for _, p := range []string{filepath.Dir(filepath.Dir(mnt)), filepath.Dir(mnt), mnt, bin, home} {
			os.Chmod(p, 0o755)
		}
		files, _ := filepath.Glob(filepath.Join(home, "*"))
		for _, f := range files {
			os.Chmod(f, 0o644)
		}
		c := papersCmd(home, "list")
		c.Path, c.Args[0] = bin, bin
		c.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
		code, stderr := outcome(t, c)
		if code != 0 || !strings.Contains(stderr, "this user may not write its files") {
			t.Errorf("list as another user: exit %d:\n%s", code, stderr)
		}
	})
}

func countPapers(t *testing.T, home string) int {
	t.Helper()
	out := run(t, papersCmd(home, "list"))
	return strings.Count(out, "\n")
}
