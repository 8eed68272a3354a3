// Command kinds measures, on QASPER, how well the offline review answerer
// finds the evidence of the six generic columns of a literature review
// (bench/review/grid): QASPER's questions of each kind, found by their
// wording ("Which datasets do they use?", "By how much do they outperform
// ...?"), are asked of their papers as the generic column's question, and
// a pick is a hit when the paragraph it quotes is one an annotator marked
// as evidence. It compares the cue rules of review (GenericCues), the
// answer ranker ask/rank asked the generic question or QASPER's own, and
// their sum (the ranker's paragraph log-probability plus W times the
// paragraph's best cue score), W chosen on train when -train is given.
//
//	go run ./bench/review/kinds [-data ../shared/data] [-split dev] [-train]
package main

import (
	"bufio"
	"flag"
	"fmt"
	"log"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/papers-cli/papers/ask/rank"
	"github.com/papers-cli/papers/eval"
	"github.com/papers-cli/papers/ingest"
	"github.com/papers-cli/papers/ingest/chunk"
	"github.com/papers-cli/papers/review"
	"github.com/papers-cli/papers/store"
)

// kind is one generic column with the wording of QASPER's questions that
// ask the same of a paper.
type kind struct {
	name, column string
	wording      *regexp.Regexp
}

var kinds = []kind{
	{"datasets", "Which datasets or benchmarks are used?", regexp.MustCompile(`^(what|which|on what|on which|in what|in which)\b[^?]*\b(datasets?|data sets?|benchmarks?|corpus|corpora)\b[^?]*\b(use[sd]?|evaluat\w*|experiment\w*|test\w*|train\w*|appl\w*|consider\w*)\b|^(what|which) (datasets?|benchmarks?|corpora)\b`)},
	{"better", "How much better is it?", regexp.MustCompile(`\bby how much\b|\bhow (much|well)\b[^?]*\b(better|improve\w*|outperform\w*|gain)|\bhow (much|big|large) (is the |of an? )?(improvement|gain)|\bwhat (is|was|are) the (improvement|gain)`)},
	{"method", "What method does it propose?", regexp.MustCompile(`\b(what|which) (is|was|are) (the|their) (proposed |new |novel )?(method|approach|technique|model|framework)s?\b|\bwhat (method|approach|technique|model)s? (do|does|did) (they|the authors?|the paper) propose`)},
	{"problem", "What problem does it address?", regexp.MustCompile(`\b(what|which) (problems?|tasks?|challenges?) (do|does|did) (they|the authors?|the paper|this paper|it) (address|tackle|solve|focus)|\bmotivation\b`)},
	{"limitations", "What are the limitations?", regexp.MustCompile(`\b(limitations?|weakness(es)?|drawbacks?|shortcomings?)\b`)},
	{"code", "Is code or data released?", regexp.MustCompile(`\b(is|are) (the |their )?(code|source code|dataset|data|corpus|annotations?|implementation)\b[^?]*\b(available|released?|public)|\b(do|did) (they|the authors?) (release|publish|make)\b`)},
}

type question struct {
	q     string
	paper string
	gold  map[int]bool // paragraphs an annotator cites
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
	fitW := flag.Bool("train", false, "choose W on train (slow: reads train too)")
	flag.Parse()
	log.SetFlags(0)
	w := 0.5
	if *fitW {
		qs, papers := read(filepath.Join(*data, "qasper", "train"))
		w = chooseW(qs, papers)
		fmt.Printf("W chosen on train: %.2f\n", w)
	}
	qs, papers := read(filepath.Join(*data, "qasper", *split))
	report(*split, qs, papers, w)
}

// read reads a split's questions of the generic kinds whose evidence its
// papers' text holds, with those papers.
func read(dir string) ([]question, map[string]*paper) {
	corpus, qpath, err := eval.QASPERFiles(dir)
	if err != nil {
		log.Fatal(err)
	}
	all, err := eval.ReadQASPERQuestions(qpath)
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
			if k.wording.MatchString(strings.ToLower(q.Q)) {
				ps = append(ps, pending{q, i})
				want[q.Paper] = true
				break
			}
		}
	}
	papers := map[string]*paper{}
	rc, err := eval.OpenMaybeGzip(corpus)
	if err != nil {
		log.Fatal(err)
	}
	defer rc.Close()
	sc := bufio.NewScanner(rc)
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		p, chunks, err := ingest.CorpusRecord(sc.Bytes(), chunk.Defaults)
		if err != nil {
			log.Fatal(err)
		}
		if want[p.ID] {
			papers[p.ID] = &paper{p: p, chunks: chunks, paras: rank.Paragraphs(chunks)}
		}
	}
	var out []question
	for _, pq := range ps {
		pp := papers[pq.q.Paper]
		if pp == nil {
			continue
		}
		gold := map[int]bool{}
		for _, a := range pq.q.Answers {
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
			out = append(out, question{q: pq.q.Q, paper: pq.q.Paper, gold: gold, kind: pq.k})
		}
	}
	return out, papers
}

