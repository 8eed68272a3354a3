package ask

import (
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/papers-cli/papers/internal/lazyre"
)

// The support check: a model's sentence that cites passages must not state
// a number or a rare word that none of them holds. It is a cheap, lexical
// check meant to catch the claims a model makes up or pins on the wrong
// passage (a number from elsewhere, a benchmark the passage never names),
// not a judge of paraphrase: common words are never checked.
//
// Numbers are compared by value ("2.7" matches "2.70", "1,000" matches
// "1000"; number words up to twenty count in a passage). Rare words are the
// name-like ones: acronyms and mixed-case or digit-bearing words ("GRPO",
// "ALFWorld", "Qwen3-8B") and capitalised words inside a sentence
// ("Minecraft"); they match a passage case-insensitively, ignoring hyphens
// and a plural "s". A passage's support is its text, its paper's title and
// its source label (id, pages).

// unsupported checks each sentence of a checked answer against the passages
// it cites (display number d is ev[order[d-1]-1]).
func unsupported(answer string, ev []evidence, order []int) []Claim {
	var out []Claim
	support := map[int]*supportText{}
	for _, s := range answerSentences(answer) {
		cites := sentenceCites(s)
		if len(cites) == 0 {
			continue
		}
		var sup []*supportText
		for _, d := range cites {
			if d < 1 || d > len(order) {
				continue
			}
			n := order[d-1]
			if support[n] == nil {
				e := &ev[n-1]
				support[n] = newSupport(e.Text + "\n" + e.Paper.Title + "\n" + sourceLabel(e))
			}
			sup = append(sup, support[n])
		}
		if missing := missingFrom(s, sup); len(missing) > 0 {
			out = append(out, Claim{Sentence: s, Cites: cites, Missing: missing})
		}
	}
	return out
}

// supportText is a passage prepared for the check.
type supportText struct {
	numbers map[string]bool // canonical values
	folded  string          // lower-cased, hyphens removed
}

func newSupport(text string) *supportText {
	st := &supportText{numbers: map[string]bool{}, folded: fold(text)}
	for _, n := range numbersIn(text) {
		st.numbers[n] = true
	}
	for _, w := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool { return !unicode.IsLetter(r) }) {
		if v, ok := numberWords[w]; ok {
			st.numbers[v] = true
		}
	}
	return st
}

var numberWords = map[string]string{
	"zero": "0", "one": "1", "two": "2", "three": "3", "four": "4", "five": "5", "six": "6", "seven": "7",
	"eight": "8", "nine": "9", "ten": "10", "eleven": "11", "twelve": "12", "thirteen": "13", "fourteen": "14",
	"fifteen": "15", "sixteen": "16", "seventeen": "17", "eighteen": "18", "nineteen": "19", "twenty": "20",
	"thirty": "30", "forty": "40", "fifty": "50", "hundred": "100", "thousand": "1000",
	"single": "1", "once": "1", "twice": "2", "double": "2", "doubles": "2", "doubled": "2",
	"first": "1", "second": "2", "third": "3", "fourth": "4", "fifth": "5",
}

// fold lower-cases s and removes hyphens, so that "Co-ReAct" matches
// "coreact" and "pass@1" matches itself.
func fold(s string) string {
	return strings.NewReplacer("-", "", "‐", "", "–", "", "\u00ad", "").Replace(strings.ToLower(s))
}

var (
	numeralRe  = lazyre.New(`\d[\d,]*(?:\.\d+)?|\.\d+`)
	thousands  = lazyre.New(`^\d{1,3}(?:,\d{3})+(?:\.\d+)?$`)
	listMarker = lazyre.New(`^\s*(?:\d+[.)]|[-*•])\s+`)
)

// numbersIn returns the canonical values of the numbers in s.
func numbersIn(s string) []string {
	var out []string
	for _, m := range numeralRe.FindAllString(s, -1) {
		parts := []string{m}
		if thousands.MatchString(m) {
			parts = []string{strings.ReplaceAll(m, ",", "")}
		} else if strings.Contains(m, ",") {
			parts = strings.Split(m, ",")
		}
		for _, p := range parts {
			if v, ok := canonical(p); ok {
				out = append(out, v)
			}
		}
	}
	return out
}

