// Package exporttest checks an export with the programs that read it:
// bibtex (TeX Live's, with the plain style, every entry cited) and biber
// (in tool mode, which parses and validates a data file without LaTeX).
// The programs are Debian's texlive-binaries, texlive-base (plain.bst) and
// biber; a test that needs them fails, saying how to install them, when
// they are missing.
package exporttest

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// Report is what the programs said of a .bib file: the lines of each that
// are errors and warnings (bibtex's "Warning--..." lines; biber's "WARN -"
// and "ERROR -" lines), and how many entries bibtex wrote.
type Report struct {
	BibTeXErrors, BibTeXWarnings []string
	BiberErrors, BiberWarnings   []string
	Entries                      int
}

// NameWarnings are the warnings and errors of both programs about names
// (too many commas, a name it could not parse).
func (r Report) NameWarnings() []string {
	var out []string
	for _, l := range append(append(append(clone(r.BibTeXErrors), r.BibTeXWarnings...), r.BiberErrors...), r.BiberWarnings...) {
		if nameTrouble.MatchString(l) {
			out = append(out, l)
		}
	}
	return out
}

// nameTrouble is what the programs say of a name they cannot read as one
// person: bibtex's "Too many commas in name 1 of ..." and biber's
// `Name "..." has too many commas` or a name it could not parse.
var nameTrouble = regexp.MustCompile(`(?i)too many commas|\bname ["'{]|\bnames? .*(invalid|could not|cannot|unparse)`)

func clone(s []string) []string { return append([]string(nil), s...) }

// Need fails the test, naming the packages, when bibtex, plain.bst or
// biber are missing.
func Need(t testing.TB) {
	t.Helper()
	for _, p := range []string{"bibtex", "kpsewhich", "biber"} {
		if _, err := exec.LookPath(p); err != nil {
			t.Fatalf("%s is needed to check that exports compile: apt-get install texlive-binaries texlive-base biber (.ci/run installs them)", p)
		}
	}
	if out, err := exec.Command("kpsewhich", "plain.bst").Output(); err != nil || len(bytes.TrimSpace(out)) == 0 {
		t.Fatalf("plain.bst is needed to check that exports compile with bibtex: apt-get install texlive-base (.ci/run installs it)")
	}
}

// Check runs bibtex and biber on bib and returns what they said. It fails
// the test if either cannot run at all.
func Check(t testing.TB, bib []byte) Report {
	t.Helper()
	Need(t)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "refs.bib"), bib, 0o600); err != nil {
		t.Fatal(err)
	}
	aux := "\\citation{*}\n\\bibstyle{plain}\n\\bibdata{refs}\n"
	if err := os.WriteFile(filepath.Join(dir, "doc.aux"), []byte(aux), 0o600); err != nil {
		t.Fatal(err)
	}
	var r Report
	cmd := exec.Command("bibtex", "doc")
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); err != nil && (!ok || ee.ExitCode() > 2) {
		t.Fatalf("bibtex could not run: %v\n%s", err, out)
	}
	blg, _ := os.ReadFile(filepath.Join(dir, "doc.blg"))
	r.BibTeXErrors, r.BibTeXWarnings = bibtexLog(string(blg))
	bbl, _ := os.ReadFile(filepath.Join(dir, "doc.bbl"))
	r.Entries = bytes.Count(bbl, []byte(`\bibitem`))

	cmd = exec.Command("biber", "--tool", "--validate-datamodel", "--nolog", "--output-file", filepath.Join(dir, "out.bib"), "refs.bib")
	cmd.Dir = dir
	out, err = cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("biber could not run: %v\n%s", err, out)
	}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		switch l := sc.Text(); {
		case strings.HasPrefix(l, "ERROR - "):
			r.BiberErrors = append(r.BiberErrors, l)
		case strings.HasPrefix(l, "WARN - "):
			r.BiberWarnings = append(r.BiberWarnings, l)
		}
	}
	return r
}

// bibtexLog reads bibtex's log: an error is reported as its message
// followed by "---line N of file F" (or "while executing---line ..."),
// a warning as "Warning--...".
func bibtexLog(log string) (errs, warns []string) {
	lines := strings.Split(log, "\n")
	for i, l := range lines {
		switch {
		case strings.HasPrefix(l, "Warning--"):
			warns = append(warns, l)
		case strings.Contains(l, "---line ") || strings.HasPrefix(l, "I'm skipping") || strings.HasPrefix(l, "I was expecting"):
			if i > 0 && !strings.Contains(l, "---line ") {
				errs = append(errs, l)
			} else if i > 0 {
				errs = append(errs, lines[i-1]+" "+l)
			}
		}
	}
	return errs, warns
}
