package browse

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/papers-cli/papers/internal/safetext"
	"github.com/papers-cli/papers/internal/textkit"
	"github.com/papers-cli/papers/review"
	"github.com/papers-cli/papers/store"
	"github.com/papers-cli/papers/topic"
)

// styles are the page's looks; with colour off every one is plain, so
// the screen holds no escape sequence at all.
type styles struct {
	title, heading, dim, sel, accent, warn lipgloss.Style
}

func newStyles(color bool) styles {
	if !color {
		p := lipgloss.NewStyle()
		return styles{p, p, p, p, p, p}
	}
	return styles{
		title:   lipgloss.NewStyle().Bold(true).Foreground(lipgloss.Color("12")),
		heading: lipgloss.NewStyle().Bold(true),
		dim:     lipgloss.NewStyle().Foreground(lipgloss.Color("245")),
		sel:     lipgloss.NewStyle().Reverse(true),
		accent:  lipgloss.NewStyle().Foreground(lipgloss.Color("11")),
		warn:    lipgloss.NewStyle().Foreground(lipgloss.Color("9")),
	}
}

// layout sizes the viewports to the terminal.
func (m *Model) layout() {
	m.paperView.SetWidth(m.w)
	m.paperView.SetHeight(max(1, m.h-2))
	m.answerView.SetWidth(m.w)
	m.answerView.SetHeight(max(1, m.h-4))
	m.reviewView.SetWidth(m.w)
	m.reviewView.SetHeight(max(1, m.h-3))
	if m.reviewTable != nil {
		m.renderReview()
	}
	if m.paper != nil {
		m.renderPaper()
	}
	if m.answerQ != "" {
		m.renderAnswer(false)
	}
	m.input.SetWidth(max(10, m.w-len(m.input.Prompt)-2))
	m.pageList.fit(max(1, m.listRowsOf(scrPage)/3))
	m.relatedList.fit(max(1, m.listRowsOf(scrRelated)/3))
	m.searchList.fit(max(1, m.listRowsOf(scrSearch)/2))
}

// View draws the screen: exactly the terminal's height in lines, none
// wider than it.
func (m *Model) View() tea.View {
	var lines []string
	switch {
	case m.err != nil:
		lines = []string{m.st.warn.Render("papers browse: " + safetext.OneLine(m.err.Error())), "", "q quits"}
	default:
		switch m.top() {
		case scrPage:
			lines = m.pageLines()
		case scrPaper:
			lines = m.paperLines()
		case scrAnswer:
			lines = m.answerLines()
		case scrSearch:
			lines = m.searchLines()
		case scrRelated:
			lines = m.relatedLines()
		case scrPicker:
			lines = m.pickerLines()
		case scrHelp:
			lines = m.helpLines()
		case scrReview:
			lines = m.reviewLines()
		}
	}
	body := max(0, m.h-1)
	if len(lines) > body {
		lines = lines[:body]
	}
	for len(lines) < body {
		lines = append(lines, "")
	}
	lines = append(lines, m.footer())
	for i, l := range lines {
		lines[i] = strings.TrimRight(ansi.Truncate(l, m.w, "…"), " ")
	}
	v := tea.NewView(strings.Join(lines, "\n"))
	v.AltScreen = true
	v.WindowTitle = "papers browse"
	return v
}

// listRows is how many lines the list of the screen shown gets.
func (m *Model) listRows() int { return m.listRowsOf(m.top()) }

// listRowsOf is how many lines the list of screen s gets.
func (m *Model) listRowsOf(s screen) int {
	switch s {
	case scrSearch, scrRelated:
		return max(1, m.h-3)
	}
	return max(1, m.h-1-len(m.headerLines()))
}

