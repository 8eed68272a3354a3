package rank

import (
	"math"
	"sort"
	"strconv"
	"strings"
	"unicode"
)

// Choice is what the model makes of a question about a paper.
type Choice struct {
	// Ranked are the paper's paragraphs, best first, with the
	// probability the model gives each of being the evidence.
	Ranked []Ranked
	// Short is the short answer: a span of Quote's sentence, or "Yes" or
	// "No" for a yes/no question; "" when the model has none.
	Short string
	// Quote is the sentence Short comes from (or that a Yes/No rests on),
	// in paragraph Para, sentence Sent; Para is -1 when there is none.
	Para, Sent int
	// SentScore is the probability of the quote's sentence among the
	// best paragraphs' sentences; ShortScore that of Short among its
	// sentence's spans; YesProb the probability of Yes for a yes/no
	// question.
	SentScore  float64
	ShortScore float64
	YesProb    float64
	// YesNo is set for a yes/no question: Short is "Yes" or "No" and
	// Unanswerable is the yes/no model's (see Model.YesNo). Unstated is
	// then the model's probability that no sentence is the answer's
	// evidence: a No the paper gives by not stating the thing asked
	// about ("Do they use BERT?" of a paper that never does), or no answer.
	YesNo    bool
	Unstated float64
	// Unanswerable is the probability that the paper does not answer.
	Unanswerable float64
	// Coverage is the idf-weighted share of the question's specific words
	// the paper holds anywhere (see MinCoverage).
	Coverage float64
	// Quotes are the best sentence of each of the best paragraphs (the
	// short answer's first), with the paragraph's probability.
	Quotes []Quote
	// Second is the model's next best sentence; Lexical the sentence of
	// the whole paper that holds most of the question's words (Para -1
	// when there is none).
	Second, Lexical Quote
}

// Quote is a sentence the answer may quote: sentence Sent of paragraph
// Para, whose probability of being the evidence is Prob.
type Quote struct {
	Para, Sent int
	Prob       float64
	// Primary marks a quote of a paragraph the model holds to answer (see
	// Model.Reading).
	Primary bool
}

// Thresholds are the answer's decisions, fit with the model on QASPER's
// training split (Train chooses them on answers the model gives papers it
// was not fit on) and written with its weights.
type Thresholds struct {
	// Abstain: a paper whose probability of not answering is this or
	// more is not answered from.
	Abstain float64 `json:"abstain"`
	// Quote: a paragraph is quoted beside the best one when its
	// probability is at least this share of the best's.
	Quote float64 `json:"quote"`
	// Short: a short answer whose probability among the candidate spans
	// is below this gives way to its whole sentence.
	Short float64 `json:"short"`
	// Unstated: a No whose odds of having no sentence as its evidence
	// (Choice.Unstated) are this or more is given as what the paper does
	// not say, its nearest sentences quoted but none as its evidence.
	Unstated float64 `json:"unstated"`
}

// Unstated reports whether the choice is a No no sentence states (see
// Thresholds.Unstated).
func (m *Model) Unstated(c Choice) bool {
	return c.YesNo && c.Short == "No" && c.Unstated >= m.Thresholds.Unstated*(1-c.Unstated)
}

// Floors of a general kind, not fit: a paper that holds less than
// MinCoverage of the question's specific words (idf-weighted; words in
// more than SpecificShare of paragraphs at large, and cue words, say what
// kind of question it is, not what about) cannot state its answer in
// words a reader would quote, whatever the model makes of it. QASPER's
// questions are all about their paper, so the model never saw one that is
// not; the floor is set on the shared unanswerable questions and checked
// not to refuse QASPER's answerable ones (BENCHMARKS.md).
const (
	MinCoverage   = 0.5
	SpecificShare = 0.02
)

// MaxQuotes is how many sentences an answer of one paper quotes.
const MaxQuotes = 3

