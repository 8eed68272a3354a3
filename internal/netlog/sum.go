package netlog

import "sort"

// Total sums records of one host and purpose.
type Total struct {
	Host      string `json:"host"`
	Purpose   string `json:"purpose"`
	Requests  int    `json:"requests"`
	Failed    int    `json:"failed"` // no response, or an HTTP status of 400 or more
	Sent      int64  `json:"bytes_sent"`
	Received  int64  `json:"bytes_received"`
	TokensIn  int    `json:"tokens_in"`
	TokensOut int    `json:"tokens_out"`
}

// Sum totals records by host and purpose, the busiest first (by bytes
// received, then host and purpose), and returns the grand total as well.
func Sum(rs []Record) (by []Total, all Total) {
	idx := map[[2]string]int{}
	for _, r := range rs {
		k := [2]string{r.Host, r.Purpose}
		i, ok := idx[k]
		if !ok {
			i = len(by)
			idx[k] = i
			by = append(by, Total{Host: r.Host, Purpose: r.Purpose})
		}
		by[i].add(r)
		all.add(r)
	}
	sort.Slice(by, func(i, j int) bool {
		a, b := by[i], by[j]
		if a.Received != b.Received {
			return a.Received > b.Received
		}
		if a.Host != b.Host {
			return a.Host < b.Host
		}
		return a.Purpose < b.Purpose
	})
	return by, all
}

func (t *Total) add(r Record) {
	t.Requests++
	if r.Status == 0 || r.Status >= 400 {
		t.Failed++
	}
	t.Sent += r.Sent
	t.Received += r.Received
	t.TokensIn += r.TokensIn
	t.TokensOut += r.TokensOut
}