// headerLines are the page's top: title, description, momentum, chart and
// the list's heading.
func (m *Model) headerLines() []string {
	pg := m.page
	if pg == nil {
		return []string{m.st.dim.Render("loading…")}
	}
	var out []string
	name := pg.Topic.Name
	if pg.All {
		name = "All papers"
	}
	desc := pg.Topic.Description
	if pg.All {
		desc = "the whole library"
	} else if strings.TrimSpace(desc) == "" {
		desc = "no description yet: papers topic describe " + pg.Topic.Name + " writes one"
	}
	name, desc = safetext.OneLine(name), safetext.OneLine(desc)
	title := m.st.title.Render(name)
	if desc != "" && ansi.StringWidth(name)+3+ansi.StringWidth(desc) <= m.w {
		out = append(out, title+m.st.dim.Render(" · "+desc))
	} else {
		out = append(out, title)
		if desc != "" {
			out = append(out, wrap(desc, m.w, 2)...)
		}
	}
	if mo := pg.Momentum; mo != nil {
		sentence := mo.Sentence()
		note := ""
		switch {
		case mo.Source == "library" && !pg.All:
			note = "from the library"
		case mo.Source == "arxiv":
			// where the counts come from: arXiv's papers matching the
			// query, which need not be the papers the topic holds
			note = "on arXiv, for its query " + safetext.OneLine(pg.Topic.Query)
			if h := pg.Held; h != nil && h.Last4 != mo.Last4 {
				note += fmt.Sprintf("; the library holds %d from these weeks", h.Last4)
			}
		}
		if mo.Last4 == 0 && len(pg.Papers) > 0 && !pg.Papers[0].Published.IsZero() {
			// An empty chart: say when the page's papers are from.
			note = strings.TrimPrefix(note+"; the newest paper is of "+textkit.Day(pg.Papers[0].Published), "; ")
		}
		if note != "" {
			sentence += " (" + note + ")"
		}
		out = append(out, wrap(sentence, m.w, 2)...)
		if m.h >= 20 {
			out = append(out, m.chart(mo.Weekly)...)
		}
	}
	out = append(out, "", m.st.heading.Render(fmt.Sprintf("Latest papers %d", max(pg.Total, len(pg.Papers)))))
	return out
}

// chart draws the weekly counts as columns three lines high, with the
// first and last weeks' dates under them.
func (m *Model) chart(weeks []topic.Week) []string {
	if len(weeks) == 0 {
		return nil
	}
	const height = 3
	most := 0
	for _, w := range weeks {
		most = max(most, w.Count)
	}
	blocks := []rune(" ▁▂▃▄▅▆▇█")
	colW := 3
	label := strconv.Itoa(most)
	rows := make([]strings.Builder, height)
	for _, w := range weeks {
		level := 0 // in eighths of a line
		if most > 0 {
			level = int(math.Round(float64(w.Count) * height * 8 / float64(most)))
			if level == 0 && w.Count > 0 {
				level = 1
			}
		}
		for r := range height {
			fill := level - (height-1-r)*8 // eighths in row r (0 is the top)
			c := string(blocks[min(max(fill, 0), 8)])
			if r == height-1 && w.Count == 0 {
				c = "·" // an empty week still shows on the baseline
			}
			rows[r].WriteString(strings.Repeat(c, colW-1) + " ")
		}
	}
	pad := strings.Repeat(" ", len(label))
	out := make([]string, 0, height+1)
	for r := range height {
		lead := pad
		if r == 0 {
			lead = label
		}
		out = append(out, m.st.dim.Render(lead)+" "+m.st.accent.Render(strings.TrimRight(rows[r].String(), " ")))
	}
	first, last := weekLabel(weeks[0].Start), weekLabel(weeks[len(weeks)-1].Start)
	span := len(weeks)*colW - 1
	gap := max(1, span-ansi.StringWidth(first)-ansi.StringWidth(last))
	out = append(out, pad+" "+m.st.dim.Render(first+strings.Repeat(" ", gap)+last)+m.st.dim.Render("  papers a week"))
	return out
}

func weekLabel(day string) string {
	t, err := time.Parse("2006-01-02", day)
	if err != nil {
		return day
	}
	return t.Format("Jan 02")
}

func (m *Model) pageLines() []string {
	lines := m.headerLines()
	pg := m.page
	if pg == nil {
		return lines
	}
	if len(pg.Papers) == 0 {
		hint := "no papers yet: papers update " + pg.Topic.Name
		if pg.All {
			hint = "the library is empty: papers ingest QUERY"
		}
		return append(lines, m.st.dim.Render(hint))
	}
	return append(lines, m.paperItems(pg.Papers, nil, &m.pageList, m.listRows())...)
}

