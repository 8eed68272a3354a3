package ask

import (
	"regexp"
	"slices"
	"strings"
	"unicode"

	"github.com/kljensen/snowball/english"

	"github.com/papers-cli/papers/internal/textkit"
)

// kind is what a question asks for, as far as the offline answer needs to
// know: it decides which sentence answers and when none does.
type kind int

const (
	kindOther      kind = iota
	kindNumber          // a quantity: "how many", "what accuracy", "by how much"
	kindName            // a name: "which model", "what is X called", "who"
	kindList            // several things of one paper: "which three X", "which benchmarks"
	kindPapers          // several papers: "which papers/works ..."
	kindDefinition      // "what is X", "what does X stand for"
	kindMethod          // "how is X done"
	kindReason          // "why"
)

func (k kind) String() string {
	return [...]string{"other", "number", "name", "list", "papers", "definition", "method", "reason"}[k]
}

// question is a question analysed for answering offline.
type question struct {
	text string
	kind kind
	// listN is the number of things asked for ("which three": 3), 0 if
	// not said.
	listN int
	// aboutPaper: the question asks which work/paper/method does something,
	// so the answer names the paper.
	aboutPaper bool
	// focus are the stems of the thing asked for ("What *learning rate*
	// does ECHO use"); attr those of them that are specific (not a generic
	// quantity word such as "number" or "accuracy").
	focus, attr []string
	// entities are the names the question mentions (ECHO, GSM8K, Qwen3-8B,
	// Crafter): what the passages must be about.
	entities []entity
	// expand is X of "what does X stand for", "" otherwise.
	expand string
	// phrase is the multiword name of the thing asked for when its last
	// word is generic ("learning rate", "batch size"): stems in order.
	phrase []string
	// parts are the questions asked one after the other ("Which model ...,
	// and which algorithm ...?"), each with its own kind and focus; a
	// question asking one thing is its own only part.
	parts []*question
}

// entity is a name of the question and its normalised form (lower case,
// letters and digits only) used to find it in passages.
type entity struct {
	text, norm string
}

