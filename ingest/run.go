package ingest

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"

	"github.com/papers-cli/papers/ingest/arxiv"
	"github.com/papers-cli/papers/internal/doi"
	"github.com/papers-cli/papers/internal/lazyre"
)

// idShaped matches arguments meant as arXiv ids even when malformed:
// digits and dots ("2501.1294"), "arXiv:..." and arxiv.org URLs.
var idShaped = lazyre.New(`^(?i:[0-9][0-9.]*(v[0-9]*)?|arxiv:.*|https?://(www\.|export\.)?arxiv\.org/.*)$`)

// Classify sorts the arguments of `papers ingest` into BibTeX files, local
// paths, DOIs, arXiv ids and a query: a name ending in .bib is a BibTeX
// file; an existing file or directory is a path; a DOI
// (bare, "doi:", a doi.org URL) is a DOI, except arXiv's own
// (10.48550/arXiv.ID), which is that arXiv id; an arXiv id or URL, or what
// looks meant as one, is an id; a name ending in .pdf or holding a path
// separator (and no colon) is a path; the other arguments are one search
// query, joined by spaces.
func Classify(args []string) Sources {
	var s Sources
	var q []string
	for _, a := range args {
		if strings.EqualFold(filepath.Ext(a), ".bib") {
			s.Bibs = append(s.Bibs, a) // one that does not exist is reported unreadable
			continue
		}
		if _, err := os.Stat(a); err == nil {
			s.PDFs = append(s.PDFs, a)
			continue
		}
		if d, ok := doi.Parse(a); ok {
			if id := doi.Arxiv(d); id != "" {
				s.IDs = append(s.IDs, id)
			} else {
				s.DOIs = append(s.DOIs, d)
			}
			continue
		}
		if arxiv.LooksLikeID(a) || idShaped.MatchString(a) {
			s.IDs = append(s.IDs, a) // a malformed id is reported as such, not searched for
			continue
		}
		if strings.HasSuffix(strings.ToLower(a), ".pdf") || strings.ContainsRune(a, filepath.Separator) && !strings.Contains(a, ":") {
			s.PDFs = append(s.PDFs, a) // a path that does not exist: reported as unreadable
			continue
		}
		q = append(q, a)
	}
	s.Query = strings.Join(q, " ")
	return s
}

// Run ingests the sources in order: local PDFs, corpora, the Zotero
// library, BibTeX files, DOIs (they need in.Crossref), arXiv ids, the
// arXiv query (the last two need in.Arxiv). It returns the report of everything that ran, merged. An
// error that stops a source (the network, the embedder, a cancelled
// context) stops the run there and is returned with the report so far; a
// corpus that cannot be read is one failed item of the report, and the run
// goes on.
func (in *Ingester) Run(ctx context.Context, src Sources) (*Report, error) {
	total := newReport()
	step := func(rep *Report, err error) error {
		if rep != nil {
			total.Merge(rep)
		}
		return err
	}
	if len(src.PDFs) > 0 {
		if err := step(in.Paths(ctx, src.PDFs)); err != nil {
			return total, err
		}
	}
	for _, f := range src.Corpora {
		rep, err := in.JSONL(ctx, f)
		if errors.Is(err, ErrCorpusUnreadable) {
			err = nil // one argument's failure, in the report: the run goes on
		}
		if err := step(rep, err); err != nil {
			return total, err
		}
	}
	if src.Zotero != "" {
		if err := step(in.Zotero(ctx, src.Zotero)); err != nil {
			return total, err
		}
	}
	for _, f := range src.Bibs {
		rep, err := in.BibTeX(ctx, f)
		if errors.Is(err, ErrBibUnreadable) {
			err = nil // one argument's failure, in the report: the run goes on
		}
		if err := step(rep, err); err != nil {
			return total, err
		}
	}
	if len(src.DOIs) > 0 {
		if err := step(in.DOIs(ctx, src.DOIs)); err != nil {
			return total, err
		}
	}
	if len(src.IDs) > 0 {
		if err := step(in.ArxivIDs(ctx, src.IDs)); err != nil {
			return total, err
		}
	}
	if src.Query != "" {
		if err := step(in.ArxivQuery(ctx, src.Query, src.Max)); err != nil {
			return total, err
		}
	}
	return total, nil
}
