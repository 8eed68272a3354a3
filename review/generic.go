package review

import (
	"cmp"
	"math"
	"slices"
	"strings"
	"unicode"

	"github.com/papers-cli/papers/ask"
	"github.com/papers-cli/papers/ask/rank"
	"github.com/papers-cli/papers/internal/lazyre"
	"github.com/papers-cli/papers/internal/textkit"
	"github.com/papers-cli/papers/role"
	"github.com/papers-cli/papers/store"
	"github.com/papers-cli/papers/textseg"
)

// The generic questions of a literature review ("What problem does it
// address?", "How much better is it?") name nothing a paper's text
// matches: searching the paper for their words finds sentences that
// happen to say "address" or "better". Papers state these things in set
// places and set phrasings instead: the problem and the method in the
// abstract and the introduction ("however, ... remains challenging", "we
// propose"), the improvement as a number beside a comparison ("outperforms
// ... by 3.4%"), the datasets beside "dataset" or "benchmark", the
// limitations in a section of that name or beside "limitation", released
// code as a link or "we release". The offline answerer recognises these
// questions (intentOf) and picks the sentence of the paper with the most
// of its kind's cues, in the places its kind is stated; a question of a
// kind that needs evidence (an improvement, datasets, limitations,
// released code) is "not stated" when no sentence has it.

// intent is the kind of generic question a column asks.
type intent int

const (
	noIntent intent = iota
	problemIntent
	methodIntent
	gainIntent
	dataIntent
	limitIntent
	codeIntent
)

// intentCues tell the kinds apart by the question's words; the first kind
// whose pattern the question matches is its kind.
var intentCues = []struct {
	kind intent
	re   *lazyre.Regexp
}{
	{codeIntent, lazyre.New(`\b(code|source|software|implementation|github|open[- ]sourced?)\b|\b(released?|available|public(ly)?)\b.*\b(data|dataset)\b|\b(data|dataset)\b.*\b(released?|available|public)\b`)},
	{limitIntent, lazyre.New(`\b(limitations?|weakness(es)?|drawbacks?|shortcomings?|caveats?)\b`)},
	{dataIntent, lazyre.New(`\b(datasets?|data sets?|benchmarks?|corpus|corpora|test beds?)\b`)},
	{gainIntent, lazyre.New(`\bhow (much|well)\b.*\b(better|improve|faster|gain)|\b(improvements?|gains?|speedups?|outperforms?)\b|\bmain results?\b`)},
	{problemIntent, lazyre.New(`\b(problems?|address(es)?|motivations?|challenges?|research questions?|goals?|aims?)\b`)},
	{methodIntent, lazyre.New(`\b(methods?|approach(es)?|propose[sd]?|techniques?|contributions?)\b`)},
}

// maxGenericWords is the most words a generic question has: a longer one
// asks something particular, whatever words it shares with them.
const maxGenericWords = 10

// intentOf is the kind of question q asks, noIntent when it asks something
// particular (that the paper's words can be searched for): a question of
// more than maxGenericWords words, or one that names something (a
// capitalised word after its first).
func intentOf(q string) intent {
	words := strings.Fields(q)
	if len(words) > maxGenericWords {
		return noIntent
	}
	for _, w := range words[min(1, len(words)):] {
		if r := []rune(w); unicode.IsUpper(r[0]) && w != "I" {
			return noIntent
		}
	}
	q = strings.ToLower(q)
	for _, c := range intentCues {
		if c.re.MatchString(q) {
			return c.kind
		}
	}
	return noIntent
}