var (
	papersRe  = regexp.MustCompile(`(?i)\b(which|what)\s+(\w+\s+)?(papers|works|studies|articles|publications)\b`)
	paperRe   = regexp.MustCompile(`(?i)^(which|what)\s+(\w+\s+)?(paper|work|study|article|publication|method|approach|framework|system|model|algorithm|technique)\s+(\w+\s+)?(propose|proposes|proposed|introduce|introduces|introduced|present|presents|presented|train|trains|use|uses|add|adds|learn|learns|develop|develops|combine|combines|make|makes|let|lets|is|does|can|offer|offers|reframe|reframes|treat|treats|model|models|generate|generates|keep|keeps)\b`)
	countWord = map[string]int{"two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "both": 2}
	listRe    = regexp.MustCompile(`(?i)\b(which|what|name|list)\s+(the\s+)?(two|three|four|five|six|seven|eight|both)\b`)
	numberRe  = regexp.MustCompile(`(?i)\b(how (many|much|large|big|long|often|fast|far|high|low|small|quickly)|by how|by what (factor|margin|percentage|amount)|(at|to) (roughly |about |approximately )?what (value|range|level|probability|rate|percentage|temperature|size|extent|point|count|parameter count)|what (is|was|are|were) the (number|size|count|value|rate|ratio|percentage|share|fraction|proportion|accuracy|score|amount)|(what|which) (\w+[ -]){0,3}?(percentage|fraction|share|proportion|number|amount|accuracy|accuracies|score|scores|rate|ratio|size|value|values|range|temperature|speedup|margin|count|length|budget|latency|throughput|threshold|probability|f1|auroc|auc|bleu|rouge|elo|pass@\d+|pass@k|gain|gains|improvement|win-rate|win rate|cost)\b)`)
	defRe     = regexp.MustCompile(`(?i)^(what|who)\s+(is|are|was|were)\s+(a |an |the )?[^,;]{1,60}\?\s*$|\bstands? for\b|\bwhat does .{1,60} (mean|refer to)\b|\bwhat is meant by\b|^define\b|^(?-i:(?i:what|who)\s+(?i:is|are|was|were)\s+(?:the\s+)?[A-Z][\w-]*,)`)
	expandRe  = regexp.MustCompile(`(?i)\bwhat (?:does|do) (?:the (?:acronym|abbreviation|name) )?(.{1,40}?) stands? for\b`)
	methodRe  = regexp.MustCompile(`(?i)^(how|in what way|by what means)\b`)
	reasonRe  = regexp.MustCompile(`(?i)^why\b|\bwhat (makes|explains|causes|leads to)\b|\bfor what reason\b`)
	// a clause before the question word: "According to the authors, why"
	leadIn = regexp.MustCompile(`^[^?]{3,80}?,\s+((?:(?:on|in|at|to|by|for|with|from|of|under)\s+)?(?:which|what|how|why|who|whom|whose|when|where)\b)`)
	// adverbs that only insist: "what exactly is a session"
	hedge = regexp.MustCompile(`(?i)\b(?:exactly|precisely|actually|really)\s+`)
	whRe  = regexp.MustCompile(`(?i)\b(what|which|who|whom|whose|how many|how much|how)\b\s*`)
)

// genericFocus are words of "what X" that say a quantity or a thing is
// asked for without naming which: any number or name answers them.
var genericFocus = map[string]bool{}

func init() {
	for _, w := range []string{"number", "amount", "share", "percentage", "percent", "fraction", "proportion",
		"value", "values", "score", "scores", "accuracy", "accuracies", "rate", "ratio", "size", "count", "total", "kind",
		"type", "sort", "result", "results", "performance", "level", "degree", "extent", "figure", "gain", "gains",
		"improvement", "many", "much", "large", "big", "long", "often", "two", "three", "four", "five", "six",
		"name", "main", "key", "different", "exact", "specific", "average", "overall", "roughly", "approximately",
		"role", "part", "point", "points", "thing", "things", "best", "highest", "lowest", "largest", "smallest",
		"factor", "margin", "times", "fold", "magnitude", "percentage-point", "maximum", "minimum", "max", "min",
		"mean", "median", "typical", "initial", "final", "approximate", "absolute", "relative"} {
		genericFocus[textkit.Stem(w)] = true
	}
}

// partSplit finds where a question asks its next thing: ", and which
// ...", " and what ...", "; how ...".
var partSplit = regexp.MustCompile(`(?i)(?:,\s*(?:and|but)?|;|:|\s+and)\s+((?:(?:on|in|at|to|by|for|with|from|of)\s+)?(?:which|what|how|why|where|when|who|whom|whose)\b)`)

// quantityHead are generic words a number itself stands for.
var quantityHead = map[string]bool{}

func init() {
	for _, w := range []string{"count", "number", "amount", "total", "value", "values", "quantity", "figure", "many", "much"} {
		quantityHead[textkit.Stem(w)] = true
	}
}

// coordinated finds two things asked for at once: "what F1 score and
// precision does ...", "which base model and tokenizer are ...".
var coordinated = regexp.MustCompile(`(?i)\b(what|which)\s+((?:[\w@.-]+\s+){0,2}[\w@.-]+)\s+and\s+((?:[\w@.-]+\s+){0,2}[\w@.-]+)\s+((?:does|do|did|is|are|was|were|has|have|can|could)\b.*)$`)

// analyse reads what a question asks for.
func analyse(text string) *question {
	q := analysePart(text)
	q.entities = entities(text)
	rest := text
	var cuts []string
	for {
		loc := partSplit.FindStringSubmatchIndex(rest)
		if loc == nil || loc[0] < 8 || !whRe.MatchString(rest[:loc[0]]) {
			break // "According to the authors, why ...": one question
		}
		cuts = append(cuts, strings.TrimSpace(rest[:loc[0]]))
		rest = rest[loc[2]:]
	}
	if len(cuts) == 0 {
		// "What F1 score and precision does the Selector reach?": two things
		if m := coordinated.FindStringSubmatchIndex(text); m != nil {
			wh, x, y, rest := text[m[2]:m[3]], text[m[4]:m[5]], text[m[6]:m[7]], text[m[8]:]
			for _, c := range []string{wh + " " + x + " " + rest, wh + " " + y + " " + rest} {
				p := analysePart(text[:m[2]] + c)
				p.entities = q.entities
				q.parts = append(q.parts, p)
			}
			return q
		}
		q.parts = []*question{q}
		return q
	}
	cuts = append(cuts, rest)
	for _, c := range cuts {
		p := analysePart(c)
		if p.kind == kindOther || p.kind == kindPapers {
			p.kind = q.kind
		}
		p.entities = q.entities
		q.parts = append(q.parts, p)
	}
	return q
}

// analysePart reads one question (or one part of it).
func analysePart(text string) *question {
	text = hedge.ReplaceAllString(text, "")
	q := &question{text: text}
	// "According to the authors, why ...", "In the Rust ablation, what ...":
	// the kind is read from the question word on
	asked := text
	if loc := leadIn.FindStringSubmatchIndex(text); loc != nil {
		asked = text[loc[2]:]
	}
	lower := strings.ToLower(asked)
	if m := listRe.FindStringSubmatch(text); m != nil {
		q.listN = countWord[strings.ToLower(m[3])]
	}
	switch {
	case papersRe.MatchString(text):
		q.kind = kindPapers
	case numberRe.MatchString(text):
		q.kind = kindNumber
	case q.listN > 0:
		q.kind = kindList
	case reasonRe.MatchString(asked):
		q.kind = kindReason
	case defRe.MatchString(asked):
		q.kind = kindDefinition
	case methodRe.MatchString(asked):
		q.kind = kindMethod
	case strings.HasPrefix(lower, "which") || strings.HasPrefix(lower, "what") || strings.HasPrefix(lower, "who"):
		q.kind = kindName
		if pluralFocus(asked) {
			q.kind = kindList
		}
	default:
		// "On which benchmarks ...", "In the X, what ...": the question word is inside
		if loc := whRe.FindStringIndex(text); loc != nil {
			switch w := strings.ToLower(strings.TrimSpace(text[loc[0]:loc[1]])); w {
			case "which", "what", "who", "whom", "whose":
				q.kind = kindName
				if pluralFocus(text[loc[0]:]) {
					q.kind = kindList
				}
			case "how":
				q.kind = kindMethod
			}
		}
	}
	q.aboutPaper = q.kind == kindName && paperRe.MatchString(asked)
	if m := expandRe.FindStringSubmatch(text); m != nil {
		q.expand = strings.Trim(m[1], " \"'“”‘’")
		q.kind = kindDefinition
	}
	q.focus = focusTerms(text)
	for i, t := range q.focus {
		if !genericFocus[t] {
			q.attr = append(q.attr, t)
		} else if i > 0 && !genericFocus[q.focus[i-1]] && !quantityHead[t] {
			// "learning rate", "batch size": the phrase is the thing asked
			// for ("parameter count" is just parameters: the number counts)
			q.phrase = slices.Clone(q.focus[:i+1])
		}
	}
	return q
}

// pluralFocus reports whether the thing a which/what question asks for is
// plural: "Which benchmarks", "What datasets are used", "Which open-source
// base checkpoints were". A word in -s after another word is a plural
// noun only before an auxiliary verb ("checkpoints were"), not before a
// preposition ("Which model acts as" asks for one model).
func pluralFocus(text string) bool {
	loc := whRe.FindStringIndex(text)
	if loc == nil {
		return false
	}
	words := strings.Fields(text[loc[1]:])
	clean := func(i int) string { return strings.ToLower(strings.Trim(words[i], "?,.;:'\"()")) }
	content := 0
	for i := 0; i < len(words) && i < 5; i++ {
		w := clean(i)
		if countWord[w] > 0 || w == "the" || w == "of" {
			continue
		}
		if auxVerb[w] || copula[w] {
			return false
		}
		content++
		if len(w) > 3 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") && !strings.HasSuffix(w, "us") && !strings.HasSuffix(w, "is") {
			if content == 1 || i+1 >= len(words) || auxiliary[clean(i+1)] || pluralVerbLater(words[i+1:]) {
				return true
			}
			return false
		}
	}
	return false
}

