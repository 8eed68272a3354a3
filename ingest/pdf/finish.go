package pdf

import (
	"fmt"
	"math"
	"regexp"
	"sort"
	"strings"
	"unicode"

	lpdf "github.com/ledongthuc/pdf"
	"golang.org/x/text/unicode/norm"
)

// finish turns the laid-out pages into the Document's pages: it takes the
// arXiv stamp out, drops running heads and page numbers, normalises the text,
// joins hyphenated words and finds headings.
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
	for i := range pls {
		lines := keptLines(pls[i].lines)
		dehyphenate(lines, vocab)
		for _, l := range lines {
			l.heading = isHeading(l, body, i)
		}
		doc.Pages = append(doc.Pages, render(i+1, lines, pls[i].rotated))
	}
}

// clean applies NFKC (ligatures, compatibility characters), drops control
// characters and collapses white space.
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
		case r == '\u00ad': // soft hyphen
			continue
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
			if !try(s) {
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

var dotlessAccent = regexp.MustCompile(`ı([\x{300}-\x{30c}])`)

var digitsRe = regexp.MustCompile(`\d+`)
var pageNumRe = regexp.MustCompile(`^(?i)(page\s*)?[-–—(\[]?\s*(\d{1,4}|[ivxlc]{1,6})\s*[-–—)\]]?(\s*(of|/)\s*\d{1,4})?$`)

// dropFurniture marks running heads and page numbers: lines at the very top
// or bottom of a page that are page numbers, or whose text (digits ignored)
// repeats at the top or bottom of other pages.
func dropFurniture(pls []pageLayout) {
	type edge struct{ page, line int }
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
		seen := map[string]bool{}
		for j, l := range ls {
			tol := 0.5 * l.size
			if l.base < top-tol && l.base > bot+tol {
				continue
			}
			cands = append(cands, edge{i, j})
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
	for _, c := range cands {
		l := &pls[c.page].lines[c.line]
		if pageNumRe.MatchString(l.text) || (counts[keyOf(l.text)] >= need && len(pls) >= 2) {
			l.drop = true
		}
	}
}

func keptLines(ls []line) []*line {
	var out []*line
	for i := range ls {
		if !ls[i].drop && ls[i].text != "" {
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
// line starts with a lower-case letter. The hyphen is dropped ("exam-" +
// "ple" gives "example") unless the document itself writes the compound with
// a hyphen inside a line and never without ("multi-" + "turn" stays
// "multi-turn" when "multi-turn" appears elsewhere): line-end hyphens are
// mostly the typesetter's, and the document's own usage is the best evidence
// for the rest. "zero- and few-shot" (a suspended hyphen before and/or/to)
// is left alone. The joined word moves to the end of the first line.
func dehyphenate(lines []*line, vocab map[string]bool) {
	for i := 0; i+1 < len(lines); i++ {
		a, b := lines[i], lines[i+1]
		t := a.text
		if len(t) < 3 || t[len(t)-1] != '-' || b.text == "" {
			continue
		}
		prev := []rune(t[:len(t)-1])
		if !unicode.IsLetter(prev[len(prev)-1]) {
			continue
		}
		if !unicode.IsLower(firstRune(b.text)) {
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
		keep := vocab[lowFrag+"-"+lowCore] && !vocab[lowFrag+lowCore]
		if keep {
			a.text = t + word
		} else {
			a.text = t[:len(t)-1] + word
		}
		a.hyphJoin = true
		b.text = strings.TrimLeft(rest[n:], " ")
	}
}

var suspended = map[string]bool{"and": true, "or": true, "to": true, "nor": true, "vs": true, "versus": true, "und": true, "et": true, "ou": true}

var tocEntry = regexp.MustCompile(`\s(\d{1,4}|[ivxl]{1,5})$`)
var letterHeading = regexp.MustCompile(`^[A-H]\.?\s`)
var numberedHeading = regexp.MustCompile(`^(?:[1-9]\d?(?:\.\d{1,2}){0,3}\.?|[A-H](?:\.\d{1,2}){0,3}\.?|[IVX]{1,5}\.)\s+\p{Lu}`)
var digitHeading = regexp.MustCompile(`^\d{1,2}(\.\d{1,2})*\.?\s`)
var namedHeading = regexp.MustCompile(`^(?i)(abstract|introduction|related work|background|method(s|ology)?|experiments?|results|discussion|conclusions?|limitations|acknowledge?ments?|references|bibliography|appendix|ethics statement|broader impact)s?\.?$`)

// isHeading says whether a line is a section heading: short, and set in a
// larger or bold font, numbered or one of the usual section names.
func isHeading(l *line, body float64, page int) bool {
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
	switch {
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

// render writes a page's lines as text, recording heading offsets.
func render(n int, lines []*line, rotated []string) Page {
	var b strings.Builder
	p := Page{N: n}
	for i, l := range lines {
		if l.text == "" {
			continue
		}
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
		b.WriteString(l.text)
		b.WriteByte('\n')
	}
	if len(rotated) > 0 {
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		for _, s := range rotated {
			b.WriteString(s)
			b.WriteByte('\n')
		}
	}
	p.Text = b.String()
	return p
}

// chooseTitle prefers a sensible Info /Title, else the largest-font lines
// at the top of the first page.
func chooseTitle(rd *lpdf.Reader, pls []pageLayout, doc *Document) (title string) {
	defer func() {
		if recover() != nil {
			title = guessTitle(pls, bodySize(pls))
		}
	}()
	guess := guessTitle(pls, bodySize(pls))
	t := strings.TrimSpace(clean(rd.Trailer().Key("Info").Key("Title").Text()))
	// Producers fill /Title with file names, "Microsoft Word - x.docx" or
	// the whole first paragraph; trust it when it is short and printed on
	// the first page.
	if sensibleTitle(t) && len(t) <= 200 && (guess == "" || onFirstPage(t, pls)) {
		return t
	}
	return guess
}

func lettersOnly(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			b.WriteRune(r)
		}
	}
	return b.String()
}

func onFirstPage(t string, pls []pageLayout) bool {
	if len(pls) == 0 {
		return false
	}
	var b strings.Builder
	for _, l := range pls[0].lines {
		b.WriteString(l.text)
		b.WriteByte(' ')
	}
	lt := lettersOnly(t)
	if len(lt) > 40 {
		lt = lt[:40]
	}
	return lt != "" && strings.Contains(lettersOnly(b.String()), lt)
}

var badTitle = regexp.MustCompile(`(?i)(\.(pdf|docx?|tex|dvi|ps|indd)$|^untitled|^microsoft word|^arxiv:|^title$|^paper$|^\s*$|^[\w\-]+\.\w+$|^doi:)`)

func sensibleTitle(t string) bool {
	if len(t) < 6 || len(t) > 300 || letters(t) < 4 || !strings.Contains(t, " ") {
		return false
	}
	return !badTitle.MatchString(t)
}

// guessTitle takes the topmost line of the first page set distinctly larger
// than the body text, with the lines of the same size that follow it.
func guessTitle(pls []pageLayout, body float64) string {
	if len(pls) == 0 || body <= 0 {
		return ""
	}
	var ls []line
	for _, l := range pls[0].lines {
		// Dropped lines count: a running head may repeat the title.
		if letters(l.text) > 0 && !pageNumRe.MatchString(l.text) && arxivStamp.FindStringIndex(l.text) == nil {
			ls = append(ls, l)
		}
	}
	sort.SliceStable(ls, func(i, j int) bool { return ls[i].base > ls[j].base })
	start := -1
	for i, l := range ls {
		if l.size >= body*1.15 && letters(l.text) >= 4 && !digitHeading.MatchString(l.text) && !namedHeading.MatchString(l.text) {
			start = i
			break
		}
	}
	if start < 0 {
		return ""
	}
	size := ls[start].size
	parts := []string{ls[start].text}
	for i := start + 1; i < len(ls) && i < start+4; i++ {
		l := ls[i]
		if math.Abs(l.size-size) > 0.5 || ls[i-1].base-l.base > 2.5*size {
			break
		}
		parts = append(parts, l.text)
	}
	t := strings.Join(parts, " ")
	if len(t) > 300 {
		t = t[:300]
	}
	return strings.TrimSpace(t)
}

// judge decides whether the text is usable: none at all (a scan), or
// garbage (a bad OCR layer, unmapped fonts).
func judge(doc *Document) error {
	var alnum, total, bad, tokens, badTok int
	for _, p := range doc.Pages {
		for _, r := range p.Text {
			if unicode.IsSpace(r) {
				continue
			}
			total++
			switch {
			case unicode.IsLetter(r) || unicode.IsDigit(r):
				alnum++
			case r == unicode.ReplacementChar || unicode.Is(unicode.Co, r) || unicode.IsControl(r):
				bad++
			}
		}
		for _, f := range strings.Fields(p.Text) {
			tokens++
			if !wordLike(f) {
				badTok++
			}
		}
	}
	// A page or two with a short text (a form, a label) is text; many
	// pages with a few stray characters are a scan.
	if alnum == 0 || alnum < 20 && len(doc.Pages) > 2 {
		return ErrNoText
	}
	empty := 0
	for _, p := range doc.Pages {
		if letters(p.Text) < 5 {
			empty++
		}
	}
	if empty > 0 && empty*4 >= len(doc.Pages) {
		doc.warnf("%d of %d pages have no text layer (scanned images?)", empty, len(doc.Pages))
	}
	badChars := float64(bad) / float64(total)
	badWords := float64(badTok) / float64(tokens)
	switch {
	case badChars > 0.2 || badWords > 0.6:
		doc.warnf("text layer looks garbled: %.0f%% unreadable characters, %.0f%% non-words", 100*badChars, 100*badWords)
		return fmt.Errorf("%w: %.0f%% of tokens are not words", ErrGarbled, 100*badWords)
	case badChars > 0.05 || badWords > 0.4:
		doc.warnf("text layer may be garbled: %.0f%% unreadable characters, %.0f%% non-words", 100*badChars, 100*badWords)
	}
	return nil
}

// wordLike says whether a token looks like a word, a number or a usual
// piece of punctuation: not OCR debris such as "l", "t»Bfl" or "Eeai&r".
func wordLike(tok string) bool {
	t := strings.TrimFunc(tok, func(r rune) bool { return unicode.IsPunct(r) && r != '&' })
	if t == "" {
		return true // punctuation alone: dashes, bullets
	}
	rs := []rune(t)
	var let, dig, upper, lowerAfterUpper, other int
	vowel := false
	for i, r := range rs {
		switch {
		case unicode.IsLetter(r):
			let++
			if r > 0x2ff || strings.ContainsRune("aeiouyAEIOUYàâäéèêëîïôöùûüÿáíóú", r) {
				vowel = true
			}
			if unicode.IsUpper(r) {
				upper++
				if i > 0 && unicode.IsLower(rs[i-1]) && unicode.IsLower(rs[max(0, i-2)]) && i+1 < len(rs) && unicode.IsLower(rs[i+1]) {
					lowerAfterUpper++ // "wiTh": case flips inside a word
				}
			}
		case unicode.IsDigit(r):
			dig++
		case r == '-' || r == '\'' || r == '’' || r == '.' || r == '/':
		default:
			other++
		}
	}
	if dig > 0 && let == 0 {
		return true
	}
	if let == 1 && len(rs) == 1 {
		return strings.ContainsRune("aAIiox", rs[0]) || rs[0] > 0x2ff
	}
	if other > 0 || lowerAfterUpper > 0 {
		return false
	}
	return let > 0 && (vowel || upper == let || dig > 0 || let <= 3)
}