// sentenceCues are the phrasings each kind is stated in: each distinct
// cue a sentence holds adds one to its score.
var sentenceCues = map[intent][]*lazyre.Regexp{
	problemIntent: cues(`\bproblems?\b`, `\bchalleng`, `\bdifficult`, `\bhowever\b`, `\blimited by\b`, `\black(s|ing)?\b`, `\bremains?\b`, `\bsuffer`,
		`\bexpensive\b`, `\bcostly\b`, `\bbottleneck`, `\bprecludes?\b`, `\babsence\b`, `\bno (precise|concrete|cost-effective|existing)\b`, `\bneeds?\b`,
		`\bunsolved\b`, `\bimpractical\b`, `\bnot (well )?suited\b`,
		`\bconstraints?\b`, `\bnot correlate`, `\bno\b[a-z -]{0,40}\bavailable\b`, `\bpurpose of (this|the present) (paper|work|study)\b`, `\blimits\b`, `\baims? (to|at)\b`),
	methodIntent: cues(`\bwe (propose|present|introduce|develop|design|describe|derive|analy[sz]e)\b`, `\b(this|the present|our) (paper|letter|work|article|survey|review)\b`,
		`\bnovel\b`, `\bour (approach|method|technique|framework|system|model)\b`,
		`\bproposed (method|approach|framework|system|model)\b`, `\bframework\b`, `\barchitecture\b`, `\bbased (solely )?on\b`, `\bcategori[sz]e\b`, `\bgroup them\b`,
		`\b(two|three|four|five|six|several) (distinct |main |major )?(angles|categories|classes|groups|parts|aspects|perspectives|levels|types|families)\b|\btaxonomy\b|\bdivided? into\b`),
	gainIntent: cues(`\boutperform`, `\bimprov(es|ed|ing|ement)\b`, `\bbetter\b`, `\bsurpass`, `\bexceed`, `\bfaster\b`, `\bspeedups?\b`, `\bhigher\b`, `\blower\b`,
		`\breduc(es|ed|ing|tion)\b`, `\b(in|de)creas(e|es|ed|ing)\b`, `\bstate[- ]of[- ]the[- ]art\b`, `\bgains?\b`, `\bachiev`, `\bby (over |about |up to |as much as )?\d`, `\bcompared (with|to)\b`, `\bbaselines?\b`),
	dataIntent: cues(`\bdatasets?\b`, `\bdata sets?\b`, `\bbenchmarks?\b`, `\bdatabases?\b`, `\bcorp(us|ora)\b`, `\btest (sets?|images|material)\b`,
		`\b(evaluate[ds]?|experiments?|tests?|tested|trained|benchmarked) ([a-z-]+ ){0,5}?(on|using)\b`, `[a-z0-9](bench|eval|qa|gym)\b`),
	limitIntent: cues(`\blimitations?\b`, `\bdrawbacks?\b`, `\bshortcomings?\b`, `\bweakness(es)?\b`, `\bcannot\b`, `\bunable\b`, `\bfail(s|ed)? to\b`, `\binferior\b`, `\bworse\b`,
		`\bnot yet\b`, `\bstruggles?\b`, `\bat the cost of\b`, `\bvulnerable\b`, `\bnot (increase|scale|generali[sz]e)\b`, `\b(does|do) not (currently )?(support|handle|trace|model|consider|cover)\b`,
		`\bfuture (work|research|directions?|studies)\b`, `\b(improvement|progress) can still be\b`, `\bleft (for|to) future\b`,
		`\b(advantage|gain|benefit|improvement)s? [a-z ]{0,60}\b(reduces|decreases|diminishes|vanishes|disappears)\b`, `\bunderperform`,
		`\bfailure (cases?|modes?)\b`, `\blimiting factors?\b`, `\b(predict(s|ed)?|classifie[sd]|recogni[sz]ed) wrong`),
	codeIntent: cues(`github|gitlab\.com|bitbucket\.org|huggingface\.co|zenodo`, `https?://`, `\b(code|software|implementation|repository|models?|data(sets?)?|judgments|annotations)\b`,
		`\b(release|released|publish|open[- ]source|available)\b`),
}

// contextCues say why a subject matters more than what is wrong: half a
// problem cue each.
var contextCues = cues(`\bcrucial\b`, `\bgoal of\b`, `\bneeds?\b`, `\bdemands?\b`)

// weakLimitCues say a limitation less surely than sentenceCues'
// (a plan, an assumption, a scope): each adds one half.
var weakLimitCues = cues(`\b(we )?plan (to|on)\b`, `\bin the future\b`, `\bremains? (an? )?(open|unclear|unsolved|challenging|difficult)\b`,
	`\b(only|not) (applicable|valid|tested|evaluated)\b`, `\brestricted to\b`, `\bassum(e|es|ed|ption)\b`, `\bunclear\b`,
	`\bbecomes? unavailable\b`, `\bnot always\b`, `\black of\b`, `\bat this stage\b`, `\bpreliminary\b`, `\bmay not\b`)

