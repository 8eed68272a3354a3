package cmd

import (
	"strings"
	"testing"
)

// TestRm removes papers: an unknown id among them removes none; the
// removed ones are gone from list, show and search, the others stay.
func TestRm(t *testing.T) {
	home := askLibrary(t)
	code, _, errs := runCmd(t, "--home", home, "rm", "topic-001", "nosuch")
	if code != ExitError || !strings.Contains(errs, "nosuch is not in the library") {
		t.Fatalf("rm with an unknown id: exit %d, stderr %q", code, errs)
	}
	if code, _, _ := runCmd(t, "--home", home, "show", "topic-001"); code != 0 {
		t.Fatal("topic-001 was removed although the command failed")
	}
	code, out, errs := runCmd(t, "--home", home, "rm", "--json", "topic-001", "topic-012")
	if code != 0 || strings.TrimSpace(out) != `{"removed":["topic-001","topic-012"]}` {
		t.Fatalf("rm: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	if code, _, errs := runCmd(t, "--home", home, "show", "topic-001"); code != ExitError || !strings.Contains(errs, "not in the library") {
		t.Errorf("show after rm: exit %d, %s", code, errs)
	}
	_, list, _ := runCmd(t, "--home", home, "list")
	if strings.Contains(list, "topic-001") || strings.Contains(list, "topic-012") || !strings.Contains(list, "topic-002") {
		t.Errorf("list after rm:\n%s", list)
	}
	_, found, _ := runCmd(t, "--home", home, "search", "--json", "ECHO Environment Cross-entropy Hybrid Objective")
	if strings.Contains(found, `"id":"topic-001"`) {
		t.Error("search still finds a removed paper")
	}
}
