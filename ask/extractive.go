package ask

import (
	"fmt"
	"io"
	"math"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/kljensen/snowball/english"

	"github.com/papers-cli/papers/internal/safetext"
	"github.com/papers-cli/papers/internal/textkit"
	"github.com/papers-cli/papers/prompts"
	"github.com/papers-cli/papers/store"
	"github.com/papers-cli/papers/textseg"
)

// DefaultMinSupport is the last of the extractive abstention checks: the
// share of the question's weighted terms held by the best passage of the
// papers it is about and by the answer's first sentence with its
// neighbours (the mean of the two). The checks before it (names the
// question mentions, the quantity a number question asks for) decide most
// abstentions; this one catches questions the library knows nothing about.
// See BENCHMARKS.md ("Ask") for how it was chosen.
const DefaultMinSupport = 0.26

// extractiveLabel introduces an extractive answer for people (not in the JSON).
const extractiveLabel = "Extracted from your library (no language model): the most relevant sentences of the top passages.\n\n"

const (
	extractPassages = 12 // passages considered
	extractMax      = 3  // sentences in an answer from one paper
	extractPapers   = 6  // lines of a "which papers" answer
)

// questionWords are frequent in questions but say nothing about the answer.
var questionWords = map[string]bool{
	"what": true, "which": true, "how": true, "many": true, "much": true, "who": true, "whom": true,
	"does": true, "did": true, "do": true, "is": true, "are": true, "was": true, "were": true,
	"paper": true, "papers": true, "propose": true, "proposed": true, "proposes": true,
	"name": true, "named": true, "called": true, "kind": true, "type": true, "use": true,
	"used": true, "uses": true, "using": true, "according": true, "describe": true, "described": true,
	"tell": true, "explain": true, "give": true, "mean": true, "means": true, "get": true,
	"work": true, "works": true, "authors": true, "author": true,
}

// commonWords are frequent words missing from the stop list; in capitals
// they are names (the ALSO framework).
var commonWords = map[string]bool{"also": true, "may": true, "one": true, "use": true, "act": true, "art": true, "see": true, "well": true}

// backMatter names sections whose text does not answer questions.
var backMatter = regexp.MustCompile(`(?i)^\s*(\d+\.?\s*)?(references|bibliography|acknowledge?ments?|works cited)\b`)

// terms are the stemmed content words of s (lower-cased, split on anything
// but letters and digits, stop words and one-letter words dropped).
func terms(s string, dropQuestionWords bool) []string {
	f := textkit.Words(s)
	out := f[:0]
	for _, w := range f {
		lw := strings.ToLower(w)
		common := english.IsStopWord(lw) || commonWords[lw]
		if common && len(w) > 1 && w == strings.ToUpper(w) && !unicode.IsDigit(rune(w[0])) {
			out = append(out, w) // a name in capitals that is also a common word: "ALSO", "IT"
			continue
		}
		if common || (dropQuestionWords && questionWords[lw]) {
			continue
		}
		w = lw
		if len(w) == 1 && !unicode.IsDigit(rune(w[0])) {
			continue
		}
		out = append(out, textkit.Stem(w))
	}
	return out
}

func stemSet(s string) map[string]bool {
	m := map[string]bool{}
	for _, t := range terms(s, false) {
		m[t] = true
	}
	return m
}

// query is the weighted question against a set of passages.
type query struct {
	terms  []string           // distinct stems, in question order
	weight map[string]float64 // idf over the passages; absent terms weigh most
	total  float64
}

func newQuery(question string, passages []map[string]bool) *query {
	q := &query{weight: map[string]float64{}}
	question = standFor.ReplaceAllString(question, " ")
	for _, t := range terms(question, true) {
		if _, ok := q.weight[t]; ok {
			continue
		}
		df := 0
		for _, p := range passages {
			if p[t] {
				df++
			}
		}
		w := math.Log(1 + (float64(len(passages))+1)/(float64(df)+0.5))
		q.terms = append(q.terms, t)
		q.weight[t] = w
		q.total += w
	}
	return q
}

// coverage is the weighted share of the question's terms found in any of
// the stem sets (a term or one of its synonyms).
func (q *query) coverage(sets ...map[string]bool) float64 {
	if q.total == 0 {
		return 0
	}
	var s float64
	for _, t := range q.terms {
		if found(t, sets) {
			s += q.weight[t]
		}
	}
	return s / q.total
}

// flat is the share of the question's terms found in any of the sets,
// each term counting the same: how much of the question the text speaks
// of, whatever the other passages hold (with idf weights, the words a
// paper's passages all share would count for nothing when asking that
// paper).
func (q *query) flat(sets ...map[string]bool) float64 {
	if len(q.terms) == 0 {
		return 0
	}
	n := 0
	for _, t := range q.terms {
		if found(t, sets) {
			n++
		}
	}
	return float64(n) / float64(len(q.terms))
}

// found reports whether stem t, or a synonym, is in one of the sets.
func found(t string, sets []map[string]bool) bool {
	for _, st := range sets {
		if st[t] {
			return true
		}
		for _, a := range synonyms[t] {
			if st[a] {
				return true
			}
		}
	}
	return false
}

// synonyms are stems that papers use for the words of questions (a
// question's "computed" is a paper's "calculated"): common English of
// scientific writing, by stem.
var synonyms = map[string][]string{}

func init() {
	for _, group := range [][]string{
		{"compute", "calculate", "quantify", "measure", "estimate", "determine"},
		{"use", "employ", "adopt", "utilize", "leverage", "apply", "rely"},
		{"improve", "boost", "increase", "raise", "gain", "outperform", "surpass", "exceed"},
		{"evaluate", "test", "assess", "benchmark"},
		{"propose", "introduce", "present", "develop"},
		{"reach", "achieve", "obtain", "attain", "score", "get"},
		{"choose", "select", "pick"},
		{"combine", "merge", "sum", "fuse", "integrate", "add"},
		{"remove", "eliminate", "drop", "discard", "omit"},
		{"show", "demonstrate", "reveal", "indicate", "suggest", "find"},
		{"limitation", "drawback", "disadvantage", "weakness", "shortcoming"},
		{"motivation", "goal", "aim", "purpose"},
		{"cheaper", "cheap", "cost", "save", "efficient"},
		{"big", "large"},
		{"small", "tiny", "lightweight"},
		{"fail", "failure", "error", "mistake"},
		{"compare", "comparison", "versus", "against"},
		{"behavior", "behaviour"},
		{"example", "shot", "demonstration"},
		{"beat", "outperform", "surpass"},
		{"role", "act", "serve", "function"},
	} {
		var st []string
		for _, w := range group {
			st = append(st, textkit.Stem(w))
		}
		for _, a := range st {
			for _, b := range st {
				if a != b && !slices.Contains(synonyms[a], b) {
					synonyms[a] = append(synonyms[a], b)
				}
			}
		}
	}
}

// share is the weighted share of ts (stems of the question) found in any
// of the sets; 1 when ts is empty.
func (q *query) share(ts []string, sets ...map[string]bool) float64 {
	var have, all float64
	for _, t := range ts {
		w := q.weight[t]
		if w == 0 {
			w = 1
		}
		all += w
		if found(t, sets) {
			have += w
		}
	}
	if all == 0 {
		return 1
	}
	return have / all
}

var (
	standFor = regexp.MustCompile(`(?i)\bstands? for\b`)
	whWord   = regexp.MustCompile(`(?i)\b(what|which|how many|how much|who|whom|whose|how (?:is|are|was|were|does|do|did))\s+`)
	auxVerb  = map[string]bool{"does": true, "do": true, "did": true, "is": true, "are": true, "was": true, "were": true,
		"has": true, "have": true, "had": true, "can": true, "could": true, "should": true, "would": true, "will": true,
		"the": true, "a": true, "an": true, "of": true, "in": true, "on": true, "to": true, "for": true, "by": true, "with": true,
		"and": true, "or": true, "from": true, "at": true, "when": true, "that": true, "into": true, "as": true}
)