// pluralVerbLater reports a plural verb among the next words of a
// question ("Which open problems for XAI *are* listed"): the word in -s
// before them is a plural noun, its subject, not a verb ("Which model acts
// as").
func pluralVerbLater(words []string) bool {
	for _, w := range words[:min(len(words), 8)] {
		switch strings.ToLower(strings.Trim(w, "?,.;:'\"()")) {
		case "are", "were", "do", "have":
			return true
		}
	}
	return false
}

var auxiliary = map[string]bool{"is": true, "are": true, "was": true, "were": true, "do": true, "does": true, "did": true,
	"have": true, "has": true, "had": true, "can": true, "could": true, "will": true, "would": true, "should": true,
	"may": true, "might": true, "must": true}

// entities are the names a question mentions: words with a capital after
// the first letter or mixing letters and digits (GRPO, AdaRefiner, GSM8K,
// Qwen3-8B, 13B), and capitalised words that are not the first word nor
// common English. A hyphenated word keeps only its name-like parts
// ("13B-parameter": 13B; "PPO-style": PPO; "Co-ReAct" whole).
func entities(text string) []entity {
	var out []entity
	seen := map[string]bool{}
	add := func(w string) {
		n := normName(w)
		if len(n) < 2 || seen[n] || genericAcronyms[strings.ToLower(w)] || genericAcronyms[n] {
			return // "RL", "LLMs": papers spell them out as often as not
		}
		seen[n] = true
		out = append(out, entity{text: w, norm: n})
	}
	for i, w := range strings.Fields(text) {
		w = strings.TrimRight(strings.Trim(w, "?,.;:!\"'()[]“”‘’"), "’'")
		w = strings.TrimSuffix(strings.TrimSuffix(w, "'s"), "’s")
		if w == "" {
			continue
		}
		if nameLike(w, i == 0) {
			add(w)
			continue
		}
		if strings.Contains(w, "-") {
			for _, part := range strings.Split(w, "-") {
				if part != "" && nameLike(part, false) && !capitalisedCommon(part) {
					add(part)
				}
			}
		}
	}
	return out
}