func cues(res ...string) []*lazyre.Regexp {
	out := make([]*lazyre.Regexp, len(res))
	for i, s := range res {
		out[i] = lazyre.New(s)
	}
	return out
}

// A number that is a result, not a figure's, table's, section's,
// reference's or year's number.
var (
	resultNumber = lazyre.New(`\d+(\.\d+)?\s*(%|x\b|×|times\b|-?fold\b|db\b|bleu\b|points?\b)|\d+\.\d+|\bfactor of\b`)
	notResult    = lazyre.New(`\b(fig(ure)?s?|tables?|sections?|eq(uation)?s?|appendix|chapter)\.?\s*\d+|\[\d[^\]]*\]|\b(19|20)\d\d\b`)
	// released code is a link or words saying the authors release it
	codeLink = lazyre.New(`github|gitlab\.com|bitbucket\.org|huggingface\.co|zenodo\.org`)
	// a package archive holds everyone's packages: a link to it is a
	// release only when the sentence says whose and that it is released
	archiveLink = lazyre.New(`cran\.r-project\.org|pypi\.org|bioconductor\.org|\b(from|on|at|via) (the )?(cran|pypi|bioconductor|conda-forge)\b`)
	codeRelease = lazyre.New(`\b(release[sd]?|make [a-z ]*available|made [a-z ]*available|publish(ed)?|open[- ]source[sd]?|(is|are) (publicly |freely )?available)\b`)
	// a comparison in words, as an abstract sums up a gain it does not number
	qualitativeGain = lazyre.New(`\b(significantly|substantially|considerably|consistently|markedly|clearly) (better|outperform|improv|higher|lower|faster|superior)|\b(better|faster) than\b|\bcomparable (with|to)\b|` +
		`\b(outperform|surpass|exceed)\w*\b.{0,80}\b(state[- ]of[- ]the[- ]art|baselines?|existing|previous|prior|competing|other|all)\b`)
	// an artefact said to be released, in the passive voice ("a dataset
	// called CMLR is collected and released")
	releasedPassive = lazyre.New(`\b(is|are|will be) ([a-z]+ and )?(publicly |freely )?(released|made (publicly |freely )?available|open[- ]sourced)\b`)
	// software published as a package of a language's archive
	softwarePackage = lazyre.New(`\b(r|python|julia|matlab|stata|perl) (package|library|toolbox|module)\b`)
	// a release the sentence credits to others ("the dataset released by
	// Neelakantan et al. [23]")
	othersRelease = lazyre.New(`\b(released|published|provided|made available|collected|introduced|created) (by|in)\b`)
	availableAt   = lazyre.New(`\bavailable (at|from|on)\s+(https?://|www\.|\[\d+\]|\S+\.(com|org|io|net|edu)\b)|\bavailable (in|from) (the )?([a-z0-9.-]+ )?(package|library|toolbox)\b`)
	artefact      = lazyre.New(`\b(code|software|implementation|source|repository|models?|data(sets?)?|judgments|annotations|templates|weights|packages?|toolkit|toolbox|library|platform)\b`)
	// the paper's own system, named as its limitations are
	ownSystem = lazyre.New(`\b(the|this) (implementation|system|approach|method|model|framework|technique)\b`)
	// a sentence about the paper's own work
	self   = lazyre.New(`\b(we|our|us)\b|\b(this|the present) (paper|letter|work|article|survey|review|study)\b|\bthe proposed\b`)
	survey = lazyre.New(`\b(this|the present) (survey|review)\b|\b(survey|review) (paper|article)\b|\bprovides? an? (comprehensive |systematic |brief )?(survey|review)\b|\b(this|the present) (paper|article|work|report) (gives|provides|presents|offers) an? ([a-z-]+ ){0,3}(survey|review|overview)\b`)
	// a sentence that says where the paper says what ("The rest of the
	// paper is organized as follows", "Section 2 describes ..."): it
	// answers nothing itself
	roadmap     = lazyre.New(`\b(rest|remainder) of (this|the) (paper|article|letter|work|report)\b|\b(organi[sz]ed|structured) as follows\b|\bin sections? (\d|secref)|\(sections? (\d|secref)|^sections? (\d|secref)\S* (describes?|presents?|discusses|introduces?|provides?|concludes?|reviews?|gives?)\b`)
	proposes    = lazyre.New(`\bwe (propose|present|introduce|develop|design|describe|reformulate)\b`)
	futurePlan  = lazyre.New(`\bin (the )?future\b|\bfuture (work|research|directions?)\b|\bwe (plan|intend|hope) to\b`)
	surveyTitle = lazyre.New(`(?i)\b(survey|review|overview)\b`)
	// the sections that hold no answer of the paper's own
	otherSection = lazyre.New(`(?i)\b(references?|bibliography|acknowledge?ments?|related work|background|author contributions?)\b`)
	dataSection  = lazyre.New(`(?i)\b(data ?sets?|data|benchmarks?|experiments?|experimental|evaluation|setup|settings?)\b`)
	limitSection = lazyre.New(`(?i)\b(limitations?|future (work|directions?|research|perspectives?)|outlook|open (problems|issues|questions|challenges)|(remaining|key|major) challenges|challenges and (opportunities|future)|threats to validity|failure (cases|analysis)|error analysis|lessons)\b`)
	// the sections that hold no limitation of the paper's own (its background may)
	otherWork    = lazyre.New(`(?i)\b(references?|bibliography|acknowledge?ments?|related work|author contributions?)\b`)
	introSection = lazyre.New(`(?i)\b(introduction|abstract)\b`)
	endSection   = lazyre.New(`(?i)\b(conclusions?|concluding|discussion|summary|challenges)\b`)
)

