package pdf

import (
	"math"
	"sort"
	"strings"
	"unicode"

	"github.com/papers-cli/papers/internal/lazyre"
)

// chooseTitle prefers a sensible Info /Title, else the largest-font lines
// at the top of the first page.
func chooseTitle(f source, pls []pageLayout, doc *Document) (title string) {
	defer func() {
		if recover() != nil {
			title = guessTitle(pls, bodySize(pls))
		}
	}()
	guess := guessTitle(pls, bodySize(pls))
	t := strings.TrimSpace(clean(f.Trailer().Key("Info").Key("Title").Text()))
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

var badTitle = lazyre.New(`(?i)(\.(pdf|docx?|tex|dvi|ps|indd)$|^untitled|^microsoft word|^arxiv:|^title$|^paper$|^\s*$|^[\w\-]+\.\w+$|^doi:)`)

// headingRe matches the headings a document's first page may set largest
// that name a part of it, not the document: "Table of Contents", "1
// Introduction", "Preface".
var headingRe = lazyre.New(`(?i)^((\d+(\.\d+)*|[IVX]+)\.?\s+)?(table of contents|contents|introduction|preface|foreword|abstract|summary|acknowledge?ments|references|bibliography|appendix( [A-Z])?|index|glossary|chapter \d+)$`)

// SectionHeading says whether t is a heading of a part of a document
// ("Table of Contents", "1 Introduction"), which is no title of it.
func SectionHeading(t string) bool {
	return headingRe.MatchString(strings.Join(strings.Fields(t), " "))
}

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