// Abstains reports whether the paper does not answer: no candidate, the
// model's probability at or over its threshold, or too little of the
// question's specific words in the paper. The floor does not hold for a
// yes/no question: a paper that never mentions what the question asks
// about answers it No, and the yes/no model weighs coverage itself (on
// QASPER dev the floor refused 28 yes/no questions, 22 of them answered
// Yes or No by every annotator).
func (m *Model) Abstains(c Choice) bool {
	return c.Para < 0 || c.Unanswerable >= m.Thresholds.Abstain || !c.YesNo && c.Coverage < MinCoverage
}

// Evidence are the sentences the answer rests on, best first: the short
// answer's, then the best sentence of each other paragraph nearly as
// likely to hold the answer, MaxQuotes at most.
func (m *Model) Evidence(c Choice) []Quote {
	if c.Para < 0 || len(c.Quotes) == 0 || m.Unstated(c) {
		return nil
	}
	top := c.Ranked[0].Prob
	out := []Quote{{Para: c.Para, Sent: c.Sent, Prob: top}}
	for _, q := range c.Quotes {
		if len(out) == MaxQuotes {
			break
		}
		if q.Para != c.Para && q.Prob >= m.Thresholds.Quote*top {
			out = append(out, q)
		}
	}
	return out
}

// Reading are the sentences an answer quotes, MaxQuotes at most, best
// first: the short answer's, the model's next best sentence, the sentence
// of the whole paper that holds most of the question's words (BM25 over
// its sentences: a second ranker whose misses differ from the model's),
// then the rest of Evidence. Each is marked Primary when Evidence holds
// it: the paragraphs the model says answer, which QASPER scores. An
// Unstated No is read from its best sentences, none of them Primary.
func (m *Model) Reading(c Choice) []Quote {
	if c.Para < 0 || len(c.Quotes) == 0 {
		return nil
	}
	ev := m.Evidence(c)
	for i := range ev {
		ev[i].Primary = true
	}
	out := []Quote{{Para: c.Para, Sent: c.Sent, Prob: c.Ranked[0].Prob}}
	if len(ev) > 0 {
		out[0] = ev[0]
	}
	has := func(q Quote) bool {
		for _, o := range out {
			if o.Para == q.Para && o.Sent == q.Sent {
				return true
			}
		}
		return false
	}
	add := func(q Quote) {
		if len(out) < MaxQuotes && q.Para >= 0 && !has(q) {
			for _, e := range ev {
				if e.Para == q.Para && e.Sent == q.Sent {
					q.Primary = true
				}
			}
			out = append(out, q)
		}
	}
	add(c.Second)
	add(c.Lexical)
	for _, e := range ev {
		add(e)
	}
	return out
}

// ShortIsSentence reports whether the short answer should be its whole
// sentence: the span is not likely enough, or is most of the sentence.
func (m *Model) ShortIsSentence(c Choice, sentence string) bool {
	return c.Short == "" || c.ShortScore < m.Thresholds.Short || len(c.Short) >= len(sentence)*4/5
}

// Ranked is one paragraph's place in a Choice.
type Ranked struct {
	Index int     // into the paragraphs given
	Score float64 // the linear score
	Prob  float64 // softmax over the paper's paragraphs
}

// topParagraphs is how many of the best paragraphs short answers are
// looked for in.
const topParagraphs = 3

