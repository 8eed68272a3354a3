package ingest

import (
	"context"
	"fmt"
	"strings"

	"github.com/papers-cli/papers/ingest/arxiv"
	"github.com/papers-cli/papers/internal/textkit"
	"github.com/papers-cli/papers/store"
)

// Local PDFs that carry an arXiv id are the arXiv paper: once a run has
// stored them (keyed by the id, with what the file says), one id_list
// request for all of them, paced as every arXiv request is, brings arXiv's
// record (title, authors, categories, dates), which replaces the file's.
// Offline, they keep the file's record and a later run fills it in: an
// ingest of the same files, or FillArxiv (papers update).

// arxivWant is a paper of the run with an arXiv id but not arXiv's record.
type arxivWant struct {
	pos     int
	id      string
	version int
	title   string
	// mention: the id came from a mention in the text rather than the
	// stamp, so arXiv's title must agree with the file's before its
	// record is taken.
	mention bool
}

// wantArxiv queues p for the run's arXiv look-up if it needs one: it has
// an arXiv id, and its record (or its version) is not arXiv's.
func (r *run) wantArxiv(pos int, p store.Paper) {
	if !needsArxiv(p) {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.wants = append(r.wants, arxivWant{pos: pos, id: p.ArxivID, version: p.Version, title: p.Title,
		mention: strings.HasPrefix(p.MetadataSource["arxiv_id"], "pdf:text")})
}

// needsArxiv says whether p has an arXiv id but not arXiv's record (as
// store.Library.WithoutArxivRecord selects).
func needsArxiv(p store.Paper) bool {
	return p.ArxivID != "" && (p.Source != "arxiv" || p.MetadataSource["version"] != "")
}

// FillArxiv brings arXiv's record to the papers of the library that carry
// an arXiv id but not arXiv's record (local PDFs and Zotero items stored
// while arXiv was out of reach): one id_list look-up for all of them (100
// ids a request), paced as every arXiv request is, each merged as a run's
// enrichment merges it. The report's Updated lists the papers that got
// arXiv's record, Unchanged those that did not (arXiv does not know the
// id, or its title is not the file's); a failed look-up is a Warning event
// and leaves every paper as it was. The error is a cancellation or a
// failure of the library.
func (in *Ingester) FillArxiv(ctx context.Context) (*Report, error) {
	ps, err := in.Lib.WithoutArxivRecord(ctx)
	if err != nil {
		return nil, err
	}
	r := in.newRun()
	for i, p := range ps {
		r.record(i, outcome{id: p.ID, result: store.Unchanged, stored: true})
		r.wantArxiv(i, p)
	}
	err = in.enrichArxiv(ctx, r)
	return r.report(), err
}

// enrichArxiv looks up the papers the run queued (wantArxiv) and merges
// arXiv's record into each. A failed look-up is a warning, not a failure:
// the papers stay as they are.
func (in *Ingester) enrichArxiv(ctx context.Context, r *run) error {
	r.mu.Lock()
	wants := r.wants
	r.wants = nil
	r.mu.Unlock()
	if len(wants) == 0 {
		return nil
	}
	if in.Arxiv == nil {
		r.emit(Event{Kind: Warning, Msg: fmt.Sprintf("%d %s keep the record of their PDF: no arXiv client", len(wants), textkit.Plural(len(wants), "paper", "papers"))})
		return nil
	}
	var ids []string
	seen := map[string]bool{}
	for _, w := range wants {
		idv := w.id
		if w.version > 0 {
			idv = fmt.Sprintf("%sv%d", w.id, w.version)
		}
		if !seen[idv] {
			seen[idv] = true
			ids = append(ids, idv)
		}
	}
	entries, err := in.Arxiv.Lookup(ctx, ids)
	if err != nil {
		if isCancel(ctx, err) {
			return err
		}
		r.emit(Event{Kind: Warning, Msg: fmt.Sprintf("arXiv could not be reached (%v): %d %s keep the record of their PDF, keyed by their arXiv id; papers update (or ingesting them again) fills it in",
			err, len(wants), textkit.Plural(len(wants), "paper", "papers"))})
		return nil
	}
	byID := map[string]arxiv.Entry{}
	for _, e := range entries {
		byID[e.ID] = e
	}
	for _, w := range wants {
		e, ok := byID[w.id]
		if !ok {
			r.emit(Event{Kind: Note, Item: w.id, Msg: "arXiv does not know this id (read from the PDF): the PDF's record is kept"})
			continue
		}
		if w.mention && !sameTitle(e.Title, w.title) {
			r.emit(Event{Kind: Warning, Item: w.id, Msg: fmt.Sprintf("arXiv's %s is %q, not this PDF's %q: the PDF's record is kept", w.id, e.Title, w.title)})
			continue
		}
		c := candidate{pos: w.pos, item: w.id, paper: paperFromEntry(e), upgrade: true}
		if _, err := r.embedAndPut(ctx, c, true); err != nil {
			if isCancel(ctx, err) || Systemic(err) {
				return err
			}
			r.fail(w.pos, w.id, err, true) // the paper stays as the run stored it
		}
	}
	return nil
}

// sameTitle says whether two titles name one paper: the same words, give
// or take case, punctuation and a few.
func sameTitle(a, b string) bool {
	wa, wb := titleWords(a), titleWords(b)
	if len(wa) == 0 || len(wb) == 0 {
		return false
	}
	common := 0
	for w := range wa {
		if wb[w] {
			common++
		}
	}
	return common*5 >= 4*min(len(wa), len(wb))
}

// titleWords are the words of a title, lower case, accents dropped.
func titleWords(s string) map[string]bool {
	out := map[string]bool{}
	for _, w := range textkit.Words(fold(s)) {
		out[w] = true
	}
	return out
}
