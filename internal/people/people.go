// Package people reads the authors of a paper the way every source gives
// them (a PDF's XMP and Info lists, a corpus's comma-separated string,
// Zotero's and Crossref's creators, BibTeX's "and" lists) as people, and a
// person's name as its parts, so that every source stores authors the same
// way and every export writes them so that BibTeX and biber read one person
// per name.
//
// The library stores one string per person: "Given Family" ("Zlatko
// Tešanović", "Adrian Del Maestro"), "Family, Given" when the family name
// has several words that are not particles ("Ali Babar, Md"), the family
// name alone for a one-word name, and an organisation's name whole
// ("OpenAI Superalignment Team"). Name.String writes that form and Parse
// reads it back.
package people

import (
	"strings"
	"unicode"

	"github.com/papers-cli/papers/internal/lazyre"
	"github.com/papers-cli/papers/internal/tex"
)

// Name is one person's (or organisation's) name in parts.
type Name struct {
	Family string
	Given  string // "" for one-word names and organisations
	Suffix string // "Jr.", "III"
	// Org marks an organisation's name, which is never split ("GTEx
	// Consortium"): BibTeX must brace it, CSL-JSON writes it as a literal.
	Org bool
}

// String is the name as the library stores it (see the package doc): a
// form Parse reads back into the same parts.
func (n Name) String() string {
	family, given := clean(n.Family), clean(n.Given)
	switch {
	case n.Org || given == "":
		if n.Suffix != "" && !n.Org {
			return family + ", " + n.Suffix
		}
		return family
	case n.Suffix != "":
		return family + ", " + n.Suffix + ", " + given
	}
	s := given + " " + family
	if p := Parse(s); p.Family != family || p.Given != given || p.Org {
		return family + ", " + given // "Ali Babar, Md": the words would split wrong
	}
	return s
}

// Parse reads one person's name: "Given Names Family", "Family, Given" or
// "Family, Suffix, Given" (BibTeX's "von Last, Jr, First"). Particles
// (van, von, de, ...) stay with the family name, a trailing "Jr."/"III" is
// the suffix, and a name with the word "and" or a word such as "Team",
// "Consortium" or "University" is an organisation's, kept whole. A name
// in braces ("{OpenAI Team}") is taken whole too, as BibTeX does.
func Parse(s string) Name {
	s = clean(s)
	if strings.HasPrefix(s, "{") && strings.HasSuffix(s, "}") && tex.Balanced(s[1:len(s)-1]) {
		return Name{Family: s[1 : len(s)-1], Org: strings.Contains(s, " ")}
	}
	if parts := splitTop(s, ','); len(parts) > 1 {
		n := Name{Family: parts[0]}
		switch {
		case len(parts) == 2 && isSuffix(parts[1]):
			n.Suffix = parts[1]
		case len(parts) == 2:
			n.Given = parts[1]
		default:
			n.Suffix, n.Given = parts[1], strings.Join(parts[2:], " ")
		}
		return n
	}
	ws := strings.Fields(s)
	if len(ws) <= 1 {
		return Name{Family: s}
	}
	if isOrg(ws) {
		return Name{Family: s, Org: true}
	}
	n := Name{}
	if i := len(ws) - 1; isSuffix(ws[i]) && i > 1 {
		n.Suffix, ws = ws[i], ws[:i]
	}
	i := len(ws) - 1
	for i > 1 && isParticle(ws[i-1]) {
		i--
	}
	n.Family, n.Given = strings.Join(ws[i:], " "), strings.Join(ws[:i], " ")
	return n
}

// Split reads an author list held in one string, as PDFs' XMP and Info
// dictionaries, corpora and feeds write them, into one name per person (in
// the form String writes). People are apart at semicolons and new lines,
// at "and" and "&", and at commas, except where the commas pair family
// names with given names: "Smith, J., Doe, A. B." (given names that are
// initials), "Bai, Shoumei" and "Ali Babar, Md" (one person: two parts of
// which one is a single word) are pairs; "Kayla Thomason, Md Ali Babar"
// is two people. A trailing "et al." or "and others" is kept as the last
// name, which More recognises.
func Split(list string) []string {
	list = clean(list)
	if list == "" {
		return nil
	}
	var out []string
	for _, part := range splitAny(list, ";\n") {
		pieces := splitAnd(part)
		if !strings.Contains(part, ",") && hasOrgWord(strings.Fields(part)) {
			pieces = []string{part} // "Research and Development Team"
		}
		// BibTeX's style: every name between the "and"s is "Family, Given";
		// "A, B, and C" (a comma before "and") is a list of people.
		listed := len(pieces) > 1
		low := strings.ToLower(part)
		bib := listed && !strings.Contains(low, ", and ") && !strings.Contains(low, ", & ")
		for _, p := range pieces {
			if n := len(splitTop(p, ',')); n > 3 || n == 3 && !isSuffix(splitTop(p, ',')[1]) || n == 2 && !paired(splitTop(p, ',')) {
				bib = false
			}
		}
		for _, p := range pieces {
			switch {
			case bib || len(splitTop(p, ',')) == 1:
				out = append(out, personString(p))
			case listed:
				for _, q := range splitTop(p, ',') {
					out = append(out, personString(q))
				}
			default:
				out = append(out, splitCommas(p)...)
			}
		}
	}
	return out
}