// Choose ranks paras (one paper's paragraphs, as Paragraphs returns them)
// for q, picks the sentence most likely to hold the answer among the best
// paragraphs' and the short answer within it, and the probability that
// the paper does not answer.
func (m *Model) Choose(q Question, paras []Paragraph) Choice {
	c := Choice{Para: -1, Sent: -1, Second: Quote{Para: -1}, Lexical: Quote{Para: -1}}
	if len(paras) == 0 {
		c.Unanswerable = 1
		return c
	}
	c.Ranked = rankedOf(m.Scores(m.Featurize(q, paras)))
	sents := m.sentences(q, paras, c.Ranked)
	if len(sents) > 0 {
		ss := make([]float64, len(sents))
		for i := range sents {
			ss[i] = m.sentenceScore(sents[i])
		}
		best := argmaxOf(ss)
		bs := sents[best]
		c.Para, c.Sent = bs.para, bs.sent
		c.SentScore = softmax(ss)[best]
		c.Second = Quote{Para: -1}
		if len(ss) > 1 {
			second := -1
			for i := range ss {
				if i != best && (second < 0 || ss[i] > ss[second]) {
					second = i
				}
			}
			c.Second = Quote{Para: sents[second].para, Sent: sents[second].sent, Prob: probOf(c.Ranked, sents[second].para)}
		}
		c.Lexical = m.lexicalSentence(q, paras, c.Ranked)
		if spans := m.spans(q, bs.text); len(spans) > 0 {
			sp := make([]float64, len(spans))
			for i := range spans {
				sp[i] = spans[i].v.Dot(m.Span)
			}
			k := argmaxOf(sp)
			c.Short, c.ShortScore = spans[k].span.Text, softmax(sp)[k]
		}
		// the best sentence of each of the best paragraphs, in their order
		bestOf := map[int]int{}
		for i, sc := range sents {
			if b, ok := bestOf[sc.para]; !ok || ss[i] > ss[b] {
				bestOf[sc.para] = i
			}
		}
		for _, r := range c.Ranked[:min(topParagraphs, len(c.Ranked))] {
			if i, ok := bestOf[r.Index]; ok {
				c.Quotes = append(c.Quotes, Quote{Para: r.Index, Sent: sents[i].sent, Prob: r.Prob})
			}
		}
	}
	c.Coverage = m.topicCoverage(q, paras)
	if q.YesNo() && c.Para >= 0 {
		p := m.yesNoProbs(m.yesNoFeatures(q, paras, c))
		c.YesNo = true
		c.YesProb = p[yesAnswer] / (p[yesAnswer] + p[noAnswer] + p[unstatedAnswer])
		// a paper does not affirm what it never mentions: below the
		// coverage floor the answer is No (the model alone: dev boolean
		// Answer-F1 64.2 against 61.8, a Yes to "Does ECHO use a
		// crowdsourcing platform?" of an abstract that never says so)
		c.Short = "Yes"
		if c.YesProb < 0.5 || c.Coverage < MinCoverage {
			c.Short = "No"
		}
		c.Unstated = p[unstatedAnswer] + p[unansweredAnswer]
		c.Unanswerable = p[unansweredAnswer]
		return c
	}
	c.Unanswerable = sigmoid(m.abstainFeatures(q, paras, c).Dot(m.Abstain))
	return c
}

// The answers of a yes/no question the YesNo weights choose among: Yes, a
// No a sentence states, a No the paper gives by not stating the thing, or
// none (the annotators' "unanswerable").
const (
	yesAnswer = iota
	noAnswer
	unstatedAnswer
	unansweredAnswer
	yesNoAnswers
)

// yesNoClass prefixes a yes/no feature's name with its answer's: each
// answer but the last has a weight of its own for every feature (the
// last scores 0, the reference).
var yesNoClass = [yesNoAnswers - 1]string{"yes:", "no:", "unstated:"}

// yesNoCandidates are the yes/no answers' feature vectors (see
// yesNoClass): softmax over their scores is the model's distribution.
func yesNoCandidates(v Vector) []Vector {
	out := make([]Vector, yesNoAnswers)
	for k, pre := range yesNoClass {
		for i, n := range v.Names {
			out[k].add(pre+n, v.Values[i])
		}
	}
	return out
}

// yesNoProbs are the probabilities of the yes/no answers given a yes/no
// question's features.
func (m *Model) yesNoProbs(v Vector) []float64 {
	cands := yesNoCandidates(v)
	scores := make([]float64, len(cands))
	for i, c := range cands {
		scores[i] = c.Dot(m.YesNo)
	}
	return softmax(scores)
}