// minCues is the least score a sentence of a kind that needs evidence must
// have to be the answer: below it the paper does not state it.
var minCues = map[intent]float64{gainIntent: 2.5, dataIntent: 1, limitIntent: 1, codeIntent: 1}

// candidate is one sentence of the paper with where it is.
type candidate struct {
	text  string
	chunk store.Chunk
	score float64
	prev  string // the sentence before it in its paragraph, "" for a paragraph's first
}

// backReference is a sentence that leans on the one before it ("We plan to
// investigate this approach further", "This assumption is made ..."):
// quoted alone it says nothing.
var backReference = lazyre.New(`^(\S+ ){0,6}?(this|these|such|that) (approach|method|idea|issue|problem|limitation|effect|assumption|direction|behaviou?r|technique|phenomenon)\b|^(this|these|it|they) `)

// quote is what a cell quotes of candidate c: the sentence, with the one
// before it when it refers back to it.
func (c candidate) quote() string {
	if c.prev != "" && backReference.MatchString(strings.ToLower(c.text)) && textseg.WordCount(c.prev)+textseg.WordCount(c.text) <= 80 {
		return c.prev + " " + c.text
	}
	return c.text
}

// withoutHeading is quote q without the heading of its section where it
// starts with it: a heading on a line of its own is read as the start of
// the first sentence after it ("1 Introduction Academic paper search lies
// ...", a corpus's "Experiments ::: CSAT CSAT dataset consists ..."). The
// heading still counts toward the sentence's cues; the quote is what a
// reader reads, and stays verbatim in the paper.
func withoutHeading(q, heading string) string {
	if heading != "" && strings.HasPrefix(q, heading+" ") && textseg.WordCount(q) > textseg.WordCount(heading)+3 {
		return q[len(heading)+1:]
	}
	return q
}