// paperItems draws papers three lines each (date, category, title and the
// saved mark; authors and affiliations; tags), from the cursor's top, in
// rows lines.
func (m *Model) paperItems(ps []store.Paper, scores []float32, c *cursor, rows int) []string {
	var out []string
	for i := c.top; i < len(ps) && len(out)+3 <= max(rows, 3); i++ {
		p := ps[i]
		mark := "  "
		if i == c.i {
			mark = "▸ "
		}
		date := textkit.Day(p.Published)
		if date == "" {
			date = "          "
		}
		cat := ""
		if len(p.Categories) > 0 {
			cat = safetext.OneLine(p.Categories[0])
		}
		star := ""
		if !p.Saved.IsZero() {
			star = " ★"
		}
		score := ""
		if scores != nil {
			score = fmt.Sprintf("%.2f ", scores[i])
		}
		head := fmt.Sprintf("%s%s%s %-8s ", mark, score, date, cat)
		titleW := max(10, m.w-ansi.StringWidth(head)-ansi.StringWidth(star))
		title := ansi.Truncate(safetext.OneLine(p.Title), titleW, "…")
		line := head + title + m.st.accent.Render(star)
		if i == c.i {
			line = m.st.sel.Render(head+title) + m.st.accent.Render(star)
		}
		indent := "    "
		who := authorsLine(p.Authors)
		if len(p.Affiliations) > 0 {
			who += " · " + strings.Join(p.Affiliations, "; ")
		}
		tags := safetext.OneLine(tagLine(p.Tags))
		out = append(out, line, m.st.dim.Render(indent+safetext.OneLine(who)), m.st.dim.Render(indent+tags))
	}
	return out
}

// authorsLine is the first three authors and "+N" for the others.
func authorsLine(as []string) string {
	if len(as) <= 3 {
		return strings.Join(as, ", ")
	}
	return strings.Join(as[:3], ", ") + fmt.Sprintf(" +%d", len(as)-3)
}

// tagLine lists tags as the feed does, "A · B · C".
func tagLine(ts []store.Tag) string {
	names := make([]string, 0, len(ts))
	for _, t := range ts {
		names = append(names, t.Name)
	}
	return strings.Join(names, " · ")
}

// renderPaper fills the paper's viewport: its record, abstract, sections
// with their pages, and its chunks.
func (m *Model) renderPaper() {
	d := m.paper
	if d == nil {
		return
	}
	p := d.Paper
	w := max(20, m.w)
	var b []string
	add := func(label, v string) {
		if strings.TrimSpace(v) == "" {
			return
		}
		for i, l := range wrap(v, w-14, 0) {
			if i == 0 {
				b = append(b, m.st.dim.Render(fmt.Sprintf("%-13s ", label+":"))+l)
			} else {
				b = append(b, strings.Repeat(" ", 14)+l)
			}
		}
	}
	for _, l := range wrap(safetext.OneLine(p.Title), w, 0) {
		b = append(b, m.st.title.Render(l))
	}
	b = append(b, "")
	id := p.ID
	if p.Version > 0 {
		id += fmt.Sprintf("v%d", p.Version)
	}
	add("id", id)
	add("published", textkit.Day(p.Published))
	add("categories", strings.Join(p.Categories, " "))
	add("authors", strings.Join(p.Authors, ", "))
	add("affiliations", strings.Join(p.Affiliations, "; "))
	add("tags", tagLine(p.Tags))
	if !p.Saved.IsZero() {
		add("saved", "★ "+textkit.Day(p.Saved))
	}
	add("url", m.be.URL(p))
	add("pages", pagesNote(p))
	if p.Abstract != "" {
		b = append(b, "", m.st.heading.Render("Abstract"))
		b = append(b, wrap(p.Abstract, w, 0)...)
	}
	if secs := sections(d.Chunks); len(secs) > 0 {
		b = append(b, "", m.st.heading.Render("Sections"))
		for _, s := range secs {
			b = append(b, wrap(s, w, 0)...)
		}
	}
	b = append(b, "", m.st.heading.Render(fmt.Sprintf("Chunks %d", len(d.Chunks))))
	for _, c := range d.Chunks {
		head := fmt.Sprintf("[%d]", c.Seq)
		if pg := pages(c.PageStart, c.PageEnd); pg != "" {
			head += " p. " + pg
		} else if c.Seq == 0 {
			head += " title and abstract"
		}
		if c.Section != "" {
			head += " · " + safetext.OneLine(c.Section)
		}
		b = append(b, "", m.st.dim.Render(head))
		if c.Seq == 0 && p.Abstract != "" && strings.Contains(safetext.OneLine(c.Text), safetext.OneLine(p.Abstract)) {
			b = append(b, m.st.dim.Render("(the title and abstract, as above)"))
			continue
		}
		b = append(b, wrap(c.Text, w, 0)...)
	}
	m.paperView.SetContentLines(b)
}

func pagesNote(p store.Paper) string {
	if p.Pages > 0 {
		return fmt.Sprintf("%d of full text, %d chunks", p.Pages, p.Chunks)
	}
	if p.TextError != "" {
		return "abstract only (" + p.TextError + ")"
	}
	return "abstract only"
}

