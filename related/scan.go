package related

import (
	"container/heap"
	"context"
	"math"
	"strconv"
	"strings"

	"github.com/papers-cli/papers/store"
)

// MaxChromem is the most papers an Index holds in a chromem-go collection.
// Above it, the papers are ranked by a scan over the paper vectors, which
// gives the same results (see scan) in bounded memory: a chromem-go
// collection holds every vector in memory for its queries, and a query
// reads them all, so that at 200k papers of 768 dimensions the first
// related held 1.39 GB; the scan reads the mapped vectors in order and
// releases each part behind it. (A variable: the tests rank the same
// papers both ways.)
var MaxChromem = 20000

// scan ranks every paper o allows by the similarity of its vector to q
// and returns the best k, ties by id: what a chromem-go query over the
// same vectors returns (the same float32 normalisation of the query and
// of vectors chromem-go would normalise, the same dot product, the same
// filters on the same metadata), with Exclude and Since applied as query
// applies them.
func (x *Index) scan(ctx context.Context, q []float32, o Options, k int) ([]Hit, error) {
	if !isNormalized(q) {
		q = normalizeVector(q)
	}
	skip := make(map[string]bool, len(o.Exclude))
	for _, id := range o.Exclude {
		skip[id] = true
	}
	allow := o.filter()
	best := &worstFirst{}
	err := x.pv.Scan(ctx, func(i int, v []float32) bool {
		p := &x.pv.Papers[i]
		if skip[p.ID] || !allow(p) || !o.Since.IsZero() && (p.Published.IsZero() || p.Published.Before(o.Since)) {
			return true
		}
		if !isNormalized(v) {
			v = normalizeVector(v)
		}
		h := Hit{ID: p.ID, Score: dotProduct(q, v)}
		if best.Len() < k {
			heap.Push(best, h)
		} else if worse((*best)[0], h) {
			(*best)[0] = h
			heap.Fix(best, 0)
		}
		return true
	})
	if err != nil {
		return nil, err
	}
	hits := []Hit(*best)
	sortHits(hits)
	return hits, nil
}

// filter is the test of o's topic, category and year on a paper: the
// where of a chromem-go query on metadataOf's keys.
func (o Options) filter() func(*store.PaperMeta) bool {
	topic, category, year := "", "", ""
	if o.Topic != "" {
		topic = topicKey(o.Topic)
	}
	if o.Category != "" {
		category = categoryKey(o.Category)
	}
	if o.Year != 0 {
		year = strconv.Itoa(o.Year)
	}
	return func(p *store.PaperMeta) bool {
		if topic != "" && !anyKey(p.Topics, topic, topicKey) {
			return false
		}
		if category != "" && !anyKey(p.Categories, category, categoryKey) && !anyArchive(p.Categories, category) {
			return false
		}
		return year == "" || !p.Published.IsZero() && strconv.Itoa(p.Published.Year()) == year
	}
}

func anyKey(names []string, key string, mk func(string) string) bool {
	for _, n := range names {
		if mk(n) == key {
			return true
		}
	}
	return false
}

func anyArchive(cats []string, key string) bool {
	for _, c := range cats {
		if a, _, ok := strings.Cut(c, "."); ok && categoryKey(a) == key {
			return true
		}
	}
	return false
}

// worse orders hits as the ranking does, worst first: a lower score, then
// for the same score a later id.
func worse(a, b Hit) bool {
	if a.Score != b.Score {
		return a.Score < b.Score
	}
	return a.ID > b.ID
}

// worstFirst is a heap of the best hits so far, the worst on top.
type worstFirst []Hit

func (h worstFirst) Len() int           { return len(h) }
func (h worstFirst) Less(i, j int) bool { return worse(h[i], h[j]) }
func (h worstFirst) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *worstFirst) Push(x any)        { *h = append(*h, x.(Hit)) }
func (h *worstFirst) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// The vector arithmetic of chromem-go v0.7.0 (vector.go), written the
// same way so that the scores are the same to the bit.

const isNormalizedPrecisionTolerance = 1e-6

func dotProduct(a, b []float32) float32 {
	var dot float32
	for i := range a {
		dot += a[i] * b[i]
	}
	return dot
}

func normalizeVector(v []float32) []float32 {
	var norm float32
	for _, val := range v {
		norm += val * val
	}
	norm = float32(math.Sqrt(float64(norm)))
	res := make([]float32, len(v))
	for i, val := range v {
		res[i] = val / norm
	}
	return res
}

func isNormalized(v []float32) bool {
	var sqSum float64
	for _, val := range v {
		sqSum += float64(val) * float64(val)
	}
	return math.Abs(math.Sqrt(sqSum)-1) < isNormalizedPrecisionTolerance
}
