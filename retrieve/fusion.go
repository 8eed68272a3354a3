package retrieve

import (
	"math"
	"slices"
	"strings"
)

// FuseRRF combines ranked lists by weighted reciprocal rank:
// score(d) = sum_i weights[i] / (k + rank_i(d)), ranks from 1. A document
// missing from a list gets nothing from it. Ties are broken by ID.
func FuseRRF(lists [][]Scored, weights []float64, k float64) []Scored {
	acc := map[string]float64{}
	for i, l := range lists {
		for r, s := range l {
			acc[s.ID] += weights[i] / (k + float64(r+1))
		}
	}
	return fromMap(acc)
}

// FuseScores combines lists by a weighted sum of their scores, each list's
// scores first mapped to [0, 1] by min-max over its top depth results. A
// document missing from a list gets that list's minimum (0). Ties are broken
// by ID.
func FuseScores(lists [][]Scored, weights []float64) []Scored {
	acc := map[string]float64{}
	for i, l := range lists {
		if len(l) == 0 {
			continue
		}
		lo, hi := math.Inf(1), math.Inf(-1)
		for _, s := range l {
			lo = min(lo, s.Score)
			hi = max(hi, s.Score)
		}
		span := hi - lo
		for _, s := range l {
			v := 1.0
			if span > 0 {
				v = (s.Score - lo) / span
			}
			acc[s.ID] += weights[i] * v
		}
	}
	return fromMap(acc)
}

func fromMap(acc map[string]float64) []Scored {
	out := make([]Scored, 0, len(acc))
	for id, s := range acc {
		out = append(out, Scored{id, s})
	}
	sortScored(out)
	return out
}

// Scored is a document id with a score; higher is better.
type Scored struct {
	ID    string
	Score float64
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
