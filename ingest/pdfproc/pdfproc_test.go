package pdfproc

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"testing"

	"github.com/papers-cli/papers/ingest/pdf"
	"github.com/papers-cli/papers/internal/localfile"
)

// TestMain makes this test binary serve extractions, as papers does.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == Arg {
		os.Exit(Serve())
	}
	Isolate()
	os.Exit(m.Run())
}

const papers = "../../../shared/data/pdfs"

// TestChildExtractsAsThisProcess: a real paper read in a child process
// is the Document pdf.ExtractBytes makes here; the errors of an
// encrypted and a truncated file keep their kinds (errors.Is) and words
// across the process boundary; a named pipe is refused before any child
// starts.
func TestChildExtractsAsThisProcess(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(papers, "papers", "pasa_2501.10120.pdf")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("shared test data missing (../shared/data beside the repository): %v", err)
	}
	want, err := pdf.ExtractBytes(ctx, data)
	if err != nil {
		t.Fatal(err)
	}
	got, err := Extract(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Error("the child's Document differs from this process's")
	}
	enc := filepath.Join(papers, "awkward", "user_password_is_password.pdf")
	_, err = Extract(ctx, enc)
	b, _ := os.ReadFile(enc)
	_, here := pdf.ExtractBytes(ctx, b)
	if !errors.Is(err, pdf.ErrEncrypted) || err.Error() != here.Error() {
		t.Errorf("encrypted: %v, want %v", err, here)
	}
	cut := filepath.Join(t.TempDir(), "cut.pdf")
	if err := os.WriteFile(cut, data[:len(data)/3], 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Extract(ctx, cut); !errors.Is(err, pdf.ErrTruncated) && !errors.Is(err, pdf.ErrMalformed) {
		t.Errorf("a file cut short: %v", err)
	}
	if _, err := Extract(ctx, "/dev/zero"); !errors.Is(err, localfile.ErrNotRegular) {
		t.Errorf("/dev/zero: %v", err)
	}
}

// TestEverySentinelCrossesTheBoundary: the pdf package's sentinel errors
// are all in the list the child's errors are matched against.
func TestEverySentinelCrossesTheBoundary(t *testing.T) {
	files, err := filepath.Glob("../pdf/*.go")
	if err != nil {
		t.Fatal(err)
	}
	decl := regexp.MustCompile(`(?m)^\s+(Err[A-Z]\w*)\s+=`)
	known := map[string]bool{}
	for _, e := range []string{"ErrEncrypted", "ErrNoText", "ErrNotPDF", "ErrGarbled", "ErrNoUnicode", "ErrTruncated", "ErrUnsupported", "ErrTooLarge", "ErrMalformed", "ErrScanned"} {
		known[e] = true
	}
	if len(sentinels) < len(known) {
		t.Fatalf("%d sentinels, want at least %d", len(sentinels), len(known))
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range decl.FindAllSubmatch(b, -1) {
			if name := string(m[1]); !known[name] && !regexp.MustCompile(`_test\.go$`).MatchString(f) {
				t.Errorf("pdf.%s (%s) is not among the sentinels a child's error is matched against: add it to sentinels and here", name, f)
			}
		}
	}
}

// TestDied names what a child died of from its stderr.
func TestDied(t *testing.T) {
	for stderr, want := range map[string]error{
		"runtime: out of memory: cannot allocate 4194304-byte block\nfatal error: out of memory": pdf.ErrTooLarge,
		"runtime: goroutine stack exceeds 67108864-byte limit\nfatal error: stack overflow":      pdf.ErrTooLarge,
		"unexpected fault address 0x7f\nfatal error: fault":                                      ErrCrashed,
	} {
		if err := died(stderr, errors.New("exit status 2")); !errors.Is(err, want) {
			t.Errorf("died(%q) = %v, want %v", stderr, err, want)
		}
	}
}
