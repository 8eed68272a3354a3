package review

import (
	"cmp"
	"encoding/csv"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/papers-cli/papers/internal/safetext"
)

// Output formats of Write.
const (
	FormatTable    = "table"
	FormatMarkdown = "markdown"
	FormatCSV      = "csv"
)

// NotStated is how a cell the paper does not state reads in every format
// for people and spreadsheets (the JSON says "stated": false).
const NotStated = "not stated"

// Table layout bounds: the paper column's width, the narrowest column a
// table is drawn with (narrower, each paper becomes a block of lines), and
// the lines a cell may take before it is cut.
const (
	labelWidth    = 14
	minCellWidth  = 11
	maxCellLines  = 8
	maxLabelLines = 3
	columnGap     = " │ "
	defaultWidth  = 100
	questionsHead = "Columns:"
)

// WriteTable draws t for a terminal width columns wide (0: 100): a row per
// paper (its number, short name and id), a column per question, each cell
// its short answer wrapped, then its page ("p. 3") or "not stated"; under
// the table each column's question. When the columns would be narrower
// than minCellWidth, each paper is a block of "Name: answer (p. 3)" lines
// instead. Text from papers is made inert (no terminal controls).
func WriteTable(w io.Writer, t *Table, width int) error {
	if width <= 0 {
		width = defaultWidth
	}
	var b strings.Builder
	n := len(t.Columns)
	cellW := 0
	if n > 0 {
		cellW = (width - labelWidth - n*len([]rune(columnGap))) / n
	}
	if n == 0 || cellW < minCellWidth {
		writeBlocks(&b, t, width)
	} else {
		writeGrid(&b, t, cellW)
	}
	writeQuestions(&b, t, width)
	_, err := io.WriteString(w, b.String())
	return err
}

func writeGrid(b *strings.Builder, t *Table, cellW int) {
	header := [][]string{wrap("Paper", labelWidth)}
	for _, c := range t.Columns {
		header = append(header, wrap(c.Name, cellW))
	}
	writeLines(b, header, cellW)
	rule := strings.Repeat("─", labelWidth)
	for range t.Columns {
		rule += "─┼─" + strings.Repeat("─", cellW)
	}
	b.WriteString(rule + "\n")
	for i, r := range t.Rows {
		cols := [][]string{append(cut(wrap(fmt.Sprintf("%d. %s", i+1, cmp.Or(r.Name, r.Title)), labelWidth), maxLabelLines, labelWidth), wrap(r.ID, labelWidth)...)}
		for _, c := range r.Cells {
			cols = append(cols, cellLines(c, cellW))
		}
		writeLines(b, cols, cellW)
		if i+1 < len(t.Rows) {
			b.WriteString("\n")
		}
	}
}

// writeLines writes one row of the grid: the columns' lines side by side.
func writeLines(b *strings.Builder, cols [][]string, cellW int) {
	h := 0
	for _, c := range cols {
		h = max(h, len(c))
	}
	for l := 0; l < h; l++ {
		var line strings.Builder
		for k, c := range cols {
			w := cellW
			if k == 0 {
				w = labelWidth
			} else {
				line.WriteString(columnGap)
			}
			s := ""
			if l < len(c) {
				s = c[l]
			}
			line.WriteString(s + strings.Repeat(" ", max(0, w-ansi.StringWidth(s))))
		}
		b.WriteString(strings.TrimRight(line.String(), " ") + "\n")
	}
}

// cellLines is a cell as the grid shows it, at most maxCellLines lines.
func cellLines(c Cell, w int) []string {
	if !c.Stated {
		if c.Note != "" {
			return wrap("? "+c.Note, w)
		}
		return []string{NotStated}
	}
	lines := wrap(c.Answer, w)
	var tail []string
	if p := c.Pages(); p != "" {
		tail = append(tail, p)
	}
	if c.Note != "" {
		tail = append(tail, "(no quote)")
	}
	return append(cut(lines, maxCellLines-len(tail), w), tail...)
}

// cut keeps the first n of lines (w wide), the last ending in "…" when
// some were dropped.
func cut(lines []string, n, w int) []string {
	if len(lines) <= n {
		return lines
	}
	lines = lines[:n]
	lines[n-1] = ansi.Truncate(lines[n-1], max(0, w-1), "") + "…" // by display width: a CJK character is two cells
	return lines
}

func writeBlocks(b *strings.Builder, t *Table, width int) {
	for i, r := range t.Rows {
		head := fmt.Sprintf("%d. %s (%s)", i+1, line(r.Title), line(r.ID))
		for _, l := range wrap(head, width) {
			b.WriteString(l + "\n")
		}
		for j, c := range r.Cells {
			s := t.Columns[j].Name + ": " + cellText(c)
			for k, l := range wrap(s, width-3) {
				if k == 0 {
					b.WriteString("   " + l + "\n")
				} else {
					b.WriteString("     " + l + "\n")
				}
			}
		}
		if i+1 < len(t.Rows) {
			b.WriteString("\n")
		}
	}
}

// cellText is a cell on one line: "answer (p. 3)", "not stated".
func cellText(c Cell) string {
	if !c.Stated {
		if c.Note != "" {
			return NotStated + " (" + c.Note + ")"
		}
		return NotStated
	}
	s := line(c.Answer)
	if p := c.Pages(); p != "" {
		s += " (" + p + ")"
	}
	if c.Note != "" {
		s += " [" + c.Note + "]"
	}
	return s
}

