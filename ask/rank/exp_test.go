//go:build exp

package rank

import (
	"encoding/gob"
	"math"
	"os"
	"strconv"
	"strings"
	"testing"
)

func loadExp(t *testing.T) (train, dev []Labeled) {
	f, err := os.Open("/tmp/qasper.gob")
	if err != nil {
		t.Skip("no dump")
	}
	defer f.Close()
	var d [2][]Labeled
	if err := gob.NewDecoder(f).Decode(&d); err != nil {
		t.Fatal(err)
	}
	return d[0], d[1]
}

func TestExp(t *testing.T) {
	train, dev := loadExp(t)
	if v := os.Getenv("L2"); v != "" {
		fitOptions.L2, _ = strconv.ParseFloat(v, 64)
	}
	if v := os.Getenv("EPOCHS"); v != "" {
		fitOptions.Epochs, _ = strconv.Atoi(v)
	}
	m, rep := Train(train, dev)
	t.Log(rep)
	expModel = m
}

var expModel *Model

func TestExpMisses(t *testing.T) {
	train, _ := loadExp(t)
	// a model fit on the first half of train's questions shows its misses on the second
	half := len(train) / 2
	m, _ := Train(train[:half], nil)
	shown := 0
	for _, l := range train[half:] {
		g := l.gold()
		if maxOf(g) == 0 {
			continue
		}
		q := ParseQuestion(l.Question)
		r := rankedOf(m.Scores(m.Featurize(q, l.Paper)))
		if g[r[0].Index] > 0 {
			continue
		}
		gi := -1
		for i, r2 := range r {
			if g[r2.Index] > 0 {
				gi = i
				break
			}
		}
		t.Logf("Q: %s\n  TOP [%s] %.200s\n  GOLD rank %d [%s] %.300s", l.Question, l.Paper[r[0].Index].Section, l.Paper[r[0].Index].Text, gi+1, l.Paper[r[gi].Index].Section, l.Paper[r[gi].Index].Text)
		shown++
		if shown > 25 {
			break
		}
	}
}

func TestExpOracle(t *testing.T) {
	_, dev := loadExp(t)
	m := Default()
	var chosenF, oracleF, sentF, oracleSent float64
	hit1, hit3, n, ans := 0, 0, 0, 0
	bySrc := map[string]int{}
	for _, l := range dev {
		q := ParseQuestion(l.Question)
		_, _, _, text := l.votes()
		g := l.gold()
		c := m.Choose(q, l.Paper)
		if maxOf(g) > 0 {
			n++
			if g[c.Ranked[0].Index] > 0 {
				hit1++
			}
			for _, r := range c.Ranked[:min(3, len(c.Ranked))] {
				if g[r.Index] > 0 {
					hit3++
					break
				}
			}
		}
		if text == 0 || c.Para < 0 {
			continue
		}
		ans++
		chosenF += l.spanF1(c.Short)
		sentF += l.spanF1(l.Paper[c.Para].Sentences[c.Sent])
		best, bestSent := 0.0, 0.0
		bestRule := ""
		for _, sc := range m.sentences(q, l.Paper, c.Ranked) {
			for _, sp := range Spans(sc.text) {
				f := l.spanF1(sp.Text)
				if f > best {
					best, bestRule = f, sp.Rule
				}
			}
			bestSent = max(bestSent, l.spanF1(sc.text))
		}
		oracleF += best
		oracleSent += bestSent
		if i := strings.IndexByte(bestRule, ':'); i > 0 {
			bestRule = bestRule[:i]
		}
		bySrc[bestRule]++
	}
	t.Logf("dev: hit@1 %d/%d, hit@3 %d/%d; span questions %d: chosen span F1 %.3f, its sentence %.3f, oracle span among candidates %.3f, oracle sentence %.3f; oracle rules %v",
		hit1, n, hit3, n, ans, chosenF/float64(ans), sentF/float64(ans), oracleF/float64(ans), oracleSent/float64(ans), bySrc)
}

func TestExpStages(t *testing.T) {
	_, dev := loadExp(t)
	m := Default()
	var inSent, chosen, sentF, top1sent float64
	n := 0
	shown := 0
	for _, l := range dev {
		q := ParseQuestion(l.Question)
		_, _, _, text := l.votes()
		if text == 0 || q.YesNo() {
			continue
		}
		c := m.Choose(q, l.Paper)
		if c.Para < 0 {
			continue
		}
		n++
		sent := l.Paper[c.Para].Sentences[c.Sent]
		best := 0.0
		bestSpan := ""
		for _, sp := range Spans(sent) {
			if f := l.spanF1(sp.Text); f > best {
				best, bestSpan = f, sp.Text
			}
		}
		inSent += best
		chosen += l.spanF1(c.Short)
		sentF += l.spanF1(sent)
		// the top paragraph's best-bm25 sentence
		p := l.Paper[c.Ranked[0].Index]
		bs := 0.0
		for _, s := range p.Sentences {
			bs = max(bs, l.spanF1(s))
		}
		top1sent += bs
		if best > 0.5 && l.spanF1(c.Short) < 0.2 && shown < 15 {
			shown++
			gold := ""
			for _, a := range l.Answers {
				gold += " | " + a.Text
			}
			t.Logf("Q %s\n  sent: %s\n  chose: %q (%.2f)  best: %q (%.2f)\n  gold:%s", l.Question, sent, c.Short, l.spanF1(c.Short), bestSpan, best, gold)
		}
	}
	t.Logf("%d questions: oracle span in chosen sentence %.3f, chosen span %.3f, chosen sentence %.3f, oracle sentence of top paragraph %.3f",
		n, inSent/float64(n), chosen/float64(n), sentF/float64(n), top1sent/float64(n))
}

