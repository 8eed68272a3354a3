package pdf

import (
	"math"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"

	"github.com/papers-cli/papers/internal/lazyre"
	"github.com/papers-cli/papers/role"
)

// finish turns the laid-out pages into the Document's pages: it finds the
// arXiv stamp, running heads and page numbers (kept as furniture), normalises
// the text, finds headings and every line's role, and joins hyphenated
// words.
func finish(doc *Document, pls []pageLayout) {
	for i := range pls {
		for j := range pls[i].lines {
			pls[i].lines[j].text = clean(pls[i].lines[j].text)
		}
		for j := range pls[i].rotated {
			pls[i].rotated[j] = clean(pls[i].rotated[j])
		}
	}
	findStamp(doc, pls)
	dropFurniture(pls)
	body := bodySize(pls)
	vocab := vocabulary(pls)
	pages := make([][]*line, len(pls))
	for i := range pls {
		pages[i] = textLines(pls[i].lines)
		var prev *line
		for _, l := range pages[i] {
			if l.drop {
				continue
			}
			l.heading = isHeading(l, prev, body, i)
			prev = l
		}
	}
	assignRoles(pages, body)
	for i, lines := range pages {
		dehyphenate(lines, vocab)
		doc.Pages = append(doc.Pages, render(i+1, lines, pls[i].rotated, pls[i].furniture))
	}
}

// clean applies NFKC (ligatures, compatibility characters), drops control
// characters, reads soft hyphens as hyphens and collapses white space.
func clean(s string) string {
	s = norm.NFKC.String(s)
	if strings.ContainsRune(s, 'ı') { // dotless i under an accent: í
		s = norm.NFC.String(dotlessAccent.ReplaceAllString(s, "i$1"))
	}
	var b strings.Builder
	b.Grow(len(s))
	space := false
	for _, r := range s {
		switch {
		case r == '\u00ad':
			// A soft hyphen in a text layer is a hyphen glyph that was
			// drawn: some producers (InDesign, Word) map every hyphen to
			// it, mid-line ("pseudo-Avicenne") as at a line's end, which
			// dehyphenate joins like any other.
			r = '-'
		case unicode.IsSpace(r):
			space = true
			continue
		case unicode.IsControl(r), r >= 0xe000 && r <= 0xf8ff && false:
			continue
		}
		if space && b.Len() > 0 {
			b.WriteByte(' ')
		}
		space = false
		b.WriteRune(r)
	}
	return b.String()
}

func findStamp(doc *Document, pls []pageLayout) {
	try := func(s string) bool {
		m := arxivStamp.FindStringSubmatch(s)
		if m == nil {
			return false
		}
		if doc.ArxivID == "" {
			doc.ArxivID, doc.ArxivDate = m[1], m[2]
		}
		return true
	}
	for i := range pls {
		kept := pls[i].rotated[:0]
		for _, s := range pls[i].rotated {
			if try(s) {
				pls[i].furniture = append(pls[i].furniture, s)
			} else {
				kept = append(kept, s)
			}
		}
		pls[i].rotated = kept
	}
	// Some producers draw the stamp upright in the margin; only look at
	// short lines of the first page that are nothing but the stamp.
	if len(pls) > 0 {
		for j := range pls[0].lines {
			l := &pls[0].lines[j]
			if m := arxivStamp.FindStringIndex(l.text); m != nil && m[0] == 0 && len(l.text)-m[1] < 3 && len(l.text) < 80 {
				try(l.text)
				l.drop = true
			}
		}
	}
}

var dotlessAccent = lazyre.New(`ı([\x{300}-\x{30c}])`)

var digitsRe = lazyre.New(`\d+`)
var pageNumRe = lazyre.New(`^(?i)(page\s*)?[-–—(\[]?\s*(\d{1,4}|[ivxlc]{1,6})\s*[-–—)\]]?(\s*(of|/)\s*\d{1,4})?$`)