// focusTerms are the stems of the noun phrase after the question word,
// the thing asked for: "Which *model scales* were used", "On how many
// *Minecraft tasks*", "What were the authors' stated *motivations*", "Which
// two *level-7 crafting achievements*", "What type of *divergence*": up to
// four words, to the first auxiliary verb or preposition, in order. Words
// that only shape the question (a count, "type of", "the") are skipped.
func focusTerms(question string) []string {
	var out []string
	loc := whWord.FindStringIndex(question)
	if loc == nil {
		return out
	}
	wh := strings.ToLower(strings.TrimSpace(question[loc[0]:loc[1]]))
	words := strings.Fields(question[loc[1]:])
	clean := func(w string) string { return strings.ToLower(strings.Trim(w, "?,.;:'\"’")) }
	if !strings.HasPrefix(wh, "how ") || wh == "how many" || wh == "how much" {
		// "What is the X", "What were the authors' X": the copula opens a noun phrase
		if len(words) > 1 && copula[clean(words[0])] && determiner[clean(words[1])] {
			words = words[2:]
		}
	}
	if len(words) > 0 && clean(words[0]) == "of" {
		words = words[1:] // "Which of Crafter's achievements"
	}
	n := 0
	for i := 0; i < len(words) && n < 4; i++ {
		w := clean(words[i])
		if determiner[w] || countWord[w] > 0 {
			continue
		}
		if i+1 < len(words) && shapeWord[w] && clean(words[i+1]) == "of" {
			i++ // "type of", "kind of"
			continue
		}
		if w == "of" && len(out) > 0 && quantityHead[out[len(out)-1]] {
			continue // "the maximum number of *unit tests*"
		}
		if w == "" || auxVerb[w] || (i > 0 && focusVerb[w]) || (n > 0 && len(w) > 4 && strings.HasSuffix(w, "ed")) {
			break // "What group size *gives*", "Which curated dataset *supplied*"
		}
		if n > 0 && strings.HasSuffix(w, "s") && i+1 < len(words) && verbFollower[clean(words[i+1])] && !pluralVerbLater(words[i+1:]) {
			break // "Which model *acts* as", "What method *uses* the"
		}
		for _, t := range terms(w, true) {
			if !slices.Contains(out, t) {
				out = append(out, t)
				n++
			}
		}
	}
	return out
}

// focusVerb are verbs that end the noun phrase of a question ("What group
// size *gives* no learning signal").
var focusVerb = map[string]bool{}

func init() {
	for _, w := range strings.Fields("give gives use uses reach reaches achieve achieves get gets show shows make makes " +
		"appear appears remain remains lead leads cause causes perform performs play plays obtain obtains yield yields " +
		"need needs require requires take takes explain explains improve improves beat beats outperform outperforms " +
		"let lets help helps allow allows enable enables produce produces train trains learn learns drive drives") {
		focusVerb[w] = true
	}
}

// verbFollower are words after which a word in -s is a verb, not a plural
// noun ("acts as", "uses the"; a plural noun is followed by its verb:
// "checkpoints were").
var verbFollower = map[string]bool{"as": true, "the": true, "a": true, "an": true, "to": true, "in": true, "on": true,
	"for": true, "with": true, "from": true, "its": true, "their": true, "more": true, "most": true, "into": true, "by": true}

var (
	copula     = map[string]bool{"is": true, "are": true, "was": true, "were": true}
	determiner = map[string]bool{"the": true, "a": true, "an": true, "its": true, "their": true, "this": true, "these": true, "authors'": true, "authors": true, "paper's": true}
	shapeWord  = map[string]bool{"type": true, "kind": true, "sort": true, "form": true, "class": true, "which": true, "one": true, "part": true}
)

// sentence is a candidate sentence of the answer.
type sentence struct {
	passage int    // index in ev
	pos     int    // position among its passage's sentences
	text    string // tidied
	stems   map[string]bool
	quant   bool      // states a quantity
	names   []string  // name-like words the question does not have
	debris  float64   // share of number, symbol and fragment tokens
	scores  []float64 // for each part of the question
	score   float64   // the best of scores
	cov     float64   // the sentence's own coverage of the question
}

// passage is a retrieved passage as extraction sees it.
type passage struct {
	ev      int // index in ev
	paper   string
	section string          // the heading it is under
	chunk   string          // the paper part of its chunk id
	seq     int             // the chunk's place in its paper, -1 when unknown
	stems   map[string]bool // text and title
	names   *nameIndex
	sents   []*sentence
	next    *passage // the retrieved chunk that follows this one in its paper, nil for none
}

// extraction is what extract found: the sentences of the answer (their
// passage an index into ev), in the order they are written, or the reason
// no passage answers.
type extraction struct {
	sentences []sentence
	papers    bool              // a "which papers" answer: one sentence per paper, one per line
	names     map[string]string // short name of each answering paper, by paper id
	lead      string            // the name the answer opens with ("Co-ReAct: ..."), "" for none
	reason    string            // why no passage answers, "" when one does
	support   float64           // coverage of the question by the best passage of the papers it is about
	leadWin   float64           // coverage of the question by the lead sentence and its neighbours
	cands     []*sentence       // the scored candidates, best first (for tests)
}

// extract answers a question from the passages' own sentences.
//
// It reads what the question asks for (a quantity, a name, a list, the
// papers that ..., a definition, a method) and which names it mentions;
// keeps the papers the question is about (a name of the question that is a
// paper's short name, else the papers mentioning most of its names); scores
// each sentence of their passages by its own, its neighbours' and its
// passage's coverage of the question, the thing asked for and whether it
// states what is asked (a number, a name); and answers with the best
// sentence, followed by up to two more of the same paper that add what the
// first one lacks. It abstains, with the reason, when a name of the question
// is in no passage, when no sentence gives the quantity asked for (by any
// part of the question), or when
// the best passage shares too little with the question.
func extract(ev []evidence, question string, minSupport float64, w *Weights) extraction {
	if w == nil {
		w = &DefaultWeights
	}
	q := analyse(question)
	var ps, after []*passage // the retrieved passages; the neighbours that follow them
	for i := range ev {
		if backMatter.MatchString(ev[i].Section) {
			continue // reference lists match every question a little and answer none
		}
		if ev[i].Neighbour {
			after = append(after, newPassage(i, &ev[i]))
		} else if len(ps) < extractPassages {
			ps = append(ps, newPassage(i, &ev[i]))
		}
	}
	if len(ps) == 0 {
		return extraction{reason: "no passage was found for it"}
	}
	linkChunks(ps, after)
	psets := make([]map[string]bool, len(ps))
	for i, p := range ps {
		psets[i] = p.stems
	}
	qu := newQuery(question, psets)
	if len(qu.terms) == 0 {
		return extraction{reason: "the question has no words to look for"}
	}

	names := map[string]string{}
	for _, p := range ps {
		if _, ok := names[p.paper]; !ok {
			names[p.paper] = shortName(&ev[p.ev].Paper)
		}
	}
	allowed, reason := aboutPapers(q, ps, ev, names)
	if reason != "" {
		return extraction{reason: reason}
	}
	x := extraction{names: names, papers: q.kind == kindPapers}
	// Every term counts the same: with idf weights, the words one paper's
	// passages all share would count for nothing when asking that paper.
	// (A common word standing in for the thing asked about, "point" for
	// "the boiling point of mercury", is caught by the definition check.)
	support := qu.flat
	for _, p := range ps {
		if allowed[p.paper] {
			x.support = max(x.support, support(p.stems))
		}
	}

	qnames := map[string]bool{}
	for _, w := range strings.Fields(question) {
		qnames[normName(strings.Trim(w, "?,.;:!\"'()[]“”‘’"))] = true
	}
	// rel is each passage's retrieval score against the best one: the
	// ranking saw the whole passage and its title
	rel := make([]float64, len(ps))
	for i, p := range ps {
		if top := ev[ps[0].ev].Score; top > 0 {
			rel[i] = min(1, max(0, ev[p.ev].Score/top))
		} else {
			rel[i] = 1 - float64(i)/float64(len(ps))
		}
	}
	var cands []*sentence
	for rank, p := range ps {
		if !allowed[p.paper] {
			continue
		}
		pc := qu.coverage(p.stems)
		for i, s := range p.sents {
			s.cov = qu.coverage(s.stems)
			if s.cov == 0 {
				continue
			}
			near := []map[string]bool{s.stems}
			if i > 0 {
				near = append(near, p.sents[i-1].stems)
			}
			if i+1 < len(p.sents) {
				near = append(near, p.sents[i+1].stems)
			}
			s.names = newNames(s.text, qnames)
			base := w.Coverage*s.cov + w.Window*qu.coverage(near...) + w.Passage*pc + w.Rank*rel[rank]
			if len(q.entities) > 0 {
				base += w.Names * entityShare(q.entities, newNameIndex(s.text))
			}
			if n := textseg.WordCount(s.text); n > 25 {
				base -= w.Length * float64(n-25)
			}
			if s.debris > 0.3 {
				base -= 0.3 * s.debris // table rows, figure axes
			}
			if n := textseg.WordCount(s.text); n > 60 {
				base -= 0.05 // run-on text from a bad split
			} else if n < 6 {
				base -= 0.05
			}
			if startsLower(s.text) {
				base -= 0.03 // a fragment
			}
			s.scores = make([]float64, len(q.parts))
			s.score = math.Inf(-1)
			for j, part := range q.parts {
				foc := qu.share(part.focus, s.stems)
				if len(part.focus) == 0 {
					foc = s.cov
				}
				s.scores[j] = base + w.Focus*foc + w.Kind*answerType(part, s, names[p.paper])
				s.score = max(s.score, s.scores[j])
			}
			cands = append(cands, s)
		}
	}
	for _, p := range after {
		for _, s := range p.sents { // what followers and completions read of them
			s.cov = qu.coverage(s.stems)
			s.names = newNames(s.text, qnames)
		}
	}
	if len(cands) == 0 {
		x.reason = "no sentence of the passages addresses it"
		return x
	}
	sort.SliceStable(cands, func(a, b int) bool { return cands[a].score > cands[b].score })
	x.cands = cands
	if x.papers {
		x.sentences = paperLines(cands, ev, len(q.entities) > 0)
		return x
	}

	// one lead per thing asked, in the question's order
	var leads []*sentence
	why := ""
	numberMissing := false // a part asking for a quantity finds none
	for j, part := range q.parts {
		byPart := slices.Clone(cands)
		sort.SliceStable(byPart, func(a, b int) bool { return byPart[a].scores[j] > byPart[b].scores[j] })
		lead, reason := chooseLead(part, j, qu, byPart, ps, ev, names)
		if lead == nil {
			if why == "" || part.kind == kindNumber {
				why = reason
			}
			if part.kind == kindNumber {
				numberMissing = true
			}
			continue
		}
		if !slices.ContainsFunc(leads, func(o *sentence) bool { return o == lead || jaccard(o.stems, lead.stems) > 0.5 }) {
			leads = append(leads, lead)
		}
	}
	if len(leads) == 0 || (why != "" && (len(q.parts) == 1 || numberMissing)) {
		x.reason = why
		return x
	}
	if q.aboutPaper {
		if n := names[ev[leads[0].passage].Paper.ID]; n != "" && !strings.Contains(strings.ToLower(leads[0].text), strings.ToLower(n)) {
			x.lead = n
		}
	}
	x.leadWin = support(window(leads[0], ps)...)
	if minSupport >= 0 && (x.support+x.leadWin)/2 < minSupport {
		x.reason = "the passages share too little with the question"
		return x
	}
	x.sentences = compose(q, qu, w, leads, cands, ps, ev)
	return x
}