// generic answers a generic question of kind k from the paper's
// sentences. Whether the paper states it at all is the cue rules' call
// (for the kinds that need evidence, a sentence with minCues of its
// kind's cues), and so are the sentences that may state it; which of
// them does is the cell model's call for the kinds it was fit for (see
// CellModel), the rules' for the others, where the answer ranker has a
// say for the kinds of rankedKinds (see rankedPick). ok is false when no
// sentence states it or the paper has no text to choose from.
func (t *paperText) generic(k intent) (Cell, bool) {
	cands, isSurvey := t.candidates(k)
	if k == gainIntent && isSurvey {
		return Cell{}, false // a survey compares nothing of its own against a baseline
	}
	var order []int
	m := embeddedCellModel()
	if km, ok := m.kindModel(k); ok {
		pc := newPaperCues(t.paper)
		pc.survey = isSurvey
		order = modelOrder(k, km, m.Buckets, cands, pc)
	} else {
		// the best sentences the paper's text can be quoted for, earliest of equals
		order = make([]int, len(cands))
		for i := range order {
			order[i] = i
		}
		slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(cands[b].score, cands[a].score) })
		if rk, ok := rankedKinds[k]; ok {
			if i, ok := t.rankedPick(k, rk.query, rk.w, cands); ok {
				order = append([]int{i}, order...)
			}
		}
	}
	order = slices.DeleteFunc(order, func(i int) bool { return cands[i].score <= 0 || cands[i].score < minCues[k] })
	for _, i := range order {
		b := cands[i]
		q := b.quote()
		if listKinds[k] && q == b.text && i+1 < len(cands) {
			// a list goes on in the next sentence when it scores as well
			if n := cands[i+1]; n.prev == b.text && n.score >= max(minCues[k], b.score/2) && textseg.WordCount(b.text)+textseg.WordCount(n.text) <= 80 {
				q = b.text + " " + n.text
			}
		}
		q = withoutHeading(q, b.chunk.Section)
		loc, ok := t.locate(q)
		if one := withoutHeading(b.text, b.chunk.Section); !ok && q != one {
			q = one
			loc, ok = t.locate(q)
		}
		if ok {
			return Cell{Stated: true, Answer: shorten(q, maxAnswerWords), Quote: q, Page: loc.page, Section: sectionOf(loc.chunk), Score: b.score}, true
		}
	}
	return Cell{}, false
}

// rankedKinds are the kinds whose quoted sentence the answer ranker
// (ask/rank, fit on QASPER train) helps choose where the cell model has
// no say (see rankedPick): the ranker is asked query, and its paragraph
// log-probability weighs w against the cue score. Query and w were
// chosen on QASPER train's 108 questions asking for an improvement
// (found by their wording), for the share of the annotators' answer spans
// the quote holds; go run ./bench/review/kinds -train.
var rankedKinds = map[intent]struct {
	query string
	w     float64
}{
	gainIntent: {"By how much do they outperform the baselines?", 0.75},
}

// listKinds are the kinds whose answer is a list, which a cell may quote
// two sentences of.
var listKinds = map[intent]bool{dataIntent: true, limitIntent: true}

// tail is a sentence's last words, which find the ranker's paragraph of
// it: the sentence's start may be a heading the ranker keeps apart.
func tail(s string) string {
	f := strings.Fields(s)
	return strings.Join(f[max(0, len(f)-8):], " ")
}

// rankedPick is the candidate a cell of kind k quotes by the ranker: of
// the sentences the rules would answer with (minCues), the one with the
// best sum of its cue score and w times the ranker's log-probability for
// question q of its paragraph.
func (t *paperText) rankedPick(k intent, q string, w float64, cands []candidate) (int, bool) {
	paras := t.paragraphs()
	if len(paras) == 0 {
		return 0, false
	}
	ch := rank.Default().Choose(rank.ParseQuestion(q), paras)
	logp := make([]float64, len(paras))
	for _, r := range ch.Ranked {
		logp[r.Index] = math.Log(max(r.Prob, 1e-12))
	}
	best, bestScore := -1, 0.0
	for i, c := range cands {
		if c.score <= 0 || c.score < minCues[k] {
			continue
		}
		// its paragraph: one starting in its chunk or the one before
		for j, p := range paras {
			if p.Seq >= c.chunk.Seq-1 && p.Seq <= c.chunk.Seq && strings.Contains(p.Text, tail(c.text)) {
				if v := c.score + w*logp[j]; best < 0 || v > bestScore {
					best, bestScore = i, v
				}
				break
			}
		}
	}
	return best, best >= 0
}

// candidates are the paper's prose sentences, in order, each scored for
// kind k; isSurvey says the paper calls itself a survey.
func (t *paperText) candidates(k intent) (cands []candidate, isSurvey bool) {
	pc := newPaperCues(t.paper)
	pc.survey = t.isSurvey()
	for _, c := range t.chunks {
		if c.Role != "" && c.Role != role.Body && !(k == codeIntent && c.Role == role.Footnote) {
			continue
		}
		for _, para := range textseg.Paragraphs(c.Text) {
			prev := ""
			for _, s := range textseg.Sentences(para) {
				s = strings.Join(strings.Fields(s), " ")
				if !proseSentence(s) {
					prev = ""
					continue
				}
				cands = append(cands, candidate{text: s, chunk: c, score: score(k, s, c, pc), prev: prev})
				prev = s
			}
		}
	}
	return cands, pc.survey
}