// dropFurniture marks running heads and page numbers: lines at the very top
// or bottom of a page that are page numbers, or whose text (digits ignored)
// repeats at the top or bottom of other pages. A running head or foot may
// stand inside the page's edge with its page number on a line of its own
// beyond it (a conference's "IJCAI-07" above the number): the line next to
// a page number at the edge counts too when it repeats. Text
// set in another direction than the page's (a running head on a page of
// sideways tables) is dropped when it repeats at the edges of other pages.
func dropFurniture(pls []pageLayout) {
	type edge struct {
		page, line int
		inner      bool // inside the edge, not on it
	}
	counts := map[string]int{}
	var cands []edge
	keyOf := func(s string) string {
		return strings.ToLower(digitsRe.ReplaceAllString(s, "#"))
	}
	for i := range pls {
		ls := pls[i].lines
		if len(ls) < 2 {
			continue
		}
		top, bot := math.Inf(-1), math.Inf(1)
		for _, l := range ls {
			top = math.Max(top, l.base)
			bot = math.Min(bot, l.base)
		}
		nextTo := pageNumberNeighbours(ls, top, bot)
		seen := map[string]bool{}
		for j, l := range ls {
			tol := 0.5 * l.size
			inner := false
			if l.base < top-tol && l.base > bot+tol {
				if !nextTo[j] {
					continue
				}
				inner = true
			}
			cands = append(cands, edge{i, j, inner})
			k := keyOf(l.text)
			if !seen[k] {
				seen[k] = true
				counts[k]++
			}
		}
	}
	need := 3
	if len(pls) < 6 {
		need = 2
	}
	var repeats []*line
	var total, dropped int
	for _, c := range cands {
		l := &pls[c.page].lines[c.line]
		switch {
		case l.drop:
		case pageNumRe.MatchString(l.text) && !c.inner:
			l.drop = true
		case counts[keyOf(l.text)] >= need && len(pls) >= 2 && (!c.inner || hasLetters(l.text)):
			l.drop = true
			repeats = append(repeats, l)
			dropped += len(l.text)
		}
	}
	if len(pls) >= 2 {
		for i := range pls {
			kept := pls[i].rotated[:0]
			for _, s := range pls[i].rotated {
				if k := keyOf(s); counts[k] < need || !hasLetters(s) {
					kept = append(kept, s)
				} else {
					pls[i].furniture = append(pls[i].furniture, s)
				}
			}
			pls[i].rotated = kept
		}
	}
	for i := range pls {
		for _, l := range pls[i].lines {
			total += len(l.text)
		}
	}
	// Lines that repeat on every page are running heads only when they
	// are the smaller part of the text: a document whose pages are all alike
	// (forms, labels, slides with one line) would otherwise lose
	// everything.
	if dropped*2 > total {
		for _, l := range repeats {
			l.drop = false
		}
		return
	}
	// Nor may a page lose every line to them.
	for i := range pls {
		kept := false
		for _, l := range pls[i].lines {
			kept = kept || !l.drop && strings.TrimSpace(l.text) != ""
		}
		if kept {
			continue
		}
		for j := range pls[i].lines {
			l := &pls[i].lines[j]
			if l.drop && !pageNumRe.MatchString(l.text) && arxivStamp.FindStringIndex(l.text) == nil {
				l.drop = false
			}
		}
	}
}

// pageNumberNeighbours marks the lines next to a page number that stands
// on a line of its own at the top or bottom edge of the page (top and bot
// are the extreme baselines): the nearest line inside it, within three of
// its line heights.
func pageNumberNeighbours(ls []line, top, bot float64) map[int]bool {
	out := map[int]bool{}
	for _, atTop := range []bool{true, false} {
		num, near := -1, -1
		for j, l := range ls {
			edge := bot
			if atTop {
				edge = top
			}
			if math.Abs(l.base-edge) < 0.5*l.size && pageNumRe.MatchString(l.text) {
				num = j
			}
		}
		if num < 0 {
			continue
		}
		n := ls[num]
		for j, l := range ls {
			d := n.base - l.base // below the top's number: positive
			if !atTop {
				d = l.base - n.base
			}
			if j == num || d <= 0.5*n.size || d > 3*math.Max(n.size, l.size) || len(l.text) > 80 {
				continue
			}
			if near < 0 || math.Abs(l.base-n.base) < math.Abs(ls[near].base-n.base) {
				near = j
			}
		}
		if near >= 0 {
			out[near] = true
		}
	}
	return out
}

