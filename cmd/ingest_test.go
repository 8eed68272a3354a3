package cmd

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/papers-cli/papers/internal/shareddata"
	"github.com/papers-cli/papers/store"
)

// ingestEnv points papers at a library in a temporary directory and at
// arXiv servers that are nowhere, unless the test sets its own.
func ingestEnv(t *testing.T) string {
	t.Helper()
	home := filepath.Join(t.TempDir(), "lib")
	t.Setenv("PAPERS_HOME", home)
	t.Setenv("PAPERS_ARXIV_DELAY", "0")
	t.Setenv("PAPERS_ARXIV_API_URL", "http://127.0.0.1:1/api/query")
	t.Setenv("PAPERS_ARXIV_PDF_URL", "http://127.0.0.1:1/pdf/")
	noModel(t)
	return home
}

// ingestSummary is the --json summary of papers ingest.
type ingestSummary struct {
	Added  []string `json:"added"`
	Failed []struct {
		Item   string `json:"item"`
		Reason string `json:"reason"`
	} `json:"failed"`
	Elapsed float64 `json:"elapsed_s"`
}

func parseSummary(t *testing.T, out string) ingestSummary {
	t.Helper()
	var s ingestSummary
	if err := json.Unmarshal([]byte(out), &s); err != nil {
		t.Fatalf("summary is not JSON: %v\n%s", err, out)
	}
	return s
}

func TestIngestLookupFailureInSummary(t *testing.T) {
	ingestEnv(t)
	const delay = 300 * time.Millisecond
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("id_list") != "2501.12948" {
			t.Errorf("request %s, want the id looked up", r.URL)
		}
		time.Sleep(delay)
		http.Error(w, "gone", http.StatusNotFound) // not retried
	}))
	defer srv.Close()
	t.Setenv("PAPERS_ARXIV_API_URL", srv.URL+"/api/query")

	code, out, errs := runCmd(t, "ingest", "--json", "2501.12948")
	if code != ExitError {
		t.Errorf("exit %d, want %d", code, ExitError)
	}
	s := parseSummary(t, out)
	if len(s.Failed) != 1 || s.Failed[0].Item != "2501.12948" || !strings.Contains(s.Failed[0].Reason, "404") {
		t.Errorf("failed %+v, want 2501.12948 with the 404", s.Failed)
	}
	if s.Elapsed < delay.Seconds() {
		t.Errorf("elapsed_s %.3f, want at least the %.1fs the look-up took", s.Elapsed, delay.Seconds())
	}
	if !strings.Contains(errs, "hint: ") {
		t.Errorf("stderr %q, want the error with a hint", errs)
	}
}

// sharedData is the path of a file of the shared test data (package
// shareddata: left out, saying so, without it).
func sharedData(t *testing.T, name string) string {
	t.Helper()
	return shareddata.Path(t, strings.Split(name, "/")...)
}

func TestIngestUnreadableCorpus(t *testing.T) {
	corpus := sharedData(t, "topic/rl-for-llm-agents.jsonl")
	for _, tc := range []struct{ name, path, reason string }{
		{"missing file", filepath.Join(t.TempDir(), "missing.jsonl"), "no such file"},
		{"directory", t.TempDir(), "is a directory"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ingestEnv(t)
			code, out, errs := runCmd(t, "ingest", "--json", "--jsonl", tc.path, "--jsonl", corpus)
			if code != ExitError {
				t.Errorf("exit %d, want %d", code, ExitError)
			}
			s := parseSummary(t, out)
			if len(s.Failed) != 1 || s.Failed[0].Item != tc.path || !strings.Contains(s.Failed[0].Reason, tc.reason) {
				t.Errorf("failed %+v, want %s: %s", s.Failed, tc.path, tc.reason)
			}
			if len(s.Added) != 30 {
				t.Errorf("%d added, want the 30 papers of the readable corpus", len(s.Added))
			}
			if !strings.Contains(errs, "hint: --jsonl takes a file") || strings.Contains(errs, "network") {
				t.Errorf("stderr %q, want a hint about the file, not the network", errs)
			}
		})
	}
}