// probOf is paragraph i's probability in a ranking.
func probOf(ranked []Ranked, i int) float64 {
	for _, r := range ranked {
		if r.Index == i {
			return r.Prob
		}
	}
	return 0
}

// lexicalSentence is the sentence of the whole paper with the best BM25 of
// the question's words (idf over the paper's sentences); Para -1 when no
// sentence holds any.
func (m *Model) lexicalSentence(q Question, paras []Paragraph, ranked []Ranked) Quote {
	type sref struct {
		para, sent, n int
		tf            map[string]int
	}
	var all []sref
	df := map[string]int{}
	total := 0
	want := map[string]bool{}
	for _, t := range q.Terms {
		want[t] = true
	}
	for pi, p := range paras {
		for si, s := range p.Sentences {
			st := stems(s)
			tf := map[string]int{}
			for _, w := range st {
				if want[w] {
					if tf[w] == 0 {
						df[w]++
					}
					tf[w]++
				}
			}
			all = append(all, sref{pi, si, len(st), tf})
			total += len(st)
		}
	}
	best, bestScore := Quote{Para: -1}, 0.0
	avg := float64(total) / float64(max(len(all), 1))
	n := float64(len(all))
	for _, s := range all {
		norm := bm25K1 * (1 - bm25B + bm25B*float64(s.n)/math.Max(avg, 1))
		x := 0.0
		for t, f := range s.tf {
			idf := math.Log(1 + (n-float64(df[t])+0.5)/(float64(df[t])+0.5))
			x += idf * float64(f) * (bm25K1 + 1) / (float64(f) + norm)
		}
		if x > bestScore {
			best, bestScore = Quote{Para: s.para, Sent: s.sent, Prob: probOf(ranked, s.para)}, x
		}
	}
	return best
}

func rankedOf(scores []float64) []Ranked {
	probs := softmax(scores)
	out := make([]Ranked, len(scores))
	for i := range scores {
		out[i] = Ranked{Index: i, Score: scores[i], Prob: probs[i]}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Score > out[j].Score })
	return out
}

// sentCand is a sentence of one of the best paragraphs, with its features.
type sentCand struct {
	para, sent int
	text       string
	v          Vector
	// a are the few features the full-text weights read (see Model.FullText)
	a Vector
}

// sentenceScore is a sentence's score: the QASPER-fit weights' sum, and
// the full-text weights over it and a few plain features.
func (m *Model) sentenceScore(s sentCand) float64 {
	base := s.v.Dot(m.Sentence)
	if len(m.FullText) == 0 {
		return base
	}
	return m.FullText["qasper"]*base + s.a.Dot(m.FullText)
}

// spanCand is a span of a sentence, with its features.
type spanCand struct {
	span Span
	v    Vector
}