// textLines are the lines that hold text, furniture (drop) included.
func textLines(ls []line) []*line {
	var out []*line
	for i := range ls {
		if ls[i].text != "" {
			out = append(out, &ls[i])
		}
	}
	return out
}

// bodySize is the most common glyph size in the document (half points).
func bodySize(pls []pageLayout) float64 {
	all := map[int]int{}
	for _, p := range pls {
		for k, v := range p.sizes {
			all[k] += v
		}
	}
	best, bestN := 0, -1
	for k, v := range all {
		if v > bestN || v == bestN && k < best {
			best, bestN = k, v
		}
	}
	return float64(best) / 2
}

// vocabulary is the set of lower-cased words of the document, hyphenated
// compounds included, as they appear inside lines (not at line ends).
func vocabulary(pls []pageLayout) map[string]bool {
	v := map[string]bool{}
	for _, p := range pls {
		for _, l := range p.lines {
			fs := strings.Fields(l.text)
			for i, f := range fs {
				if i == len(fs)-1 && strings.HasSuffix(f, "-") {
					continue
				}
				v[strings.ToLower(strings.Trim(f, ".,;:()[]\"'“”‘’!?"))] = true
			}
		}
	}
	return v
}

// dehyphenate joins a word split across lines with a hyphen when the next
// line starts with a lower-case letter, or with a capital where the document
// writes the joined word elsewhere and never with the hyphen ("Trace-" +
// "Monkey" is "TraceMonkey", "GRO-" + "BID" "GROBID"). The hyphen is dropped ("exam-" +
// "ple" gives "example") unless the document itself writes the compound with
// a hyphen inside a line and never without ("multi-" + "turn" stays
// "multi-turn" when "multi-turn" appears elsewhere, or when either part
// holds a hyphen of its own, "state-of-" + "the-art"): line-end hyphens are
// mostly the typesetter's, and the document's own usage is the best evidence
// for the rest. "zero- and few-shot" (a suspended hyphen before and/or/to)
// is left alone. The joined word moves to the end of the first line.
func dehyphenate(lines []*line, vocab map[string]bool) {
	for i := 0; i+1 < len(lines); i++ {
		a, b := lines[i], lines[i+1]
		t := a.text
		if len(t) < 3 || t[len(t)-1] != '-' || b.text == "" || a.role.OfChunk() != b.role.OfChunk() {
			continue
		}
		prev := []rune(t[:len(t)-1])
		if !unicode.IsLetter(prev[len(prev)-1]) {
			continue
		}
		upper := !unicode.IsLower(firstRune(b.text))
		if upper && !unicode.IsUpper(firstRune(b.text)) {
			continue
		}
		// the fragment before the hyphen and the first word of the next line
		k := strings.LastIndexByte(t[:len(t)-1], ' ') + 1
		frag := t[k : len(t)-1]
		rest := b.text
		n := strings.IndexByte(rest, ' ')
		if n < 0 {
			n = len(rest)
		}
		word := rest[:n]
		core := strings.TrimRight(word, ".,;:)]!?\"'”’")
		if suspended[core] {
			continue // "zero- and few-shot": a suspended hyphen, not a split word
		}
		lowFrag, lowCore := strings.ToLower(strings.TrimLeft(frag, "([\"'“‘")), strings.ToLower(core)
		if upper && (!vocab[lowFrag+lowCore] || vocab[lowFrag+"-"+lowCore]) {
			// "Trace-" + "Monkey" is "TraceMonkey" where the document
			// writes that word; "Smith-" + "Jones" stays as it is
			continue
		}
		// A compound with hyphens of its own on either side ("state-of-" +
		// "the-art") keeps the one at the line end too, unless the two
		// elements beside it make a word of the document ("indus-" +
		// "try-level": "industry").
		left, right := wordRun(lowFrag, true), wordRun(lowCore, false)
		compound := strings.Contains(left, "-") || strings.Contains(right, "-")
		if compound {
			l, r := left[strings.LastIndexByte(left, '-')+1:], right
			if k := strings.IndexByte(r, '-'); k >= 0 {
				r = r[:k]
			}
			compound = !vocab[l+r]
		}
		keep := compound || vocab[lowFrag+"-"+lowCore] && !vocab[lowFrag+lowCore]
		if keep {
			a.text = t + word
		} else {
			a.text = t[:len(t)-1] + word
		}
		a.hyphJoin = true
		b.text = strings.TrimLeft(rest[n:], " ")
	}
}