// Weights weigh what makes a sentence the answer of an offline answer.
// Each is a share in [0,1] of the question (its idf-weighted words, its
// names, the thing it asks for) that the sentence covers, except Rank (the
// passage's retrieval score relative to the best) and Length (subtracted
// per word beyond 25).
type Weights struct {
	Coverage float64 // the question's words in the sentence
	Window   float64 // ... in the sentence and its neighbours
	Passage  float64 // ... in its passage and title
	Rank     float64 // the passage's retrieval score / the best one's
	Names    float64 // the question's names in the sentence
	Focus    float64 // the words of the thing asked for in the sentence
	Kind     float64 // it states what is asked: a quantity, a name, a reason (answerType)
	Length   float64 // per word beyond 25: long sentences cover more by chance
	// Close is how near the lead's score another sentence of the leads'
	// papers must come to join the answer though it adds no word of the
	// question: the scores cannot tell them apart, and the passages
	// ranked below the lead's often hold the rest of the answer.
	Close float64
}

// DefaultWeights were chosen on the development questions
// (BENCHMARKS.md, "Ask": bench/qacv tunes them and reports the cross-
// validated figures).
var DefaultWeights = Weights{Coverage: 0.4, Window: 0.15, Passage: 0.20, Rank: 0.10, Names: 0.10, Focus: 0.15, Kind: 0.15, Close: 0.8}

func newPassage(i int, e *evidence) *passage {
	p := &passage{ev: i, paper: e.Paper.ID, section: e.Section, seq: -1, stems: stemSet(e.Paper.Title + " " + e.Section + " " + e.Text), names: newNameIndex(e.Paper.Title + " " + e.Text)}
	if id, seq, err := store.ParseChunkID(e.ChunkID); err == nil {
		p.chunk, p.seq = id, seq
	}
	title := safetext.OneLine(e.Paper.Title)
	lines := slices.DeleteFunc(strings.Split(e.Text, "\n"), func(l string) bool {
		return strings.EqualFold(safetext.OneLine(l), title) // the title heading a title+abstract chunk
	})
	for _, line := range joinBroken(lines, e.Section) {
		if line == "" || strings.EqualFold(line, title) || isHeadingLine(line, e.Section) {
			continue // the title heading a title+abstract chunk; section headings
		}
		label := "" // a bullet's label: "• Actionable." before what it says
		for _, raw := range textseg.Sentences(line) {
			if isTOC(raw) {
				continue
			}
			if m := bulletLabel.FindStringSubmatch(strings.TrimSpace(raw)); m != nil {
				label = m[1]
				continue
			}
			if label != "" {
				raw, label = label+": "+raw, "" // "Actionable: Is it clear how ...", as a list item reads
			}
			t := tidy(raw, e.Section)
			st := stemSet(t)
			if len(st) < 3 {
				continue
			}
			p.sents = append(p.sents, &sentence{passage: i, pos: len(p.sents), text: t, stems: st, quant: statesQuantity(t), debris: debris(t)})
		}
	}
	return p
}

// bulletLabel is a bulleted item's label set as a sentence of its own, its
// text after it ("• Actionable. Is it clear how ...", "• Domain
// Applicable."): up to four words.
var bulletLabel = regexp.MustCompile(`^[` + bullets + `]\s*([A-Z][\w/-]*(?:\s+[\w/-]+){0,3})\.$`)

// bullets open the items of a list: a line that starts with one is a new
// item, never the rest of the line before.
const bullets = "•·▪◦‣∙"

// joinBroken rejoins the lines of a passage that a column or page break
// cut inside a sentence: a line that does not end a sentence followed by
// one that starts in lower case or with a quotation mark ("... the level-7
// tasks" + "“Make Iron Pickaxe” and ..."). A table's rows never go on with
// the prose line before them: "... following the standard set in the
// Crafter paper" stays a sentence, not the head of the table it runs into.
func joinBroken(lines []string, section string) []string {
	var out []string
	for _, l := range lines {
		l = strings.TrimSpace(l)
		if l == "" {
			continue
		}
		if n := len(out); n > 0 {
			prev := out[n-1]
			r := []rune(l)
			if !strings.ContainsAny(prev[len(prev)-1:], ".!?:;") && !isHeadingLine(prev, section) && !isHeadingLine(l, section) &&
				!captionLine.MatchString(prev) && !captionLine.MatchString(l) && !(debris(l) > 0.5 && debris(prev) <= 0.3) &&
				!strings.ContainsRune(bullets, r[0]) &&
				(unicode.IsLower(r[0]) || strings.ContainsRune("“\"‘(", r[0]) || textseg.WordCount(prev) >= 8) {
				out[n-1] = prev + " " + l
				continue
			}
		}
		out = append(out, l)
	}
	return out
}

var captionLine = regexp.MustCompile(`^(?:Figure|Fig\.|Table|Tab\.|Algorithm)\s*\d+`)

// aboutPapers returns the papers the question is about, or why no passage
// can answer it. A name of the question that is a paper's short name
// ("What learning rate does ECHO use?") makes it about that paper; else it
// is about the papers whose passages mention most of its names. A name that
// no passage of those papers mentions is the reason to abstain.
func aboutPapers(q *question, ps []*passage, ev []evidence, names map[string]string) (map[string]bool, string) {
	all := map[string]bool{}
	text := map[string][]*nameIndex{} // per paper: its passages, title and abstract
	for _, p := range ps {
		if !all[p.paper] {
			pp := &ev[p.ev].Paper
			text[p.paper] = append(text[p.paper], newNameIndex(pp.Title+" "+pp.Abstract))
		}
		all[p.paper] = true
		text[p.paper] = append(text[p.paper], p.names)
	}
	if len(q.entities) == 0 {
		return all, ""
	}
	mentions := func(id string, e entity) bool {
		for _, ix := range text[id] {
			if ix.has(e) {
				return true
			}
		}
		return false
	}
	subject := map[string]bool{}
	for id := range all {
		n := normName(names[id])
		for _, e := range q.entities {
			if n != "" && e.norm == n {
				subject[id] = true
			}
		}
	}
	if len(subject) > 0 {
		for _, e := range q.entities {
			found := false
			for id := range subject {
				found = found || mentions(id, e)
			}
			if !found {
				return nil, fmt.Sprintf("no passage of %s mentions %s", subjectNames(subject, names), e.text)
			}
		}
		return subject, ""
	}
	best, counts := 0, map[string]int{}
	for _, e := range q.entities {
		found := false
		for id := range all {
			if mentions(id, e) {
				counts[id]++
				found = true
			}
		}
		if !found {
			return nil, fmt.Sprintf("no passage mentions %s", e.text)
		}
	}
	for _, n := range counts {
		best = max(best, n)
	}
	if q.kind == kindPapers {
		best = len(q.entities) // every listed paper must mention them all
	}
	allowed := map[string]bool{}
	for id, n := range counts {
		if n == best {
			allowed[id] = true
		}
	}
	if len(allowed) == 0 {
		return nil, "no paper mentions all of " + entityList(q.entities)
	}
	return allowed, ""
}

