package ask

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/papers-cli/papers/ask/rank"
	"github.com/papers-cli/papers/internal/cite"
	"github.com/papers-cli/papers/internal/lazyre"
	"github.com/papers-cli/papers/internal/safetext"
	"github.com/papers-cli/papers/store"
)

// The offline answer: the paragraphs and sentences that answer, the short
// answer and whether to abstain are chosen by package rank's model (fit on
// QASPER); what is here only composes its choices into an answer and
// keeps layout debris out of quotes.

// paperText is a paper as an answer reads it: its chunks and the
// paragraphs read back from them.
type paperText struct {
	paper  store.Paper
	chunks []store.Chunk
	paras  []rank.Paragraph
	model  *rank.Model
	choice rank.Choice
	words  []string        // the paper's words, for mentions
	stems  map[string]bool // the paper's stems, for mentionsStem
	// missing are the question's names the paper never mentions
	missing []string
	// named is set when the question was asked of this paper (by --paper
	// or by naming it)
	named bool
}

// readPaper turns a paper's chunks into paragraphs fit to quote: only
// prose (body text and headings, by the role extraction gave each chunk;
// tables, captions, figures' text, footnotes, reference entries and
// equations are left out), and of it no debris sentence (table rows or
// figure residue in a library chunked before roles, reference entries),
// so these are neither ranked nor quoted.
func readPaper(p store.Paper, chunks []store.Chunk) *paperText {
	pt := &paperText{paper: p, chunks: chunks}
	prose := make([]store.Chunk, 0, len(chunks))
	for _, c := range chunks {
		if c.Role.Prose() {
			prose = append(prose, c)
		}
	}
	for _, para := range rank.Paragraphs(prose) {
		if rank.SectionKind(para.Section) == "references" {
			continue // a reference list cites other papers' titles, not this one's findings
		}
		kept := para.Sentences[:0:0]
		for _, s := range para.Sentences {
			if quotable(s) {
				kept = append(kept, s)
			}
		}
		if len(kept) == 0 {
			continue
		}
		if len(kept) < len(para.Sentences) {
			para.Sentences = kept
			para.Text = strings.Join(kept, " ")
		}
		pt.paras = append(pt.paras, para)
	}
	for i := range pt.paras {
		pt.paras[i].Index, pt.paras[i].Of = i, len(pt.paras)
	}
	return pt
}

// quotable reports a sentence that is prose: not layout debris, a table
// of contents line or a reference entry.
func quotable(s string) bool {
	if len(strings.Fields(s)) < 3 && !strings.HasSuffix(s, ".") {
		return len(strings.Fields(s)) > 0 && debris(s) < 0.5
	}
	return debris(s) < 0.45 && !isTOC(s) && !referenceEntry(s)
}

// referenceEntry reports a line of a reference list: "[12] A. Author, B.
// Author. Title. In Proc. ..., 2020." or "Author, A. (2020). Title."
func referenceEntry(s string) bool {
	if strings.HasPrefix(s, "[") {
		if i := strings.Index(s, "]"); i > 0 && i < 5 {
			rest := s[i+1:]
			return strings.Count(rest, ",") >= 2 && yearRe.MatchString(rest)
		}
	}
	return strings.Count(s, ",") >= 3 && strings.Count(s, ".") >= 3 && yearRe.MatchString(s) && !strings.Contains(s, " we ")
}

// choose ranks the paper's paragraphs for q.
func (pt *paperText) choose(m *rank.Model, q rank.Question) {
	pt.model = m
	pt.choice = m.Choose(q, pt.paras)
	pt.missing = pt.missingNames(q.Text)
	if !q.YesNo() {
		pt.missing = append(pt.missing, pt.missingDetails(q.Text)...)
	}
}