func TestExpPower(t *testing.T) {
	train, dev := loadExp(t)
	base := Default()
	for _, pw := range []float64{1, 2} {
		targetPower = pw
		m := *base
		m.cache = &statsCache{stats: map[*Paragraph][]paraStats{}}
		se, sp := m.answerGroups(train)
		m.Sentence = Fit(se, fitOptions)
		m.Span = Fit(sp, fitOptions)
		var inSent, chosen, sentF, rec float64
		n := 0
		for _, l := range dev {
			q := ParseQuestion(l.Question)
			_, _, _, text := l.votes()
			if text == 0 || q.YesNo() {
				continue
			}
			c := m.Choose(q, l.Paper)
			if c.Para < 0 {
				continue
			}
			n++
			sent := l.Paper[c.Para].Sentences[c.Sent]
			best := 0.0
			for _, s := range Spans(sent) {
				best = max(best, l.spanF1(s.Text))
			}
			inSent += best
			chosen += l.spanF1(c.Short)
			sentF += l.spanF1(sent)
			rec += l.recall(sent)
		}
		t.Logf("power %.0f: %d questions: oracle span in chosen sentence %.3f, chosen span %.3f, chosen sentence %.3f, its recall %.3f", pw, n, inSent/float64(n), chosen/float64(n), sentF/float64(n), rec/float64(n))
	}
}

func TestExpSpanTrain(t *testing.T) {
	train, _ := loadExp(t)
	m := *Default()
	m.cache = &statsCache{stats: map[*Paragraph][]paraStats{}}
	_, sp := m.answerGroups(train[:800])
	for _, l2 := range []float64{1e-3, 1e-5} {
		w := Fit(sp, FitOptions{L2: l2, Epochs: 300, Rate: 0.05})
		var got, oracle, whole float64
		for _, g := range sp {
			best, pick := 0, 0
			bs := -1e9
			for i, v := range g.Vectors {
				if g.Target[i] > g.Target[best] {
					best = i
				}
				if s := v.Dot(w); s > bs {
					bs, pick = s, i
				}
			}
			got += math.Pow(g.Target[pick], 1/targetPower)
			oracle += math.Pow(g.Target[best], 1/targetPower)
			whole += math.Pow(g.Target[0], 1/targetPower)
		}
		n := float64(len(sp))
		t.Logf("L2 %g: %d span groups (train, fit on them): picked %.3f, oracle %.3f, whole sentence %.3f", l2, len(sp), got/n, oracle/n, whole/n)
	}
}

func stripQ(q Question, s string) string {
	qs := map[string]bool{}
	for _, t := range q.Terms {
		qs[t] = true
	}
	var out []string
	for _, w := range strings.Fields(s) {
		st := stems(w)
		if len(st) == 1 && qs[st[0]] {
			continue
		}
		out = append(out, w)
	}
	return strings.Join(out, " ")
}

func TestExpStrip(t *testing.T) {
	_, dev := loadExp(t)
	m := Default()
	var a, b, c2, d float64
	n := 0
	for _, l := range dev {
		q := ParseQuestion(l.Question)
		_, _, _, text := l.votes()
		if text == 0 || q.YesNo() {
			continue
		}
		c := m.Choose(q, l.Paper)
		if c.Para < 0 {
			continue
		}
		n++
		sent := l.Paper[c.Para].Sentences[c.Sent]
		a += l.spanF1(sent)
		b += l.spanF1(stripQ(q, sent))
		c2 += l.spanF1(c.Short)
		d += l.spanF1(stripQ(q, c.Short))
	}
	t.Logf("%d: sentence %.3f, sentence without question words %.3f; span %.3f, span without %.3f", n, a/float64(n), b/float64(n), c2/float64(n), d/float64(n))
}

func TestExpSentBaselines(t *testing.T) {
	_, dev := loadExp(t)
	m := Default()
	var model, bm, first, oracle, oracleTop float64
	n := 0
	for _, l := range dev {
		q := ParseQuestion(l.Question)
		_, _, _, text := l.votes()
		if text == 0 || q.YesNo() {
			continue
		}
		c := m.Choose(q, l.Paper)
		if c.Para < 0 {
			continue
		}
		n++
		model += l.recall(l.Paper[c.Para].Sentences[c.Sent])
		top := l.Paper[c.Ranked[0].Index]
		first += l.recall(top.Sentences[0])
		bb, bv := 0.0, -1.0
		for _, s := range top.Sentences {
			v := 0.0
			st := map[string]bool{}
			for _, w := range stems(s) {
				st[w] = true
			}
			for _, tt := range q.Terms {
				if st[tt] {
					v += m.idf(tt)
				}
			}
			if v > bv {
				bv, bb = v, l.recall(s)
			}
			oracleTop = oracleTop
		}
		bm += bb
		o, ot := 0.0, 0.0
		for _, sc := range m.sentences(q, l.Paper, c.Ranked) {
			o = max(o, l.recall(sc.text))
			if sc.para == top.Index {
				ot = max(ot, l.recall(sc.text))
			}
		}
		oracle += o
		oracleTop += ot
	}
	f := float64(n)
	t.Logf("%d: recall of model's sentence %.3f, bm25-best of top para %.3f, first of top para %.3f, oracle among top-3 paras %.3f, oracle in top para %.3f", n, model/f, bm/f, first/f, oracle/f, oracleTop/f)
}
