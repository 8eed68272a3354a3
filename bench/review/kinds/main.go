// Command kinds measures, on QASPER, how well the offline review answerer
// answers the six generic columns of a literature review
// (bench/review/grid). QASPER's questions of each kind, found by their
// wording (review/qasperkind: "Which datasets do they use?", "By how much
// do they outperform ...?"), are asked of their papers as the generic column's question. For
// each kind it reports, over the questions whose gold evidence the text
// holds, how often the paragraph picked is one an annotator marked as
// evidence, by:
//   - rules: review's cue rules alone (GenericCues: the best sentence; for
//     the kinds the cell model chooses, the rules only say which
//     sentences may answer, and their best is a weak baseline);
//   - rank col / rank own: the answer ranker ask/rank asked the column's
//     question / QASPER's own question;
//   - chosen: of the sentences the rules accept, the best cue score plus w
//     times the ranker's log-probability of its paragraph, the ranker
//     asked one of the kind's queries; query and w are chosen on train
//     with -train (for the share of answer spans the sentence holds, then
//     evidence), else the column's question and w = 0;
//   - review: the cell review makes (GenericCell), as shipped (the cell
//     model's choice for the datasets and the limitations);
//
// then how often review answers at all, and the share of an annotator's
// extractive answer spans held by the rules' sentence, the chosen one,
// and review's quote (its first sentence / all of it: a list cell may
// quote two).
//
//	go run ./bench/review/kinds [-data ../shared/data] [-split dev] [-train]
package main

import (
	"flag"
	"fmt"
	"log"
	"math"
	"os"
	"path/filepath"
	"strings"

	"github.com/papers-cli/papers/ask/rank"
	"github.com/papers-cli/papers/eval"
	"github.com/papers-cli/papers/ingest"
	"github.com/papers-cli/papers/ingest/chunk"
	"github.com/papers-cli/papers/review"
	"github.com/papers-cli/papers/review/qasperkind"
	"github.com/papers-cli/papers/store"
	"github.com/papers-cli/papers/textseg"
)

// kind is one generic column, by its name in review.KindNames (whose
// QASPER questions qasperkind finds by their wording) and its question.
type kind struct {
	name, column string
	// queries are what the ranker may be asked instead of the column's
	// question, in QASPER's wording (the first is the column's own).
	queries []string
}

var kinds = []kind{
	{"datasets", "Which datasets or benchmarks are used?",
		[]string{"Which datasets or benchmarks are used?", "What datasets do they use?", "Which datasets are used in experiments?", "On which datasets do they evaluate?"}},
	{"better", "How much better is it?",
		[]string{"How much better is it?", "By how much do they outperform the baselines?", "How much does the proposed model improve over the state of the art?", "What is the improvement over the baseline?"}},
	{"method", "What method does it propose?",
		[]string{"What method does it propose?", "What is their proposed method?"}},
	{"problem", "What problem does it address?",
		[]string{"What problem does it address?", "What problem do they address?"}},
	{"limitations", "What are the limitations?",
		[]string{"What are the limitations?", "What are the limitations of their approach?"}},
	{"code", "Is code or data released?",
		[]string{"Is code or data released?", "Is their code publicly available?"}},
}

// minFit is the fewest train questions of a kind its choice is fit on.
const minFit = 20

type question struct {
	q     string
	paper string
	gold  map[int]bool // paragraphs an annotator cites
	spans [][]string   // each extractive answer's spans
	kind  int
}

type paper struct {
	p      store.Paper
	chunks []store.Chunk
	paras  []rank.Paragraph
}

func main() {
	data := flag.String("data", "../shared/data", "the shared data")
	split := flag.String("split", "dev", "the QASPER split to report")
	fit := flag.Bool("train", false, "choose each kind's ranker query and cue weight W on train (slower: reads train too)")
	flag.Parse()
	log.SetFlags(0)
	chosen := make([]choice, len(kinds))
	if *fit {
		qs, papers := read(filepath.Join(*data, "qasper", "train"))
		chosen = choose(qs, scoreAll(qs, papers))
	}
	qs, papers := read(filepath.Join(*data, "qasper", *split))
	report(*split, qs, papers, scoreAll(qs, papers), chosen)
}

// choice is a kind's ranker query (an index into its queries) and cue
// weight.
type choice struct {
	query int
	w     float64
}

