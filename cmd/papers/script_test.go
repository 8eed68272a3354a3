package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/papers-cli/papers/export/exporttest"
	"github.com/papers-cli/papers/ingest/arxiv"
	"github.com/papers-cli/papers/ingest/arxiv/arxivtest"
	"github.com/papers-cli/papers/ingest/crossref/crossreftest"
	"github.com/papers-cli/papers/internal/pgtest"
	"github.com/papers-cli/papers/llm/llmtest"
)

// TestScripts runs the end-to-end scripts in testdata/script against the
// built command, with PAPERS_HOME in the script's work dir and $DATA
// pointing at the shared test data.
func TestScripts(t *testing.T) {
	testscript.Run(t, scriptParams(t, sharedData(t)))
}

// TestScriptsPostgres runs the same scripts, but those postgresSkips
// names, against a library in PostgreSQL: PAPERS_DATABASE_URL names a new
// schema for each script (in PGlite, or PAPERS_TEST_DATABASE_URL's
// server), and PAPERS_HOME is only the local directory (downloaded PDFs).
// The scripts are the conformance suite of the two stores: the same
// commands, the same output and exit codes.
func TestScriptsPostgres(t *testing.T) {
	p := scriptParams(t, sharedData(t))
	files, err := filepath.Glob(filepath.Join(p.Dir, "*.txtar"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if _, skip := postgresSkips[strings.TrimSuffix(filepath.Base(f), ".txtar")]; !skip {
			p.Files = append(p.Files, f)
		}
	}
	p.Dir = ""
	setup := p.Setup
	p.Setup = func(env *testscript.Env) error {
		if err := setup(env); err != nil {
			return err
		}
		u := pgtest.URL(t)
		env.Setenv("PAPERS_DATABASE_URL", u)
		env.Setenv("LIB", u)
		return nil
	}
	p.Condition = func(cond string) (bool, error) {
		if cond == "postgres" {
			return true, nil
		}
		return false, fmt.Errorf("unknown condition %q", cond)
	}
	testscript.Run(t, p)
}

// postgresSkips are the scripts TestScriptsPostgres leaves out, and why:
// each is about the library directory itself, not about a command.
var postgresSkips = map[string]string{
	"library__copy": "copies between a directory and PostgreSQL with --home and --to; PAPERS_DATABASE_URL would name its source",
}

// scriptParams are the scripts' parameters: their directory, environment
// and commands. $LIB names the script's library (a directory, or a URL in
// TestScriptsPostgres); the condition [postgres] holds in
// TestScriptsPostgres, where PAPERS_DATABASE_URL rather than PAPERS_HOME
// chooses the library.
func scriptParams(t *testing.T, data string) testscript.Params {
	return testscript.Params{
		Dir: filepath.Join("testdata", "script"),
		Setup: func(env *testscript.Env) error {
			return scriptEnv(env, data)
		},
		Condition: func(cond string) (bool, error) {
			if cond == "postgres" {
				return false, nil
			}
			return false, fmt.Errorf("unknown condition %q", cond)
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"exitcode": exitCode,
			// pgdb NAME sets $NAME to the URL of a new, empty library in
			// PostgreSQL (PGlite, or PAPERS_TEST_DATABASE_URL's server).
			"pgdb": func(ts *testscript.TestScript, neg bool, args []string) {
				if neg || len(args) != 1 {
					ts.Fatalf("usage: pgdb NAME")
				}
				ts.Setenv(args[0], pgtest.URL(t))
			},
			"fakearxiv": func(ts *testscript.TestScript, neg bool, args []string) { fakeArxiv(t, data, ts, args) },
			// fakecrossref starts a fake Crossref serving the recorded
			// responses of shared/data/metadata and points papers at it.
			"fakecrossref": func(ts *testscript.TestScript, neg bool, args []string) {
				srv := crossreftest.NewServer(t, crossreftest.Options{DataDir: data})
				ts.Setenv("PAPERS_CROSSREF_API_URL", srv.URL)
			},
			// bibcheck FILE runs bibtex and biber on a BibTeX file and fails
			// on any error of theirs or warning about a name.
			"bibcheck": func(ts *testscript.TestScript, neg bool, args []string) {
				if neg || len(args) != 1 {
					ts.Fatalf("usage: bibcheck FILE.bib")
				}
				r := exporttest.Check(t, []byte(ts.ReadFile(args[0])))
				if len(r.BibTeXErrors)+len(r.BiberErrors)+len(r.NameWarnings()) > 0 {
					ts.Fatalf("bibtex errors %q, biber errors %q, name warnings %q", r.BibTeXErrors, r.BiberErrors, r.NameWarnings())
				}
				ts.Logf("bibtex and biber read %d entries: %d and %d other warnings", r.Entries, len(r.BibTeXWarnings), len(r.BiberWarnings))
			},
			// fakellm [-stall] REPLY starts an OpenAI-compatible server that
			// streams REPLY to every chat request (with -stall: its first
			// piece, then nothing), and points papers at it; $KEY in REPLY
			// is the API key papers sends, and Go escapes are decoded.
			"fakellm": func(ts *testscript.TestScript, neg bool, args []string) {
				const key = "sk-test-not-a-real-key"
				o := llmtest.Options{}
				if len(args) > 0 && args[0] == "-stall" {
					o.Stall, args = true, args[1:]
				}
				reply := strings.ReplaceAll(strings.Join(args, " "), "$KEY", key)
				// Go escapes (\x1b, \u009b, \n) stand for what a script cannot write.
				unq, err := strconv.Unquote(`"` + strings.ReplaceAll(reply, `"`, `\"`) + `"`)
				ts.Check(err)
				o.Reply = unq
				srv := llmtest.NewServer(t, o)
				ts.Setenv("OPENAI_BASE_URL", srv.BaseURL())
				ts.Setenv("OPENAI_API_KEY", key)
			},
		},
	}
}

// exitcode N PROGRAM [ARGS...] runs PROGRAM like exec does (its stdout and
// stderr are then checked by stdout and stderr) and checks that it exits
// with status N exactly: `! exec` only says "not 0", and a usage error (2)
// is not "no evidence" (3).
//
//	exitcode 2 papers list --bogus
func exitCode(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: exitcode N PROGRAM [ARGS...]")
	}
	want, err := strconv.Atoi(args[0])
	if err != nil {
		ts.Fatalf("exitcode: %q is not an exit status", args[0])
	}
	got := 0
	if err := ts.Exec(args[1], args[2:]...); err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			ts.Fatalf("exitcode: %v", err)
		}
		got = ee.ExitCode()
	}
	if got != want {
		ts.Fatalf("%s exited %d, want %d", args[1], got, want)
	}
}

