package arxiv

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
)

// Sort orders for Scan.
const (
	BySubmitted   = "submittedDate"
	ByLastUpdated = "lastUpdatedDate"
)

// Scan runs a search_query sorted by sortBy (BySubmitted or ByLastUpdated),
// newest first, and hands each entry to fn in that order until fn returns
// false or the results run out, reading pageSize entries per request
// (0: the client's PageSize; at most MaxPageSize). Unlike Search it stops
// as soon as the caller has seen enough, so following a topic costs one
// request when little is new. It returns arXiv's totalResults from the
// first page. Entries repeated across pages are passed once. Empty pages
// are retried once as in Search; entries that cannot be read are skipped
// with a warning (Logf).
func (c *Client) Scan(ctx context.Context, query, sortBy string, pageSize int, fn func(Entry) bool) (int, error) {
	if strings.TrimSpace(query) == "" {
		return 0, errors.New("scan arxiv: empty query")
	}
	if sortBy == "" {
		sortBy = BySubmitted
	}
	if pageSize <= 0 {
		pageSize = c.pageSize()
	}
	pageSize = min(pageSize, MaxPageSize)
	seen := map[string]bool{}
	total := 0
	for start := 0; ; {
		params := url.Values{
			"search_query": {query},
			"sortBy":       {sortBy},
			"sortOrder":    {"descending"},
			"start":        {strconv.Itoa(start)},
			"max_results":  {strconv.Itoa(pageSize)},
		}
		first := start == 0
		f, err := c.query(ctx, params, func(f *Feed) bool { return f.emptyButMore(start) })
		if err != nil {
			return total, fmt.Errorf("search arxiv for %q (start %d): %w", query, start, err)
		}
		if first {
			total = f.TotalResults
		}
		for _, e := range f.Entries {
			if seen[e.ID] {
				continue
			}
			seen[e.ID] = true
			if !fn(e) {
				return total, nil
			}
		}
		if f.Read() == 0 {
			return total, nil
		}
		start += f.Read()
		if start >= f.TotalResults {
			return total, nil
		}
	}
}
