package rank

import (
	"math"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Span is a stretch of a sentence offered as a short answer: words
// [Start, End) of the sentence's white-space separated words.
type Span struct {
	Text       string
	Start, End int
	Rule       string // how it was cut: sent, seg, after:WORD, before:WORD, caps, num, list
}

// triggers are the words after which an answer often starts ("we use
// X", "such as X", "X is evaluated on Y").
var triggers = map[string]bool{
	"as": true, "including": true, "include": true, "includes": true, "namely": true, "like": true,
	"use": true, "used": true, "using": true, "uses": true, "employ": true, "employed": true, "adopt": true,
	"is": true, "are": true, "was": true, "were": true, "of": true, "on": true, "with": true, "by": true,
	"called": true, "named": true, "achieves": true, "achieved": true, "achieve": true, "obtains": true,
	"obtained": true, "improves": true, "improved": true, "to": true, "from": true, "between": true,
	"than": true, "in": true, "for": true, "via": true, "through": true, "contains": true, "consists": true,
	"comprises": true, "propose": true, "proposed": true, "introduce": true, "outperforms": true, "into": true,
	"at": true, "reaches": true, "about": true, "around": true, "approximately": true,
}

// verbs end the subject of a sentence ("X is ...", "X outperforms ...").
var verbs = map[string]bool{
	"is": true, "are": true, "was": true, "were": true, "achieves": true, "achieved": true, "outperforms": true,
	"outperformed": true, "obtains": true, "improves": true, "performs": true, "has": true, "have": true,
	"shows": true, "gives": true, "yields": true, "consists": true, "contains": true, "uses": true,
}

// maxSpansPerSentence bounds the candidates a sentence offers.
const maxSpansPerSentence = 60

// Spans cuts a sentence into candidate answers: the sentence, its
// segments between punctuation (and runs of up to three of them, for
// lists), what follows a trigger word to the end of its segment or
// sentence, what precedes a verb, runs of capitalised words or acronyms
// (with lists of them), and numbers with the words around them.
func Spans(sentence string) []Span {
	words := strings.Fields(sentence)
	n := len(words)
	if n == 0 {
		return nil
	}
	var out []Span
	seen := map[[2]int]bool{}
	add := func(i, j int, rule string) {
		for i < j && isPunctWord(words[i]) {
			i++
		}
		for j > i && isPunctWord(words[j-1]) {
			j--
		}
		if i >= j || seen[[2]int{i, j}] || len(out) >= maxSpansPerSentence || !balanced(words[i:j]) {
			return
		}
		seen[[2]int{i, j}] = true
		out = append(out, Span{Text: spanText(words[i:j]), Start: i, End: j, Rule: rule})
	}
	add(0, n, "sent")
	// segments: cut after a word ending in , ; : or before/after brackets
	var cuts []int
	cuts = append(cuts, 0)
	for i, w := range words {
		last, _ := utf8.DecodeLastRuneInString(w)
		first, _ := utf8.DecodeRuneInString(w)
		if first == '(' && i > 0 && cuts[len(cuts)-1] != i {
			cuts = append(cuts, i)
		}
		if strings.ContainsRune(",;:)", last) && i+1 < n {
			cuts = append(cuts, i+1)
		}
	}
	cuts = append(cuts, n)
	segEnd := make([]int, n) // the end of the segment each word is in
	for k := 0; k+1 < len(cuts); k++ {
		for i := cuts[k]; i < cuts[k+1]; i++ {
			segEnd[i] = cuts[k+1]
		}
		for r := 1; r <= 3 && k+r < len(cuts); r++ {
			if r == 1 || k+r+1 <= len(cuts) {
				add(cuts[k], cuts[k+r], "seg")
			}
		}
	}
	for i, w := range words {
		lw := strings.ToLower(strings.Trim(w, ",;:.()\"'"))
		if triggers[lw] && i+1 < n {
			add(i+1, segEnd[i+1], "after:"+lw)
			add(i+1, n, "afterall:"+lw)
		}
		if verbs[lw] && i > 0 {
			start := 0
			for k := len(cuts) - 1; k >= 0; k-- {
				if cuts[k] <= i-1 {
					start = cuts[k]
					break
				}
			}
			add(start, i, "before")
		}
	}
	// capitalised runs, and lists of them
	var runs [][2]int
	for i := 0; i < n; {
		if !capWord(words[i], i == 0) {
			i++
			continue
		}
		j := i + 1
		for j < n && (capWord(words[j], false) || joiner(words[j]) && j+1 < n && capWord(words[j+1], false)) {
			if endsSegment(words[j-1]) {
				break
			}
			j++
		}
		runs = append(runs, [2]int{i, j})
		add(i, j, "caps")
		i = j
	}
	for k := 0; k+1 < len(runs); k++ {
		end := k
		for end+1 < len(runs) && runs[end+1][0]-runs[end][1] <= 2 {
			end++
		}
		if end > k {
			add(runs[k][0], runs[end][1], "list")
			k = end
		}
	}
	// numbers with what they count or measure
	for i, w := range words {
		r, _ := utf8.DecodeRuneInString(strings.TrimLeft(w, "($~≈<>+-−±"))
		if !unicode.IsDigit(r) {
			continue
		}
		j := i + 1
		for j < n && j < i+4 && !endsSegment(words[j-1]) {
			j++
		}
		add(i, i+1, "num")
		add(i, j, "numafter")
		add(max(0, i-3), i+1, "numbefore")
	}
	return out
}

// balanced reports words whose brackets close inside them (a span that
// opens a parenthesis it does not close reads as broken), allowing the
// outer pair spanText trims.
func balanced(ws []string) bool {
	s := spanText(ws)
	depth := 0
	for _, r := range s {
		switch r {
		case '(', '[':
			depth++
		case ')', ']':
			depth--
			if depth < 0 {
				return false
			}
		}
	}
	return depth == 0
}

func spanText(ws []string) string {
	s := strings.Join(ws, " ")
	return strings.TrimRight(strings.TrimLeft(s, "(\"'"), ".,;:)\"'")
}

func isPunctWord(w string) bool {
	for _, r := range w {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			return false
		}
	}
	return true
}