func subjectNames(subject map[string]bool, names map[string]string) string {
	var out []string
	for id := range subject {
		out = append(out, names[id])
	}
	sort.Strings(out)
	return strings.Join(out, " or ")
}

func entityList(es []entity) string {
	var out []string
	for _, e := range es {
		out = append(out, e.text)
	}
	return strings.Join(out, ", ")
}

func entityShare(es []entity, ix *nameIndex) float64 {
	n := 0
	for _, e := range es {
		if ix.has(e) {
			n++
		}
	}
	return float64(n) / float64(len(es))
}

// answerType says how well a sentence states the kind of thing asked for,
// in [0,1]: a quantity for a number question, a name for a name or list
// question (the paper's own name when it asks which work), a gloss for a
// definition.
func answerType(q *question, s *sentence, short string) float64 {
	switch q.kind {
	case kindNumber:
		if s.quant {
			return 1
		}
		return 0
	case kindName, kindList:
		if q.aboutPaper && short != "" && strings.Contains(strings.ToLower(s.text), strings.ToLower(short)) {
			return 1
		}
		if naming.MatchString(s.text) {
			return 1 // "we refer to this paradigm as conversation programming"
		}
		switch len(s.names) {
		case 0:
			return 0
		case 1:
			if q.kind == kindList {
				return 0.6
			}
		}
		return 1
	case kindReason:
		if causal.MatchString(s.text) {
			return 1
		}
		return 0.3
	case kindDefinition:
		if q.expand != "" {
			if glosses(s.text, q.expand) {
				return 1
			}
			return 0
		}
		if defines(q, s.text) {
			return 1
		}
		if definitional.MatchString(s.text) {
			return definitionalShare
		}
		return 0.3
	}
	return 0.5
}

// definitionalShare is what a sentence that may gloss something (it has
// "is", "which", a parenthesis) scores for a definition question: less
// than one that says what the thing asked about is.
const definitionalShare = 0.6

// listReach is how far below the best sentence's score one that lists
// several names may be and still open the answer of a list question.
const listReach = 0.5

// itemSep separates the items of an enumeration: "A, B, and C", "A or B".
var itemSep = regexp.MustCompile(`,\s*(?:and\s+|or\s+)?|;\s*|\s+(?:and|or)\s+`)

// enumerated is the length of the longest enumeration of names in s that
// the question does not have ("... are Qwen2.5-Math-1.5B, Qwen2.5-14B,
// and Llama-3.1-8B": 3): items of at most three words, each ending or
// starting with a name (the first item may be the clause that opens the
// list, the last one the clause that closes it); numbers with units (7B,
// 1.5B) are not names.
func enumerated(s *sentence) int {
	name := func(w string) bool {
		w = strings.Trim(w, "?,.;:!\"'()[]“”‘’")
		r, _ := utf8.DecodeRuneInString(w)
		return w != "" && !unicode.IsDigit(r) && slices.Contains(s.names, w)
	}
	best, run := 0, 0
	for _, item := range itemSep.Split(s.text, -1) {
		ws := strings.Fields(item)
		switch {
		case len(ws) == 0:
			run = 0
		case len(ws) <= 3 && (name(ws[0]) || name(ws[len(ws)-1])):
			run++
		case run > 0 && name(ws[0]):
			run++ // the last item and the clause closing the list: "C show gains"
		case name(ws[len(ws)-1]):
			run = 1 // the clause opening a list: "... we use here are A"
		default:
			run = 0
		}
		best = max(best, run)
	}
	return best
}

// introReach is how far below the best sentence's score the one that
// introduces a name the question asks about may be and still open the
// answer of a name question.
const introReach = 0.6

func introducesAny(s string, es []entity) bool {
	return slices.ContainsFunc(es, func(e entity) bool { return introducesName(s, e) })
}

// methodReach is how far below the best sentence's score the one that
// states how the thing asked about is done may be and still open the
// answer.
const methodReach = 0.6

// means are the words that say how something is done: "computed as",
// "quantified using", "by sampling", "via", "through".
var means = regexp.MustCompile(`(?i)\b(?:using|uses|via|through|by (?:\w+ing|means of|a|an|the)|(?:computed|calculated|measured|estimated|derived|determined|defined|formulated|implemented|quantified) (?:as|by|from|with|using|via))\b`)

// statesMeans reports whether s names the thing a method question asks
// about (all its focus words) and then says how it is done ("the
// comprehension level ... is quantified using a cosine similarity"; not
// "the necessity of using a comprehension score").
func statesMeans(part *question, s *sentence) bool {
	if len(part.focus) == 0 || !hasAll(s.stems, part.focus) {
		return false
	}
	first := len(s.text)
	for _, w := range strings.FieldsFunc(s.text, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '-' }) {
		if slices.Contains(part.focus, textkit.Stem(strings.ToLower(w))) {
			first = strings.Index(s.text, w)
			break
		}
	}
	for _, loc := range means.FindAllStringIndex(s.text, -1) {
		if loc[0] > first {
			return true
		}
	}
	return false
}

// definitionReach is how far below the best sentence's score the one that
// defines the thing asked about may be and still open the answer.
const definitionReach = 0.5

// defines reports whether s says what the thing a definition question
// asks about is (its focus words, else the names it mentions): s opens
// with the thing and goes on with a defining verb ("DATESET is created by
// ...", "Chemical space is the set of ..."), or defines it outright ("we
// define a session as ...", "X refers to ...").
func defines(q *question, s string) bool {
	words := strings.Fields(s)
	is := func(w string) bool {
		w = strings.Trim(w, "?,.;:!\"'()[]“”‘’")
		if w == "" {
			return false
		}
		if len(q.focus) > 0 {
			return slices.Contains(q.focus, textkit.Stem(strings.ToLower(w)))
		}
		n := normName(w)
		return n != "" && slices.ContainsFunc(q.entities, func(e entity) bool { return e.norm == n })
	}
	clean := func(w string) string { return strings.ToLower(strings.Trim(w, ",.;:()“”‘’\"'")) }
	for i, w := range words {
		if !is(w) {
			continue
		}
		for j := max(0, i-4); j < i; j++ {
			if strings.HasPrefix(clean(words[j]), "defin") && slices.ContainsFunc(words[i+1:min(len(words), i+6)], func(w string) bool { return clean(w) == "as" }) {
				return true // "we define a session as"
			}
		}
		after := words[i+1 : min(len(words), i+9)]
		if i <= 2 && slices.ContainsFunc(after, func(w string) bool { return definingVerb[clean(w)] }) {
			return true // the subject: "DATESET, described in Appendix D, is generated ..."
		}
		if len(after) > 1 && (outrightVerb[clean(after[0])] || clean(after[0]) == "is" && outrightVerb[clean(after[1])]) {
			return true // "... a session refers to", "X is defined as"
		}
	}
	return false
}

var (
	definingVerb = map[string]bool{"is": true, "are": true, "was": true, "were": true, "refers": true, "denotes": true,
		"means": true, "consists": true, "comprises": true, "represents": true, "describes": true, "defines": true}
	outrightVerb = map[string]bool{"refers": true, "denotes": true, "means": true, "defined": true, "called": true, "consists": true, "comprises": true}
)

var naming = regexp.MustCompile(`(?i)\b(refer(?:s|red)? to (?:\w+ ){1,6}as|(?:is |are )?(?:called|named|dubbed|termed|coined|known as))\b`)

var definitional = regexp.MustCompile(`\b(is|are|refers to|means|denotes|defined as|stands for|called|which|that)\b|\(`)

