package lazyre

import (
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
