package rank

import (
	"math"
	"slices"
	"sort"
)

// This file holds what fitting the model takes; `go run ./ask/train`
// calls it on QASPER's training split.

// Group is one training question's candidates: the features of each and
// how good each is as the answer (0 for none; the targets of a group are
// normalised, so only their ratios count).
type Group struct {
	Vectors []Vector
	Target  []float64
}

// CountDF counts, over the given papers' paragraphs, how many hold each
// stem, and sets the model's idf from it.
func (m *Model) CountDF(papers [][]Paragraph) {
	m.df = map[string]int{}
	m.docs = 0
	for _, ps := range papers {
		for _, p := range ps {
			m.docs++
			seen := map[string]bool{}
			for _, s := range stems(p.Text) {
				if !seen[s] {
					seen[s] = true
					m.df[s]++
				}
			}
		}
	}
	// words in one paragraph only carry no statistics worth embedding
	for s, n := range m.df {
		if n < 2 {
			delete(m.df, s)
		}
	}
}

// Pair is a question and the paragraphs that answer it.
type Pair struct {
	Question Question
	Evidence []Paragraph
	paper    string
}

// Association thresholds: a question word is kept with the evidence words
// seen with it at least minPairs times, at least minLift times as often
// as in any paragraph, maxAssoc of them at most.
const (
	minQuestions = 5
	minPairs     = 3
	minLift      = 2.5
	maxAssoc     = 40
)

// LearnAssociations sets the model's question-to-evidence word
// associations from pairs: log of how much more often an evidence word
// stands in the paragraphs answering questions with a given word than in
// paragraphs at large (the model's document frequencies, counted first).
func (m *Model) LearnAssociations(pairs []Pair) {
	withA := map[string]int{}
	withAB := map[string]map[string]int{}
	for _, pr := range pairs {
		ev := map[string]bool{}
		for _, p := range pr.Evidence {
			for _, s := range stems(p.Text) {
				ev[s] = true
			}
		}
		for _, a := range pr.Question.Terms {
			withA[a]++
			if withAB[a] == nil {
				withAB[a] = map[string]int{}
			}
			for b := range ev {
				withAB[a][b]++
			}
		}
	}
	m.assoc = map[string]map[string]float64{}
	for a, n := range withA {
		if n < minQuestions {
			continue
		}
		type cand struct {
			b string
			w float64
		}
		var cs []cand
		for b, k := range withAB[a] {
			if k < minPairs || b == a || isDigits(b) || m.df[b] == 0 {
				continue
			}
			pb := float64(m.df[b]) / m.docs
			pba := float64(k) / float64(n+2) // shrunk towards 0 for rare question words
			if lift := pba / pb; lift >= minLift {
				cs = append(cs, cand{b, math.Log(lift)})
			}
		}
		sort.Slice(cs, func(i, j int) bool {
			if cs[i].w != cs[j].w {
				return cs[i].w > cs[j].w
			}
			return cs[i].b < cs[j].b
		})
		if len(cs) > maxAssoc {
			cs = cs[:maxAssoc]
		}
		if len(cs) > 0 {
			m.assoc[a] = map[string]float64{}
			for _, c := range cs {
				m.assoc[a][c.b] = math.Round(c.w*1000) / 1000
			}
		}
	}
}

// ChooseCues sets the model's cue words: the k commonest question terms.
func (m *Model) ChooseCues(qs []Question, k int) {
	count := map[string]int{}
	for _, q := range qs {
		for _, t := range q.Terms {
			count[t]++
		}
	}
	var ws []string
	for w := range count {
		ws = append(ws, w)
	}
	sort.Slice(ws, func(i, j int) bool {
		if count[ws[i]] != count[ws[j]] {
			return count[ws[i]] > count[ws[j]]
		}
		return ws[i] < ws[j]
	})
	m.Cues = slices.Clone(ws[:min(k, len(ws))])
	sort.Strings(m.Cues)
	m.index()
}

// FitOptions tune Fit.
type FitOptions struct {
	L2     float64 // penalty on the squared weights, per group
	Epochs int
	Rate   float64 // Adam's step size
}

// Fit finds the weights under which each group's softmax over its
// candidates puts the most probability where its targets do (listwise
// cross-entropy, as ListNet), with an L2 penalty. Deterministic: the same
// groups give the same weights.
func Fit(groups []Group, o FitOptions) map[string]float64 {
	ids := map[string]int{}
	type sparse struct {
		id []int32
		x  []float64
	}
	data := make([][]sparse, len(groups))
	targets := make([][]float64, len(groups))
	var names []string
	for g, gr := range groups {
		sum := 0.0
		for _, t := range gr.Target {
			sum += t
		}
		if sum <= 0 {
			continue
		}
		targets[g] = make([]float64, len(gr.Target))
		for i, t := range gr.Target {
			targets[g][i] = t / sum
		}
		data[g] = make([]sparse, len(gr.Vectors))
		for i, v := range gr.Vectors {
			s := sparse{id: make([]int32, len(v.Names)), x: v.Values}
			for k, n := range v.Names {
				id, ok := ids[n]
				if !ok {
					id = len(names)
					ids[n] = id
					names = append(names, n)
				}
				s.id[k] = int32(id)
			}
			data[g][i] = s
		}
	}
	d := len(names)
	w := make([]float64, d)
	mom, vel := make([]float64, d), make([]float64, d)
	grad := make([]float64, d)
	const beta1, beta2, eps = 0.9, 0.999, 1e-8
	ng := 0
	for g := range data {
		if data[g] != nil {
			ng++
		}
	}
	scores := []float64{}
	for epoch := 1; epoch <= o.Epochs; epoch++ {
		clear(grad)
		for g, cands := range data {
			if cands == nil {
				continue
			}
			scores = scores[:0]
			top := math.Inf(-1)
			for _, c := range cands {
				s := 0.0
				for k, id := range c.id {
					s += w[id] * c.x[k]
				}
				scores = append(scores, s)
				top = math.Max(top, s)
			}
			z := 0.0
			for i := range scores {
				scores[i] = math.Exp(scores[i] - top)
				z += scores[i]
			}
			for i, c := range cands {
				delta := scores[i]/z - targets[g][i]
				if delta == 0 {
					continue
				}
				for k, id := range c.id {
					grad[id] += delta * c.x[k]
				}
			}
		}
		b1, b2 := 1-math.Pow(beta1, float64(epoch)), 1-math.Pow(beta2, float64(epoch))
		for j := range w {
			gj := grad[j]/float64(ng) + o.L2*w[j]
			mom[j] = beta1*mom[j] + (1-beta1)*gj
			vel[j] = beta2*vel[j] + (1-beta2)*gj*gj
			w[j] -= o.Rate * (mom[j] / b1) / (math.Sqrt(vel[j]/b2) + eps)
		}
	}
	out := map[string]float64{}
	for j, n := range names {
		out[n] = w[j]
	}
	return out
}

// Scores scores paragraphs' features with the model's paragraph weights.
func (m *Model) Scores(vs []Vector) []float64 {
	out := make([]float64, len(vs))
	for i, v := range vs {
		out[i] = v.Dot(m.Paragraph)
	}
	return out
}
