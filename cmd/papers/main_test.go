package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/papers-cli/papers/cmd"
	"github.com/papers-cli/papers/internal/shareddata"
	"github.com/papers-cli/papers/internal/testmain"
)

// TestMain lets the test binary act as the papers command: testscript runs
// it under the name "papers", and the kill test runs it with PAPERS_AS_MAIN=1.
func TestMain(m *testing.M) {
	testmain.GC()
	if os.Getenv("PAPERS_AS_MAIN") == "1" {
		os.Exit(cmd.Main())
	}
	// No test reaches Crossref (local PDFs are looked up there): the
	// processes the tests start inherit this; scripts set their own.
	if os.Getenv("PAPERS_CROSSREF_API_URL") == "" { // a process a test starts with its own keeps it
		os.Setenv("PAPERS_CROSSREF_API_URL", "http://127.0.0.1:1")
	}
	// The scripts and the kill tests mostly wait (on the papers processes
	// they start, fake servers' pacing, deadlines), not compute: unless
	// -parallel is given, run three times as many at once as there are
	// CPUs (on 2 cores: 290 s -> 204 s of the package under -race).
	if f := flag.Lookup("test.parallel"); f != nil {
		_ = f.Value.Set(strconv.Itoa(3 * runtime.GOMAXPROCS(0)))
	}
	testscript.Main(withBinDir{m}, map[string]func(){
		"papers": func() { os.Exit(cmd.Main()) },
	})
}

// binDir holds the papers binary built for the scripts (plainBinary),
// for as long as the tests run.
var binDir string

// withBinDir runs the tests with binDir made and removed after.
type withBinDir struct{ m *testing.M }

