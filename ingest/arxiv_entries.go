package ingest

import (
	"context"

	"github.com/papers-cli/papers/ingest/arxiv"
)

// ArxivEntries ingests arXiv entries the caller already fetched (e.g. the
// new and revised papers of a followed topic), in the given order, exactly
// as ArxivQuery ingests its search results: papers held at the same version
// are reported unchanged without a download, newer versions replace older.
func (in *Ingester) ArxivEntries(ctx context.Context, entries []arxiv.Entry) (*Report, error) {
	return in.ingestEntries(ctx, in.newRun(), entries)
}
