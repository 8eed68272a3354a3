package cmd

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/papers-cli/papers/internal/safetext"
	"github.com/papers-cli/papers/internal/textkit"
	"github.com/papers-cli/papers/resolve"
)

// table prints rows as aligned columns on a terminal and as tab-separated
// values when piped (gh's tableprinter does the same). Columns are aligned
// by display width (a CJK title takes two columns a character), so on a
// terminal the rows are held until flush.
type table struct {
	w     io.Writer
	tty   bool
	width int
	rows  [][]string
}

// newTable prints to w, which goes to the stdout of s.
func newTable(w io.Writer, s *IOStreams) *table {
	t := &table{w: w, tty: s.OutTTY}
	if t.tty {
		t.width = s.Width
	}
	return t
}

// row writes one row (piped) or keeps it for flush (on a terminal).
func (t *table) row(cols ...string) {
	for i, c := range cols {
		cols[i] = safetext.Line(c) // ids are stored as given; a library made before Put cleaned text
	}
	if !t.tty {
		fmt.Fprintln(t.w, strings.Join(cols, "\t"))
		return
	}
	t.rows = append(t.rows, cols)
}

// flush writes the rows kept on a terminal: every column but the last
// padded to the widest cell of its column plus two spaces, the last cut
// to what is left of the terminal's width.
func (t *table) flush() {
	var widths []int
	for _, r := range t.rows {
		for i, c := range r[:max(0, len(r)-1)] {
			if i == len(widths) {
				widths = append(widths, 0)
			}
			widths[i] = max(widths[i], textkit.Width(c))
		}
	}
	for _, r := range t.rows {
		var b strings.Builder
		used := 0
		for i, c := range r {
			if i == len(r)-1 {
				if t.width > 0 && len(r) > 1 {
					c = textkit.Truncate(c, max(20, t.width-used))
				}
				b.WriteString(c)
				break
			}
			b.WriteString(textkit.Pad(c, widths[i]+2))
			used += widths[i] + 2
		}
		fmt.Fprintln(t.w, strings.TrimRight(b.String(), " "))
	}
	t.rows = nil
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

// parseDate reads a date or a span back from now (resolve.Date); a
// malformed one is a usage error.
func parseDate(s string, now time.Time) (time.Time, error) {
	t, err := resolve.Date(s, now)
	return t, usage(err)
}
