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
	"github.com/papers-cli/papers/resolve"
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

// parseDate reads a date or a span back from now (resolve.Date); a
// malformed one is a usage error.
func parseDate(s string, now time.Time) (time.Time, error) {
	t, err := resolve.Date(s, now)
	return t, usage(err)
}

// plural says "1 paper", "2 papers", "0 papers": n and the noun, with an s
// unless n is 1 (every noun papers counts takes an s).
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}
