package ask

import (
	"io"
	"math"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"unicode"

	"github.com/kljensen/snowball/english"
	"github.com/papers-cli/papers/prompts"
	"github.com/papers-cli/papers/textseg"
)

// DefaultMinSupport is the extractive abstention threshold: the share of the
// question's weighted terms that the best passage must contain. Calibrated on
// ask/testdata (see TestExtractiveQuality): answerable questions score
// 0.55-1.0, questions the corpus cannot answer 0-0.38.
const DefaultMinSupport = 0.45

// extractiveLabel introduces an extractive answer for people (not in the JSON).
const extractiveLabel = "Extracted from your library (no language model): the most relevant sentences of the top passages.\n\n"

const (
	extractPassages = 8 // passages considered
	extractMax      = 3 // sentences in the answer
	extractPerPaper = 2 // sentences from one paper at most
)

// questionWords are frequent in questions but say nothing about the answer.
var questionWords = map[string]bool{
	"what": true, "which": true, "how": true, "many": true, "much": true, "who": true, "whom": true,
	"does": true, "did": true, "do": true, "is": true, "are": true, "was": true, "were": true,
	"paper": true, "papers": true, "propose": true, "proposed": true, "proposes": true,
	"name": true, "named": true, "called": true, "kind": true, "type": true, "use": true,
	"used": true, "uses": true, "using": true, "according": true, "describe": true, "described": true,
	"tell": true, "explain": true, "give": true, "mean": true, "means": true, "get": true,
}

// commonWords are frequent words missing from the stop list; in capitals
// they are names (the ALSO framework).
var commonWords = map[string]bool{"also": true, "may": true, "one": true, "use": true, "act": true, "art": true, "see": true, "well": true}

// backMatter names sections whose text does not answer questions.
var backMatter = regexp.MustCompile(`(?i)^\s*(\d+\.?\s*)?(references|bibliography|acknowledge?ments?|works cited)\b`)

var quantitative = regexp.MustCompile(`(?i)\b(how (many|much|big|large|long|fast|often)|by how|what (percentage|fraction|share|number|accuracy|score|rate|size)|improve|gain|success rate|pass@)`)

// terms are the stemmed content words of s (lower-cased, split on anything
// but letters and digits, stop words and one-letter words dropped).
func terms(s string, dropQuestionWords bool) []string {
	f := strings.FieldsFunc(s, func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
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
		out = append(out, stem(w))
	}
	return out
}

// stems caches Porter2 stems: stemming is most of the extractive answer's
// time and a question's passages repeat their words. Bounded; safe for
// concurrent use.
var stems struct {
	sync.Mutex
	m map[string]string
}

func stem(w string) string {
	stems.Lock()
	s, ok := stems.m[w]
	stems.Unlock()
	if ok {
		return s
	}
	s = english.Stem(w, true)
	stems.Lock()
	if stems.m == nil || len(stems.m) > 100_000 {
		stems.m = make(map[string]string, 1024)
	}
	stems.m[w] = s
	stems.Unlock()
	return s
}

type sentence struct {
	passage int // index in ev
	pos     int // position in the passage
	text    string
	stems   map[string]bool
	score   float64
	cov     float64 // the sentence's own coverage of the question
}

// query is the weighted question against a set of passages.
type query struct {
	terms   []string           // distinct stems, in question order
	focus   []string           // stems of the thing asked for (see focusTerms)
	weight  map[string]float64 // idf over the passages; absent terms weigh most
	total   float64
	numeric bool // the question asks for a quantity
}

func newQuery(question string, passages []map[string]bool) *query {
	q := &query{weight: map[string]float64{}, numeric: quantitative.MatchString(question)}
	focus := focusTerms(question)
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
		if focus[t] {
			q.focus = append(q.focus, t)
		}
		q.terms = append(q.terms, t)
		q.weight[t] = w
		q.total += w
	}
	return q
}

var (
	standFor = regexp.MustCompile(`(?i)\bstands? for\b`)
	whWord   = regexp.MustCompile(`(?i)\b(what|which|how many|how much|who|whom|whose|how (?:is|are|was|were|does|do|did))\s+`)
	auxVerb  = map[string]bool{"does": true, "do": true, "did": true, "is": true, "are": true, "was": true, "were": true,
		"has": true, "have": true, "had": true, "can": true, "could": true, "should": true, "would": true, "will": true,
		"the": true, "a": true, "an": true, "of": true, "in": true, "on": true, "to": true, "for": true, "by": true, "with": true}
)

// focusTerms are the stems of the words right after the question word, the
// thing asked for: "Which *model scales* were used", "On how many *Minecraft
// tasks*"; at most three, up to the first auxiliary verb or preposition.
func focusTerms(question string) map[string]bool {
	out := map[string]bool{}
	loc := whWord.FindStringIndex(question)
	if loc == nil {
		return out
	}
	words := strings.Fields(question[loc[1]:])
	if strings.HasPrefix(strings.ToLower(question[loc[0]:loc[1]]), "how ") {
		// "How is the critic rewarded": the subject and its verb.
		for len(words) > 0 && (strings.EqualFold(words[0], "the") || strings.EqualFold(words[0], "a") || strings.EqualFold(words[0], "an")) {
			words = words[1:]
		}
	}
	for i, w := range words {
		w = strings.ToLower(strings.Trim(w, "?,.;:'\""))
		if i >= 3 || auxVerb[w] || w == "" {
			break
		}
		for _, t := range terms(w, true) {
			out[t] = true
		}
	}
	return out
}

// coverage is the weighted share of the question's terms found in stems.
func (q *query) coverage(stems map[string]bool) float64 {
	if q.total == 0 {
		return 0
	}
	var s float64
	for _, t := range q.terms {
		if stems[t] {
			s += q.weight[t]
		}
	}
	return s / q.total
}