func (w withBinDir) Run() int {
	dir, err := os.MkdirTemp("", "papers-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	binDir = dir
	return w.m.Run()
}

// plainBinary is the directory holding a papers binary built without the
// race detector, once per test binary, when this one runs under it (else
// "", and the scripts run this binary as papers, as testscript sets up).
//
// Why: the scripts and the kill tests check what whole commands do, or
// leave behind, one process at a time; under -race each papers process is
// 4-8 times slower (translated SQLite, PDF extraction), which made the
// scripts 144 of the package's 246 CPU seconds (31 without -race;
// BENCHMARKS.md, "Test suite time"), and a killed process's race report
// goes unread. The data races such a process could have are in the
// packages' concurrent code (ingest's sources, pdf, store's segments, ask),
// whose own tests run under -race, and in the tests here that keep this
// binary (papersCmd) because concurrency is their point and their
// processes run to the end (a race then fails them, exit 66): the
// concurrent ingests, ingest during reindex, papers mcp's cancelled tool
// call, read-only and full media. (test.sh runs this package without the
// race detector: its own code is main's one line, and the packages its
// processes run are under the detector in their own tests.)
var plainBinary = sync.OnceValues(func() (string, error) {
	if !raceDetector {
		return "", nil
	}
	gobin, err := exec.LookPath("go")
	if err != nil {
		gobin = filepath.Join(runtime.GOROOT(), "bin", "go")
	}
	// the package in this directory, as the test binary was built from it,
	// and as papers ships: static (the address-space cap of
	// TestHostilePDFsUnderAMemoryCap leaves no room for glibc's arenas)
	if err := buildStatic(gobin, filepath.Join(binDir, "papers")); err != nil {
		return "", fmt.Errorf("building papers without the race detector for the scripts: %v", err)
	}
	return binDir, nil
})

// buildStatic builds the package in this directory into out with
// CGO_ENABLED=0, and the commit stamped where the checkout has one
// (-buildvcs=auto, go build's default, whatever GOFLAGS says).
func buildStatic(gobin, out string) error {
	build := exec.Command(gobin, "build", "-buildvcs=auto", "-o", out, ".")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if b, err := build.CombinedOutput(); err != nil {
		return fmt.Errorf("%s build . (CGO_ENABLED=0): %v\n%s", gobin, err, b)
	}
	return nil
}

// staticBinary is the path of papers built as it ships (CGO_ENABLED=0):
// the plain binary under the race detector, else one built for it.
var staticBinary = sync.OnceValues(func() (string, error) {
	if raceDetector {
		dir, err := plainBinary()
		return filepath.Join(dir, "papers"), err
	}
	gobin, err := exec.LookPath("go")
	if err != nil {
		gobin = filepath.Join(runtime.GOROOT(), "bin", "go")
	}
	out := filepath.Join(binDir, "papers-static")
	return out, buildStatic(gobin, out)
})

// plainCmd is papersCmd running the plain papers binary (plainBinary)
// instead of this one, when they differ.
func plainCmd(t testing.TB, home string, args ...string) *exec.Cmd {
	t.Helper()
	c := papersCmd(home, args...)
	dir, err := plainBinary()
	if err != nil {
		t.Fatal(err)
	}
	if dir != "" {
		c.Path = filepath.Join(dir, "papers")
		c.Args[0] = c.Path
		if os.Getenv("GOGC") == "" {
			c.Env = append(c.Env, plainGOGC)
		}
	}
	return c
}

// plainGOGC is the plain papers processes' GOGC: the test binaries' own
// (testmain.GCPercent), unless GOGC is set.
var plainGOGC = "GOGC=" + strconv.Itoa(testmain.GCPercent)

// usePlainBinary puts the plain papers binary (plainBinary) first on the
// script's PATH, when there is one.
func usePlainBinary(env *testscript.Env) error {
	dir, err := plainBinary()
	if err != nil || dir == "" {
		return err
	}
	env.Setenv("PATH", dir+string(os.PathListSeparator)+env.Getenv("PATH"))
	if os.Getenv("GOGC") == "" {
		env.Setenv("GOGC", strings.TrimPrefix(plainGOGC, "GOGC="))
	}
	return nil
}

// sharedData is the project's shared test data, beside the repository
// (package shareddata: left out, saying so, without it).
func sharedData(t testing.TB) string {
	t.Helper()
	shareddata.Path(t, "README.md")
	return shareddata.Root()
}

// TestREADMETestCommandIsCI: the test command README.md gives (the
// second line of "The two commands") is the one .ci/run runs (the line
// after "# the test command of README.md:"), character for character.
func TestREADMETestCommandIsCI(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	ci, err := os.ReadFile(filepath.Join("..", "..", ".ci", "run"))
	if err != nil {
		t.Fatal(err)
	}
	after := func(text, mark string, n int) string {
		_, rest, ok := strings.Cut(text, mark)
		if !ok {
			return ""
		}
		lines := strings.Split(rest, "\n")
		if len(lines) <= n {
			return ""
		}
		return lines[n]
	}
	// "## The two commands\n\n```sh\n" then the main job, then the tests
	r := after(string(readme), "## The two commands\n\n```sh\n", 1)
	c := after(string(ci), "# the test command of README.md:\n", 0)
	if r == "" || r != c {
		t.Errorf("README.md gives %q as the test command, .ci/run runs %q", r, c)
	}
}

// TestVersionNamesTheCommit runs papers version of the binary built as go
// build builds it in a checkout (staticBinary: the toolchain stamps the
// commit by default where .git is a directory): it names the commit
// checked out. (In a git worktree, whose .git is a file, the toolchain
// records no commit, and papers version says so.) The test builds no
// binary of its own: a build with other settings (cgo on, as go build
// defaults to where a C compiler is) compiled the whole program a third
// time, about 100 s of CPU from an empty build cache.
func TestVersionNamesTheCommit(t *testing.T) {
	bin, err := staticBinary()
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(bin, "version").Output()
	if err != nil {
		t.Fatal(err)
	}
	head, herr := exec.Command("git", "rev-parse", "HEAD").Output()
	fi, serr := os.Stat(filepath.Join("..", "..", ".git"))
	if herr == nil && serr == nil && fi.IsDir() {
		if want := "(commit " + strings.TrimSpace(string(head))[:12]; !strings.Contains(string(out), want) {
			t.Errorf("papers version says %q, want %q", out, want)
		}
		return
	}
	if !strings.Contains(string(out), "(commit not recorded)") {
		t.Errorf("papers version says %q, but no commit can be recorded here (.git is not a directory)", out)
	}
}