// scored is what each way picks for one question.
type scored struct {
	rules, rankG, rankQ int       // the paragraph picked, -1 for none
	logp                []float64 // the ranker's paragraph log-probabilities (generic question)
	cue                 []float64 // each paragraph's best cue score
}

func score(q question, p *paper) scored {
	m := rank.Default()
	k := kinds[q.kind]
	s := scored{rules: -1}
	cues, minScore, _ := review.GenericCues(p.p, p.chunks, k.column)
	s.cue = make([]float64, len(p.paras))
	best := -1
	for i, c := range cues {
		if c.Score > 0 && c.Score >= minScore && (best < 0 || c.Score > cues[best].Score) {
			best = i
		}
	}
	for pi, para := range p.paras {
		for i, c := range cues {
			if strings.Contains(para.Text, c.Text) {
				s.cue[pi] = max(s.cue[pi], c.Score)
				if i == best && s.rules < 0 {
					s.rules = pi
				}
			}
		}
	}
	cg := m.Choose(rank.ParseQuestion(k.column), p.paras)
	s.rankG = cg.Para
	s.logp = make([]float64, len(p.paras))
	for _, r := range cg.Ranked {
		s.logp[r.Index] = math.Log(max(r.Prob, 1e-12))
	}
	s.rankQ = m.Choose(rank.ParseQuestion(q.q), p.paras).Para
	return s
}

// combined is the paragraph the sum picks.
func (s scored) combined(w float64) int {
	best := -1
	for i := range s.logp {
		if best < 0 || s.logp[i]+w*s.cue[i] > s.logp[best]+w*s.cue[best] {
			best = i
		}
	}
	return best
}

var weights = []float64{0, 0.1, 0.2, 0.3, 0.5, 0.75, 1, 1.5, 2, 3, 5, 10}

func scoreAll(qs []question, papers map[string]*paper) []scored {
	out := make([]scored, len(qs))
	for i, q := range qs {
		out[i] = score(q, papers[q.paper])
	}
	return out
}

// chooseW is the weight with the most hits over the kinds QASPER has
// enough questions of (datasets, better).
func chooseW(qs []question, papers map[string]*paper) float64 {
	ss := scoreAll(qs, papers)
	bestW, bestHits := 0.0, -1
	for _, w := range weights {
		hits := 0
		for i, q := range qs {
			if q.gold[ss[i].combined(w)] {
				hits++
			}
		}
		fmt.Fprintf(os.Stderr, "train W %.2f: %d/%d\n", w, hits, len(qs))
		if hits > bestHits {
			bestW, bestHits = w, hits
		}
	}
	return bestW
}

func report(split string, qs []question, papers map[string]*paper, w float64) {
	ss := scoreAll(qs, papers)
	fmt.Printf("QASPER %s: evidence paragraph hit rate by kind (questions whose gold evidence is in the text)\n", split)
	fmt.Printf("%-12s %5s %8s %8s %8s %12s\n", "kind", "n", "rules", "rankG", "rankQ", fmt.Sprintf("sum W=%.2f", w))
	pct := func(n, d int) string { return fmt.Sprintf("%d (%.0f%%)", n, 100*float64(n)/float64(max(d, 1))) }
	for ki, k := range kinds {
		var n, r, g, qq, c int
		for i, q := range qs {
			if q.kind != ki {
				continue
			}
			n++
			for _, x := range []struct {
				pick int
				n    *int
			}{{ss[i].rules, &r}, {ss[i].rankG, &g}, {ss[i].rankQ, &qq}, {ss[i].combined(w), &c}} {
				if x.pick >= 0 && q.gold[x.pick] {
					*x.n++
				}
			}
		}
		fmt.Printf("%-12s %5d %8s %8s %8s %12s\n", k.name, n, pct(r, n), pct(g, n), pct(qq, n), pct(c, n))
	}
}