// pin makes quote (one or two consecutive sentences of the paper, as
// GenericQuote gives them) the answer the paper gives: its first
// sentence that the paper's paragraphs hold leads, the next it holds is
// quoted after it. A quote that only a chunk the answer does not read
// holds (a footnote) is read as a paragraph of its own; one that no chunk
// holds changes nothing.
func (pt *paperText) pin(quote string) {
	want := strings.Join(strings.Fields(quote), " ")
	var at []rank.Quote
	// a sentence the paper repeats is quoted once, where it has a page:
	// the record's abstract has none, its first page holds it too
	seen := map[string]int{}
	for i, p := range pt.paras {
		for j, s := range p.Sentences {
			s = strings.Join(strings.Fields(s), " ")
			if len(strings.Fields(s)) < 3 || !strings.Contains(want, s) && !strings.Contains(s, want) {
				continue
			}
			q := rank.Quote{Para: i, Sent: j, Prob: 1, Primary: true}
			if k, ok := seen[s]; ok {
				if pt.paras[at[k].Para].SentencePage(at[k].Sent) == 0 && p.SentencePage(j) > 0 {
					at[k] = q
				}
				continue
			}
			seen[s] = len(at)
			at = append(at, q)
		}
	}
	if len(at) == 0 {
		// a sentence of a chunk the answer does not read as prose (a
		// footnote with the code's address): read as a paragraph of its own
		for _, ch := range pt.chunks {
			if strings.Contains(strings.Join(strings.Fields(ch.Text), " "), want) {
				pt.paras = append(pt.paras, rank.Paragraph{PaperID: pt.paper.ID, Seq: ch.Seq, Page: ch.PageStart, PageEnd: ch.PageStart,
					Section: ch.Section, Text: want, Index: len(pt.paras), Of: len(pt.paras) + 1, Sentences: []string{want}})
				at = append(at, rank.Quote{Para: len(pt.paras) - 1, Sent: 0, Prob: 1, Primary: true})
				break
			}
		}
	}
	if len(at) == 0 {
		return
	}
	c := &pt.choice
	c.Para, c.Sent, c.Short, c.ShortScore = at[0].Para, at[0].Sent, "", 0
	c.Quotes = at[:1]
	c.Second, c.Lexical = rank.Quote{Para: -1}, rank.Quote{Para: -1}
	if len(at) > 1 {
		c.Second = at[1]
	}
	c.YesNo, c.Unanswerable, c.Unstated, c.Coverage = false, 0, 0, 1
	if len(c.Ranked) == 0 {
		c.Ranked = []rank.Ranked{{Index: c.Para, Prob: 1}}
	}
	pt.missing = nil
}

// abstains reports whether the paper does not answer: the model says so,
// or it never mentions a name the question asks about. A yes/no question
// asked of this paper is the model's to answer whatever it mentions ("Do
// they use BERT?" of a paper that never does is answered No); asked of the
// library, a paper that lacks its names or specific words is not the one
// to answer it.
func (pt *paperText) abstains() bool {
	c := pt.choice
	if pt.model.Abstains(c) {
		return true
	}
	if c.YesNo && pt.named {
		return false
	}
	return len(pt.missing) > 0 || c.Coverage < rank.MinCoverage
}

// quote is one sentence an answer quotes.
type quote struct {
	pt      *paperText
	para    int // into pt.paras
	sent    int
	score   float64
	primary bool // its paragraph is one the model holds to answer
}

func (q quote) text() string { return q.pt.paras[q.para].Sentences[q.sent] }

// quotes are the sentences the answer of one paper quotes (the model's
// Reading): the short answer's first.
func (pt *paperText) quotes() []quote {
	var out []quote
	for _, q := range pt.model.Reading(pt.choice) {
		out = append(out, quote{pt: pt, para: q.Para, sent: q.Sent, score: q.Prob, primary: q.Primary})
	}
	return out
}

// composer writes an offline answer: it numbers the sources it cites and
// keeps the Result's citations and evidence.
type composer struct {
	res   *Result
	b     strings.Builder
	chunk map[string]int // chunk id -> citation number
}

