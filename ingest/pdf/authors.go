package pdf

import (
	"math"
	"slices"
	"sort"
	"strings"
	"unicode"

	"github.com/papers-cli/papers/internal/lazyre"
)

// layoutAuthors reads the author names from the block between the title
// and the abstract on the first page, as typesetters set it: names apart
// by commas, "and", wide spaces or superscript markers (1, ∗, †, α),
// affiliations and e-mail addresses on lines of their own. Rows are read
// top to bottom, each left to right, so names set in columns come in the
// order of their rows. It returns nil when it finds no name it trusts.
func layoutAuthors(pls []pageLayout, title string) []string {
	if len(pls) == 0 || title == "" {
		return nil
	}
	block := authorBlock(pls[0].lines, title)
	var pieces []string
	for _, l := range block {
		if affiliationLine(l.text) {
			continue
		}
		for j := 0; j < len(l.pieces); j++ {
			p := clean(l.pieces[j])
			if rs := []rune(p); len(rs) == 1 && unicode.Is(unicode.Han, rs[0]) && j+1 < len(l.pieces) {
				j++ // "于 恒,梅红岩": the spaced name's second character is the next piece
				p += " " + clean(l.pieces[j])
			}
			pieces = append(pieces, p)
		}
		pieces = append(pieces, lineBreak)
	}
	var names, singles []string
	var pending string // a lone given name at the end of a line
	for _, p := range pieces {
		if p == lineBreak {
			continue
		}
		for _, seg := range splitNames(p) {
			if pending != "" { // "... and Andrew" / "D. White": a given name left at a line end
				if initialStart.MatchString(seg) {
					seg = pending + " " + seg
				} else {
					singles = append(singles, pending)
				}
				pending = ""
			}
			ws := strings.Fields(seg)
			if spacedCJKName(ws) {
				ws = []string{strings.Join(ws, "")} // "于 恒": a two-character name spaced to the width of three
			}
			if membership(ws) {
				continue // "Senior Member, IEEE" after a name
			}
			switch {
			case len(ws) == 1 && isNameWord(ws[0], true):
				pending = ws[0]
			case validName(ws):
				names = append(names, strings.Join(ws, " "))
			}
		}
	}
	if pending != "" {
		singles = append(singles, pending)
	}
	if len(names) > 0 {
		return slices.Compact(names) // a name twice in a row is one name read twice
	}
	// No person: an organisation signs the paper alone ("DeepSeek-AI").
	if len(singles) == 1 && (strings.Contains(singles[0], "-") || len(block) <= 3) {
		return singles
	}
	return nil
}

const lineBreak = "\n"

// authorBlock returns the lines of the first page below the title and
// above the abstract (or the first line of running text), in rows.
func authorBlock(ls []line, title string) []line {
	want := lettersOnly(title)
	if want == "" {
		return nil
	}
	byTop := make([]int, len(ls))
	for i := range byTop {
		byTop[i] = i
	}
	sort.SliceStable(byTop, func(a, b int) bool { return ls[byTop[a]].base > ls[byTop[b]].base })
	// the title: the topmost run of lines whose text is part of it
	titleBottom, found := math.Inf(1), false
	for _, i := range byTop {
		lt := lettersOnly(ls[i].text)
		in := len(lt) >= 3 && strings.Contains(want, lt)
		if in {
			titleBottom, found = ls[i].base, true
		} else if found {
			break
		}
	}
	if !found {
		return nil
	}
	var block []line
	last := titleBottom
	for _, i := range byTop {
		l := ls[i]
		if l.base >= titleBottom {
			continue
		}
		if abstractLine.MatchString(l.text) || runningText(l.text) || len(block) >= 24 || len(block) > 0 && last-l.base > 8*math.Max(l.size, 1) {
			break // the abstract, the body, or a figure far below
		}
		last = l.base
		if lt := lettersOnly(l.text); lt != "" && strings.Contains(want, lt) {
			continue // a title word set again (a logo, a figure)
		}
		block = append(block, l)
	}
	// rows: lines whose baselines are within a point or two, left to right
	sort.SliceStable(block, func(a, b int) bool {
		if math.Abs(block[a].base-block[b].base) < 2 {
			return block[a].x0 < block[b].x0
		}
		return block[a].base > block[b].base
	})
	return block
}

// abstractLine matches the first line below the author block: the
// abstract's or keywords' heading, in English or Chinese (摘要, 关键词;
// typesetters space the characters out: "摘 要").
var abstractLine = lazyre.New(`(?i)^((abstract|a b s t r a c t|summary|keywords|key words|index terms)\b|摘\s*要|关\s*键\s*词|關\s*鍵\s*詞)`)