// SplitEach is Split applied to each element of a list that a source gave
// as a list, whose elements may themselves be lists (an XMP dc:creator
// with one entry "A, B and C").
func SplitEach(list []string) []string {
	var out []string
	for _, s := range list {
		out = append(out, Split(s)...)
	}
	return out
}

// Names reads a paper's stored authors as names, for citations. An element
// that is unmistakably a list of people (two commas or more, a semicolon,
// or "and" between names), as libraries written before authors were split
// hold, is split (Split); every other element is one person (Parse). A
// trailing "+N", "et al." or "others" is dropped and more reports it.
func Names(authors []string) (names []Name, more bool) {
	for i, a := range authors {
		a = clean(a)
		if i == len(authors)-1 && More(a) {
			more = true
			a = clean(moreMark.ReplaceAllString(a, ""))
		}
		if a == "" {
			continue
		}
		if isList(a) {
			ps := Split(a)
			if len(ps) > 0 && More(ps[len(ps)-1]) {
				more, ps = true, ps[:len(ps)-1]
			}
			for _, p := range ps {
				names = append(names, Parse(p))
			}
			continue
		}
		names = append(names, Parse(a))
	}
	return names, more
}

// moreMark is how sources say that authors were left out: "+3" (a feed's
// "Ahmed Awadallah +1"), "et al.", "and others" (BibTeX).
var moreMark = lazyre.New(`(?i)(^|\s|,)(\+\d+|et\.? al\.?|(and\s+)?others)$`)

// More says whether s ends an author list with a mark that authors were
// left out ("+2", "et al.", "others").
func More(s string) bool { return moreMark.MatchString(clean(s)) }

// isList says whether a stored author is unmistakably several people.
func isList(s string) bool {
	if strings.ContainsAny(s, ";\n") || len(splitAnd(s)) > 1 && !isOrg(strings.Fields(s)) {
		return true
	}
	parts := splitTop(s, ',')
	return len(parts) > 3 || len(parts) == 3 && !isSuffix(parts[1])
}

// splitCommas splits one part of a list (no semicolons, no "and") at its
// commas, keeping family-given pairs together.
func splitCommas(s string) []string {
	pieces := splitTop(s, ',')
	// A suffix belongs to the name before it: "King, Jr., Martin".
	var ps []string
	for _, p := range pieces {
		if isSuffix(p) && len(ps) > 0 {
			ps[len(ps)-1] += " " + p
			continue
		}
		ps = append(ps, p)
	}
	if len(ps) <= 1 {
		if len(pieces) > 1 {
			return []string{personString(s)}
		}
		return []string{personString(ps[0])}
	}
	var out []string
	if paired(ps) {
		for i := 0; i+1 < len(ps); i += 2 {
			out = append(out, Name{Family: ps[i], Given: ps[i+1]}.String())
		}
		return out
	}
	for _, p := range ps {
		out = append(out, personString(p))
	}
	return out
}

// paired says whether comma-separated pieces are family, given, family,
// given, ...: every given part is initials ("J.", "A. B.", "J.-P."), or all
// pieces are single words ("Smith, John, Doe, Jane"), or, for one pair,
// one of the two is a single word and the family part looks like one
// ("Bai, Shoumei", "Ali Babar, Md", "van der Berg, Jan").
func paired(ps []string) bool {
	if len(ps)%2 != 0 || len(ps) == 0 {
		return false
	}
	initials, single := true, true
	for i := 0; i < len(ps); i += 2 {
		f, g := strings.Fields(ps[i]), strings.Fields(ps[i+1])
		if !allInitials(g) || allInitials(f) {
			initials = false
		}
		if len(f) != 1 || len(g) != 1 {
			single = false
		}
		if isOrg(f) || isOrg(g) || hasCJK(ps[i]) || hasCJK(ps[i+1]) {
			return false // "张三, 李四" are two people
		}
	}
	if initials || single {
		return true
	}
	if len(ps) != 2 {
		return false
	}
	f, g := strings.Fields(ps[0]), strings.Fields(ps[1])
	for len(f) > 1 && isParticle(f[0]) {
		f = f[1:] // "van der Berg" is one family name
	}
	return len(f) == 1 && len(g) <= 3 || len(g) == 1 && len(f) <= 3 && !allInitials(f)
}

// allInitials says whether every word is an initial: "J.", "JR", "A.B.", "J.-P.".
func allInitials(ws []string) bool {
	if len(ws) == 0 {
		return false
	}
	for _, w := range ws {
		if !initial.MatchString(w) {
			return false
		}
	}
	return true
}

var initial = lazyre.New(`^(\p{Lu}\.?(-\p{Lu}\.?)?)+$`)

