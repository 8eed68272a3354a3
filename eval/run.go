package eval

import (
	"context"
	"time"
)

// SearchFunc returns the ids of the documents ranked for one query, best
// first (at least 100 for Recall@100 to mean anything).
type SearchFunc func(ctx context.Context, query string) ([]string, error)

// Run runs every query that has a relevant judgement in qrels, one at a
// time (latency is per query), and returns the mean metrics. progress, if
// not nil, is called after each query with the number done and the total.
func Run(ctx context.Context, search SearchFunc, queries []Query, qrels Qrels, progress func(done, total int)) (Report, error) {
	qs := Judged(queries, qrels)
	var acc Accumulator
	for i, q := range qs {
		start := time.Now()
		ranked, err := search(ctx, q.Text)
		if err != nil {
			return Report{}, err
		}
		acc.Add(ranked, qrels[q.ID], time.Since(start))
		if progress != nil {
			progress(i+1, len(qs))
		}
	}
	return acc.Report(), nil
}