// wordRun is the run of letters and inner hyphens that ends s (tail) or
// starts it: "state-of" of "state-of", "munication" of
// "munication,2013:522-530" (a number range is no compound).
func wordRun(s string, tail bool) string {
	rs := []rune(s)
	i, j := 0, len(rs)
	if tail {
		for i = len(rs); i > 0 && (unicode.IsLetter(rs[i-1]) || rs[i-1] == '-'); i-- {
		}
	} else {
		for j = 0; j < len(rs) && (unicode.IsLetter(rs[j]) || rs[j] == '-'); j++ {
		}
	}
	return strings.Trim(string(rs[i:j]), "-")
}

var suspended = map[string]bool{"and": true, "or": true, "to": true, "nor": true, "vs": true, "versus": true, "und": true, "et": true, "ou": true}

var tocEntry = lazyre.New(`\s(\d{1,4}|[ivxl]{1,5})$`)
var letterHeading = lazyre.New(`^[A-H]\.?\s`)
var numberedHeading = lazyre.New(`^(?:[1-9]\d?(?:\.\d{1,2}){0,3}\.?|[A-H](?:\.\d{1,2}){0,3}\.?|[IVX]{1,5}\.)\s+[\p{Lu}\p{Han}]`)

// romanHeading is a section heading numbered in Roman numerals and set in
// capitals (IEEE's "III. PROPOSED METHOD", in small capitals of the body's
// size).
var romanHeading = lazyre.New(`^[IVX]{1,5}\.\s+[\p{Lu}\d][\p{Lu}\d\s\-:,&'’/()]+$`)

// letterSubheading is a subsection heading lettered "A." and set in italics
// (IEEE's "B. Combining Self-Attention Mechanisms With CNNs").
var letterSubheading = lazyre.New(`^[A-H]\.\s+\p{Lu}`)

var digitHeading = lazyre.New(`^\d{1,2}(\.\d{1,2})*\.?\s`)
var namedHeading = lazyre.New(`^(?i)(abstract|introduction|related work|background|method(s|ology)?|experiments?|results|discussion|conclusions?|limitations|acknowledge?ments?|references|bibliography|appendix|ethics statement|broader impact)s?\.?$`)