func stemSet(s string) map[string]bool {
	m := map[string]bool{}
	for _, t := range terms(s, false) {
		m[t] = true
	}
	return m
}

// focusCoverage is the share of the focus terms in stems; without focus
// terms, the coverage of all terms.
func (q *query) focusCoverage(stems map[string]bool) float64 {
	if len(q.focus) == 0 {
		return q.coverage(stems)
	}
	n := 0
	for _, t := range q.focus {
		if stems[t] {
			n++
		}
	}
	return float64(n) / float64(len(q.focus))
}

// support is how well the best of the passages covers the question, in [0,1].
func support(q *query, passages []map[string]bool) float64 {
	best := 0.0
	for _, p := range passages {
		best = max(best, q.coverage(p))
	}
	return best
}

// extract picks the sentences of an extractive answer: each sentence scores
// by its own and its passage's coverage of the question (so "It improves
// success by 7 points" counts for the paper the question names), with a bonus
// for numbers when a quantity is asked for and a small prior for the
// passage's rank. The best sentence leads; up to two more follow that score
// at least 60% of it, from other papers first, never near-duplicates, in
// reading order. It returns the chosen sentences (their passage an index
// into ev) and the support.
func extract(ev []evidence, question string) ([]sentence, float64) {
	// Reference lists match every question a little and answer none.
	var kept []evidence
	var orig []int // kept[i] is ev[orig[i]]
	for i, e := range ev {
		if !backMatter.MatchString(e.Section) {
			kept = append(kept, e)
			orig = append(orig, i)
		}
	}
	chosen, sup := extractFrom(kept[:min(len(kept), extractPassages)], question)
	for i := range chosen {
		chosen[i].passage = orig[chosen[i].passage]
	}
	return chosen, sup
}

// extractFrom is extract over passages already screened.
func extractFrom(ev []evidence, question string) ([]sentence, float64) {
	pstems := make([]map[string]bool, len(ev))
	for i := range ev {
		pstems[i] = stemSet(ev[i].Paper.Title + " " + ev[i].Text)
	}
	q := newQuery(question, pstems)
	sup := support(q, pstems)
	if len(q.terms) == 0 {
		return nil, 0
	}
	var cands []sentence
	for i := range ev {
		pc := q.coverage(pstems[i])
		title := oneLine(ev[i].Paper.Title)
		for j, para := range textseg.Paragraphs(ev[i].Text) {
			if strings.EqualFold(para, title) {
				continue // the title heading a title+abstract chunk
			}
			for k, s := range textseg.Sentences(para) {
				st := stemSet(s)
				if len(st) < 3 {
					continue
				}
				cov := q.coverage(st)
				if cov == 0 {
					continue // shares no word with the question
				}
				// The sentence must hold the thing asked for; the rest of the
				// question may be anywhere in its passage.
				sc := 0.35*cov + 0.25*q.focusCoverage(st) + 0.4*pc - 0.01*float64(i)
				if q.numeric && strings.ContainsAny(s, "0123456789") {
					sc += 0.08
				}
				if n := textseg.WordCount(s); n > 60 {
					sc -= 0.05 // run-on text from a bad split
				}
				cands = append(cands, sentence{passage: i, pos: j*1000 + k, text: s, stems: st, score: sc, cov: cov})
			}
		}
	}
	if len(cands) == 0 {
		return nil, sup
	}
	sort.SliceStable(cands, func(a, b int) bool { return cands[a].score > cands[b].score })
	best := cands[0]
	chosen := []sentence{best}
	perPaper := map[string]int{ev[best.passage].Paper.ID: 1}
	// Two passes: other papers first (diversity), then the lead's paper.
	for pass := 0; pass < 2 && len(chosen) < extractMax; pass++ {
		for _, c := range cands[1:] {
			if len(chosen) >= extractMax || c.score < 0.6*best.score {
				break
			}
			if c.cov < 0.25 {
				continue // on topic only through its passage
			}
			id := ev[c.passage].Paper.ID
			if (pass == 0 && perPaper[id] > 0) || perPaper[id] >= extractPerPaper {
				continue
			}
			if slices.ContainsFunc(chosen, func(o sentence) bool { return o.text == c.text || jaccard(o.stems, c.stems) > 0.5 }) {
				continue
			}
			chosen = append(chosen, c)
			perPaper[id]++
		}
	}
	rest := chosen[1:]
	sort.SliceStable(rest, func(a, b int) bool {
		if rest[a].passage != rest[b].passage {
			return rest[a].passage < rest[b].passage
		}
		return rest[a].pos < rest[b].pos
	})
	return chosen, sup
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
// extracted) and the Sources list to out. No network.
func extractiveAnswer(ev []evidence, question string, opts Options, res *Result, out io.Writer) error {
	chosen, sup := extract(ev, question)
	minSup := opts.MinSupport
	if minSup == 0 {
		minSup = DefaultMinSupport
	}
	if len(chosen) == 0 || sup < minSup {
		return ErrNoEvidence
	}
	var b strings.Builder
	for i, s := range chosen {
		if i > 0 {
			b.WriteString(" ")
		}
		// Fence turns the paper's own "[12]" into "(ref. 12)": not a citation.
		b.WriteString(withCitation(prompts.Fence(s.text), s.passage+1))
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
	cite := " [" + strconv.Itoa(n) + "]"
	if end := strings.TrimRight(s, ".!?"); len(end) < len(s) && len(end) > 0 {
		return strings.TrimRight(end, " ") + cite + s[len(end):]
	}
	return s + cite
}