// sentences are the sentences of the best paragraphs, each with its
// features: how well it matches the question, where it stands, what it
// holds (numbers, names, lists) against what the question asks for.
func (m *Model) sentences(q Question, paras []Paragraph, ranked []Ranked) []sentCand {
	var out []sentCand
	cues := append(m.cuesOf(q), "w:"+q.Wh)
	top := ranked[:min(topParagraphs, len(ranked))]
	qidf := make([]float64, len(q.Terms))
	sum := 0.0
	stats := m.statsOf(paras)
	for k, t := range q.Terms {
		df := 0
		for i := range stats {
			if stats[i].tf[t] > 0 {
				df++
			}
		}
		in := math.Log(1 + (float64(len(paras))-float64(df)+0.5)/(float64(df)+0.5))
		qidf[k] = math.Min(m.idf(t), in) // as in Featurize
		sum += qidf[k]
	}
	type raw struct {
		para, sent, rank int
		prob, bm, cov    float64
		tr               float64
		text             string
	}
	var rs []raw
	for ri, r := range top {
		for si, s := range paras[r.Index].Sentences {
			tf := map[string]int{}
			for _, w := range stems(s) {
				tf[w]++
			}
			bm, cov := 0.0, 0.0
			for k, t := range q.Terms {
				if f := float64(tf[t]); f > 0 {
					bm += qidf[k] * f * (bm25K1 + 1) / (f + bm25K1)
					cov += qidf[k]
				}
			}
			rs = append(rs, raw{r.Index, si, ri + 1, r.Prob, bm, ratio(cov, sum), m.translation(q.Terms, tf), s})
		}
	}
	maxBM, maxTr := 0.0, 0.0
	for _, r := range rs {
		maxBM, maxTr = math.Max(maxBM, r.bm), math.Max(maxTr, r.tr)
	}
	for k, r := range rs {
		var v Vector
		words := strings.Fields(r.text)
		v.add("prank:"+itoa(r.rank), 1)
		v.add("pprob", r.prob)
		v.add("sbm25", ratio(r.bm, maxBM))
		v.add("sbest", flag(r.bm > 0 && r.bm == maxBM))
		v.add("scover", r.cov)
		v.add("strans", ratio(r.tr, maxTr))
		v.add("sfirst", flag(r.sent == 0))
		v.add("slast", flag(r.sent == len(paras[r.para].Sentences)-1))
		v.add("slen:"+lenBin(len(words)), 1)
		v.add("spos", float64(r.sent)/float64(max(len(paras[r.para].Sentences)-1, 1)))
		// the sentence after one that restates the question often
		// answers it ("To fine-tune SL-CAI, ..." / "We trained for one
		// epoch ...")
		prev, next := 0.0, 0.0
		if k > 0 && rs[k-1].para == r.para {
			prev = ratio(rs[k-1].bm, maxBM)
		}
		if k+1 < len(rs) && rs[k+1].para == r.para {
			next = ratio(rs[k+1].bm, maxBM)
		}
		v.add("sprev", prev)
		v.add("snext", next)
		v.add("snames", namesIn(q.Names, r.text))
		v.add("pnames", namesIn(q.Names, paras[r.para].Text))
		numb, caps, list := 0.0, 0.0, 0.0
		for k, w := range words {
			if strings.IndexFunc(w, unicode.IsDigit) >= 0 {
				numb = 1
			}
			if capWord(w, k == 0) {
				caps++
			}
		}
		caps = math.Min(caps/math.Max(float64(len(words)), 1)*5, 1)
		if strings.Count(r.text, ",") >= 2 {
			list = 1
		}
		we := flag(strings.Contains(" "+strings.ToLower(r.text), " we ") || strings.Contains(strings.ToLower(r.text), " our "))
		kind := SectionKind(paras[r.para].Section)
		for _, c := range cues {
			v.add(c+"&sprev", prev)
			v.add(c+"&snum", numb)
			v.add(c+"&scaps", caps)
			v.add(c+"&slist", list)
			v.add(c+"&swe", we)
			v.add(c+"&ss:"+kind, 1)
		}
		var a Vector
		a.add("sbm25", ratio(r.bm, maxBM))
		a.add("scover", r.cov)
		a.add("strans", ratio(r.tr, maxTr))
		a.add("snames", namesIn(q.Names, r.text))
		a.add("pnames", namesIn(q.Names, paras[r.para].Text))
		a.add("sprev", prev)
		a.add("snext", next)
		a.add("pprob", r.prob)
		a.add("prank1", flag(r.rank == 1))
		a.add("sfirst", flag(r.sent == 0))
		a.add("snum", numb)
		a.add("quantity&snum", flag(q.Wh == "howmany" || q.Wh == "howmuch")*numb)
		a.add("slen", math.Log1p(float64(len(words))))
		out = append(out, sentCand{para: r.para, sent: r.sent, text: r.text, v: v, a: a})
	}
	return out
}

