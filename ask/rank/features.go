package rank

import (
	"math"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Vector is a sparse feature vector: names and values (a name at most once).
type Vector struct {
	Names  []string
	Values []float64
}

func (v *Vector) add(name string, x float64) {
	if x == 0 || math.IsNaN(x) || math.IsInf(x, 0) {
		return
	}
	v.Names = append(v.Names, name)
	v.Values = append(v.Values, x)
}

// Dot is the vector's score under weights w.
func (v Vector) Dot(w map[string]float64) float64 {
	s := 0.0
	for i, n := range v.Names {
		s += w[n] * v.Values[i]
	}
	return s
}

// paraStats are the words of one paragraph, counted once.
type paraStats struct {
	tf     map[string]int
	n      int // words counted (stems)
	head   map[string]bool
	kind   string
	nums   int // digit tokens
	caps   int // capitalised or upper-case words not opening a sentence
	words  int // all words
	commas int
	pct    bool
}

func statsOf(p Paragraph) paraStats {
	st := paraStats{tf: map[string]int{}, head: map[string]bool{}, kind: SectionKind(p.Section)}
	if p.Section == "abstract" {
		st.kind = kindAbstract
	}
	for _, s := range stems(p.Text) {
		st.tf[s]++
		st.n++
	}
	for _, s := range stems(p.Section) {
		st.head[s] = true
	}
	prevEnd := true
	for _, w := range strings.Fields(p.Text) {
		st.words++
		r, _ := utf8.DecodeRuneInString(w)
		if unicode.IsDigit(r) {
			st.nums++
		} else if unicode.IsUpper(r) && !prevEnd {
			st.caps++
		}
		last, _ := utf8.DecodeLastRuneInString(w)
		prevEnd = last == '.' || last == '?' || last == '!' || last == ':'
	}
	st.commas = strings.Count(p.Text, ",")
	st.pct = strings.Contains(p.Text, "%") || strings.Contains(p.Text, "percent")
	return st
}

// statsOf counts the words of each paragraph; while training, a paper's
// counts are kept for the next question asked of it (papers are read
// once and asked several questions).
func (m *Model) statsOf(paras []Paragraph) []paraStats {
	if len(paras) == 0 {
		return nil
	}
	if m.cache != nil {
		m.cache.Lock()
		st, ok := m.cache.stats[&paras[0]]
		m.cache.Unlock()
		if ok && len(st) == len(paras) {
			return st
		}
	}
	st := make([]paraStats, len(paras))
	for i, p := range paras {
		st[i] = statsOf(p)
	}
	if m.cache != nil {
		m.cache.Lock()
		m.cache.stats[&paras[0]] = st
		m.cache.Unlock()
	}
	return st
}

// bm25 parameters (the usual ones; the ranker weighs the score).
const (
	bm25K1 = 1.2
	bm25B  = 0.75
)

// Featurize returns the features of each of a paper's paragraphs for q.
// Paragraph features depend on the other paragraphs of the paper (the
// in-paper idf, scores normalised by the paper's best), so a paper is
// featurised whole.
func (m *Model) Featurize(q Question, paras []Paragraph) []Vector {
	n := len(paras)
	stats := m.statsOf(paras)
	df := map[string]int{}
	totalLen := 0
	for i := range paras {
		for s := range stats[i].tf {
			df[s]++
		}
		totalLen += stats[i].n
	}
	avgLen := float64(totalLen) / float64(max(n, 1))
	idfIn := func(s string) float64 {
		return math.Log(1 + (float64(n)-float64(df[s])+0.5)/(float64(df[s])+0.5))
	}
	qidf := make([]float64, len(q.Terms))
	qidfIn := make([]float64, len(q.Terms))
	sumIdf := 0.0
	for k, t := range q.Terms {
		qidfIn[k] = idfIn(t)
		// a word rare in papers at large but everywhere in this one (its
		// own name: "DeepSeek-R1-Zero") tells its paragraphs apart no
		// better than a common word
		qidf[k] = math.Min(m.idf(t), qidfIn[k])
		sumIdf += qidf[k]
	}
	bm := make([]float64, n)
	sbm := make([]float64, n) // the best sentence's
	bigr := make([]float64, n)
	qbig := bigrams(q.Terms)
	bmg := make([]float64, n)
	tr := make([]float64, n)
	cov := make([]float64, n)
	head := make([]float64, n)
	for i := range paras {
		st := &stats[i]
		norm := bm25K1 * (1 - bm25B + bm25B*float64(st.n)/math.Max(avgLen, 1))
		for k, t := range q.Terms {
			f := float64(st.tf[t])
			if f > 0 {
				sat := f * (bm25K1 + 1) / (f + norm)
				bm[i] += qidfIn[k] * sat
				bmg[i] += qidf[k] * sat
				cov[i] += qidf[k]
			}
			if st.head[t] {
				head[i] += qidf[k]
			}
		}
		if sumIdf > 0 {
			cov[i] /= sumIdf
			head[i] /= sumIdf
		}
		tr[i] = m.translation(q.Terms, st.tf)
		for _, sent := range paras[i].Sentences {
			ss := stems(sent)
			tf := map[string]int{}
			for _, w := range ss {
				tf[w]++
			}
			sn := bm25K1 * (1 - bm25B + bm25B*float64(len(ss))/math.Max(avgLen/float64(max(len(paras[i].Sentences), 1)), 1))
			x := 0.0
			for k, t := range q.Terms {
				if f := float64(tf[t]); f > 0 {
					x += qidfIn[k] * f * (bm25K1 + 1) / (f + sn)
				}
			}
			sbm[i] = math.Max(sbm[i], x)
		}
		if len(qbig) > 0 {
			pb := bigrams(stems(paras[i].Text))
			for b := range qbig {
				if pb[b] {
					bigr[i]++
				}
			}
			bigr[i] /= float64(len(qbig))
		}
	}
	maxSBM := maxOf(sbm)
	maxBM, maxBMG, maxTr := maxOf(bm), maxOf(bmg), maxOf(tr)
	out := make([]Vector, n)
	cues := m.cuesOf(q)
	for i, p := range paras {
		st := &stats[i]
		v := &out[i]
		v.add("bm25", ratio(bm[i], maxBM))
		v.add("bm25_best", flag(bm[i] > 0 && bm[i] == maxBM))
		v.add("bm25_log", math.Log1p(bm[i]))
		v.add("bm25g", ratio(bmg[i], maxBMG))
		v.add("sent_bm25", ratio(sbm[i], maxSBM))
		v.add("sent_bm25_best", flag(sbm[i] > 0 && sbm[i] == maxSBM))
		v.add("bigram", bigr[i])
		v.add("cover", cov[i])
		v.add("cover_all", flag(cov[i] > 0.999))
		v.add("head", head[i])
		v.add("trans", ratio(tr[i], maxTr))
		v.add("trans_log", math.Log1p(math.Max(tr[i], 0)))
		ctx := 0.0
		if i > 0 {
			ctx = bm[i-1]
		}
		if i+1 < n {
			ctx = math.Max(ctx, bm[i+1])
		}
		v.add("bm25_next", ratio(ctx, maxBM))
		v.add("names", namesIn(q.Names, p.Text))
		v.add("pos", float64(p.Index)/float64(max(p.Of, 1)))
		v.add("first", flag(i > 0 && (paras[i-1].Section != p.Section || paras[i-1].Heading)))
		v.add("heading", flag(p.Heading))
		words := float64(st.words)
		v.add("len", math.Log1p(words))
		v.add("short", flag(st.words < 8))
		numb := flag(st.nums > 0)
		caps := math.Min(float64(st.caps)/math.Max(words, 1)*5, 1)
		list := math.Min(float64(st.commas)/4, 1)
		pct := flag(st.pct)
		v.add("num", numb)
		v.add("caps", caps)
		v.add("s:"+st.kind, 1)
		for _, c := range append(cues, "w:"+q.Wh) {
			v.add(c+"&s:"+st.kind, 1)
			v.add(c+"&num", numb)
			v.add(c+"&pct", pct)
			v.add(c+"&caps", caps)
			v.add(c+"&list", list)
			v.add(c+"&bm25", ratio(bm[i], maxBM))
			v.add(c+"&head", head[i])
		}
	}
	return out
}

// cuesOf names the model's cue words the question holds ("c:dataset").
func (m *Model) cuesOf(q Question) []string {
	var out []string
	for _, t := range q.Terms {
		if m.cue[t] {
			out = append(out, "c:"+t)
		}
	}
	return out
}

// translation is how strongly the paragraph's words are associated with
// the question's in QASPER's questions and their evidence (Berger and
// Lafferty's translation model): the mean, over question terms, of the
// best association of a paragraph word with it.
func (m *Model) translation(terms []string, tf map[string]int) float64 {
	if len(terms) == 0 {
		return 0
	}
	s := 0.0
	for _, a := range terms {
		best := 0.0
		for b, w := range m.assoc[a] {
			if tf[b] > 0 && w > best {
				best = w
			}
		}
		s += best
	}
	return s / float64(len(terms))
}

func maxOf(xs []float64) float64 {
	m := 0.0
	for _, x := range xs {
		m = math.Max(m, x)
	}
	return m
}

func ratio(x, m float64) float64 {
	if m <= 0 {
		return 0
	}
	return x / m
}

func flag(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// bigrams are the pairs of consecutive stems of ws ("neural network").
func bigrams(ws []string) map[string]bool {
	out := map[string]bool{}
	for i := 1; i < len(ws); i++ {
		out[ws[i-1]+" "+ws[i]] = true
	}
	return out
}