// scriptEnv is the environment every script starts with: $DATA, a
// library in the work dir, arXiv, Crossref and model servers that are
// nowhere (a script starts its fakes when it needs them: fakearxiv,
// fakecrossref, fakellm), so no test reaches out, and papers built
// without the race detector on PATH (plainBinary says why).
func scriptEnv(env *testscript.Env, data string) error {
	env.Setenv("DATA", data)
	env.Setenv("PAPERS_HOME", filepath.Join(env.WorkDir, "lib"))
	env.Setenv("LIB", filepath.Join(env.WorkDir, "lib"))
	env.Setenv("PAPERS_ARXIV_DELAY", "0")
	env.Setenv("PAPERS_ARXIV_API_URL", "http://127.0.0.1:1/api/query")
	env.Setenv("PAPERS_ARXIV_PDF_URL", "http://127.0.0.1:1/pdf/")
	env.Setenv("PAPERS_CROSSREF_API_URL", "http://127.0.0.1:1")
	env.Setenv("PAPERS_CROSSREF_DELAY", "0")
	env.Setenv("PAPERS_EMAIL", "")
	env.Setenv("OPENAI_API_KEY", "")
	env.Setenv("OPENAI_BASE_URL", "")
	env.Setenv("PAPERS_LLM", "")
	return usePlainBinary(env)
}

// fakeArxiv starts a fake arXiv for the rest of the script and points
// papers at it. It serves the real PDFs of shared/data/pdfs/papers under
// their arXiv ids, with records for them built from the reference text, plus
// every recorded API response. Arguments inject faults: 429=N, 503=N,
// reset=N, empty=N, html=N, truncate.
//
//	fakearxiv 429=1 reset=1
func fakeArxiv(t *testing.T, data string, ts *testscript.TestScript, args []string) {
	opts := arxivtest.Options{DataDir: data, PDFs: map[string]string{}}
	for id, f := range scriptPapers {
		opts.PDFs[id] = filepath.Join(data, "pdfs", "papers", f)
	}
	day := time.Date(2025, 1, 20, 12, 0, 0, 0, time.UTC)
	ids := []string{"2501.12948", "2501.10120", "2302.04761", "2212.08073"}
	for i, id := range ids {
		opts.Entries = append(opts.Entries, referenceEntry(ts.Check, data, id, day.AddDate(0, 0, -10*i)))
	}
	for _, a := range args {
		k, v, _ := strings.Cut(a, "=")
		n, _ := strconv.Atoi(v)
		switch k {
		case "429":
			opts.TooManyRequests = n
		case "503":
			opts.ServiceUnavailable = n
		case "reset":
			opts.Resets = n
		case "empty":
			opts.EmptyPages = n
		case "html":
			opts.HTMLPDFs = n
		case "truncate":
			opts.TruncatePDFs = true
		default:
			ts.Fatalf("fakearxiv: unknown option %q", a)
		}
	}
	srv := arxivtest.NewServer(t, opts)
	ts.Setenv("PAPERS_ARXIV_API_URL", srv.APIURL())
	ts.Setenv("PAPERS_ARXIV_PDF_URL", srv.PDFURL())
}

// scriptPapers are the shared PDFs that are arXiv papers, by id.
var scriptPapers = map[string]string{
	"2302.04761": "toolformer_2302.04761v1.pdf",
	"2501.12948": "deepseek_r1_2501.12948.pdf",
	"2212.08073": "constitutional_ai_2212.08073.pdf",
	"2501.10120": "pasa_2501.10120.pdf",
	"1111.2011":  "arxiv_1111.2011v2.pdf",
}

// referenceEntry makes the arXiv record of a real paper from its pdftotext
// reference text: the first line as title, the text after "Abstract" as
// summary.
func referenceEntry(check func(error), data, id string, published time.Time) arxiv.Entry {
	name := strings.TrimSuffix(scriptPapers[id], ".pdf") + ".txt"
	b, err := os.ReadFile(filepath.Join(data, "pdfs", "reference-text", name))
	check(err)
	text := strings.TrimSpace(string(b))
	title := strings.TrimSpace(strings.SplitN(text, "\n", 2)[0])
	if i := strings.Index(strings.ToLower(text), "abstract"); i >= 0 {
		text = text[i+len("abstract"):]
	}
	words := strings.Fields(text)
	return arxiv.Entry{
		ID: id, Version: 1, Title: title, Summary: strings.Join(words[:min(150, len(words))], " "),
		Authors:   []arxiv.Author{{Name: "First Author", Affiliations: []string{"A Lab"}}, {Name: "Second Author"}},
		Published: published, Updated: published,
		PrimaryCategory: "cs.CL", Categories: []string{"cs.CL", "cs.LG"},
		AbsURL: "https://arxiv.org/abs/" + id + "v1",
	}
}