// isSurvey says the paper calls itself a survey, in its title or a
// sentence of its first chunk or first two pages.
func (t *paperText) isSurvey() bool {
	t.surveyOnce.Do(func() { t.survey = t.callsItselfSurvey() })
	return t.survey
}

func (t *paperText) callsItselfSurvey() bool {
	if surveyTitle.MatchString(t.paper.Title) {
		return true
	}
	for _, c := range t.chunks {
		if c.Seq != 0 && !upTo(c, 2) || c.Role != "" && c.Role != role.Body {
			continue
		}
		for _, para := range textseg.Paragraphs(c.Text) {
			for _, s := range textseg.Sentences(para) {
				if survey.MatchString(strings.ToLower(strings.Join(strings.Fields(s), " "))) {
					return true
				}
			}
		}
	}
	return false
}

// GenericCell is the cell the offline answerer makes for a generic
// question about a paper (its record and chunks), for benchmarks that
// measure it on other data (bench/review/kinds); ok is false when the
// question is not generic or the paper does not state it.
func GenericCell(p store.Paper, chunks []store.Chunk, question string) (Cell, bool) {
	k := intentOf(question)
	if k == noIntent {
		return Cell{}, false
	}
	return newPaperText(p, chunks).generic(k)
}

// Cued is one sentence of a paper with its score as the answer to a
// generic question (see GenericCues).
type Cued struct {
	Text  string
	Score float64
}

// GenericCues scores every prose sentence of a paper (its record and
// chunks) as the offline answerer's cue rules do for question's kind, for
// benchmarks that measure the rules on other data (bench/review/kinds).
// ok is false when the question is not a generic one; min is the least
// score the rules answer with.
func GenericCues(p store.Paper, chunks []store.Chunk, question string) (out []Cued, min float64, ok bool) {
	k := intentOf(question)
	if k == noIntent {
		return nil, 0, false
	}
	cands, _ := newPaperText(p, chunks).candidates(k)
	out = make([]Cued, len(cands))
	for i, c := range cands {
		out[i] = Cued{Text: c.text, Score: c.score}
	}
	return out, minCues[k], true
}

