package eval

import (
	"math"
	"slices"
	"time"
)

// topDistinct returns the first k distinct ids of a ranking: a document
// retrieved twice (two of its chunks) counts once, at its best rank.
func topDistinct(ranked []string, k int) []string {
	out := make([]string, 0, min(k, len(ranked)))
	seen := make(map[string]bool, k)
	for _, id := range ranked {
		if len(out) >= k {
			break
		}
		if !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	return out
}

// NDCG returns nDCG@k of a ranking (document ids, best first; duplicates
// count once) against graded judgements, with linear gains as in
// pytrec_eval (BEIR). It is 0 when no judged document is relevant.
func NDCG(ranked []string, rel map[string]int, k int) float64 {
	var dcg float64
	for pos, id := range topDistinct(ranked, k) {
		if g := rel[id]; g > 0 {
			dcg += float64(g) / math.Log2(float64(pos)+2)
		}
	}
	var gains []int
	for _, g := range rel {
		if g > 0 {
			gains = append(gains, g)
		}
	}
	slices.Sort(gains)
	slices.Reverse(gains)
	var idcg float64
	for i, g := range gains {
		if i >= k {
			break
		}
		idcg += float64(g) / math.Log2(float64(i)+2)
	}
	if idcg == 0 {
		return 0
	}
	return dcg / idcg
}

// Recall returns the fraction of relevant documents found in the top k.
func Recall(ranked []string, rel map[string]int, k int) float64 {
	var total, found int
	for _, g := range rel {
		if g > 0 {
			total++
		}
	}
	if total == 0 {
		return 0
	}
	for _, id := range topDistinct(ranked, k) {
		if rel[id] > 0 {
			found++
		}
	}
	return float64(found) / float64(total)
}

// MRR returns the reciprocal rank of the first relevant document within the
// top k, or 0.
func MRR(ranked []string, rel map[string]int, k int) float64 {
	for pos, id := range topDistinct(ranked, k) {
		if rel[id] > 0 {
			return 1 / float64(pos+1)
		}
	}
	return 0
}

// Report is the summary of one evaluation run; its JSON field names are a
// stable interface (papers eval --json).
type Report struct {
	NDCG10    float64 `json:"ndcg@10"`
	Recall100 float64 `json:"recall@100"`
	MRR10     float64 `json:"mrr@10"`
	Queries   int     `json:"queries"`
	Latency   Latency `json:"latency_ms"`
}

// Latency summarises per-query latencies in milliseconds.
type Latency struct {
	Mean float64 `json:"mean"`
	P95  float64 `json:"p95"`
}

// Accumulator collects per-query results into a Report. Not safe for
// concurrent use.
type Accumulator struct {
	ndcg, recall, mrr float64
	lat               []time.Duration
}

// Add records one query's ranking (document ids, best first) and latency.
func (a *Accumulator) Add(ranked []string, rel map[string]int, took time.Duration) {
	a.ndcg += NDCG(ranked, rel, 10)
	a.recall += Recall(ranked, rel, 100)
	a.mrr += MRR(ranked, rel, 10)
	a.lat = append(a.lat, took)
}

// Report returns the means over the queries added so far.
func (a *Accumulator) Report() Report {
	n := len(a.lat)
	if n == 0 {
		return Report{}
	}
	l := summarise(a.lat)
	return Report{
		NDCG10:    round4(a.ndcg / float64(n)),
		Recall100: round4(a.recall / float64(n)),
		MRR10:     round4(a.mrr / float64(n)),
		Queries:   n,
		Latency:   Latency{Mean: ms(l.mean), P95: ms(l.p95)},
	}
}

// latencies are the order statistics of a set of durations.
type latencies struct{ mean, p50, p95 time.Duration }

// summarise computes the mean and the nearest-rank median and 95th
// percentile of ds (not empty).
func summarise(ds []time.Duration) latencies {
	lat := slices.Clone(ds)
	slices.Sort(lat)
	n := len(lat)
	var sum time.Duration
	for _, d := range lat {
		sum += d
	}
	rank := func(p float64) time.Duration { return lat[max(0, min(n-1, int(math.Ceil(p*float64(n)))-1))] }
	return latencies{mean: sum / time.Duration(n), p50: rank(0.5), p95: rank(0.95)}
}

func round4(x float64) float64 { return math.Round(x*1e4) / 1e4 }