// glosses reports whether s spells out the acronym: the acronym next to a
// parenthesis, or words whose initials make it.
func glosses(s, acronym string) bool {
	a := normName(acronym)
	if a == "" {
		return false
	}
	ix := newNameIndex(s)
	if !ix.has(entity{text: acronym, norm: a}) {
		return false
	}
	if strings.Contains(s, "(") {
		return true
	}
	var initials strings.Builder
	for _, w := range textkit.Words(s) {
		initials.WriteString(strings.ToLower(w[:1]))
	}
	return strings.Contains(initials.String(), a)
}

// newNames are the name-like words of s that the question does not have.
func newNames(s string, qnames map[string]bool) []string {
	var out []string
	for i, w := range strings.Fields(s) {
		w = strings.Trim(w, "?,.;:!\"'()[]“”‘’")
		if w == "" || !nameLike(w, i == 0) || qnames[normName(w)] || citationYear.MatchString(w) || notNames[w] {
			continue
		}
		out = append(out, w)
	}
	return out
}

// notNames are capitalised words that name parts of a paper, not things.
var notNames = map[string]bool{"Table": true, "Tab": true, "Figure": true, "Fig": true, "Section": true, "Sec": true,
	"Appendix": true, "Eq": true, "Equation": true, "Algorithm": true, "Alg": true, "Step": true, "Stage": true,
	"Chapter": true, "Part": true, "Lemma": true, "Theorem": true, "Definition": true}

var (
	citationYear = regexp.MustCompile(`^(19|20)\d\d[a-z]?$`)
	isoDate      = regexp.MustCompile(`^(19|20)\d\d-\d\d(-\d\d)?$`)
)

// quantityWords state a quantity in words (ordinals do not).
var quantityWords = map[string]bool{"one": true, "two": true, "three": true, "four": true, "five": true, "six": true,
	"seven": true, "eight": true, "nine": true, "ten": true, "eleven": true, "twelve": true, "twenty": true, "thirty": true,
	"forty": true, "fifty": true, "hundred": true, "hundreds": true, "thousand": true, "thousands": true, "million": true,
	"millions": true, "billion": true, "twice": true, "double": true, "doubles": true, "doubled": true, "half": true,
	"triple": true, "tenfold": true, "dozen": true}

// statesQuantity reports whether s gives a number (in digits or words),
// not counting citation markers ([12]), years of references ("Smith et al.,
// 2023"), years and dates, section, table, figure and equation numbers,
// footnote marks ("approaches,3") and numbers inside names (GPT-4, Qwen3-8B).
func statesQuantity(s string) bool {
	words := strings.Fields(s)
	inBrackets := false // inside "[ ... ]", a citation
	for i, w := range words {
		if strings.HasPrefix(w, "[") {
			inBrackets = true
		}
		closes := strings.Contains(w, ")")
		if inBrackets {
			inBrackets = !strings.Contains(w, "]")
			continue
		}
		core := strings.Trim(w, ".,;:!?()[]\"'“”‘’")
		switch {
		case core == "":
		case quantityWords[strings.ToLower(core)]:
			return true
		case !strings.ContainsAny(core, "0123456789"):
		case citationYear.MatchString(core) || isoDate.MatchString(core):
			// "(Hafner, 2021)", "Smith et al., 2023", "is 2024-10-01": a year
			// or a date answers no "how many"
		case i > 0 && notNames[strings.Trim(words[i-1], ".,;:(")]:
			// "Table 2", "Section 3.1", "Eq. (4)"
		case i > 0 && strings.HasSuffix(words[i-1], "al.") && !strings.Contains(core, "."):
			// "Seshadri et al. 31": a citation number
		case strings.HasPrefix(w, "(") && closes && len(core) <= 3:
			// an equation label "(12)"
		case gluedMark(w), i > 0 && citationMark(words[i-1], core, words[i+1:]):
		case nameWithNumber(core):
		default:
			return true
		}
	}
	return false
}

// citationMark reports a reference number set after a word, as PDF text
// gives superscripts ("counterfactuals 9 and descriptor explanations 10
// to ..."): a small integer after a lower-case word that takes no number
// ("of 9", "reaches 10" do), before a function word, punctuation or the end.
func citationMark(prev, core string, rest []string) bool {
	if len(core) > 3 || strings.Trim(core, "0123456789") != "" {
		return false
	}
	p := strings.ToLower(prev)
	if p == "" || !unicode.IsLower([]rune(prev)[0]) || strings.Trim(p, "abcdefghijklmnopqrstuvwxyz") != "" || takesNumber[p] {
		return false
	}
	if len(rest) == 0 {
		return true
	}
	next := strings.ToLower(strings.Trim(rest[0], ".,;:()"))
	return next == "" || english.IsStopWord(next)
}

// takesNumber are words a quantity follows ("a total of 9", "set to 10").
var takesNumber = map[string]bool{}

func init() {
	for _, w := range strings.Fields("of to by from than about around over under with at is are was were be been and or only " +
		"just nearly approximately roughly up top first last next all some each per every these those the a an within into " +
		"for in on reaches reached reach achieves achieved gets got scores scored equals equal set sets uses use using takes " +
		"took k n size length step steps epoch epochs batch rate dimension dimensions version level layer layers " +
		"table figure section appendix chapter page pages eq equation algorithm") {
		takesNumber[w] = true
	}
}

// gluedMark reports a footnote mark glued to a word ("approaches,3",
// "model.10").
func gluedMark(w string) bool {
	i := strings.LastIndexAny(w, ",.;)")
	if i <= 0 || i == len(w)-1 || len(w)-i-1 > 2 {
		return false
	}
	for _, r := range w[i+1:] {
		if r < '0' || r > '9' {
			return false
		}
	}
	r, _ := utf8.DecodeLastRuneInString(w[:i])
	return unicode.IsLetter(r)
}

// nameWithNumber reports a name that has digits: letters run into the
// digits (Qwen3, GPT-4, Llama-3.1-8B, H800), but not a unit after a
// number (8B, 13B, 775M, 5.17%, 12×).
func nameWithNumber(w string) bool {
	r, _ := utf8.DecodeRuneInString(w)
	return unicode.IsLetter(r)
}

// chooseLead picks the sentence that answers part j of the question: the
// best one for it that states what it asks for. A number question needs a
// sentence that gives a quantity and says what of (the specific words of
// the thing asked for, in it or next to it, the whole phrase when the
// thing is "learning rate" or "batch size"); when none does it abstains,
// saying what is missing.
func chooseLead(part *question, j int, qu *query, cands []*sentence, ps []*passage, ev []evidence, names map[string]string) (*sentence, string) {
	best := cands[0]
	if part.kind == kindReason && !causal.MatchString(best.text) {
		// the reason is often given in the sentence after the fact, which
		// shares few words with the question: its neighbours do
		for _, c := range cands[1:] {
			if c.scores[j] < 0.8*best.scores[j] {
				break
			}
			if causal.MatchString(c.text) {
				return c, ""
			}
		}
	}
	// The best-scored sentences often restate the question; the one that
	// says what it asks for, of the kind it asks for, may share fewer of its
	// words. Such a sentence of the best one's paper (the scores chose the
	// paper; the kind only the sentence) scoring at least reach times the
	// best opens the answer.
	prefer := func(reach float64, answers func(*sentence) bool) *sentence {
		for _, c := range cands {
			if c.scores[j] < reach*best.scores[j] {
				break
			}
			if ev[c.passage].Paper.ID == ev[best.passage].Paper.ID && answers(c) {
				return c
			}
		}
		return nil
	}
	var kindLead *sentence
	switch {
	case part.kind == kindDefinition && part.expand == "":
		// "What is X, the Y that Z?": the one saying what X is may share only X
		kindLead = prefer(definitionReach, func(c *sentence) bool { return defines(part, c.text) })
	case part.kind == kindList && len(part.focus) > 0 && enumerated(best) < 3:
		// "Which base checkpoints were distilled?": a sentence naming several
		// of the thing ("The base models we use here are A, B, C and D"; not
		// a run-on of authors and affiliations)
		kindLead = prefer(listReach, func(c *sentence) bool {
			return enumerated(c) >= 3 && hasAny(c.stems, part.focus) && textseg.WordCount(c.text) <= 60
		})
		if kindLead == nil && !listFollows(part, best, ps) {
			// "We suggest the following attributes ..." and its bullets
			kindLead = prefer(listReach, func(c *sentence) bool { return listFollows(part, c, ps) })
		}
	case part.kind == kindName && !part.aboutPaper && len(part.entities) > 0 && !introducesAny(best.text, part.entities):
		// "Which open LLM serves as the backbone of PaSa-7b?": the sentence
		// that introduces PaSa-7b says what it is built on ("..., both based
		// on the Qwen2.5-7b, ..., referred to as PaSa-7b"), in other words
		kindLead = prefer(introReach, func(c *sentence) bool { return len(c.names) > 0 && introducesAny(c.text, part.entities) })
		if kindLead != nil {
			return kindLead, ""
		}
	}
	switch {
	case part.kind == kindMethod && len(part.focus) > 0 && !statesMeans(part, best):
		// "How is the comprehension score computed?": the one naming the
		// thing and the means ("quantified using a cosine similarity")
		kindLead = prefer(methodReach, func(c *sentence) bool { return statesMeans(part, c) })
	}
	if kindLead != nil {
		return kindLead, ""
	}
	if part.kind == kindDefinition && len(part.attr) > 0 && part.expand == "" {
		// "What is the boiling point of mercury": a passage that never
		// says "boiling" does not define it
		for _, c := range cands {
			if c.scores[j] < 0.6*best.scores[j] {
				break
			}
			if qu.share(part.attr, window(c, ps)...) > 0 {
				return c, ""
			}
		}
		return nil, missing(part, best, ev, names)
	}
	if part.kind != kindNumber {
		return best, ""
	}
	for _, c := range cands {
		if c.scores[j] < 0.6*best.scores[j] {
			break
		}
		if !c.quant {
			continue
		}
		win := window(c, ps)
		if len(part.attr) > 0 && qu.share(part.attr, win...) < 0.5 {
			continue
		}
		if len(part.phrase) > 1 && !slices.ContainsFunc(win, func(st map[string]bool) bool { return hasAll(st, part.phrase) }) {
			continue
		}
		return c, ""
	}
	return nil, missing(part, best, ev, names)
}