func TestIngestSameContentTwice(t *testing.T) {
	tool, err := os.ReadFile(sharedData(t, "pdfs/papers/toolformer_2302.04761v1.pdf"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	first, second := filepath.Join(dir, "toolformer.pdf"), filepath.Join(dir, "copy.pdf")
	os.WriteFile(first, tool, 0o644)
	os.WriteFile(second, tool, 0o644)
	want := "same content as " + first

	t.Run("text", func(t *testing.T) {
		ingestEnv(t)
		code, out, errs := runCmd(t, "ingest", first, second)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errs)
		}
		if !strings.Contains(out, "added 1, updated 0, unchanged 0, failed 0, skipped 1 ") {
			t.Errorf("summary %q, want the copy counted as skipped", out)
		}
		if !strings.Contains(errs, "skipped "+second+": "+want) {
			t.Errorf("stderr %q, want the copy named as skipped", errs)
		}
	})
	t.Run("json", func(t *testing.T) {
		ingestEnv(t)
		code, out, errs := runCmd(t, "ingest", "--json", first, second)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errs)
		}
		var s struct {
			Skipped []struct{ Item, Reason string } `json:"skipped"`
		}
		if err := json.Unmarshal([]byte(out), &s); err != nil {
			t.Fatal(err)
		}
		if len(s.Skipped) != 1 || s.Skipped[0].Item != second || s.Skipped[0].Reason != want {
			t.Errorf("skipped %+v, want %s: %s", s.Skipped, second, want)
		}
	})
}

func TestIngestFlagRanges(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--chunk-size", "0"}, "--chunk-size must be at least 1"},
		{[]string{"--chunk-size", "-5"}, "--chunk-size must be at least 1"},
		{[]string{"--chunk-size", "100", "--chunk-overlap", "100"}, "--chunk-overlap must be from 0 to 99"},
		{[]string{"--chunk-overlap", "-1"}, "--chunk-overlap must be from 0 to 179"},
		{[]string{"--workers", "-1"}, "--workers must be at least 1"},
		{[]string{"--workers", "0"}, "--workers must be at least 1"},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			ingestEnv(t)
			code, _, errs := runCmd(t, append([]string{"ingest", "2501.12948"}, tc.args...)...)
			if code != ExitUsage || !strings.Contains(errs, tc.want) {
				t.Errorf("exit %d, stderr %q; want exit %d and %q", code, errs, ExitUsage, tc.want)
			}
		})
	}
}

func TestIngestUnreadablePDFHint(t *testing.T) {
	for _, tc := range []struct{ file, reason, hint string }{
		{"awkward/user_password_is_password.pdf", "encrypted: password required", "hint: decrypt it first"},
		{"awkward/scanned_chinese_book_image_only.pdf", "no text layer", "hint: run OCR on it first"},
	} {
		t.Run(filepath.Base(tc.file), func(t *testing.T) {
			ingestEnv(t)
			path := sharedData(t, filepath.Join("pdfs", tc.file))
			code, _, errs := runCmd(t, "ingest", path)
			if code != ExitError {
				t.Errorf("exit %d, want %d", code, ExitError)
			}
			if !strings.Contains(errs, "error: "+path+": ") || !strings.Contains(errs, tc.reason) || strings.Count(errs, path) != 1 {
				t.Errorf("stderr %q, want the path once and %q", errs, tc.reason)
			}
			if !strings.Contains(errs, tc.hint) {
				t.Errorf("stderr %q, want %q", errs, tc.hint)
			}
		})
	}
}

func TestIngestDirectoryWithNothing(t *testing.T) {
	tool := sharedData(t, "pdfs/papers/toolformer_2302.04761v1.pdf")
	empty, noPDF := t.TempDir(), t.TempDir()
	os.WriteFile(filepath.Join(noPDF, "notes.txt"), []byte("not a paper"), 0o644)
	for _, dir := range []string{empty, noPDF} {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			ingestEnv(t)
			code, out, errs := runCmd(t, "ingest", "--json", dir, tool)
			if code != ExitError {
				t.Errorf("exit %d, want %d", code, ExitError)
			}
			if !strings.Contains(errs, "warning: "+dir+": nothing to ingest") {
				t.Errorf("stderr %q, want a warning naming %s", errs, dir)
			}
			s := parseSummary(t, out)
			if len(s.Failed) != 1 || s.Failed[0].Item != dir || len(s.Added) != 1 {
				t.Errorf("added %v, failed %+v; want the PDF added and %s failed", s.Added, s.Failed, dir)
			}
		})
	}
}