func writeQuestions(b *strings.Builder, t *Table, width int) {
	var qs []string
	for i, c := range t.Columns {
		if c.Name != c.Question {
			qs = append(qs, fmt.Sprintf("%d. %s: %s", i+1, c.Name, line(c.Question)))
		}
	}
	if len(qs) == 0 {
		return
	}
	b.WriteString("\n" + questionsHead + "\n")
	for _, q := range qs {
		for k, l := range wrap(q, width-2) {
			if k == 0 {
				b.WriteString("  " + l + "\n")
			} else {
				b.WriteString("     " + l + "\n")
			}
		}
	}
}

// wrap breaks s (made inert, on one line) into lines of at most w cells.
func wrap(s string, w int) []string {
	s = line(s)
	if s == "" {
		return []string{""}
	}
	return strings.Split(ansi.Wrap(s, max(1, w), "-"), "\n")
}

// line is s made inert for a terminal and put on one line.
func line(s string) string { return safetext.OneLine(s) }

// WriteMarkdown writes t as a Markdown pipe table for notes: a row per
// paper (its title and id), a cell per question with the short answer,
// the quote and its page, "_not stated_" when the paper does not state
// it; then the columns' questions.
func WriteMarkdown(w io.Writer, t *Table) error {
	var b strings.Builder
	b.WriteString("| # | Paper |")
	for _, c := range t.Columns {
		b.WriteString(" " + mdCell(c.Name) + " |")
	}
	b.WriteString("\n|---:|---|")
	for range t.Columns {
		b.WriteString("---|")
	}
	b.WriteString("\n")
	for i, r := range t.Rows {
		fmt.Fprintf(&b, "| %d | %s (%s) |", i+1, mdCell(r.Title), mdCell(r.ID))
		for _, c := range r.Cells {
			b.WriteString(" " + mdAnswer(c) + " |")
		}
		b.WriteString("\n")
	}
	if len(t.Columns) > 0 {
		b.WriteString("\n")
		for i, c := range t.Columns {
			fmt.Fprintf(&b, "%d. **%s**: %s\n", i+1, mdCell(c.Name), mdCell(c.Question))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func mdAnswer(c Cell) string {
	if !c.Stated {
		if c.Note != "" {
			return "_" + NotStated + "_ (" + mdCell(c.Note) + ")"
		}
		return "_" + NotStated + "_"
	}
	s := mdCell(c.Answer)
	if c.Quote != "" && !sameText(c.Answer, c.Quote) {
		s += " — “" + mdCell(c.Quote) + "”"
	} else if c.Quote != "" {
		s = "“" + mdCell(c.Quote) + "”"
	}
	if p := c.Pages(); p != "" {
		s += " (" + p + ")"
	}
	if c.Note != "" {
		s += " ⚠ " + mdCell(c.Note)
	}
	return s
}

// sameText reports an answer that is its quote, whole or cut ("…").
func sameText(answer, quote string) bool {
	a := strings.TrimSuffix(strings.TrimSpace(answer), "…")
	return strings.HasPrefix(safetext.OneLine(quote), strings.TrimSpace(safetext.OneLine(a)))
}

// mdCell makes text safe inside a pipe table cell: one line, pipes and
// HTML escaped (a paper's "<API>" stays visible), inert.
func mdCell(s string) string {
	return mdEscape.Replace(line(s))
}

// mdEscape escapes what Markdown would read as table syntax, HTML or
// emphasis in a paper's text.
var mdEscape = strings.NewReplacer(`\`, `\\`, "|", `\|`, "<", "&lt;", ">", "&gt;", "*", `\*`, "_", `\_`, "`", "\\`")

// WriteCSV writes t for spreadsheets: a header, then one row per paper:
// id, title, and for each column its answer ("not stated" when the paper
// does not state it), quote, page and section. A value a spreadsheet
// would run as a formula (starting with =, +, @ or -) gets a leading '.
func WriteCSV(w io.Writer, t *Table) error {
	cw := csv.NewWriter(w)
	head := []string{"id", "title"}
	for _, c := range t.Columns {
		for _, f := range []string{"answer", "quote", "page", "section"} {
			head = append(head, c.Name+": "+f)
		}
	}
	if err := cw.Write(head); err != nil {
		return err
	}
	for _, r := range t.Rows {
		rec := []string{csvValue(r.ID), csvValue(r.Title)}
		for _, c := range r.Cells {
			answer := c.Answer
			if !c.Stated {
				answer = NotStated
			}
			page := ""
			if c.Page > 0 {
				page = strconv.Itoa(c.Page)
			}
			rec = append(rec, csvValue(answer), csvValue(c.Quote), page, csvValue(c.Section))
		}
		if err := cw.Write(rec); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

func csvValue(s string) string {
	s = safetext.OneLine(safetext.Clean(s))
	if s != "" && strings.ContainsRune("=+@-", rune(s[0])) && !(s[0] == '-' && len(s) > 1 && s[1] >= '0' && s[1] <= '9') {
		s = "'" + s
	}
	return s
}