// nameLike reports whether w looks like a name. first is true for the
// first word of a sentence, whose capital says nothing.
func nameLike(w string, first bool) bool {
	var upper, lower, digit, letters int
	for i, r := range w {
		switch {
		case unicode.IsUpper(r):
			letters++
			if i > 0 {
				upper++
			}
		case unicode.IsLower(r):
			letters++
			lower++
		case unicode.IsDigit(r):
			digit++
		}
	}
	if letters == 0 {
		return false // a number alone is not a name
	}
	if strings.Contains(w, "-") {
		// a hyphenated name: every part a name or capitalised (Co-ReAct,
		// Llama2-7B, SL-CAI, Arena-Hard), not "top-p" or "13B-parameter"
		for _, part := range strings.Split(w, "-") {
			if part == "" {
				return false
			}
			r := []rune(part)
			if !unicode.IsUpper(r[0]) && !unicode.IsDigit(r[0]) {
				return false
			}
		}
		return !first || upper > 0 || digit > 0
	}
	if upper > 0 || (digit > 0 && letters > 0) {
		return true
	}
	r := []rune(w)
	return !first && unicode.IsUpper(r[0]) && !capitalisedCommon(w)
}

// capitalisedCommon reports whether w is a common English word (stop word
// or question word) written with a capital, as at the start of a clause.
func capitalisedCommon(w string) bool {
	l := strings.ToLower(w)
	return english.IsStopWord(l) || questionWords[l] || l == "using" || l == "given" || l == "according"
}

// normName is w lower-cased with everything but letters and digits
// dropped, so "TerminalBench-2.0" finds "Terminal-Bench 2.0"; a plural "s"
// is dropped too (LLMs, Transformers).
func normName(w string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(w) {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			b.WriteRune(r)
		}
	}
	n := b.String()
	if len(n) > 3 && strings.HasSuffix(n, "s") && !strings.HasSuffix(n, "ss") {
		n = n[:len(n)-1]
	}
	return n
}

// nameIndex finds entities in a text: a name is found when consecutive
// words of the text spell it, so hyphens and spaces inside it do not
// matter ("TerminalBench-2.0" finds "Terminal-Bench 2.0") but a name is
// never found inside another word ("ECHO" is not in "the choice").
type nameIndex struct {
	words []string
	first map[byte][]int // positions of the words by first byte
}

func newNameIndex(text string) *nameIndex {
	ix := &nameIndex{first: map[byte][]int{}}
	for _, w := range textkit.Words(strings.ToLower(text)) {
		ix.first[w[0]] = append(ix.first[w[0]], len(ix.words))
		ix.words = append(ix.words, w)
	}
	return ix
}

func (ix *nameIndex) has(e entity) bool {
	if e.norm == "" {
		return false
	}
	for _, i := range ix.first[e.norm[0]] {
		rest := e.norm
		for j := i; j < len(ix.words); j++ {
			w := ix.words[j]
			if rest == w || rest+"s" == w || (strings.HasSuffix(rest, "s") && rest[:len(rest)-1] == w) {
				return true
			}
			if !strings.HasPrefix(rest, w) {
				break
			}
			rest = rest[len(w):]
		}
	}
	return false
}
