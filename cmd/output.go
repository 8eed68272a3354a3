package cmd

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/papers-cli/papers/internal/safetext"
)

// table prints rows as aligned columns on a terminal and as tab-separated
// values when piped (gh's tableprinter does the same).
type table struct {
	w     io.Writer
	tty   bool
	tw    *tabwriter.Writer
	width int
}

// newTable prints to w, which goes to the stdout of s.
func newTable(w io.Writer, s *IOStreams) *table {
	t := &table{w: w, tty: s.OutTTY}
	if t.tty {
		t.tw = tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		t.width = s.Width
	}
	return t
}

// row writes one row; on a terminal the last column is cut to the width.
func (t *table) row(cols ...string) {
	for i, c := range cols {
		cols[i] = safetext.Line(c) // ids are stored as given; a library made before Put cleaned text
	}
	if !t.tty {
		fmt.Fprintln(t.w, strings.Join(cols, "\t"))
		return
	}
	if t.width > 0 && len(cols) > 1 {
		used := 0
		for _, c := range cols[:len(cols)-1] {
			used += len([]rune(c)) + 2
		}
		cols[len(cols)-1] = truncate(cols[len(cols)-1], max(20, t.width-used))
	}
	fmt.Fprintln(t.tw, strings.Join(cols, "\t"))
}

func (t *table) flush() {
	if t.tw != nil {
		t.tw.Flush()
	}
}

func truncate(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// writeJSON writes v as one line of JSON (NDJSON when called per record).
func writeJSON(w io.Writer, v any) error {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return err
	}
	// C1 and bidi controls (from a corpus, a feed, a PDF) as \u escapes:
	// inert when the JSON is read on a terminal, the same strings decoded.
	_, err := w.Write(safetext.EscapeJSON(b.Bytes()))
	return err
}

// day formats a date as YYYY-MM-DD, or "" when unknown.
func day(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format("2006-01-02")
}

// parseDate reads an absolute date (YYYY-MM-DD, YYYY-MM, YYYY) or a
// duration back from now (7d, 4w, 3m, 1y) for --since/--until.
func parseDate(s string, now time.Time) (time.Time, error) {
	t, _, err := parsePeriod(s, now)
	return t, err
}

// parsePeriod is parseDate that also returns the last instant of the period
// s names: the end of the day, month or year for YYYY-MM-DD, YYYY-MM and
// YYYY ("--until 2023" includes all of 2023), the instant itself otherwise.
func parsePeriod(s string, now time.Time) (start, end time.Time, err error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return time.Time{}, time.Time{}, nil
	}
	for _, p := range []struct {
		layout      string
		years, mons int
		days        int
	}{{"2006-01-02", 0, 0, 1}, {"2006-01", 0, 1, 0}, {"2006", 1, 0, 0}} {
		if t, err := time.Parse(p.layout, s); err == nil {
			return t, t.AddDate(p.years, p.mons, p.days).Add(-time.Nanosecond), nil
		}
	}
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t, t, nil
	}
	t, err := parseSpan(s, now)
	return t, t, err
}

// parseSpan reads a span back from now: 7d, 4w, 3m, 1y.
func parseSpan(s string, now time.Time) (time.Time, error) {
	if len(s) >= 2 {
		n, err := strconv.Atoi(s[:len(s)-1])
		if err == nil && n >= 0 {
			switch s[len(s)-1] {
			case 'd':
				return now.AddDate(0, 0, -n), nil
			case 'w':
				return now.AddDate(0, 0, -7*n), nil
			case 'm':
				return now.AddDate(0, -n, 0), nil
			case 'y':
				return now.AddDate(-n, 0, 0), nil
			}
		}
	}
	return time.Time{}, usageError("invalid date %q: use YYYY-MM-DD, YYYY-MM, YYYY or a span back from today like 7d, 4w, 3m, 1y", s)
}

// plural says "1 paper", "2 papers", "0 papers": n and the noun, with an s
// unless n is 1 (every noun papers counts takes an s).
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}