// read reads a split's questions of the generic kinds whose evidence its
// papers' text holds, with those papers.
func read(dir string) ([]question, map[string]*paper) {
	corpus, all, err := eval.ReadQASPER(dir)
	if err != nil {
		log.Fatal(err)
	}
	want := map[string]bool{}
	type pending struct {
		q eval.QASPERQuestion
		k int
	}
	var ps []pending
	for _, q := range all {
		for i, k := range kinds {
			if qasperkind.Of(q.Q) == k.name {
				ps = append(ps, pending{q, i})
				want[q.Paper] = true
				break
			}
		}
	}
	papers := map[string]*paper{}
	err = ingest.CorpusRecords(corpus, chunk.Defaults, func(id string) bool { return want[id] }, func(p store.Paper, chunks []store.Chunk) error {
		papers[p.ID] = &paper{p: p, chunks: chunks, paras: rank.Paragraphs(chunks)}
		return nil
	})
	if err != nil {
		log.Fatal(err)
	}
	var out []question
	for _, pq := range ps {
		pp := papers[pq.q.Paper]
		if pp == nil {
			continue
		}
		gold := map[int]bool{}
		var spans [][]string
		for _, a := range pq.q.Answers {
			if a.Type == "extractive" && len(a.Spans) > 0 {
				spans = append(spans, a.Spans)
			}
			for _, e := range a.Evidence {
				e = strings.Join(strings.Fields(e), " ")
				for i, para := range pp.paras {
					if para.Text == e {
						gold[i] = true
					}
				}
			}
		}
		if len(gold) > 0 {
			out = append(out, question{q: pq.q.Q, paper: pq.q.Paper, gold: gold, spans: spans, kind: pq.k})
		}
	}
	return out, papers
}

// scored is what each way picks for one question.
type scored struct {
	rules   int         // the paragraph the cue rules quote, -1 for none
	shipped int         // the paragraph review's cell quotes, -1 for none
	rankQ   int         // the ranker's pick asked QASPER's question
	rankG   []int       // the ranker's pick asked each of the kind's queries
	logp    [][]float64 // the ranker's paragraph log-probabilities, by query
	cue     []float64   // each paragraph's best cue score
	// the share of an annotator's answer spans (the best annotator) that
	// review's quote holds, and that its first sentence holds
	recall, recall1 float64
	recallRules     float64 // that the rules' sentence holds
	sents           []sent  // the sentences with cues
	stated          bool    // review answers (does not say "not stated")
}

// sent is a sentence with cues: its paragraph, cue score and span recall.
type sent struct {
	para        int
	cue, recall float64
}

func score(q question, p *paper) scored {
	m := rank.Default()
	k := kinds[q.kind]
	s := scored{rules: -1, shipped: -1}
	cues, minScore, _ := review.GenericCues(p.p, p.chunks, k.column)
	s.cue = make([]float64, len(p.paras))
	best := -1
	for i, c := range cues {
		if c.Score > 0 && c.Score >= minScore && (best < 0 || c.Score > cues[best].Score) {
			best = i
		}
	}
	cell, stated := review.GenericCell(p.p, p.chunks, k.column)
	s.stated = stated
	for i, c := range cues {
		if c.Score > 0 && c.Score >= minScore {
			st := sent{para: -1, cue: c.Score, recall: spanRecall(q.spans, c.Text)}
			for pi, para := range p.paras {
				if strings.Contains(para.Text, tail(c.Text)) {
					st.para = pi
					break
				}
			}
			s.sents = append(s.sents, st)
			if i == best {
				s.rules = st.para
			}
		}
	}
	for pi, para := range p.paras {
		for _, c := range cues {
			if strings.Contains(para.Text, tail(c.Text)) {
				s.cue[pi] = max(s.cue[pi], c.Score)
			}
		}
		if stated && s.shipped < 0 && strings.Contains(para.Text, tail(firstSentence(cell.Quote))) {
			s.shipped = pi
		}
	}
	if best >= 0 {
		s.recallRules = spanRecall(q.spans, cues[best].Text)
	}
	if stated {
		s.recall, s.recall1 = spanRecall(q.spans, cell.Quote), spanRecall(q.spans, firstSentence(cell.Quote))
	}
	for _, query := range k.queries {
		c := m.Choose(rank.ParseQuestion(query), p.paras)
		s.rankG = append(s.rankG, c.Para)
		lp := make([]float64, len(p.paras))
		for _, r := range c.Ranked {
			lp[r.Index] = math.Log(max(r.Prob, 1e-12))
		}
		s.logp = append(s.logp, lp)
	}
	s.rankQ = m.Choose(rank.ParseQuestion(q.q), p.paras).Para
	return s
}

// firstSentence is a quote's first sentence (a list cell may quote two).
func firstSentence(q string) string {
	if ss := textseg.Sentences(q); len(ss) > 0 {
		return strings.Join(strings.Fields(ss[0]), " ")
	}
	return q
}

// spanRecall is the most of one annotator's spans that text holds (case
// and space aside), as a share.
func spanRecall(answers [][]string, text string) float64 {
	best := 0.0
	for _, spans := range answers {
		best = max(best, 1-float64(len(eval.Missing(text, spans)))/float64(len(spans)))
	}
	return best
}