// spans cuts a sentence into candidate short answers, each with its
// features.
func (m *Model) spans(q Question, sentence string) []spanCand {
	words := strings.Fields(sentence)
	cues := m.cuesOf(q)
	qset := map[string]bool{}
	for _, t := range q.Terms {
		qset[t] = true
	}
	var out []spanCand
	for _, sp := range Spans(sentence) {
		out = append(out, spanCand{span: sp, v: m.spanFeatures(q, cues, qset, sp, words)})
	}
	return out
}

// negations mark a sentence that denies.
var negations = map[string]bool{
	"not": true, "no": true, "never": true, "neither": true, "nor": true, "without": true, "cannot": true,
	"none": true, "nothing": true, "unable": true, "fail": true, "fails": true, "failed": true, "lack": true,
	"lacks": true, "only": true, "instead": true, "rather": true, "unlike": true, "however": true,
}

// hedges mark a sentence that qualifies what it says.
var hedges = map[string]bool{
	"may": true, "might": true, "could": true, "possibly": true, "perhaps": true, "likely": true, "some": true,
	"limited": true, "partially": true, "approximately": true, "future": true,
}

// sweeping are question words that ask more than a paper often states
// ("Do they use only English data?", "Does it outperform all baselines?").
var sweeping = map[string]bool{
	"all": true, "always": true, "every": true, "any": true, "only": true, "other": true, "besides": true,
	"beyond": true, "outperform": true, "significantly": true, "better": true,
}

// negated reports whether a sentence has a word that denies.
func negated(s string) bool {
	for _, w := range tokens(s) {
		if negations[w] || strings.HasSuffix(w, "n't") {
			return true
		}
	}
	return false
}

// yesNoFeatures are the traits of a yes/no question and of what the paper
// says that tell yes from no from unanswered: denials and hedges in the
// best sentences, how much of the question they and the paper hold
// (a paper that never mentions what is asked about answers No), the
// question's sweeping words, and how sure the ranking is. No per-word
// question features: 387 training questions do not hold them.
func (m *Model) yesNoFeatures(q Question, paras []Paragraph, c Choice) Vector {
	var v Vector
	sent := paras[c.Para].Sentences[c.Sent]
	v.add("bias", 1)
	v.add("sent_neg", flag(negated(sent)))
	qneg := false
	for _, w := range tokens(q.Text) {
		qneg = qneg || negations[w]
	}
	v.add("q_neg", flag(qneg))
	v.add("sent_cover", m.termCoverage(q.Terms, sent))
	v.add("top_prob", c.Ranked[0].Prob)
	v.add("paper_cover", paperCoverage(m, q, paras))
	v.add("topic_cover", c.Coverage)
	v.add("topic_low", flag(c.Coverage < MinCoverage))
	v.add("has_names", flag(len(q.Names) > 0))
	if len(q.Names) > 0 {
		v.add("names_paper", namesIn(q.Names, paperText(paras)))
	}
	if c.Lexical.Para >= 0 {
		lex := paras[c.Lexical.Para].Sentences[c.Lexical.Sent]
		v.add("lex_neg", flag(negated(lex)))
		v.add("lex_cover", m.termCoverage(q.Terms, lex))
	}
	qneg = false
	for _, qu := range c.Quotes {
		qneg = qneg || negated(paras[qu.Para].Sentences[qu.Sent])
	}
	v.add("quotes_neg", flag(qneg))
	hedged := false
	for _, w := range tokens(sent) {
		hedged = hedged || hedges[w]
	}
	v.add("sent_hedge", flag(hedged))
	for _, w := range tokens(q.Text) {
		if sweeping[w] {
			v.add("q_sweeping", 1)
			v.add("qs:"+w, 1)
		}
	}
	v.add("abstain", sigmoid(m.abstainFeatures(q, paras, c).Dot(m.Abstain)))
	v.add("sent_score", c.SentScore)
	return v
}