// runningText says whether a line reads as a sentence of the body: many
// words, a good share of them in lower case.
func runningText(s string) bool {
	ws := strings.Fields(s)
	if len(ws) < 9 {
		return false
	}
	lower := 0
	for _, w := range ws {
		if unicode.IsLower(firstRune(w)) {
			lower++
		}
	}
	return lower*10 >= len(ws)*4
}

// affiliationWords mark a line (or a name) as an affiliation, a note or an
// address rather than authors.
var affiliationWords = map[string]bool{
	"university": true, "universität": true, "universitat": true, "université": true, "universidad": true, "università": true,
	"universiteit": true, "univ": true, "institute": true, "institut": true, "instituto": true, "istituto": true,
	"department": true, "dept": true, "school": true, "college": true, "faculty": true, "laboratory": true,
	"laboratories": true, "lab": true, "labs": true, "research": true, "inc": true, "ltd": true, "llc": true, "gmbh": true,
	"corporation": true, "corp": true, "company": true, "center": true, "centre": true, "academy": true, "hospital": true,
	"foundation": true, "division": true, "ministry": true, "agency": true, "council": true, "polytechnic": true,
	"street": true, "road": true, "avenue": true, "usa": true, "china": true, "germany": true, "france": true,
	"japan": true, "korea": true, "canada": true, "italy": true, "spain": true, "india": true, "uk": true,
	"equal": true, "contribution": true, "correspondence": true, "corresponding": true, "email": true, "e-mail": true,
	"preprint": true, "review": true,
	"dated": true, "received": true, "accepted": true, "published": true, "demo": true, "code": true, "project": true,
	"ai": true, "of": true, "the": true, "for": true, "in": true, "on": true, "at": true, "to": true, "with": true,
}

// affiliationLine says whether a whole line is no author line: an e-mail
// address or URL, a line that starts with a superscript before a word
// ("1Institute for ..."), or one with affiliation words and no comma-free
// name in it.
func affiliationLine(s string) bool {
	low := strings.ToLower(s)
	if strings.ContainsAny(s, "@{}") || strings.Contains(low, "http") || strings.Contains(low, "www.") {
		return true
	}
	if r := firstRune(s); unicode.IsDigit(r) || strings.ContainsRune(markers, r) || unicode.Is(unicode.Greek, r) && hasLatin(s) {
		return true
	}
	for _, w := range strings.FieldsFunc(low, func(r rune) bool { return !unicode.IsLetter(r) && r != '-' }) {
		if affiliationWords[w] && w != "of" && w != "the" && w != "for" && w != "in" && w != "on" && w != "at" && w != "to" && w != "with" {
			return true
		}
	}
	return false
}

// markers are the characters that set footnote and affiliation marks
// after (or before) a name.
const markers = "∗*†‡§¶#♠♣♥♦⋆★♮♯✝✉⊥∥♢♡○•"

var (
	nameSep      = lazyre.New(`\s*(?:,|;|\band\b|&|\s·\s)\s*`)
	initialStart = lazyre.New(`^\p{Lu}\.`)
)

// splitNames splits a piece of an author line into the names it holds:
// at commas, "and", and after a word that ends in a marker ("Kyle Loα∗
// Zejiang Shenα" is two names); a run of four or more plain words with no
// mark between them is read as names of two words each. Markers are
// removed.
func splitNames(piece string) []string {
	latin := hasLatin(piece)
	var out []string
	for _, part := range nameSep.Split(piece, -1) {
		var cur []string
		flush := func() {
			if len(cur) > 0 {
				out = append(out, pairs(cur)...)
			}
			cur = nil
		}
		for _, w := range strings.Fields(part) {
			core, marked := stripMarks(w, latin)
			if core == "" {
				flush()
				continue
			}
			cur = append(cur, core)
			if marked {
				flush()
			}
		}
		flush()
	}
	return out
}

// pairs reads a run of plain words as names: whole when it has three words
// or fewer, or an initial or particle binds it ("Samuel R. Bowman"), else
// two words each ("Jane Dwivedi-Yu Roberto Dessì").
func pairs(ws []string) []string {
	if len(ws) <= 3 {
		return []string{strings.Join(ws, " ")}
	}
	for _, w := range ws {
		if initialStart.MatchString(w) || particle(w) {
			return []string{strings.Join(ws, " ")}
		}
	}
	var out []string
	for i := 0; i < len(ws); i += 2 {
		if i+3 == len(ws) {
			out = append(out, strings.Join(ws[i:], " "))
			break
		}
		out = append(out, strings.Join(ws[i:min(i+2, len(ws))], " "))
	}
	return out
}

