package cmd

import (
	"errors"
	"testing"
	"time"
)

// TestUntilCoversThePeriodNamed checks that --until names a whole day,
// month or year (--until 2023 keeps a paper of 2023-02-09), and that
// contradictory or malformed filters are usage errors.
func TestUntilCoversThePeriodNamed(t *testing.T) {
	for _, c := range []struct{ until, last string }{
		{"2023", "2023-12-31T23:59:59.999999999Z"},
		{"2023-02", "2023-02-28T23:59:59.999999999Z"},
		{"2024-02", "2024-02-29T23:59:59.999999999Z"},
		{"2023-02-09", "2023-02-09T23:59:59.999999999Z"},
		{"2023-02-09T10:00:00Z", "2023-02-09T10:00:00Z"},
	} {
		f, err := buildFilter("", c.until, nil, nil)
		if err != nil {
			t.Fatalf("--until %s: %v", c.until, err)
		}
		if got := f.Until.Format(time.RFC3339Nano); got != c.last {
			t.Errorf("--until %s ends at %s, want %s", c.until, got, c.last)
		}
	}
	f, err := buildFilter("2023", "", nil, nil)
	if err != nil || f.Since.Format(time.DateOnly) != "2023-01-01" {
		t.Errorf("--since 2023 starts at %v (%v), want 2023-01-01", f.Since, err)
	}
	for _, bad := range []struct {
		since, until string
		cats         []string
	}{
		{"2026-05-20", "2026-05-10", nil},
		{"", "", []string{"cs.LG,cs.CL"}},
		{"", "last week", nil},
	} {
		_, err := buildFilter(bad.since, bad.until, bad.cats, nil)
		var ee *exitError
		if !errors.As(err, &ee) || ee.code != ExitUsage {
			t.Errorf("buildFilter(%q, %q, %q) = %v, want a usage error", bad.since, bad.until, bad.cats, err)
		}
	}
}