// personString is one person's name (as a source wrote it) in the stored
// form.
func personString(s string) string {
	s = clean(s)
	if More(s) {
		return s
	}
	n := Parse(s)
	if !strings.Contains(s, ",") && !n.Org && n.Suffix == "" {
		return s // "Given Family" as written: keep the source's spelling
	}
	return n.String()
}

// splitAnd splits at " and " and " & " outside braces (", and" too).
func splitAnd(s string) []string {
	var out []string
	depth, start := 0, 0
	low := strings.ToLower(s)
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '{':
			depth++
		case '}':
			depth--
		case ' ', '\t':
			if depth != 0 {
				continue
			}
			rest := low[i:]
			for _, sep := range []string{" and ", " & "} {
				if strings.HasPrefix(rest, sep) {
					out = append(out, strings.TrimSuffix(strings.TrimSpace(s[start:i]), ","))
					start = i + len(sep)
					i = start - 1
					break
				}
			}
		}
	}
	out = append(out, strings.TrimSpace(s[start:]))
	return nonEmpty(out)
}

// splitTop splits s at sep outside braces, trimming the pieces and
// dropping empty ones.
func splitTop(s string, sep byte) []string {
	var out []string
	depth, start := 0, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '{':
			depth++
		case '}':
			depth--
		case sep:
			if depth == 0 {
				out = append(out, strings.TrimSpace(s[start:i]))
				start = i + 1
			}
		}
	}
	out = append(out, strings.TrimSpace(s[start:]))
	return nonEmpty(out)
}

func splitAny(s, seps string) []string {
	return nonEmpty(strings.FieldsFunc(s, func(r rune) bool { return strings.ContainsRune(seps, r) }))
}

func nonEmpty(ss []string) []string {
	out := ss[:0]
	for _, s := range ss {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// clean collapses whitespace (no-break spaces included) to single spaces,
// keeping new lines, which separate people.
func clean(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.Join(strings.FieldsFunc(l, func(r rune) bool { return unicode.IsSpace(r) || r == '\u00a0' }), " ")
	}
	return strings.TrimSpace(strings.Join(nonEmpty(lines), "\n"))
}

// hasCJK says whether s holds Han, Hangul or Kana letters, which names
// write without spaces.
func hasCJK(s string) bool {
	return strings.ContainsFunc(s, func(r rune) bool {
		return unicode.In(r, unicode.Han, unicode.Hangul, unicode.Hiragana, unicode.Katakana)
	})
}

// orgWords mark a name as an organisation's ("OpenAI Superalignment Team").
var orgWords = map[string]bool{"team": true, "group": true, "consortium": true, "collaboration": true, "lab": true, "labs": true,
	"laboratory": true, "institute": true, "university": true, "inc": true, "ltd": true, "llc": true, "corporation": true,
	"foundation": true, "project": true, "committee": true, "association": true, "organization": true, "organisation": true,
	"society": true, "council": true, "centre": true, "center": true, "academy": true, "network": true, "initiative": true,
	"gmbh": true, "authority": true, "agency": true, "panel": true, "office": true, "department": true, "ministry": true}

// isOrg says whether a name's words are an organisation's: a word of
// orgWords, or "and" (which BibTeX would split into two people).
func isOrg(ws []string) bool {
	if len(ws) < 2 {
		return false
	}
	for _, w := range ws {
		if w = strings.ToLower(w); w == "and" || w == "&" {
			return true
		}
	}
	return hasOrgWord(ws)
}

func hasOrgWord(ws []string) bool {
	if len(ws) < 2 {
		return false
	}
	for _, w := range ws {
		if orgWords[strings.ToLower(strings.Trim(w, ".,()"))] {
			return true
		}
	}
	return false
}

func isParticle(w string) bool {
	switch strings.ToLower(w) {
	case "van", "von", "de", "der", "den", "da", "di", "del", "della", "le", "la", "du", "dos", "das", "ter", "ten", "zu", "vom", "af", "al", "el", "bin", "ibn":
		return true
	}
	return false
}

func isSuffix(w string) bool {
	switch strings.ToLower(strings.TrimSuffix(strings.TrimSpace(w), ".")) {
	case "jr", "sr", "ii", "iii", "iv":
		return true
	}
	return false
}

// BibTeX reads a BibTeX name list ("Knuth, Donald E. and Leslie Lamport
// and {Barnes and Noble}") as BibTeX does: names apart at "and" outside
// braces, each "First von Last", "von Last, First" or "von Last, Jr,
// First", a name in braces whole. decode turns each part's TeX into text
// (accents, braces) after the split, so that braces protect what they
// enclose. A trailing "others" is kept (More recognises it).
func BibTeX(list string, decode func(string) string) []string {
	var out []string
	for _, raw := range splitAnd(strings.Join(strings.Fields(list), " ")) {
		if strings.EqualFold(raw, "others") {
			out = append(out, "others")
			continue
		}
		n := Parse(raw)
		n.Family, n.Given, n.Suffix = decode(n.Family), decode(n.Given), decode(n.Suffix)
		if n.Family == "" {
			n.Family, n.Given = n.Given, ""
		}
		if n.Family != "" {
			out = append(out, n.String())
		}
	}
	return out
}
