package cmd

import (
	"runtime/debug"
	"strings"
	"testing"
)

func TestVersion(t *testing.T) {
	code, out, errs := runCmd(t, "version")
	if code != 0 || !strings.HasPrefix(out, "papers "+Version) {
		t.Errorf("papers version: exit %d, %q %q", code, out, errs)
	}
	code, out, _ = runCmd(t, "version", "--json")
	if code != 0 || !strings.Contains(out, `"version":"`) || !strings.Contains(out, `"commit":`) {
		t.Errorf("papers version --json: exit %d, %q", code, out)
	}
	for _, tc := range []struct {
		name string
		bi   *debug.BuildInfo
		want []string
	}{
		{"go build in a checkout", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: []debug.BuildSetting{
			{Key: "vcs.revision", Value: "95aad937dcd81379eb3bbfdfe6dd6f0f41a16506"}, {Key: "vcs.time", Value: "2026-12-07T12:33:39Z"}, {Key: "vcs.modified", Value: "true"}}},
			[]string{"papers " + Version + " (commit 95aad937dcd8 of 2026-12-07T12:33:39Z, with uncommitted changes)"}},
		{"go install module@version", &debug.BuildInfo{Main: debug.Module{Version: "v1.2.3"}}, []string{"papers 1.2.3 (commit not recorded)"}},
		{"no build information", nil, []string{"papers " + Version + " (commit not recorded)"}},
	} {
		got := infoOf(tc.bi).String()
		for _, w := range tc.want {
			if !strings.HasPrefix(got, w) {
				t.Errorf("%s: %q, want it to start %q", tc.name, got, w)
			}
		}
	}
}