// capWord reports whether w looks like part of a name: capitalised (not
// only as the sentence's first word), an acronym, or a name with digits.
func capWord(w string, first bool) bool {
	w = strings.Trim(w, ",;:.()\"'")
	if w == "" {
		return false
	}
	upper, letters := 0, 0
	for _, r := range w {
		if unicode.IsLetter(r) {
			letters++
			if unicode.IsUpper(r) {
				upper++
			}
		}
	}
	r, _ := utf8.DecodeRuneInString(w)
	if upper >= 2 {
		return true
	}
	return unicode.IsUpper(r) && !first && letters > 0
}

func joiner(w string) bool {
	switch strings.ToLower(w) {
	case "of", "and", "-", "&", "for", "de", "on":
		return true
	}
	return false
}

func endsSegment(w string) bool {
	last, _ := utf8.DecodeLastRuneInString(w)
	return strings.ContainsRune(",;:.)", last)
}

// spanFeatures are a candidate answer's features for question q: its
// length, what it holds (names, numbers, lists, the question's own
// words), how it was cut, and whether a question word stands just before
// or after it (the answer to "What dataset do they use?" follows "use").
func (m *Model) spanFeatures(q Question, cues []string, qset map[string]bool, s Span, words []string) Vector {
	var v Vector
	n := s.End - s.Start
	ln := float64(n)
	v.add("len", math.Log1p(ln))
	bin := lenBin(n)
	v.add("len:"+bin, 1)
	v.add("frac", ln/float64(max(len(words), 1)))
	stemsIn, inQ := 0, 0
	caps, nums, acr := 0, 0, 0
	for k, w := range words[s.Start:s.End] {
		for _, st := range stems(w) {
			stemsIn++
			if qset[st] {
				inQ++
			}
		}
		if capWord(w, s.Start+k == 0) {
			caps++
		}
		if strings.IndexFunc(w, unicode.IsDigit) >= 0 {
			nums++
		}
		if up := strings.Trim(w, ",;:.()"); len(up) >= 2 && strings.ToUpper(up) == up && strings.IndexFunc(up, unicode.IsLetter) >= 0 {
			acr++
		}
	}
	qover := 0.0
	if stemsIn > 0 {
		qover = float64(inQ) / float64(stemsIn)
	}
	v.add("qover", qover)
	v.add("qover0", flag(inQ == 0))
	near := func(i int) bool {
		if i < 0 || i >= len(words) {
			return false
		}
		for _, st := range stems(words[i]) {
			if qset[st] {
				return true
			}
		}
		return false
	}
	qBefore := flag(near(s.Start-1) || near(s.Start-2))
	qAfter := flag(near(s.End) || near(s.End+1))
	v.add("qbefore", qBefore)
	v.add("qafter", qAfter)
	capsF := float64(caps) / ln
	numF := flag(nums > 0)
	list := flag(strings.Count(s.Text, ",") > 0 || strings.Contains(s.Text, " and "))
	v.add("caps", capsF)
	v.add("num", numF)
	v.add("acronym", flag(acr > 0))
	v.add("list", list)
	v.add("pct", flag(strings.Contains(s.Text, "%")))
	rule := s.Rule
	if i := strings.IndexByte(rule, ':'); i > 0 && !triggers[rule[i+1:]] {
		rule = rule[:i]
	}
	v.add("r:"+rule, 1)
	v.add("start", flag(s.Start == 0))
	v.add("end", flag(s.End == len(words)))
	for _, c := range append(cues, "w:"+q.Wh) {
		v.add(c+"&num", numF)
		v.add(c+"&caps", capsF)
		v.add(c+"&list", list)
		v.add(c+"&len:"+bin, 1)
		v.add(c+"&r:"+ruleKind(s.Rule), 1)
		v.add(c+"&qover", qover)
		v.add(c+"&qbefore", qBefore)
	}
	return v
}

func ruleKind(r string) string {
	if i := strings.IndexByte(r, ':'); i > 0 {
		return r[:i]
	}
	return r
}

func lenBin(n int) string {
	switch {
	case n <= 1:
		return "1"
	case n <= 3:
		return "2-3"
	case n <= 6:
		return "4-6"
	case n <= 12:
		return "7-12"
	case n <= 24:
		return "13-24"
	}
	return "25+"
}
