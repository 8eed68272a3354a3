package lazyre

import (
	"slices"
	"strings"
	"sync"
	"testing"
)

func TestCompiledOnFirstUseOnce(t *testing.T) {
	r := New(`(\d+)-(\d+)`)
	if r.re != nil {
		t.Fatal("compiled at New")
	}
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if m := r.FindStringSubmatch("pages 12-19"); len(m) != 3 || m[1] != "12" || m[2] != "19" {
				t.Errorf("FindStringSubmatch: %q", m)
			}
		}()
	}
	wg.Wait()
	if first := r.Re(); first != r.Re() {
		t.Error("compiled twice")
	}
	if got := r.ReplaceAllString("1-2 and 3-4", "$2-$1"); got != "2-1 and 4-3" {
		t.Errorf("ReplaceAllString: %q", got)
	}
}

func TestCheckNamesABadExpression(t *testing.T) {
	if err := Check(); err != nil {
		t.Fatalf("before a bad one: %v", err)
	}
	n := Count()
	New(`(unclosed`)
	if Count() != n+1 {
		t.Errorf("Count %d, want %d", Count(), n+1)
	}
	err := Check()
	if err == nil || !strings.Contains(err.Error(), "missing closing )") {
		t.Errorf("Check of (unclosed: %v", err)
	}
}

// The literals looked for first are those every match needs: matching
// with them agrees with the matcher alone, and an expression with a branch
// or a part of no literal, or with case folded, looks for none.
func TestRequiredLiterals(t *testing.T) {
	for _, c := range []struct {
		expr string
		need []string
	}{
		{`\boutperform`, []string{"outperform"}},
		{`\bwe (propose|present)\b`, []string{"opose", "esent"}}, // the parser factors out "pr"; the longest part wins
		{`\b(code|software)\b.*\b(released?|available)\b`, []string{"release", "available"}},
		{`\bby (over |about )?\d`, []string{"by "}},
		{`(?i)\blimitations?\b`, nil},
		{`a|bcd`, nil},
		{`(abc)+x`, []string{"abc"}},
		{`(abc)*x`, nil},
	} {
		r := New(c.expr)
		r.Re()
		if !slices.Equal(r.need, c.need) {
			t.Errorf("%q: looks for %q, want %q", c.expr, r.need, c.need)
		}
	}
	texts := []string{"", "we propose a method", "We Propose", "the software is available", "software, not available",
		"LIMITATIONS", "abcabcx", "x", "outperforms by over 3", "a bcd", "by about 5"}
	if err := Agree(texts); err != nil {
		t.Error(err)
	}
}