// combined is the sentence the sum picks (its paragraph, its span
// recall): the best cue score plus w times the ranker's log-probability
// of its paragraph; -1 when no sentence has cues.
func (s scored) combined(c choice) (int, float64) {
	lp := s.logp[c.query]
	best, bs := -1, 0.0
	for i, st := range s.sents {
		if st.para < 0 {
			continue
		}
		if v := st.cue + c.w*lp[st.para]; best < 0 || v > bs {
			best, bs = i, v
		}
	}
	if best < 0 {
		return -1, 0
	}
	return s.sents[best].para, s.sents[best].recall
}

var weights = []float64{0, 0.05, 0.1, 0.2, 0.3, 0.5, 0.75, 1, 1.5, 2, 3, 5}

func scoreAll(qs []question, papers map[string]*paper) []scored {
	out := make([]scored, len(qs))
	for i, q := range qs {
		out[i] = score(q, papers[q.paper])
	}
	return out
}

// choose picks, for each kind with minFit questions, the query and weight
// with the most hits (the first of equals).
func choose(qs []question, ss []scored) []choice {
	out := make([]choice, len(kinds))
	for ki, k := range kinds {
		var mine []int
		for i, q := range qs {
			if q.kind == ki {
				mine = append(mine, i)
			}
		}
		if len(mine) < minFit {
			fmt.Printf("train %-12s %d questions: too few to fit\n", k.name, len(mine))
			continue
		}
		bestRec, bestHits := -1.0, 0
		for qi := range k.queries {
			for _, w := range weights {
				hits, rec := 0, 0.0
				for _, i := range mine {
					pi, r := ss[i].combined(choice{qi, w})
					if pi >= 0 && qs[i].gold[pi] {
						hits++
					}
					rec += r
				}
				fmt.Fprintf(os.Stderr, "train %s query %d w %.2f: span recall %.1f, evidence %d\n", k.name, qi, w, rec, hits)
				// the facts a cell holds first, then its evidence
				if rec > bestRec+1e-9 || math.Abs(rec-bestRec) <= 1e-9 && hits > bestHits {
					bestRec, bestHits, out[ki] = rec, hits, choice{qi, w}
				}
			}
		}
		fmt.Printf("train %-12s %d questions: query %q w %.2f: span recall %.1f, evidence %d\n", k.name, len(mine), k.queries[out[ki].query], out[ki].w, bestRec, bestHits)
	}
	return out
}

func report(split string, qs []question, papers map[string]*paper, ss []scored, chosen []choice) {
	fmt.Printf("QASPER %s: evidence paragraph hit rate by kind (questions whose gold evidence is in the text)\n", split)
	fmt.Printf("%-12s %4s %9s %9s %9s %9s %9s %9s %12s\n", "kind", "n", "rules", "rank col", "rank own", "chosen", "review", "answered", "spans rules/chosen/review 1st/all")
	pct := func(n, d int) string { return fmt.Sprintf("%d %.0f%%", n, 100*float64(n)/float64(max(d, 1))) }
	for ki, k := range kinds {
		var n, r, g, qq, c, sh, ns, ans int
		var rec, rec1, recR, recC float64
		for i, q := range qs {
			if q.kind != ki {
				continue
			}
			n++
			if ss[i].stated {
				ans++
			}
			if len(q.spans) > 0 {
				ns++
				rec += ss[i].recall
				rec1 += ss[i].recall1
				recR += ss[i].recallRules
				_, r := ss[i].combined(chosen[ki])
				recC += r
			}
			for _, x := range []struct {
				pick int
				n    *int
			}{{ss[i].rules, &r}, {ss[i].rankG[0], &g}, {ss[i].rankQ, &qq}, {first(ss[i].combined(chosen[ki])), &c}, {ss[i].shipped, &sh}} {
				if x.pick >= 0 && q.gold[x.pick] {
					*x.n++
				}
			}
		}
		fmt.Printf("%-12s %4d %9s %9s %9s %9s %9s %9s %5.0f%%/%.0f%%/%.0f%%/%.0f%%\n", k.name, n, pct(r, n), pct(g, n), pct(qq, n), pct(c, n), pct(sh, n), pct(ans, n), 100*recR/float64(max(ns, 1)), 100*recC/float64(max(ns, 1)), 100*rec1/float64(max(ns, 1)), 100*rec/float64(max(ns, 1)))
	}
}

func first(i int, _ float64) int { return i }

// tail is a sentence's last words, which find its paragraph: its start may
// be a heading the ranker's paragraphs keep apart.
func tail(s string) string {
	f := strings.Fields(s)
	return strings.Join(f[max(0, len(f)-8):], " ")
}