// cite returns the citation number of the chunk holding quote q's
// paragraph, adding it to the Result (with q's sentence as what cites it).
func (c *composer) cite(q quote) int {
	para := q.pt.paras[q.para]
	id := store.ChunkID(para.PaperID, para.Seq)
	if n, ok := c.chunk[id]; ok {
		return n
	}
	ch := q.pt.chunkOf(para.Seq)
	page := para.SentencePage(q.sent)
	e := evidence{ChunkID: id, Paper: q.pt.paper, PageStart: page, PageEnd: page, Section: ch.Section, Text: ch.Text, Score: round3(q.score)}
	if ch.PageBreaks == nil && para.PageEnd > para.Page {
		e.PageStart, e.PageEnd = para.Page, para.PageEnd // where on its pages, the chunk does not say
	}
	if para.Seq == 0 {
		e.Section = "abstract"
	}
	n := len(c.res.Citations) + 1
	cit := citationFor(n, &e)
	c.res.Citations = append(c.res.Citations, cit)
	c.chunk[id] = n
	return n
}

func (pt *paperText) chunkOf(seq int) store.Chunk {
	for _, c := range pt.chunks {
		if c.Seq == seq {
			return c
		}
	}
	return store.Chunk{PaperID: pt.paper.ID, Seq: seq}
}

// evidence records q as evidence of the answer and returns it tidied.
func (c *composer) evidence(q quote, n int) string {
	para := q.pt.paras[q.para]
	text := tidySpacing(tidy(q.text(), para.Section))
	section := para.Section
	if para.Seq == 0 {
		section = "abstract"
	}
	c.res.Evidence = append(c.res.Evidence, Evidence{
		N: n, ID: q.pt.paper.ID, Version: q.pt.paper.Version, Page: para.SentencePage(q.sent), Section: section,
		Quote: q.text(), Score: round3(q.score), Primary: q.primary,
	})
	cit := &c.res.Citations[n-1]
	cit.CitedBy = append(cit.CitedBy, text)
	return text
}

// maxShortWords bounds a short answer; a longer span is the sentence's
// business, quoted below it.
const maxShortWords = 60

// answerOne writes the answer of one paper: the short answer cited, then
// the sentences it rests on, each cited.
func (c *composer) answerOne(pt *paperText, qu rank.Question) {
	qs := pt.quotes()
	ch := pt.choice
	if pt.model.Unstated(ch) {
		// a No no sentence states: say so, then quote what comes nearest
		c.res.ShortAnswer = "No"
		fmt.Fprintf(&c.b, "No: %s does not say so.\n", paperName(&pt.paper))
		for _, q := range qs {
			k := c.cite(q)
			fmt.Fprintf(&c.b, "  “%s” [%d]\n", c.evidence(q, k), k)
		}
		return
	}
	n := c.cite(qs[0])
	short := strings.TrimSpace(ch.Short)
	lead := tidySpacing(tidy(qs[0].text(), pt.paras[qs[0].para].Section))
	switch {
	case qu.YesNo() && (short == "Yes" || short == "No"):
	case pt.model.ShortIsSentence(ch, qs[0].text()) || len(strings.Fields(short)) > maxShortWords:
		short = lead // the sentence itself answers best
	default:
		short = tidySpacing(tidy(short, ""))
	}
	c.res.ShortAnswer = short
	fmt.Fprintf(&c.b, "%s [%d]\n", endSentence(short), n)
	for _, q := range qs {
		if q.para == qs[0].para && q.sent == qs[0].sent && short == lead {
			// the short answer is this sentence: cited once, not quoted again
			c.evidence(q, n)
			continue
		}
		k := c.cite(q)
		fmt.Fprintf(&c.b, "  “%s” [%d]\n", c.evidence(q, k), k)
	}
}