// termCoverage is the idf-weighted share of terms that text holds.
func (m *Model) termCoverage(terms []string, text string) float64 {
	st := map[string]bool{}
	for _, w := range stems(text) {
		st[w] = true
	}
	cov, sum := 0.0, 0.0
	for _, t := range terms {
		sum += m.idf(t)
		if st[t] {
			cov += m.idf(t)
		}
	}
	return ratio(cov, sum)
}

// paperCoverage is the idf-weighted share of the question's terms the
// paper holds anywhere.
func paperCoverage(m *Model, q Question, paras []Paragraph) float64 {
	all := map[string]bool{}
	for _, t := range q.Terms {
		all[t] = false
	}
	for _, p := range paras {
		for _, w := range stems(p.Text) {
			if _, ok := all[w]; ok {
				all[w] = true
			}
		}
	}
	cov, sum := 0.0, 0.0
	for _, t := range q.Terms {
		sum += m.idf(t)
		if all[t] {
			cov += m.idf(t)
		}
	}
	return ratio(cov, sum)
}

// topicCoverage is paperCoverage over the question's specific words: not
// its cue words nor words common in papers at large (in more than
// SpecificShare of paragraphs), which say what kind of question it is
// rather than what it is about ("What is the main result?" asks of any
// paper; "What is the boiling point of mercury?" of one that mentions
// mercury). 1 when it has no such word.
func (m *Model) topicCoverage(q Question, paras []Paragraph) float64 {
	var terms []string
	for _, t := range q.Terms {
		if !m.cue[t] && float64(m.df[t]) < SpecificShare*m.docs {
			terms = append(terms, t)
		}
	}
	if len(terms) == 0 {
		return 1
	}
	return paperCoverage(m, Question{Text: q.Text, Wh: q.Wh, Terms: terms}, paras)
}

// Specific reports whether word is one papers at large seldom use (see
// MinCoverage): not a cue word, in under SpecificShare of paragraphs.
func (m *Model) Specific(word string) bool {
	st := stems(word)
	if len(st) != 1 {
		return false
	}
	return !m.cue[st[0]] && float64(m.df[st[0]]) < SpecificShare*m.docs
}

// abstainFeatures tell a question the paper answers from one it does not.
// (Coverage of the question by the best sentence and paragraph, names of
// the question in the paper, paragraph and sentence, and the floor's
// coverage were tried as well: fit on QASPER train, dev Answer-F1 and
// Evidence-F1 moved by 0.2 at most at the Abstain threshold, and the own
// abstract set's unanswerable questions were abstained 3/8 instead of 5/8.)
func (m *Model) abstainFeatures(q Question, paras []Paragraph, c Choice) Vector {
	var v Vector
	v.add("bias", 1)
	r := c.Ranked
	v.add("top_prob", r[0].Prob)
	v.add("top_score", r[0].Score)
	if len(r) > 1 {
		v.add("margin", r[0].Score-r[1].Score)
	}
	v.add("short_score", c.ShortScore)
	v.add("paper_cover", paperCoverage(m, q, paras))
	v.add("w:"+q.Wh, 1)
	for _, cue := range m.cuesOf(q) {
		v.add(cue, 1)
	}
	v.add("qlen", math.Log1p(float64(len(q.Terms))))
	return v
}

// paperText is the paper's paragraphs joined.
func paperText(paras []Paragraph) string {
	texts := make([]string, len(paras))
	for i, p := range paras {
		texts[i] = p.Text
	}
	return strings.Join(texts, " ")
}

func softmax(xs []float64) []float64 {
	out := make([]float64, len(xs))
	if len(xs) == 0 {
		return out
	}
	top := xs[argmaxOf(xs)]
	z := 0.0
	for i, x := range xs {
		out[i] = math.Exp(x - top)
		z += out[i]
	}
	for i := range out {
		out[i] /= z
	}
	return out
}

func argmaxOf(xs []float64) int {
	b := 0
	for i := range xs {
		if xs[i] > xs[b] {
			b = i
		}
	}
	return b
}