// stripMarks removes superscript marks from a word: markers, digits and,
// in Latin-script text, Greek letters (α, β used as affiliation marks).
// marked says whether any were there, which ends a name.
func stripMarks(w string, latin bool) (core string, marked bool) {
	rs := []rune(w)
	isMark := func(r rune) bool {
		return strings.ContainsRune(markers, r) || unicode.IsDigit(r) || latin && unicode.Is(unicode.Greek, r) || r == '(' || r == ')'
	}
	end := len(rs)
	for end > 0 && (isMark(rs[end-1]) || rs[end-1] == ',') {
		end--
	}
	start := 0
	for start < end && isMark(rs[start]) {
		start++
	}
	core = string(rs[start:end])
	return core, end < len(rs) || start > 0
}

// validName says whether words make a person's name: two to five words,
// each capitalised (or an initial, or a particle), no affiliation word, no
// digit.
func validName(ws []string) bool {
	if len(ws) < 2 || len(ws) > 5 {
		return len(ws) == 1 && hasCJK(ws[0]) && cjkName(ws[0])
	}
	caps := 0
	for i, w := range ws {
		if !isNameWord(w, i == len(ws)-1) && !(particle(w) && i > 0 && i < len(ws)-1) {
			return false
		}
		if unicode.IsUpper(firstRune(w)) {
			caps++
		}
	}
	return caps >= 2
}

// isNameWord says whether w can be a word of a name: a capitalised word
// of letters, hyphens and apostrophes ("Dwivedi-Yu", "O'Brien",
// "McCandlish"), or an initial ("R.", "E").
func isNameWord(w string, last bool) bool {
	if affiliationWords[strings.ToLower(strings.Trim(w, "."))] || len(w) > 30 || len(w) > 2 && strings.ToUpper(w) == w && !hasCJK(w) {
		return false
	}
	rs := []rune(w)
	if !unicode.IsUpper(rs[0]) {
		return false
	}
	for i, r := range rs {
		switch {
		case unicode.IsLetter(r), r == '-' || r == '\'' || r == '’':
		case r == '.' && (i == len(rs)-1 || rs[i+1] == '-' || unicode.IsUpper(rs[i+1])):
		default:
			return false
		}
	}
	return true
}

// membership says whether words are a society grade set after a name
// ("Senior Member", "IEEE", "Fellow").
func membership(ws []string) bool {
	for _, w := range ws {
		switch strings.ToLower(strings.Trim(w, ".")) {
		case "member", "ieee", "fellow", "senior", "student", "life", "graduate", "acm", "siam", "aaai":
		default:
			return false
		}
	}
	return len(ws) > 0
}

func particle(w string) bool {
	switch strings.ToLower(w) {
	case "van", "von", "de", "der", "den", "da", "del", "della", "di", "du", "dos", "das", "le", "la", "bin", "ibn", "al", "el", "ter", "ten", "zu", "y":
		return true
	}
	return false
}

func hasLatin(s string) bool {
	for _, r := range s {
		if r < 0x250 && unicode.IsLetter(r) {
			return true
		}
	}
	return false
}

func hasCJK(s string) bool {
	for _, r := range s {
		if unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul) {
			return true
		}
	}
	return false
}

// spacedCJKName says whether ws are the characters of one Han name set
// apart ("于 恒", "王 小 明"): two or three words of one character each.
func spacedCJKName(ws []string) bool {
	if len(ws) < 2 || len(ws) > 3 {
		return false
	}
	for _, w := range ws {
		rs := []rune(w)
		if len(rs) != 1 || !unicode.Is(unicode.Han, rs[0]) {
			return false
		}
	}
	return true
}

// cjkName says whether a word of Han (or Hangul) characters reads as a
// person's name: two to four characters, none of those that end the names
// of institutions (大学 university, 学院 college, 研究 research, ...).
func cjkName(w string) bool {
	n := len([]rune(w))
	if n < 2 || n > 4 {
		return false
	}
	for _, inst := range []string{"大学", "学院", "研究", "公司", "实验", "中心", "学校", "大學", "學院", "系", "所", "院", "部", "局", "省", "市", "摘要"} {
		if strings.Contains(w, inst) {
			return false
		}
	}
	return true
}
