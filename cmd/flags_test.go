package cmd

import (
	"errors"
	"testing"

	"github.com/spf13/cobra"
)

// TestFormatFlags: --format and its shortcuts (--json, export's --bibtex)
// choose one format; a shortcut that contradicts --format is a usage error.
func TestFormatFlags(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string // "" for a usage error
	}{
		{nil, "bibtex"},
		{[]string{"--json"}, "csl-json"},
		{[]string{"--bibtex"}, "bibtex"},
		{[]string{"--format", "CSL"}, "csl-json"},
		{[]string{"--format", "csl-json", "--json"}, "csl-json"},
		{[]string{"--format", "bibtex", "--json"}, ""},
		{[]string{"--bibtex", "--json"}, ""},
		{[]string{"--format", "ris"}, ""},
	} {
		var f formatFlags
		c := &cobra.Command{Use: "export", RunE: func(*cobra.Command, []string) error { return nil }}
		f.register(c, "bibtex", []string{"bibtex", "csl-json"}, map[string]string{"csl": "csl-json"}, "")
		f.shortcut(c, "bibtex", "bibtex", "")
		f.shortcut(c, "json", "csl-json", "")
		if err := c.ParseFlags(tc.args); err != nil {
			t.Fatal(err)
		}
		got, err := f.resolve(c)
		var ee *exitError
		switch {
		case tc.want == "" && !(errors.As(err, &ee) && ee.code == ExitUsage):
			t.Errorf("%v: %q, %v; want a usage error", tc.args, got, err)
		case tc.want != "" && (err != nil || got != tc.want):
			t.Errorf("%v: %q, %v; want %q", tc.args, got, err, tc.want)
		}
	}
}
