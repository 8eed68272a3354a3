package topic

import (
	"context"

	"github.com/papers-cli/papers/ingest"
	"github.com/papers-cli/papers/store"
)

// Summary is what an update of several topics did (the --json document of
// `papers update`): the papers of all of them, each once however many
// topics hold it, and each topic's result.
type Summary struct {
	Added     []string         `json:"added"`
	Updated   []string         `json:"updated"`
	Unchanged []string         `json:"unchanged"`
	Failed    []ingest.Failure `json:"failed"`
	Topics    []TopicResult    `json:"topics"`
	// ArxivFilled are the papers held with an arXiv id but not arXiv's
	// record (local PDFs, Zotero items stored offline) that got it in this
	// run (ingest.Ingester.FillArxiv); they are in Updated too.
	ArxivFilled []string `json:"arxiv_filled"`
	// CrossrefFilled are the local PDFs held with only their own record
	// (stored offline) that got Crossref's in this run
	// (ingest.Ingester.FillCrossref); they are in Updated too.
	CrossrefFilled []string `json:"crossref_filled"`
	// FillErr is why that step stopped (a cancellation or the library
	// failing), nil when it ran; a look-up arXiv failed is a warning.
	FillErr error   `json:"-"`
	Elapsed float64 `json:"elapsed_s"`
}

// TopicResult is one topic of a Summary: what its update did, and why it
// failed if it did.
type TopicResult struct {
	*UpdateResult
	Err   error  `json:"-"`
	Error string `json:"error,omitempty"` // Err's message
}

// UpdateAll updates the topics one after another with Update (o.Now, when
// zero, is the time each topic's update starts). A topic whose update fails
// is in the summary with its error, and the others go on; a cancelled
// context stops the run, and the topic it was in is left out of Topics (its
// papers stored so far are in the summary's lists). Then the papers held
// with an arXiv id but not arXiv's record get it (ingest.Ingester.FillArxiv:
// one look-up for all), so a folder of PDFs ingested offline becomes the
// arXiv papers it is; then local PDFs stored offline get Crossref's record
// (ingest.Ingester.FillCrossref). Topics may be empty for those steps alone.
func UpdateAll(ctx context.Context, lib *store.Library, ax Arxiv, in *ingest.Ingester, topics []store.Topic, o UpdateOptions) *Summary {
	sum := &Summary{Added: []string{}, Updated: []string{}, Unchanged: []string{}, Failed: []ingest.Failure{}, Topics: []TopicResult{}, ArxivFilled: []string{}, CrossrefFilled: []string{}}
	for _, tp := range topics {
		res, err := Update(ctx, lib, ax, in, tp, o)
		if res.Report != nil {
			sum.Added = appendNew(sum.Added, res.Report.Added)
			sum.Updated = appendNew(sum.Updated, res.Report.Updated)
			sum.Unchanged = appendNew(sum.Unchanged, res.Report.Unchanged)
			sum.Failed = append(sum.Failed, res.Report.Failed...)
		}
		if err != nil && ctx.Err() != nil {
			break
		}
		tr := TopicResult{UpdateResult: res, Err: err}
		if err != nil {
			tr.Error = err.Error()
		}
		sum.Topics = append(sum.Topics, tr)
	}
	if ctx.Err() != nil {
		return sum
	}
	rep, err := in.FillArxiv(ctx)
	if rep != nil {
		sum.ArxivFilled = appendNew(sum.ArxivFilled, rep.Updated)
		sum.Updated = appendNew(sum.Updated, rep.Updated)
		sum.Failed = append(sum.Failed, rep.Failed...)
	}
	if sum.FillErr = err; err != nil || ctx.Err() != nil {
		return sum
	}
	rep, err = in.FillCrossref(ctx)
	if rep != nil {
		sum.CrossrefFilled = appendNew(sum.CrossrefFilled, rep.Updated)
		sum.Updated = appendNew(sum.Updated, rep.Updated)
		sum.Failed = append(sum.Failed, rep.Failed...)
	}
	sum.FillErr = err
	return sum
}

// appendNew appends the ids not already in dst (a paper may be in several
// topics updated by one run).
func appendNew(dst, ids []string) []string {
	seen := make(map[string]bool, len(dst))
	for _, id := range dst {
		seen[id] = true
	}
	for _, id := range ids {
		if !seen[id] {
			seen[id] = true
			dst = append(dst, id)
		}
	}
	return dst
}