// isHeading says whether a line is a section heading: short, and set in a
// larger or bold font, numbered or one of the usual section names (prev
// is the line before it on the page, or nil).
func isHeading(l, prev *line, body float64, page int) bool {
	t := l.text
	if t == "" || len(t) > 100 || letters(t) < 3 {
		return false
	}
	words := len(strings.Fields(t))
	if words > 12 {
		return false
	}
	bigger := body > 0 && l.size >= body*1.08
	if page == 0 && body > 0 && l.size > body*1.6 {
		return false // the title
	}
	if strings.HasSuffix(t, ",") || strings.HasSuffix(t, ";") {
		return false
	}
	if tocEntry.MatchString(t) {
		return false // "3 Experiment 11": a table of contents line
	}
	italic := l.nchar > 0 && l.style.italic*10 >= l.nchar*8
	switch {
	case romanHeading.MatchString(t) && letters(t) >= 4 && (l.paraGap || prev == nil || strings.ContainsAny(lastByte(prev.text), ".:")):
		return true
	case letterSubheading.MatchString(t) && italic && l.paraGap && words <= 10 && !strings.HasSuffix(t, ".") && page > 0:
		return true
	case numberedHeading.MatchString(t) && (bigger || l.bold):
		if page == 0 && letterHeading.MatchString(t) {
			return false // "D. White": an author's initial on the title page
		}
		return true
	case namedHeading.MatchString(t) && (bigger || l.bold || l.paraGap):
		return true
	case page > 0 && bigger && l.bold && unicode.IsUpper(firstRune(t)) && !strings.HasSuffix(t, "."):
		return true
	}
	return false
}

// continues says whether line b, at the head of a column, goes on with the
// sentence line a left unfinished: a ends in a letter, a digit or a comma,
// and b starts with a lower-case letter.
func continues(a, b string) bool {
	r, _ := utf8.DecodeLastRuneInString(a)
	return (unicode.IsLetter(r) || unicode.IsDigit(r) || r == ',') && unicode.IsLower(firstRune(b)) && len(a) >= 30
}

// render writes a page's lines as text, recording heading offsets and the
// spans of each role.
func render(n int, lines []*line, rotated, furniture []string) Page {
	var b strings.Builder
	p := Page{N: n}
	mark := func(r role.Role) {
		if k := len(p.Spans); k > 0 && p.Spans[k-1].Role == r {
			return
		}
		if k := len(p.Spans); k > 0 {
			p.Spans[k-1].End = b.Len()
			if p.Spans[k-1].End == p.Spans[k-1].Start {
				p.Spans = p.Spans[:k-1]
			}
		}
		p.Spans = append(p.Spans, Span{Start: b.Len(), Role: r})
	}
	var last *line // the line written last
	for i, l := range lines {
		if l.text == "" {
			continue
		}
		if l.paraGap && l.groupStart && last != nil && !last.heading && !l.heading && last.role == l.role && continues(last.text, l.text) {
			// A sentence that runs on from the foot of one column to the
			// head of the next is one paragraph.
			l.paraGap = false
		}
		r := l.role
		if r == "" {
			r = role.Body
		}
		if last != nil && last.role != r && !l.paraGap && b.Len() > 0 {
			// a change of role is a change of paragraph
			l.paraGap = true
		}
		last = l
		if i > 0 && l.paraGap && b.Len() > 0 {
			b.WriteByte('\n')
		}
		if l.heading {
			// A heading set on two lines: the second continues the first.
			if i > 0 && lines[i-1].heading && len(p.Headings) > 0 && !numberedHeading.MatchString(l.text) &&
				!namedHeading.MatchString(l.text) && math.Abs(lines[i-1].size-l.size) < 0.5 {
				h := &p.Headings[len(p.Headings)-1]
				h.Text += " " + l.text
			} else {
				if i > 0 && b.Len() > 0 && !l.paraGap {
					b.WriteByte('\n')
				}
				p.Headings = append(p.Headings, Heading{Offset: b.Len(), Text: l.text})
			}
		}
		mark(r)
		b.WriteString(l.text)
		b.WriteByte('\n')
	}
	// text set in another direction than the page's (axis labels, a
	// table's sideways headings), then its furniture (the arXiv stamp)
	for _, part := range []struct {
		lines []string
		role  role.Role
	}{{rotated, role.Figure}, {furniture, role.Furniture}} {
		if len(part.lines) == 0 {
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		mark(part.role)
		for _, s := range part.lines {
			b.WriteString(s)
			b.WriteByte('\n')
		}
	}
	p.Text = b.String()
	if k := len(p.Spans); k > 0 {
		p.Spans[k-1].End = len(p.Text)
	}
	return p
}