// canonical is a number's value as a string: "2.70" and "2.7" are "2.7".
func canonical(s string) (string, bool) {
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return "", false
	}
	return strconv.FormatFloat(f, 'g', -1, 64), true
}

// missingFrom lists the numbers and rare words of sentence s that no
// passage of sup holds (each once, in order).
func missingFrom(s string, sup []*supportText) []string {
	if len(sup) == 0 {
		return nil
	}
	claim := displayCite.ReplaceAllString(s, " ")
	claim = listMarker.ReplaceAllString(claim, "")
	var missing []string
	add := func(w string) {
		if !slices.Contains(missing, w) {
			missing = append(missing, w)
		}
	}
	for _, tok := range numeralRe.FindAllString(claim, -1) {
		for _, v := range numbersIn(tok) {
			if !slices.ContainsFunc(sup, func(st *supportText) bool { return st.numbers[v] }) {
				add(strings.Trim(tok, ","))
			}
		}
	}
	for _, w := range rareWords(claim) {
		f := fold(w)
		if !slices.ContainsFunc(sup, func(st *supportText) bool { return holdsWord(st.folded, f) }) {
			add(w)
		}
	}
	return missing
}

// holdsWord reports whether folded text holds word f, or its singular.
func holdsWord(text, f string) bool {
	if strings.Contains(text, f) {
		return true
	}
	for _, suf := range []string{"es", "s", "'s", "’s"} {
		if b, ok := strings.CutSuffix(f, suf); ok && len(b) >= 2 && strings.Contains(text, b) {
			return true
		}
	}
	return false
}

// commonCapitals are capitalised words a sentence may use that name nothing
// a passage must hold.
var commonCapitals = map[string]bool{
	"table": true, "figure": true, "fig": true, "section": true, "appendix": true, "equation": true, "eq": true,
	"i": true, "however": true, "both": true, "this": true, "these": true, "the": true, "it": true, "its": true,
	"in": true, "on": true, "for": true, "and": true, "but": true, "a": true, "an": true, "as": true, "by": true,
	"with": true, "while": true, "compared": true, "overall": true, "english": true, "passage": true, "passages": true,
	"note": true, "yes": true, "no": true, "unlike": true, "like": true, "see": true, "also": true, "here": true,
	"there": true, "their": true, "they": true, "we": true, "our": true, "when": true, "where": true, "which": true,
	"what": true, "who": true, "how": true, "why": true, "first": true, "second": true, "finally": true, "then": true,
	"thus": true, "therefore": true, "moreover": true, "additionally": true, "furthermore": true, "specifically": true,
	"instead": true, "rather": true, "other": true, "each": true, "all": true, "some": true, "most": true,
	"according": true, "based": true, "using": true, "given": true, "from": true, "to": true, "of": true, "at": true,
}

// rareWords are the name-like words of a claim (nameLike, as the
// extractive answer finds names, less the capitalised words of prose).
func rareWords(claim string) []string {
	var out []string
	start := true // the next word opens a sentence or a clause
	for _, raw := range strings.Fields(claim) {
		w := strings.TrimFunc(raw, func(r rune) bool {
			return !unicode.IsLetter(r) && !unicode.IsDigit(r)
		})
		opens := start
		last, _ := utf8.DecodeLastRuneInString(raw)
		start = strings.ContainsRune(".!?:;", last) || strings.HasPrefix(raw, "\"") || strings.HasPrefix(raw, "“")
		if utf8.RuneCountInString(w) < 2 {
			continue
		}
		w = strings.TrimSuffix(strings.TrimSuffix(w, "'s"), "’s")
		if nameLike(w, opens) && !commonCapitals[strings.ToLower(w)] {
			out = append(out, w)
		}
	}
	return out
}

// clipSentence shortens a sentence for a warning.
func clipSentence(s string) string {
	if utf8.RuneCountInString(s) <= 120 {
		return s
	}
	r := []rune(s)
	return string(r[:117]) + "…"
}

// citeList renders numbers as "[1]" or "[1], [9]".
func citeList(ns []int) string {
	var parts []string
	for _, n := range ns {
		parts = append(parts, "["+strconv.Itoa(n)+"]")
	}
	return strings.Join(parts, ", ")
}