// missing says what no passage states: "no passage of ECHO states the
// learning rate".
func missing(part *question, best *sentence, ev []evidence, names map[string]string) string {
	what := focusWords(part.text)
	switch {
	case what == "" && part.kind == kindNumber:
		what = "the quantity asked for"
	case what == "":
		what = "what is asked"
	default:
		what = "the " + what
	}
	about := ""
	if n := names[ev[best.passage].Paper.ID]; n != "" && len(part.entities) > 0 {
		about = " of " + n
	}
	return fmt.Sprintf("no passage%s states %s", about, what)
}

func hasAll(st map[string]bool, ts []string) bool {
	for _, t := range ts {
		if !st[t] {
			return false
		}
	}
	return true
}

// window is the stems of a sentence and of its neighbours.
func window(s *sentence, ps []*passage) []map[string]bool {
	for _, p := range ps {
		if p.ev != s.passage {
			continue
		}
		out := []map[string]bool{s.stems}
		if s.pos > 0 {
			out = append(out, p.sents[s.pos-1].stems)
		}
		if s.pos+1 < len(p.sents) {
			out = append(out, p.sents[s.pos+1].stems)
		}
		return out
	}
	return []map[string]bool{s.stems}
}

// focusWords are the words of the question that name the thing asked for,
// as written ("learning rate").
func focusWords(question string) string {
	loc := whWord.FindStringIndex(question)
	if loc == nil {
		return ""
	}
	var out []string
	words := strings.Fields(question[loc[1]:])
	clean := func(w string) string { return strings.ToLower(strings.Trim(w, "?,.;:'\"")) }
	if len(words) > 2 && copula[clean(words[0])] && determiner[clean(words[1])] {
		words = words[2:] // "What is the boiling point of ..."
	}
	for i, w := range words {
		lw := strings.ToLower(strings.Trim(w, "?,.;:'\""))
		if i >= 3 || auxVerb[lw] || lw == "" {
			break
		}
		out = append(out, strings.Trim(w, "?,.;:'\""))
	}
	return strings.Join(out, " ")
}

// compose orders the answer: each lead, followed by what completes it
// from the next sentences of its passage (the name or number one line
// further on when the lead does not state it; the items of a list the lead
// announces, "three main limitations" or a colon) and by its followers
// (the sentences just after it that go on with the question, where a
// method's settings, a definition's details and a finding's numbers are
// written); then up to extractMax sentences in all (more for a list) of
// the leads' papers that add question words the answer lacks, each with
// the one sentence after it that goes on with the question, in reading
// order, while the answer is shorter than extractWords. Never filler from
// other papers.
func compose(q *question, qu *query, w *Weights, leads []*sentence, cands []*sentence, ps []*passage, ev []evidence) []sentence {
	listN := 0
	for _, p := range q.parts {
		listN = max(listN, p.listN)
	}
	limit := max(extractMax, len(leads)+1, listN+1)
	if q.kind == kindList {
		limit = max(limit, 5)
	}
	var out []*sentence
	var more [][]*sentence // each added sentence with its followers
	same := func(o, s *sentence) bool { return o == s || o.text == s.text || jaccard(o.stems, s.stems) > 0.5 }
	has := func(s *sentence) bool {
		// overlapping chunks repeat sentences: never twice
		return slices.ContainsFunc(out, func(o *sentence) bool { return same(o, s) }) ||
			slices.ContainsFunc(more, func(g []*sentence) bool {
				return slices.ContainsFunc(g, func(o *sentence) bool { return same(o, s) })
			})
	}
	papers := map[string]bool{}
	heads := 0 // sentences counted against the limit: leads and added ones, not what follows them
	for _, lead := range leads {
		papers[ev[lead.passage].Paper.ID] = true
		if has(lead) {
			continue
		}
		out = append(out, lead)
		heads++
		next := following(lead, ps)
		part := partOf(q, lead)
		done := completion(part, lead, next)
		for _, n := range done {
			if n.debris <= 0.3 && !has(n) {
				out = append(out, n)
			}
		}
		if (part.kind == kindList || part.listN > 0) && !slices.ContainsFunc(done, func(s *sentence) bool { return enumerator.MatchString(s.text) }) {
			for _, n := range tableOf(lead, ps) {
				if !has(n) {
					out = append(out, n) // "as outlined in Table 3": the list is the table
				}
			}
		}
		if n := pointedAt(q, lead, ps); n != nil && !has(n) {
			out = append(out, n) // "DATESET, described in Appendix D, ..." + what Appendix D says of it
		}
		out = append(out, followers(lead, next, leadFollowers, has)...)
	}
	covered := make([]map[string]bool, len(out))
	for i, o := range out {
		covered[i] = o.stems
	}
	top := leads[0].score
	for _, c := range cands {
		if heads >= limit || c.score < 0.6*top {
			break
		}
		if answerWords(out, more) >= extractWords {
			break
		}
		if !papers[ev[c.passage].Paper.ID] || has(c) || c.debris > 0.3 {
			continue
		}
		gain := qu.coverage(append(slices.Clone(covered), c.stems)...) - qu.coverage(covered...)
		isList := listN > 0 || q.kind == kindList
		close := c.score >= w.Close*top // nearly as good as the lead: it may be the answer
		if gain < 0.1 && !(isList && len(c.names) > 0) && !close {
			continue
		}
		g := []*sentence{c}
		more = append(more, g)
		g = append(g, followers(c, following(c, ps), 1, has)...)
		more[len(more)-1] = g
		heads++
		for _, s := range g {
			covered = append(covered, s.stems)
		}
	}
	sort.SliceStable(more, func(a, b int) bool {
		if more[a][0].passage != more[b][0].passage {
			return more[a][0].passage < more[b][0].passage
		}
		return more[a][0].pos < more[b][0].pos
	})
	res := make([]sentence, 0, len(out)+len(more))
	for _, o := range out {
		res = append(res, *o)
	}
	for _, g := range more {
		for _, o := range g {
			res = append(res, *o)
		}
	}
	return res
}

const (
	// leadFollowers is how many sentences after a lead are read for its
	// followers.
	leadFollowers = 3
	// extractWords is the length past which an answer takes no more
	// sentences from other passages (its leads, what completes them and
	// their followers are always written).
	extractWords = 150
)

// followers are the sentences among the n after s (next: the sentences
// after it in its passage) that go on with the question: they have a
// word of it or refer back ("This", "It", "To mitigate this", "One sees
// from this expression"). Table rows, figure labels and display equations
// are skipped and not counted among the n (prose with inline mathematics
// is not: "C = 1/8" is the answer); a caption ends them (the paragraph
// ended); sentences the answer has (has) are not repeated.
func followers(s *sentence, next []*sentence, n int, has func(*sentence) bool) []*sentence {
	var out []*sentence
	read := 0
	for _, f := range next {
		if read == n || captionLine.MatchString(f.text) {
			break
		}
		if f.debris > 0.5 || f.debris > 0.3 && textseg.WordCount(f.text) > 60 {
			continue // a display equation, a table row, a code listing run together: not a sentence read
		}
		read++
		if has(f) || (f.cov == 0 && !anaphoric.MatchString(f.text) && !refersBack(f.text)) {
			continue
		}
		out = append(out, f)
	}
	return out
}