func sigmoid(x float64) float64 { return 1 / (1 + math.Exp(-x)) }

func itoa(n int) string { return strconv.Itoa(n) }

// DebugSentences lists the candidate sentences with their scores and
// features, for reading the model's choices.
func DebugSentences(m *Model, q Question, paras []Paragraph, ranked []Ranked) []string {
	var out []string
	for _, s := range m.sentences(q, paras, ranked) {
		line := strconv.FormatFloat(s.v.Dot(m.Sentence), 'f', 3, 64) + " " + s.text
		if len(line) > 140 {
			line = line[:140]
		}
		for i, n := range s.v.Names {
			if w := m.Sentence[n] * s.v.Values[i]; w > 0.1 || w < -0.1 {
				line += " | " + n + "=" + strconv.FormatFloat(w, 'f', 2, 64)
			}
		}
		out = append(out, line)
	}
	return out
}

// DebugRankSentences are the candidate sentences, best first, with lexical
// weight lx (for experiments).
func DebugRankSentences(m *Model, q Question, paras []Paragraph, lx float64) []string {
	ranked := rankedOf(m.Scores(m.Featurize(q, paras)))
	sents := m.sentences(q, paras, ranked)
	sort.SliceStable(sents, func(i, j int) bool { return m.sentenceScore(sents[i]) > m.sentenceScore(sents[j]) })
	var out []string
	for _, s := range sents {
		out = append(out, s.text)
	}
	return out
}

// DebugRankRefs are the candidate sentences' places, best first (for
// experiments).
func DebugRankRefs(m *Model, q Question, paras []Paragraph, lx float64) [][2]int {
	ranked := rankedOf(m.Scores(m.Featurize(q, paras)))
	sents := m.sentences(q, paras, ranked)
	sort.SliceStable(sents, func(i, j int) bool { return m.sentenceScore(sents[i]) > m.sentenceScore(sents[j]) })
	var out [][2]int
	for _, s := range sents {
		out = append(out, [2]int{s.para, s.sent})
	}
	return out
}

// DebugParagraphOrder is the paragraphs' order under the model's weights
// plus lx times named features (for experiments).
func DebugParagraphOrder(m *Model, q Question, paras []Paragraph, extra map[string]float64) []int {
	vs := m.Featurize(q, paras)
	scores := make([]float64, len(vs))
	for i, v := range vs {
		scores[i] = v.Dot(m.Paragraph) + v.Dot(extra)
	}
	var out []int
	for _, r := range rankedOf(scores) {
		out = append(out, r.Index)
	}
	return out
}

// DebugSentenceBM25 ranks every sentence of the paper by BM25 of the
// question (idf over the paper's sentences), best first (experiments).
func DebugSentenceBM25(q Question, paras []Paragraph) []string {
	type sref struct {
		text string
		tf   map[string]int
		n    int
	}
	var all []sref
	df := map[string]int{}
	tot := 0
	for _, p := range paras {
		for _, s := range p.Sentences {
			tf := map[string]int{}
			st := stems(s)
			for _, w := range st {
				if tf[w] == 0 {
					df[w]++
				}
				tf[w]++
			}
			all = append(all, sref{s, tf, len(st)})
			tot += len(st)
		}
	}
	avg := float64(tot) / float64(max(len(all), 1))
	N := float64(len(all))
	score := make([]float64, len(all))
	for i, s := range all {
		norm := bm25K1 * (1 - bm25B + bm25B*float64(s.n)/avg)
		for _, t := range q.Terms {
			if f := float64(s.tf[t]); f > 0 {
				idf := math.Log(1 + (N-float64(df[t])+0.5)/(float64(df[t])+0.5))
				score[i] += idf * f * (bm25K1 + 1) / (f + norm)
			}
		}
	}
	idx := make([]int, len(all))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return score[idx[a]] > score[idx[b]] })
	var out []string
	for _, i := range idx {
		out = append(out, all[i].text)
	}
	return out
}