// score is how well sentence orig of chunk c answers a question of kind
// k: its distinct cues, plus where it stands.
func score(k intent, orig string, c store.Chunk, p paperCues) float64 {
	if c.Seq != 0 && (k == limitIntent && otherWork.MatchString(c.Section) || k != limitIntent && otherSection.MatchString(c.Section)) {
		return 0
	}
	s := strings.ToLower(orig)
	if roadmap.MatchString(s) {
		return 0
	}
	n := 0.0
	if k == limitIntent && c.Seq != 0 && limitSection.MatchString(c.Section) {
		n++ // a section of limitations states them, whatever its words
	}
	for _, re := range sentenceCues[k] {
		if re.MatchString(s) {
			n++
		}
	}
	if k == problemIntent {
		for _, re := range contextCues {
			if re.MatchString(s) {
				n += 0.5
			}
		}
	}
	if k == limitIntent {
		for _, re := range weakLimitCues {
			if re.MatchString(s) {
				n += 0.5
			}
		}
	}
	if n == 0 {
		return 0
	}
	early := c.Seq == 0 || upTo(c, 1) || introSection.MatchString(c.Section)
	late := endSection.MatchString(c.Section)
	switch k {
	case problemIntent, methodIntent:
		if k == methodIntent && !self.MatchString(s) && !p.named(orig) {
			return 0 // a method others proposed
		}
		if k == problemIntent && proposes.MatchString(s) {
			n -= 1 // what the paper proposes is the method's cell; the problem is what it answers
		}
		if k == problemIntent && futurePlan.MatchString(s) {
			return 0 // what the authors mean to do next is no problem they address
		}
		n = min(n, 2) // where it stands counts more than a third cue
		if i, ok := p.gap[orig]; ok && k == problemIntent {
			n += 1 + 0.25*float64(min(i, 2)) // the abstract states the problem before what the paper does about it, last the gap it fills
		}
		if p.isTitle(orig) {
			return 0 // the title line, with the authors after it
		}
		n += 0.5 * float64(min(4, p.onTopic(orig))) // the paper's problem and method are what its title names
		if c.Seq == 0 || upTo(c, 1) {
			n += 2
		} else if early {
			n += 1
		} else if upTo(c, 2) || late {
			n += 0.5
		}
	case gainIntent:
		switch {
		case resultNumber.MatchString(notResult.ReplaceAllString(s, " ")):
			n++
			if early || late {
				n += 1
			}
		case c.Seq == 0 && qualitativeGain.MatchString(s):
			n += 2 // the abstract's comparison, in words ("significantly better at low rates")
		case qualitativeGain.MatchString(s):
			// a comparison in words elsewhere ("performed better than the
			// equivalent in R", "significantly outperforms both baselines"):
			// half a cue more than its words
			n += 0.5
		default:
			return 0
		}
	case dataIntent:
		// which sentence names the datasets is the cell model's call; the
		// rules say only which sentences may
		if n == 1 && sentenceCues[dataIntent][6].MatchString(s) && !sentenceCues[dataIntent][7].MatchString(s) {
			return 0 // "evaluated on" names no dataset
		}
		if n == 1 && !dataSection.MatchString(c.Section) && datasetNames(orig, p.name) == 0 {
			return 0 // one word such as "datasets", no name, outside the experiments: not what the paper ran on
		}
	case limitIntent:
		switch {
		case limitSection.MatchString(c.Section):
			n += 2
		case late:
			n += 1 // a discussion's or conclusion's limits are the paper's, whoever the sentence names
		case !p.survey && !self.MatchString(s) && !ownSystem.MatchString(s) && !p.named(orig):
			return 0 // the limits of others' work (a survey's are its field's)
		}
	case codeIntent:
		own := self.MatchString(s) && !othersRelease.MatchString(s)
		switch {
		case codeLink.MatchString(s) && (own || !p.survey): // a survey links others' code
		case archiveLink.MatchString(s) && (own || p.named(orig) || codeRelease.MatchString(s) && artefact.MatchString(s)):
		case codeRelease.MatchString(s) && artefact.MatchString(s) && (own || availableAt.MatchString(s)):
		case availableAt.MatchString(s) && own: // "our platform is available at https://..."
		case releasedPassive.MatchString(s) && artefact.MatchString(s) && (c.Seq == 0 || own):
		case (c.Seq == 0 || upTo(c, 1)) && softwarePackage.MatchString(s) && !othersRelease.MatchString(s):
			// a paper that opens on "the R package clue provides ..." is
			// the package's, and the package is out
		default:
			return 0
		}
		n++
	}
	return n
}

// nameLike is a word written as datasets' and benchmarks' names are, with
// a capital or digit inside (ImageNet, CelebA, TID2008, SST-2, MNLI);
// namedData one beside a word that says it is one ("the LIVE database",
// "the Kodak dataset").
var (
	nameLike  = lazyre.New(`\b[A-Z][a-z]*[A-Z0-9][A-Za-z0-9]*(-[A-Za-z0-9]+)*\b`)
	namedData = lazyre.New(`\b[A-Z][A-Za-z0-9-]*\s(data ?sets?|databases?|benchmarks?|corpus|corpora|suite|collection)\b`)
	// notData are capitalised words that name measures, formats and
	// machinery rather than data
	notData = map[string]bool{"PSNR": true, "SSIM": true, "MS-SSIM": true, "FID": true, "BLEU": true, "ROUGE": true, "LPIPS": true, "NLL": true,
		"MSE": true, "RMSE": true, "MAE": true, "AUC": true, "ROC": true, "F1": true, "JPEG": true, "JPEG2000": true, "PDF": true, "HTML": true,
		"GPU": true, "GPUs": true, "CPU": true, "CPUs": true, "TPU": true, "API": true, "APIs": true, "RAM": true, "GB": true, "MB": true, "TB": true,
		"AI": true, "ML": true, "NLP": true, "LLM": true, "LLMs": true, "CNN": true, "CNNs": true, "RNN": true, "LSTM": true, "GAN": true, "GANs": true,
		"VAE": true, "MLP": true, "SOTA": true, "URL": true, "URLs": true, "RL": true, "IEEE": true, "ACM": true}
)