// items are the n items of a list that follow its announcement: the next
// sentences that open with an enumerator ("First,", "Second,", "(3)",
// "Finally,"), else the next n sentences. A list of no said length ("some
// clear limitations") is read whole, in order, with what each item says:
// from the announcement to its last item, as long as items keep coming
// (at most listGap sentences between two), up to listSpan sentences.
func items(next []*sentence, n int) []*sentence {
	if n == 0 {
		last := -1
		for i, s := range next[:min(len(next), listSpan)] {
			if i-last > listGap && (last >= 0 || i >= 8) {
				break
			}
			if enumerator.MatchString(s.text) {
				last = i
			}
		}
		if last < 0 {
			return next[:min(len(next), 2)]
		}
		return slices.DeleteFunc(slices.Clone(next[:last+1]), func(s *sentence) bool { return s.debris > 0.5 })
	}
	want, scan := n, 3*n
	var out []*sentence
	for _, s := range next[:min(len(next), scan)] {
		if enumerator.MatchString(s.text) {
			out = append(out, s)
			if len(out) == want {
				return out
			}
		}
	}
	if len(out) > 0 {
		return out
	}
	return next[:min(len(next), n)]
}

const (
	listGap  = 3  // sentences between two items of a list read whole
	listSpan = 14 // sentences of a list read whole
)

// enumerator opens an item of a list: an ordinal word, a number or letter
// in parentheses, a bullet, or a short label and a colon ("Molecular
// distance: ...", as a bulleted list reads once its bullets are gone).
var enumerator = regexp.MustCompile(`^(?:[A-Z][a-z]+(?:[/-][A-Za-z]+)?(?: [A-Za-z]+(?:[/-][A-Za-z]+)?){0,3}: |(?:First|Second|Third|Fourth|Fifth|Finally|Lastly|Last|Next|Then|Moreover|Additionally|Another|One|Also|Furthermore|In addition|We also|Besides|Beyond (?:this|that|these)|Apart from (?:this|that|these))(?:ly)?\b|\(?(?:\d|[ivx]+|[a-e])\)|\d\.\s|[•·▪–-]\s)`)

// completion is what the sentences after a lead add to it, for the part
// of the question it answers:
//   - the items of a list it announces ("three main limitations", "some
//     major open questions", a colon), as many as asked for, else up to
//     four that open with an enumerator;
//   - the next sentence when the lead does not state what is asked (the
//     name or number one line further on), or when the lead lacks the
//     thing asked for and the next sentence names it with a name;
//   - for a definition, method or reason, the next sentence when it goes
//     on about the same thing: it opens with the thing asked about or
//     refers back to the lead ("This is achieved by ...", "It ..."), or,
//     for a reason, gives one ("because", "we hypothesize").
func completion(part *question, lead *sentence, next []*sentence) []*sentence {
	if len(next) == 0 {
		return nil
	}
	n := next[0]
	switch {
	case part.listN > 0 && announces(lead, part.listN):
		return items(next, part.listN)
	case (part.kind == kindList || part.kind == kindName && pluralFocus(part.text)) && announcesList(part, lead):
		return items(next, 0)
	case strings.HasSuffix(lead.text, ":"):
		return next[:1]
	case answerType(part, lead, "") < 0.5 && answerType(part, n, "") >= 0.5:
		return next[:1]
	case part.kind == kindName && len(part.attr) > 0 && !hasAny(lead.stems, part.attr) && hasAny(n.stems, part.attr) && len(n.names) > 0:
		return next[:1] // "... we trained an RNN model" + "The data come from AqSolDB ..."
	case part.kind == kindDefinition || part.kind == kindMethod || part.kind == kindReason || part.kind == kindOther:
		for i, n := range next[:min(len(next), 2)] {
			if continues(n, part) || part.kind == kindReason && causal.MatchString(n.text) {
				return next[i : i+1]
			}
		}
	}
	return nil
}

// listFollows reports a sentence that announces a list of the thing asked
// for (announcesList) whose items follow it: two or more of the next
// sentences open with an enumerator (bullets, "First,", "(2)").
func listFollows(part *question, s *sentence, ps []*passage) bool {
	if !announcesList(part, s) {
		return false
	}
	n := 0
	for _, f := range items(following(s, ps), 0) {
		if enumerator.MatchString(f.text) {
			n++
		}
	}
	return n >= 2
}

// partRef is a sentence's pointer at a part of its paper where more is
// said: "described in Appendix D", "detailed in Section 4.2", "see §3".
var partRef = regexp.MustCompile(`\b(?:described|detailed|given|explained|defined|discussed|presented|see)\s+(?:in\s+)?(?:Appendix|Section|Sec\.|§)\s*([A-Z]|\d+(?:\.\d+)*)\b`)

// pointedAt is the sentence of the part of the paper a lead points at
// ("described in Appendix D") that speaks of what the question is about
// (a name of it, else the words of the thing asked for), when a passage
// under that heading is at hand ("D DATESET": "DATESET is created by
// first randomly selecting 500 “current dates”."): nil for none.
func pointedAt(q *question, lead *sentence, ps []*passage) *sentence {
	m := partRef.FindStringSubmatch(lead.text)
	if m == nil {
		return nil
	}
	label := m[1]
	paper := ""
	for _, p := range ps {
		if p.ev == lead.passage {
			paper = p.paper
		}
	}
	under := func(section string) bool {
		section = strings.TrimPrefix(strings.TrimSpace(section), "Appendix ")
		rest, ok := strings.CutPrefix(section, label)
		return ok && (rest == "" || rest[0] == ' ' || rest[0] == '.' && (len(rest) == 1 || rest[1] == ' '))
	}
	for _, p := range ps {
		if p.paper != paper || p.ev == lead.passage || !under(p.section) {
			continue
		}
		for _, s := range p.sents {
			if s.debris > 0.3 || captionLine.MatchString(s.text) {
				continue // a caption says what a table holds, not what the thing is
			}
			ix := newNameIndex(s.text)
			if slices.ContainsFunc(q.entities, ix.has) || len(q.entities) == 0 && len(q.focus) > 0 && hasAll(s.stems, q.focus) {
				return s
			}
		}
	}
	return nil
}

// tableRef is a sentence's pointer at a table: "as outlined in Table 3".
var tableRef = regexp.MustCompile(`\bTable\s+(\d+)\b`)

// tableRows is how many rows of a table a lead pointing at it reads.
const tableRows = 5

// tableOf is the table a lead points at, when a passage of its paper holds
// it: its caption, then the rows next to it (above it, else below) that
// name something the lead does not, as the PDF text reads them ("Generate
// a search query and invoke [Search] the search tool."): lists are often
// held in tables.
func tableOf(lead *sentence, ps []*passage) []*sentence {
	m := tableRef.FindStringSubmatch(lead.text)
	if m == nil {
		return nil
	}
	paper := ""
	for _, p := range ps {
		if p.ev == lead.passage {
			paper = p.paper
		}
	}
	leadNames := map[string]bool{}
	for _, w := range strings.Fields(lead.text) {
		leadNames[normName(strings.Trim(w, "?,.;:!\"'()[]“”‘’"))] = true
	}
	row := func(s *sentence) bool {
		return s.debris <= 0.5 && !captionLine.MatchString(s.text) && len(newNames(s.text, leadNames)) > 0
	}
	head := "Table " + m[1]
	for _, p := range ps {
		if p.paper != paper {
			continue
		}
		for i, s := range p.sents {
			if !strings.HasPrefix(s.text, head+":") && !strings.HasPrefix(s.text, head+".") {
				continue
			}
			var rows []*sentence
			for j := i - 1; j >= max(0, i-tableRows) && !captionLine.MatchString(p.sents[j].text); j-- {
				if row(p.sents[j]) {
					rows = append([]*sentence{p.sents[j]}, rows...)
				}
			}
			if len(rows) == 0 {
				for _, r := range p.sents[i+1 : min(len(p.sents), i+1+tableRows)] {
					if captionLine.MatchString(r.text) {
						break
					}
					if row(r) {
						rows = append(rows, r)
					}
				}
			}
			if len(rows) == 0 {
				return nil
			}
			return append([]*sentence{s}, rows...)
		}
	}
	return nil
}