// sections lists the paper's sections in order with their pages:
// "3 Method · p. 4-6".
func sections(cs []store.Chunk) []string {
	var out []string
	var cur string
	from, to := 0, 0
	flush := func() {
		if cur == "" {
			return
		}
		s := cur
		if pg := pages(from, to); pg != "" {
			s += " · p. " + pg
		}
		out = append(out, s)
	}
	for _, c := range cs {
		if c.Section == "" || c.Seq == 0 {
			continue
		}
		if c.Section != cur {
			flush()
			cur, from, to = c.Section, c.PageStart, c.PageEnd
			continue
		}
		to = max(to, c.PageEnd)
	}
	flush()
	return out
}

func pages(from, to int) string {
	switch {
	case from <= 0:
		return ""
	case to <= from:
		return strconv.Itoa(from)
	}
	return fmt.Sprintf("%d-%d", from, to)
}

func (m *Model) paperLines() []string {
	if m.paper == nil {
		return nil
	}
	top := m.st.dim.Render(fmt.Sprintf("%s · %d%%", safetext.OneLine(m.paper.Paper.ID), int(m.paperView.ScrollPercent()*100)))
	return append([]string{top}, strings.Split(m.paperView.View(), "\n")...)
}

// renderAnswer fills the answer's viewport; follow keeps its end in view
// while it streams.
func (m *Model) renderAnswer(follow bool) {
	w := max(20, m.w)
	var b []string
	b = append(b, wrap(m.answerText.String(), w, 0)...)
	switch {
	case m.answerErr != nil && m.answerErr.Error() == "context canceled":
		b = append(b, "", m.st.warn.Render("cancelled"))
	case m.answerErr != nil && m.answerRes != nil && m.answerRes.Abstained:
		b = append(b, "", m.st.warn.Render("no answer: "+safetext.OneLine(m.answerErr.Error())))
	case m.answerErr != nil:
		b = append(b, "", m.st.warn.Render("error: "+safetext.OneLine(m.answerErr.Error())))
	}
	if m.answerRes != nil {
		for _, wn := range m.answerRes.Warnings {
			b = append(b, m.st.warn.Render("warning: "+safetext.OneLine(wn)))
		}
	}
	m.answerView.SetContentLines(b)
	if follow {
		m.answerView.GotoBottom()
	}
}

func (m *Model) answerLines() []string {
	mode := "offline"
	if m.answerRes != nil && m.answerRes.Model != "" {
		mode = safetext.OneLine(m.answerRes.Model)
	}
	head := m.st.title.Render("Ask") + m.st.dim.Render(" "+safetext.OneLine(m.answerOn))
	q := m.st.heading.Render("Q: ") + safetext.OneLine(m.answerQ)
	if m.answerRes != nil {
		q += m.st.dim.Render(fmt.Sprintf("  (%s, %s)", mode, textkit.Count(len(m.answerRes.Citations), "citation")))
	}
	return append([]string{head, q, ""}, strings.Split(m.answerView.View(), "\n")...)
}

func (m *Model) searchLines() []string {
	out := []string{m.st.title.Render("Search") + m.st.dim.Render(fmt.Sprintf(" %q in %s: %s", m.searchQ, m.scopeName(), textkit.Count(len(m.hits), "hit"))), ""}
	if len(m.hits) == 0 {
		return append(out, m.st.dim.Render("nothing matches; Esc goes back, / searches again"))
	}
	c := &m.searchList
	rows := m.listRows()
	for i := c.top; i < len(m.hits) && len(out)-2+2 <= rows; i++ {
		h := m.hits[i]
		mark := "  "
		if i == c.i {
			mark = "▸ "
		}
		head := mark + textkit.Day(h.Paper.Published) + " " + safetext.OneLine(h.Paper.Title)
		if i == c.i {
			head = m.st.sel.Render(ansi.Truncate(head, m.w, "…"))
		}
		where := "abstract"
		if pg := h.Pages(); pg != "" {
			where = "p. " + pg
		}
		if h.Section != "" && h.Seq > 0 {
			where += " · " + safetext.OneLine(h.Section)
		}
		out = append(out, head, m.st.dim.Render("    "+where+" · "+snippet(h.Text, h.Paper.Title, m.searchQ)))
	}
	return out
}