// TestChunkerIsTheLibrarys: the chunker of the first ingest is the
// library's (--chunk-overlap 0 is no overlap, not the default 30); later
// ingests and updates cut with it unless the flags say otherwise, which is
// said.
func TestChunkerIsTheLibrarys(t *testing.T) {
	home := ingestEnv(t)
	corpus := sharedData(t, "topic/rl-for-llm-agents.jsonl")
	chunker := func() string {
		t.Helper()
		lib, err := store.Open(t.Context(), home)
		if err != nil {
			t.Fatal(err)
		}
		defer lib.Close()
		m, err := lib.Manifest(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		return m.Chunker
	}
	if code, _, errs := runCmd(t, "ingest", "--chunk-size", "100", "--chunk-overlap", "0", "--jsonl", corpus); code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if got := chunker(); got != "v3/words100-overlap0" {
		t.Errorf("chunker %q after --chunk-size 100 --chunk-overlap 0", got)
	}
	if code, _, errs := runCmd(t, "ingest", "--jsonl", corpus); code != 0 || strings.Contains(errs, "note:") {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if code, _, errs := runCmd(t, "topic", "add", "rl", "--query", "abs:agent"); code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	// arXiv is nowhere: the update fails, after choosing its chunker
	runCmd(t, "update", "--abstracts-only")
	if got := chunker(); got != "v3/words100-overlap0" {
		t.Errorf("chunker %q after an ingest and an update with no chunk flags", got)
	}
	code, _, errs := runCmd(t, "ingest", "--chunk-overlap", "10", "--jsonl", corpus)
	if code != 0 || !strings.Contains(errs, "note: the library's papers were chunked with v3/words100-overlap0; papers stored from now on are chunked with v3/words100-overlap10") {
		t.Errorf("exit %d, stderr %q", code, errs)
	}
	if got := chunker(); got != "v3/words100-overlap10" {
		t.Errorf("chunker %q after --chunk-overlap 10", got)
	}
}

// folderWithout is a new folder of links to the PDFs of dir but the one
// named leave.
func folderWithout(t *testing.T, dir, leave string) string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.pdf"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no PDFs in %s (%v)", dir, err)
	}
	out := t.TempDir()
	for _, f := range files {
		if filepath.Base(f) == leave {
			continue
		}
		if err := os.Symlink(f, filepath.Join(out, filepath.Base(f))); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// TestIngestHostilePDFsFailAlone: files that used to kill the process
// (out of memory, stack overflow) each fail with a one-line reason or are
// read, and the run goes on to the paper after them.
func TestIngestHostilePDFsFailAlone(t *testing.T) {
	ingestEnv(t)
	hostile := sharedData(t, "pdfs/hostile")
	if raceEnabled && !fullTests {
		// The bomb that reads 64 MB of text operators takes 20 s under the
		// race detector (ingest/pdf's tests read it): a folder of the others.
		hostile = folderWithout(t, hostile, "flate2_textops_1g.pdf")
	}
	fuzzed := sharedData(t, "pdfs/peer/pdfs/pdfjs/GHOSTSCRIPT-698804-1-fuzzed.pdf")
	paper := sharedData(t, "pdfs/papers/toolformer_2302.04761v1.pdf")
	code, out, errs := runCmd(t, "ingest", "--json", hostile, fuzzed, paper)
	if code != ExitError {
		t.Errorf("exit %d, want %d (some files fail)", code, ExitError)
	}
	s := parseSummary(t, out)
	files, _ := filepath.Glob(filepath.Join(hostile, "*.pdf"))
	if got := len(s.Added) + len(s.Failed); got != len(files)+2 {
		t.Errorf("%d added + %d failed, want %d files accounted for\n%s", len(s.Added), len(s.Failed), len(files)+2, errs)
	}
	if len(s.Added) < 7 {
		t.Errorf("added %v: want the paper and the hostile files that have text", s.Added)
	}
	for _, f := range s.Failed {
		if f.Item == paper {
			t.Errorf("the paper after the hostile files failed: %s", f.Reason)
		}
		if strings.ContainsAny(f.Reason, "\n\r") || strings.Contains(f.Reason, "internal error") {
			t.Errorf("%s: reason %q is not one line of cause", f.Item, f.Reason)
		}
	}
}