// announcesList reports a sentence that introduces items of the plural
// thing asked for: it names it with a count or "some", "several", "the
// following", "major" ("XAI in chemistry has some major open questions").
func announcesList(part *question, s *sentence) bool {
	if !slices.ContainsFunc(part.focus, func(t string) bool { return found(t, []map[string]bool{s.stems}) }) {
		return false // it names the thing asked for, or a synonym ("shortcomings": "limitations")
	}
	if strings.HasSuffix(s.text, ":") {
		return true
	}
	l := " " + strings.ToLower(s.text) + " "
	for _, w := range []string{" some ", " several ", " following ", " major ", " main ", " key ", " various "} {
		if strings.Contains(l, w) {
			return true
		}
	}
	for w, k := range countWord {
		if k > 1 && w != "both" && strings.Contains(l, " "+w+" ") {
			return true
		}
	}
	return false
}

func hasAny(st map[string]bool, ts []string) bool {
	for _, t := range ts {
		if st[t] {
			return true
		}
	}
	return false
}

var (
	// anaphoric openers of a sentence that goes on about the one before
	anaphoric = regexp.MustCompile(`^(This|These|It|Its|They|Their|She|He|Such|To (?:mitigate|address|solve|overcome|avoid|handle|tackle|fix|remedy) (?:this|these|that|it|them)|Here|Thus|That is|Namely|Specifically|In particular|In other words|Concretely|To do so|To this end|For this|For example|For instance)\b`)
	causal    = regexp.MustCompile(`(?i)\b(because|due to|since|owing to|as a result|the reason|we hypothesi[sz]e|this is likely|caused by|attribute[sd]? (?:this|it) to|stems from)\b`)
)

// refersBack reports a sentence that points at what came just before
// within its first words: "One sees from this expression that ...".
func refersBack(s string) bool {
	ws := strings.Fields(s)
	for _, w := range ws[:min(len(ws), 5)] {
		switch strings.ToLower(strings.Trim(w, ",;:")) {
		case "this", "these", "such":
			return true
		}
	}
	return false
}

// continues reports whether s goes on about what part asks: it opens with
// an anaphoric word, or with the thing asked about (a name or the focus
// words of the question).
func continues(s *sentence, part *question) bool {
	if anaphoric.MatchString(s.text) {
		return true
	}
	words := strings.Fields(s.text)
	head := newNameIndex(strings.Join(words[:min(len(words), 4)], " "))
	for _, e := range part.entities {
		if head.has(e) {
			return true
		}
	}
	if len(part.focus) > 0 {
		st := stemSet(strings.Join(words[:min(len(words), 5)], " "))
		return hasAll(st, part.focus)
	}
	return false
}

// following are the sentences after s in its passage, then in the
// retrieved chunks that continue it (a list or a paragraph the chunker
// cut goes on there), without the sentences the chunks' overlap repeats.
func following(s *sentence, ps []*passage) []*sentence {
	for _, p := range ps {
		if p.ev != s.passage {
			continue
		}
		out := slices.Clone(p.sents[s.pos+1:])
		var read strings.Builder // what has been read, to drop the overlap
		for _, o := range p.sents {
			read.WriteString(o.text + "\n")
		}
		for n, hops := p.next, 0; n != nil && hops < 2; n, hops = n.next, hops+1 {
			for _, o := range n.sents {
				if !strings.Contains(read.String(), o.text) {
					read.WriteString(o.text + "\n")
					out = append(out, o)
				}
			}
		}
		return out
	}
	return nil
}

// linkChunks points each passage at the chunk that follows it in its
// paper: a retrieved one, else one of the neighbours fetched for it.
func linkChunks(ps, neighbours []*passage) {
	at := map[string]*passage{}
	for _, p := range slices.Concat(neighbours, ps) {
		if p.seq >= 0 {
			at[store.ChunkID(p.chunk, p.seq)] = p
		}
	}
	for _, p := range slices.Concat(ps, neighbours) {
		if p.seq >= 0 {
			p.next = at[store.ChunkID(p.chunk, p.seq+1)]
		}
	}
}

// partOf is the part of the question s answers best.
func partOf(q *question, s *sentence) *question {
	best := 0
	for j := range s.scores {
		if s.scores[j] > s.scores[best] {
			best = j
		}
	}
	return q.parts[best]
}

// announces reports a sentence that introduces a list of n things: it ends
// with a colon, or says their number ("three main limitations").
func announces(s *sentence, n int) bool {
	if strings.HasSuffix(s.text, ":") {
		return true
	}
	l := " " + strings.ToLower(s.text) + " "
	for w, k := range countWord {
		if k == n && w != "both" && strings.Contains(l, " "+w+" ") {
			return true
		}
	}
	return strings.Contains(l, " "+strconv.Itoa(n)+" ")
}

// paperLines answers "which papers ...": the best sentence of each paper
// that scores at least 60% of the best one (30% when the papers were
// chosen by the names the question mentions: they all mention them), best
// first, at most extractPapers.
func paperLines(cands []*sentence, ev []evidence, named bool) []sentence {
	var out []sentence
	seen := map[string]bool{}
	top, share := cands[0].score, 0.6
	if named {
		share = 0.3
	}
	for _, c := range cands {
		id := ev[c.passage].Paper.ID
		if seen[id] || c.score < share*top || c.debris > 0.3 {
			continue
		}
		seen[id] = true
		out = append(out, *c)
		if len(out) == extractPapers {
			break
		}
	}
	return out
}

func jaccard(a, b map[string]bool) float64 {
	inter := 0
	for t := range a {
		if b[t] {
			inter++
		}
	}
	union := len(a) + len(b) - inter
	if union == 0 {
		return 0
	}
	return float64(inter) / float64(union)
}

// extractiveAnswer fills res with an answer assembled from the passages'
// sentences, each followed by its citation, and prints it (labelled as
// extracted) and the Sources list to out. No network. When no passage
// answers it returns ErrNoEvidence wrapped with the reason (also in
// res.Warnings).
func extractiveAnswer(ev []evidence, question string, opts Options, res *Result, out io.Writer) error {
	minSup := opts.MinSupport
	if minSup == 0 {
		minSup = DefaultMinSupport
	}
	x := extract(ev, question, minSup, opts.Weights)
	if x.reason != "" || len(x.sentences) == 0 {
		if x.reason == "" {
			x.reason = "no sentence of the passages answers it"
		}
		res.Warnings = append(res.Warnings, x.reason)
		return fmt.Errorf("%w: %s", ErrNoEvidence, x.reason)
	}
	var b strings.Builder
	for i, s := range x.sentences {
		// Fence turns the paper's own "[12]" into "(ref. 12)": not a citation.
		text := withCitation(tidySpacing(prompts.Fence(s.text)), s.passage+1)
		switch {
		case x.papers:
			if i > 0 {
				b.WriteString("\n")
			}
			b.WriteString("- ")
			if n := x.names[ev[s.passage].Paper.ID]; n != "" {
				b.WriteString(n + ": ")
			}
		case i > 0:
			b.WriteString(" ")
		case x.lead != "":
			b.WriteString(x.lead + ": ")
		}
		b.WriteString(text)
	}
	if out != nil {
		if _, err := io.WriteString(out, extractiveLabel); err != nil {
			return err
		}
	}
	cw := newCiteWriter(out, func(n int) bool { return n >= 1 && n <= len(ev) })
	cw.Write([]byte(b.String()))
	if _, err := cw.Close(); err != nil {
		return err
	}
	res.Answer = cw.Text()
	fillCitations(res, ev, nil, cw.order)
	return writeSources(out, res)
}

// withCitation puts "[n]" before a sentence's final punctuation.
func withCitation(s string, n int) string {
	s = strings.TrimSpace(s)
	for strings.HasSuffix(s, "..") && !strings.HasSuffix(s, "...") {
		s = s[:len(s)-1]
	}
	cite := " [" + strconv.Itoa(n) + "]"
	if end := strings.TrimRight(s, ".!?:;"); len(end) < len(s) && len(end) > 0 {
		return strings.TrimRight(end, " ") + cite + s[len(end):]
	}
	return s + cite
}

// answerWords is the length of an answer being composed, in words.
func answerWords(out []*sentence, more [][]*sentence) int {
	n := 0
	for _, s := range out {
		n += textseg.WordCount(s.text)
	}
	for _, g := range more {
		for _, s := range g {
			n += textseg.WordCount(s.text)
		}
	}
	return n
}
