package main

import (
	"path/filepath"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

// TestBareScripts runs the end-to-end scripts of testdata/bare, which need
// nothing outside the repository: usage errors, and the tour on the
// repository's own test data ($REPO/testdata). They run in a clone
// without ../shared/data, where the other scripts are left out.
func TestBareScripts(t *testing.T) {
	repo, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	testscript.Run(t, testscript.Params{
		Dir: filepath.Join("testdata", "bare"),
		Setup: func(env *testscript.Env) error {
			env.Setenv("REPO", repo)
			return scriptEnv(env, "")
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){"exitcode": exitCode},
	})
}