// refPlaceholder is how QASPER's text writes a reference to a work, a
// section, a table or a figure (BIBREF12, SECREF3): a mark, not a name.
var refPlaceholder = lazyre.New(`^(BIB|SEC|TAB|FIG|EQ)REF\d+$`)

// datasetNames counts the distinct names in sentence s that are written as
// datasets' are (nameLike, or a capitalised word beside "dataset",
// "database", "benchmark", ...), leaving out measures and the paper's own
// name.
func datasetNames(s, own string) int {
	seen := map[string]bool{}
	for _, w := range nameLike.FindAllString(s, -1) {
		if !notData[w] && w != own && !refPlaceholder.MatchString(w) {
			seen[w] = true
		}
	}
	for _, m := range namedData.FindAllString(s, -1) {
		w := strings.Fields(m)[0]
		if !notData[w] && w != own {
			seen[w] = true
		}
	}
	return len(seen)
}

// proseSentence keeps the sentences an answer can be: of 6 to 80 words,
// starting as a sentence does, mostly letters (not a table row or an
// equation).
func proseSentence(s string) bool {
	n := textseg.WordCount(s)
	if n < 6 || n > 80 {
		return false
	}
	r := []rune(s)
	if !(r[0] >= 'A' && r[0] <= 'Z' || r[0] >= '0' && r[0] <= '9' || r[0] == '(' || r[0] == '"' || r[0] == '“') {
		return false
	}
	letters := 0
	for _, c := range r {
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == ' ' {
			letters++
		}
	}
	return letters*10 >= len(r)*7
}

// upTo says chunk c starts on one of the paper's first n pages; a paper
// with no pages (a corpus record) has none, and its place is its section.
func upTo(c store.Chunk, n int) bool { return c.PageStart >= 1 && c.PageStart <= n }

// paperCues are what a paper says of itself that tells its own sentences
// from others': the name it goes by and the words of its title.
type paperCues struct {
	name      string
	title     map[string]bool // stems of the title's words
	titleText string          // the title, squashed (see isTitle)
	gap       map[string]int  // the abstract's sentences before it says what the paper does, by their place
	survey    bool            // the paper calls itself a survey, a review or an overview
}

// newPaperCues reads p's cues from its record and the sentences of its
// abstract.
func newPaperCues(p store.Paper) paperCues {
	pc := paperCues{name: ask.ShortName(&p), title: titleStems(p.Title), titleText: squash(p.Title), gap: map[string]int{}}
	for _, para := range textseg.Paragraphs(p.Abstract) {
		for _, s := range textseg.Sentences(para) {
			s = strings.Join(strings.Fields(s), " ")
			if self.MatchString(strings.ToLower(s)) {
				return pc
			}
			pc.gap[s] = len(pc.gap)
		}
	}
	return pc
}

// named says sentence s names the paper by the name it goes by.
func (p paperCues) named(s string) bool { return p.name != "" && strings.Contains(s, p.name) }

// isTitle says sentence s holds the paper's title (the title line of a
// PDF's first page, run into its authors).
func (p paperCues) isTitle(s string) bool {
	return len(p.titleText) >= 12 && strings.Contains(squash(s), p.titleText)
}

// squash is s lower-cased with only its letters and digits.
func squash(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			return unicode.ToLower(r)
		}
		return -1
	}, s)
}

// titleStopwords are title words that say nothing of its subject.
var titleStopwords = map[string]bool{"with": true, "from": true, "using": true, "based": true, "toward": true, "towards": true, "under": true,
	"into": true, "over": true, "their": true, "this": true, "that": true, "what": true, "when": true, "does": true, "through": true,
	"via": true, "and": true, "for": true, "the": true, "its": true, "new": true, "all": true, "you": true, "need": true}

func titleStems(title string) map[string]bool {
	out := map[string]bool{}
	for _, w := range textkit.Words(title) {
		if lw := strings.ToLower(w); len(lw) >= 3 && !titleStopwords[lw] {
			out[textkit.Stem(lw)] = true
		}
	}
	return out
}

// onTopic is how many distinct words of the paper's title sentence s has.
func (p paperCues) onTopic(s string) int {
	seen := map[string]bool{}
	for _, w := range textkit.Words(s) {
		if st := textkit.Stem(strings.ToLower(w)); p.title[st] {
			seen[st] = true
		}
	}
	return len(seen)
}