// answerTopic writes a topic answer: a line for each paper that answers,
// its own sentence cited; papers whose sentences share their key words
// are grouped.
func (c *composer) answerTopic(pts []*paperText, qu rank.Question) int {
	type line struct {
		pt    *paperText
		q     quote
		terms map[string]bool
	}
	var lines []line
	for _, pt := range pts {
		if pt.abstains() {
			continue
		}
		qs := pt.quotes()
		pick := qs[0]
		if asksApproach.MatchString(qu.Text) {
			// a line says what this paper does: the sentence of its best
			// paragraphs that states its own contribution, when one does
			pick = pt.ownContribution(qs[0])
		}
		terms := map[string]bool{}
		for _, t := range stemsOf(pick.text()) {
			if !slices.Contains(qu.Terms, t) {
				terms[t] = true
			}
		}
		lines = append(lines, line{pt: pt, q: pick, terms: terms})
	}
	if len(lines) == 0 {
		return 0
	}
	// group lines whose sentences share key words, keeping the order of the
	// group's best line
	group := make([]int, len(lines))
	for i := range lines {
		group[i] = i
		for j := 0; j < i; j++ {
			if group[j] == j && jaccard(lines[i].terms, lines[j].terms) >= groupAt {
				group[i] = j
				break
			}
		}
	}
	var order []int
	for g := range lines {
		if group[g] != g {
			continue
		}
		for i := range lines {
			if group[i] == g {
				order = append(order, i)
			}
		}
	}
	fmt.Fprintf(&c.b, "%d papers of the library answer this:\n", len(lines))
	c.res.ShortAnswer = ""
	prev := -1
	for _, i := range order {
		l := lines[i]
		n := c.cite(l.q)
		text := c.evidence(l.q, n)
		mark := "-"
		if group[i] == prev {
			mark = "  -" // same approach as the line above
		}
		prev = group[i]
		fmt.Fprintf(&c.b, "%s %s: “%s” [%d]\n", mark, paperLabel(&l.pt.paper), text, n)
		if c.res.ShortAnswer == "" {
			c.res.ShortAnswer = paperLabel(&l.pt.paper)
		} else {
			c.res.ShortAnswer += "; " + paperLabel(&l.pt.paper)
		}
	}
	return len(lines)
}

// ownContribution is the sentence of the paper's best paragraphs (the
// model's order, then the sentences' order) that says what the paper does
// ("we propose ..."), or fallback when none does.
func (pt *paperText) ownContribution(fallback quote) quote {
	for _, q := range pt.choice.Quotes {
		for si, sent := range pt.paras[q.Para].Sentences {
			if ownWork.MatchString(sent) && quotable(sent) {
				return quote{pt: pt, para: q.Para, sent: si, score: q.Prob, primary: true}
			}
		}
	}
	return fallback
}

var (
	// a topic question about how papers go about something
	asksApproach = lazyre.New(`(?i)\b(?:approach|approaches|method|methods|technique|techniques|how\b|ways?\b|strateg)`)
	// a sentence saying what its paper does
	ownWork = lazyre.New(`(?i)\b(?:we|this (?:paper|work|study)|our (?:method|approach|framework|algorithm|model|system))\s+(?:\w+\s+){0,2}(?:propose|introduce|present|develop|design|train|use|formulate|call|devise|build)s?\b`)
)

// groupAt is the share of key words two papers' sentences hold in common
// above which a topic answer lists them together.
const groupAt = 0.25

// paperLabel names a paper in a topic answer: its short name, else its
// title's head, and its year.
func paperLabel(p *store.Paper) string {
	name := shortName(p)
	if name == "" {
		name = strings.TrimSpace(strings.SplitN(safetext.OneLine(tidy(p.Title, "")), ":", 2)[0])
		if w := strings.Fields(name); len(w) > 8 {
			name = strings.Join(w[:8], " ") + " …"
		}
	}
	if !p.Published.IsZero() {
		name += fmt.Sprintf(" (%d)", p.Published.Year())
	}
	return name
}

// endSentence ends s with a period unless it ends a sentence already.
func endSentence(s string) string {
	s = strings.TrimSpace(s)
	if s == "" || strings.ContainsAny(s[len(s)-1:], ".!?") {
		return s
	}
	return s + "."
}

func round3(x float64) float64 { return float64(int(x*1000+0.5)) / 1000 }

// writeOffline writes the composed answer and its Sources to out.
func (c *composer) write(out io.Writer) error {
	c.res.Answer = strings.TrimRight(c.b.String(), "\n")
	if out == nil {
		return nil
	}
	if _, err := io.WriteString(out, c.res.Answer); err != nil {
		return err
	}
	return writeSources(out, c.res)
}

// pagesOf is the citation's page span of a paragraph.
func pagesOf(p rank.Paragraph) string { return cite.Pages(p.Page, p.PageEnd) }