func (m *Model) relatedLines() []string {
	out := []string{m.st.title.Render("Related") + m.st.dim.Render(" to "+safetext.OneLine(m.relatedTo.ID)+" "+safetext.OneLine(m.relatedTo.Title)), ""}
	if len(m.rel) == 0 {
		return append(out, m.st.dim.Render("no related paper (the paper has no vector, or no other paper passes)"))
	}
	ps := make([]store.Paper, len(m.rel))
	scores := make([]float32, len(m.rel))
	for i, r := range m.rel {
		ps[i], scores[i] = r.Paper, r.Score
	}
	return append(out, m.paperItems(ps, scores, &m.relatedList, m.listRows())...)
}

func (m *Model) pickerLines() []string {
	out := []string{m.st.title.Render("Choose a topic"), ""}
	items := []string{"All papers · the whole library"}
	for _, t := range m.topics {
		s := fmt.Sprintf("%s · %s", t.Name, textkit.Count(t.Papers, "paper"))
		if t.Description != "" {
			s += " · " + t.Description
		}
		items = append(items, s)
	}
	c := &m.pickerList
	c.fit(max(1, m.h-4))
	for i := c.top; i < len(items) && len(out) < m.h-1; i++ {
		if i == c.i {
			out = append(out, m.st.sel.Render("▸ "+safetext.OneLine(items[i])))
		} else {
			out = append(out, "  "+safetext.OneLine(items[i]))
		}
	}
	return out
}

func (m *Model) helpLines() []string {
	out := []string{m.st.title.Render("Keys"), ""}
	for _, k := range m.keys.helpRows() {
		out = append(out, fmt.Sprintf("  %-11s %s", k[0], k[1]))
	}
	return append(out, "", m.st.dim.Render("Answers are offline (extracted from the passages) unless a model is configured, as for papers ask."))
}

// renderReview fills the review's viewport with the table as papers
// review draws it, at the terminal's width.
func (m *Model) renderReview() {
	var b strings.Builder
	if err := review.WriteTable(&b, m.reviewTable, m.w); err != nil {
		b.WriteString(err.Error())
	}
	m.reviewView.SetContentLines(strings.Split(strings.TrimRight(b.String(), "\n"), "\n"))
}

func (m *Model) reviewLines() []string {
	t := m.reviewTable
	head := m.st.title.Render("Review") + m.st.dim.Render(fmt.Sprintf(" %s of %s x %s · offline, %d cells cached",
		textkit.Count(len(t.Rows), "paper"), m.scopeName(), textkit.Count(len(t.Columns), "question"), t.Cached))
	return append([]string{head, ""}, strings.Split(m.reviewView.View(), "\n")...)
}

// footer is the last line: the question line, what is running, a message,
// or the keys of the screen.
func (m *Model) footer() string {
	if m.inputFor != inNone {
		return m.input.View()
	}
	if m.busy != "" {
		return m.spin.View() + " " + m.busy + "… " + m.st.dim.Render("Esc cancels")
	}
	if m.status != "" {
		return m.st.accent.Render(safetext.OneLine(m.status))
	}
	return m.st.dim.Render(m.keys.footer(m.top()))
}

// wrap wraps s to width w, at most n lines (0: all; the last one then
// ends in an ellipsis when cut), made inert first (safetext.Clean): what
// it wraps is untrusted (abstracts, chunks, answers).
func wrap(s string, w, n int) []string {
	s = strings.TrimRight(safetext.Clean(s), "\n")
	if s == "" {
		return nil
	}
	var out []string
	for _, para := range strings.Split(s, "\n") {
		if strings.TrimSpace(para) == "" {
			out = append(out, "")
			continue
		}
		out = append(out, strings.Split(ansi.Wrap(para, max(1, w), ""), "\n")...)
	}
	if n > 0 && len(out) > n {
		out = out[:n]
		out[n-1] = ansi.Truncate(out[n-1], max(1, w-1), "") + "…"
	}
	return out
}

// snippet is the part of a passage to show under a hit: from the first
// sentence holding a word of the query, without the title the abstract
// passage starts with.
func snippet(text, title, query string) string {
	text = safetext.OneLine(text)
	if t := safetext.OneLine(title); t != "" && strings.HasPrefix(text, t) {
		text = strings.TrimLeft(text[len(t):], " .:")
	}
	low := strings.ToLower(text)
	at := -1
	for _, w := range strings.Fields(strings.ToLower(query)) {
		if len(w) < 3 {
			continue
		}
		if i := strings.Index(low, w); i >= 0 && (at < 0 || i < at) {
			at = i
		}
	}
	if at > 0 {
		if dot := strings.LastIndex(text[:at], ". "); dot >= 0 {
			at = dot + 2
		} else {
			at = 0
		}
		text = text[at:]
	}
	return text
}
