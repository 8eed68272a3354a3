package ask

import (
	"math"
	"slices"
	"strings"

	"github.com/papers-cli/papers/embed"
)

// BM25Params are the parameters of the two-field BM25F ranker.
type BM25Params struct {
	K1          float64 // term-frequency saturation
	B           float64 // length normalisation of the text field
	BTitle      float64 // length normalisation of the title field
	TitleWeight float64 // a title occurrence counts this many text occurrences
}

// DefaultBM25 was chosen on the SciFact train split (see BENCHMARKS.md).
var DefaultBM25 = BM25Params{K1: 1.2, B: 0.75, BTitle: 0.5, TitleWeight: 2}

// LexDoc is one document of an in-memory BM25 index: a chunk's text and the
// title of its paper as a separate field.
type LexDoc struct {
	ID    string
	Title string
	Text  string
}

// LexIndex is an in-memory BM25F index over Porter2-stemmed terms
// (embed.Terms) with the title as its own field. Build it once with
// NewLexIndex; searching is safe for concurrent use.
type LexIndex struct {
	p        BM25Params
	ids      []string
	lens     [][2]float32 // text, title lengths in terms
	avg      [2]float64
	postings map[string][]lexPosting
}

type lexPosting struct {
	doc   int32
	text  float32
	title float32
}

// NewLexIndex indexes docs; their order decides nothing but tie-breaks are
// by ID, so results do not depend on it.
func NewLexIndex(docs []LexDoc, p BM25Params) *LexIndex {
	x := &LexIndex{p: p, ids: make([]string, len(docs)), lens: make([][2]float32, len(docs)), postings: map[string][]lexPosting{}}
	var sum [2]float64
	for i, d := range docs {
		x.ids[i] = d.ID
		tf := map[string]*lexPosting{}
		text := embed.Terms(d.Text)
		title := embed.Terms(d.Title)
		for _, t := range text {
			q := tf[t]
			if q == nil {
				q = &lexPosting{doc: int32(i)}
				tf[t] = q
			}
			q.text++
		}
		for _, t := range title {
			q := tf[t]
			if q == nil {
				q = &lexPosting{doc: int32(i)}
				tf[t] = q
			}
			q.title++
		}
		for t, q := range tf {
			x.postings[t] = append(x.postings[t], *q)
		}
		x.lens[i] = [2]float32{float32(len(text)), float32(len(title))}
		sum[0] += float64(len(text))
		sum[1] += float64(len(title))
	}
	if n := float64(len(docs)); n > 0 {
		x.avg = [2]float64{max(sum[0]/n, 1), max(sum[1]/n, 1)}
	}
	return x
}

// Len is the number of documents indexed.
func (x *LexIndex) Len() int { return len(x.ids) }

// Scored is a document id with a score; higher is better.
type Scored struct {
	ID    string
	Score float64
}

// Search returns up to k documents matching any query term, best first,
// ties broken by ID. allow, if not nil, filters documents by ID.
func (x *LexIndex) Search(query string, k int, allow func(id string) bool) []Scored {
	terms := embed.Terms(query)
	qtf := map[string]int{}
	for _, t := range terms {
		qtf[t]++
	}
	n := float64(len(x.ids))
	scores := map[int32]float64{}
	p := x.p
	for t, qn := range qtf {
		post := x.postings[t]
		if len(post) == 0 {
			continue
		}
		df := float64(len(post))
		idf := math.Log(1 + (n-df+0.5)/(df+0.5))
		for _, q := range post {
			l := x.lens[q.doc]
			tf := float64(q.text)/(1-p.B+p.B*float64(l[0])/x.avg[0]) +
				p.TitleWeight*float64(q.title)/(1-p.BTitle+p.BTitle*float64(l[1])/x.avg[1])
			scores[q.doc] += float64(qn) * idf * tf / (p.K1 + tf)
		}
	}
	out := make([]Scored, 0, len(scores))
	for d, s := range scores {
		id := x.ids[d]
		if allow != nil && !allow(id) {
			continue
		}
		out = append(out, Scored{id, s})
	}
	sortScored(out)
	if len(out) > k {
		out = out[:k]
	}
	return out
}

// sortScored orders by score, then ID, so ties never depend on map order.
func sortScored(s []Scored) {
	slices.SortFunc(s, func(a, b Scored) int {
		if a.Score != b.Score {
			if a.Score > b.Score {
				return -1
			}
			return 1
		}
		return strings.Compare(a.ID, b.ID)
	})
}
