package ingest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
	"unicode"

	"golang.org/x/text/unicode/norm"

	"github.com/papers-cli/papers/ingest/crossref"
	"github.com/papers-cli/papers/internal/doi"
	"github.com/papers-cli/papers/internal/people"
	"github.com/papers-cli/papers/internal/textkit"
	"github.com/papers-cli/papers/store"
)

// Crossref is what ingest needs of the Crossref client.
type Crossref interface {
	Work(ctx context.Context, doi string) (*crossref.Work, error)
	Search(ctx context.Context, q crossref.Query) ([]crossref.Work, error)
}

// ErrCrossref is wrapped by the error of a run stopped because Crossref
// could not be asked (the network, a 5xx that outlasted the retries).
var ErrCrossref = errors.New("Crossref could not be asked")

// FullText is what ingest needs to fetch a DOI's open-access PDF (see
// package fulltext).
type FullText interface {
	FindPDF(ctx context.Context, doi string, deposited []string) (string, error)
	Download(ctx context.Context, url, path string) (int64, error)
}

// MatchSimilarity is the least similarity (Dice's coefficient of the two
// titles' words, 0 to 1) at which Crossref's best answer to a title search
// is taken as the local PDF's paper; its first author must also share the
// PDF's first author's family name when both are known.
const MatchSimilarity = 0.85

// DOIs ingests papers by DOI (bare, "doi:", doi.org URLs): Crossref's
// record of each (title, authors, date, venue, type, volume, issue, pages,
// publisher, abstract when Crossref has it), joined with what the library
// holds of the same DOI; with DOIPDFs, also the text of its open-access
// PDF (the link Crossref lists, else the landing page's citation_pdf_url),
// and a paper whose PDF cannot be had keeps its record and abstract, with
// a note. arXiv's DOIs are the arXiv paper (see Classify). A DOI Crossref does not know fails alone; a look-up that
// cannot reach Crossref stops the run with its error.
func (in *Ingester) DOIs(ctx context.Context, refs []string) (*Report, error) {
	r := in.newRun()
	var dois []string
	seen := map[string]bool{}
	for i, ref := range refs {
		d, ok := doi.Parse(ref)
		switch {
		case !ok:
			r.fail(i, ref, fmt.Errorf("not a DOI (a DOI reads 10.NNNN/suffix)"), false)
		case !seen[d]:
			seen[d] = true
			dois = append(dois, d)
		}
	}
	r.emit(Event{Kind: Queued, N: len(dois)})
	base := len(refs)
	for i, d := range dois {
		pos := base + i
		held, err := in.Lib.FindByIdentifiers(ctx, []store.Identifier{{Kind: store.IDDOI, Value: d}})
		if err != nil {
			return r.report(), err
		}
		wantText := in.DOIPDFs && in.FullText != nil && !in.AbstractsOnly
		if len(held) > 0 && hasCrossref(held[0]) && (held[0].Pages > 0 || !wantText) {
			r.record(pos, outcome{id: held[0].ID, result: store.Unchanged, stored: true})
			r.emit(Event{Kind: Stored, Item: held[0].ID, Result: store.Unchanged})
			continue
		}
		if in.Crossref == nil {
			return r.report(), errors.New("no Crossref client: DOIs cannot be looked up")
		}
		w, err := in.Crossref.Work(ctx, d)
		switch {
		case isCancel(ctx, err):
			return r.report(), err
		case errors.Is(err, crossref.ErrNotFound):
			r.fail(pos, d, err, false)
			continue
		case err != nil:
			err = fmt.Errorf("%w: %w", ErrCrossref, err)
			r.lost(pos, d, err)
			return r.report(), err
		}
		c := candidate{pos: pos, item: d, paper: paperFromWork(w)}
		if wantText && (len(held) == 0 || held[0].Pages == 0) {
			if err := in.doiText(ctx, r, w, &c); err != nil {
				return r.report(), err
			}
		}
		if _, err := r.embedAndPut(ctx, c, true); err != nil {
			if err := r.itemErr(ctx, pos, d, err); err != nil {
				return r.report(), err
			}
		}
	}
	return r.report(), nil
}

// doiText gives c the body of the DOI's open-access PDF, downloaded into
// the PDF cache unless it is there. No PDF to be had is a note (the paper
// keeps its abstract); one that fails to download or read is reported
// with the abstract kept. Only a cancellation is returned.
func (in *Ingester) doiText(ctx context.Context, r *run, w *crossref.Work, c *candidate) error {
	d := c.paper.DOI
	var links []string
	if u := w.PDF(); u != "" {
		links = append(links, u)
	}
	u, err := in.FullText.FindPDF(ctx, d, links)
	if isCancel(ctx, err) {
		return err
	}
	if err != nil {
		r.emit(Event{Kind: Note, Item: d, Msg: err.Error() + ": the record and its abstract are kept"})
		return nil
	}
	path := filepath.Join(in.CacheDir, "doi_"+strings.NewReplacer("/", "_", ":", "_", "<", "_", ">", "_", ";", "_").Replace(d)+".pdf")
	if _, statErr := os.Stat(path); statErr != nil {
		var n int64
		if n, err = in.FullText.Download(ctx, u, path); err == nil {
			r.emit(Event{Kind: Downloaded, Item: d, Bytes: n})
		}
	}
	if err == nil {
		var hash string
		if hash, err = store.HashFile(path); err == nil {
			c.paper.ContentHash = hash
			if in.holdsText(ctx, hash) {
				return nil // the library holds this file's text: it joins
			}
			var body []store.Chunk
			var pages int
			if body, pages, err = in.extract(ctx, r, c.paper.ID, path); err == nil {
				c.chunks, c.body, c.pages, c.paper.Pages = body, true, pages, pages
				return nil
			}
		}
	}
	if isCancel(ctx, err) {
		return err
	}
	c.paper.TextError, c.paper.ContentHash = err.Error(), ""
	r.fail(c.pos, d, err, true)
	return nil
}

// hasCrossref says whether a paper's record holds Crossref's.
func hasCrossref(p store.Paper) bool {
	if p.Source == "crossref" {
		return true
	}
	for _, s := range p.MetadataSource {
		if s == "crossref" {
			return true
		}
	}
	return false
}

// paperFromWork is Crossref's record as a paper (source "crossref"), keyed
// "doi:<doi>".
func paperFromWork(w *crossref.Work) store.Paper {
	d := doi.Normalize(w.DOI)
	p := store.Paper{
		ID: "doi:" + d, Source: "crossref", DOI: d, URL: "https://doi.org/" + d,
		Title: w.Title(), Authors: w.Authors(), Abstract: w.Abstract(),
		Type: w.CSLType(), Venue: w.Container(), Volume: strings.TrimSpace(w.Volume), Issue: strings.TrimSpace(w.Issue),
		PageRange: w.Pages(), Publisher: crossref.Clean(w.Publisher),
	}
	if (p.Type == "thesis" || p.Type == "report") && len(w.Institution) > 0 {
		p.Publisher = crossref.Clean(w.Institution[0].Name) // the university, not its library
	}
	if date := w.Date().String(); date != "" {
		if t, ok := issuedTime(date); ok {
			p.Published, p.Issued = t, date
		}
	}
	return p
}

// crossrefWant is a local PDF of the run to fill from Crossref: by its DOI,
// or by a search for its title and first author.
type crossrefWant struct {
	pos           int
	id, hash, doi string
	title         string
	author        string // the first author's name as the PDF gives it
}

// CrossrefPending says whether p is a local PDF's paper that Crossref may
// fill in and was not asked about: its record is the file's own, it has a
// DOI (not arXiv's), or neither a DOI nor an arXiv id but a title to
// search by, and no verdict of Crossref's is recorded for it (unless
// RetryFailed).
func (in *Ingester) CrossrefPending(p store.Paper) bool {
	if hasCrossref(p) || p.Source != "pdf" {
		return false
	}
	if p.DOI == "" && (p.ArxivID != "" || strings.TrimSpace(p.Title) == "" || p.MetadataSource["title"] == "pdf:file") {
		return false // an arXiv paper, or a file whose title is its name: nothing to search by
	}
	_, asked := in.crossrefVerdict(p.ID)
	return !asked || in.RetryFailed
}

// wantCrossref queues p, a local PDF's paper just stored (or held), for the
// run's Crossref look-ups if its record is the file's own: one with a DOI
// (not arXiv's) is looked up by it, one with neither a DOI nor an arXiv id
// is searched for by title. Papers Crossref already answered for (a
// verdict recorded beside the PDF cache) are not asked again, unless
// RetryFailed.
func (r *run) wantCrossref(pos int, p store.Paper) bool {
	if r.in.Crossref == nil || !r.in.CrossrefPending(p) {
		return false
	}
	w := crossrefWant{pos: pos, id: p.ID, hash: p.ContentHash, doi: p.DOI, title: p.Title}
	if len(p.Authors) > 0 {
		w.author = p.Authors[0]
	}
	r.mu.Lock()
	r.cwants = append(r.cwants, w)
	r.mu.Unlock()
	return true
}

// enrichCrossref looks up the local PDFs the run queued (wantCrossref) and
// merges Crossref's record into each, which then outranks what the file
// says of itself (see sourceRank). A title search is taken only when its
// best answer's title is MatchSimilarity alike and its first author
// agrees; otherwise a note says what Crossref offered and the file's
// record is kept. Crossref out of reach is a warning: the papers keep the
// file's record, and papers update (or ingesting them again) fills it in.
func (in *Ingester) enrichCrossref(ctx context.Context, r *run) error {
	r.mu.Lock()
	wants := r.cwants
	r.cwants = nil
	r.mu.Unlock()
	for i, w := range wants {
		work, verdict, err := in.lookUp(ctx, w)
		switch {
		case isCancel(ctx, err):
			return err
		case err != nil:
			left := len(wants) - i
			r.emit(Event{Kind: Warning, Msg: fmt.Sprintf("Crossref could not be reached (%v): %d local %s keep the record of their PDF; papers update (or ingesting them again) fills it in",
				err, left, textkit.Plural(left, "PDF", "PDFs"))})
			return nil
		case work == nil:
			// said whatever the verbosity: the match refused is worth knowing
			r.emit(Event{Kind: Note, Msg: w.id + ": " + verdict + ": the PDF's record is kept"})
			in.noteCrossrefVerdict(w.id, verdict, time.Now())
			continue
		}
		c := candidate{pos: w.pos, item: w.id, paper: paperFromWork(work), upgrade: true}
		if w.hash != "" {
			c.ids = []store.Identifier{{Kind: store.IDSHA256, Value: w.hash}}
		}
		if _, err := r.embedAndPut(ctx, c, true); err != nil {
			if isCancel(ctx, err) || Systemic(err) {
				return err
			}
			r.fail(w.pos, w.id, err, true)
		}
	}
	return nil
}

// lookUp asks Crossref for a local PDF's paper. A nil work with a verdict
// is Crossref's answer that it has no such paper (the DOI is unknown, or
// no search hit is alike enough); an error is a failure to ask.
func (in *Ingester) lookUp(ctx context.Context, w crossrefWant) (*crossref.Work, string, error) {
	if w.doi != "" {
		work, err := in.Crossref.Work(ctx, w.doi)
		if errors.Is(err, crossref.ErrNotFound) {
			return nil, err.Error(), nil
		}
		return work, "", err
	}
	q := crossref.Query{Bibliographic: w.title, Rows: 3}
	if w.author != "" {
		q.Bibliographic += " " + people.Parse(w.author).Family
	}
	hits, err := in.Crossref.Search(ctx, q)
	if err != nil || len(hits) == 0 {
		return nil, fmt.Sprintf("Crossref has no paper titled %q", w.title), err
	}
	best, sim := &hits[0], titleSimilarity(w.title, hits[0].Title())
	for k := 1; k < len(hits); k++ {
		if s := titleSimilarity(w.title, hits[k].Title()); s > sim {
			best, sim = &hits[k], s
		}
	}
	if sim < MatchSimilarity {
		return nil, fmt.Sprintf("Crossref's nearest paper to %q is %q (%s), title similarity %.2f below %.2f", w.title, best.Title(), best.DOI, sim, MatchSimilarity), nil
	}
	if w.author != "" && len(best.Authors()) > 0 && !sameFamily(w.author, best.Authors()[0]) {
		return nil, fmt.Sprintf("Crossref's %q (%s) is by %s, not %s", best.Title(), best.DOI, best.Authors()[0], w.author), nil
	}
	return best, "", nil
}

// FillCrossref brings Crossref's record to the local PDFs of the library
// that still hold only what the file says of itself and that Crossref was
// never asked about (stored offline): by DOI, or by title search, as an
// ingest does. The report's Updated lists the papers that got Crossref's
// record, Unchanged those that did not; Crossref out of reach is a
// Warning event.
func (in *Ingester) FillCrossref(ctx context.Context) (*Report, error) {
	r := in.newRun()
	if in.Crossref == nil {
		return r.report(), nil
	}
	ps, err := in.Lib.PapersFrom(ctx, "pdf")
	if err != nil {
		return nil, err
	}
	for i, p := range ps {
		if r.wantCrossref(i, p) {
			r.record(i, outcome{id: p.ID, result: store.Unchanged, stored: true})
		}
	}
	err = in.enrichCrossref(ctx, r)
	return r.report(), err
}

// titleSimilarity is Dice's coefficient of two titles' word sets: 1 for
// the same words (case, accents and punctuation aside), 0 for none shared.
func titleSimilarity(a, b string) float64 {
	wa, wb := titleWords(a), titleWords(b)
	if len(wa) == 0 || len(wb) == 0 {
		return 0
	}
	common := 0
	for w := range wa {
		if wb[w] {
			common++
		}
	}
	return 2 * float64(common) / float64(len(wa)+len(wb))
}

// fold lower-cases s and drops its accents.
func fold(s string) string {
	var b strings.Builder
	for _, r := range norm.NFKD.String(s) {
		if !unicode.Is(unicode.Mn, r) {
			b.WriteRune(unicode.ToLower(r))
		}
	}
	return b.String()
}

// sameFamily says whether two names share their family name.
func sameFamily(a, b string) bool {
	fa, fb := fold(people.Parse(a).Family), fold(people.Parse(b).Family)
	return fa != "" && (fa == fb || strings.Contains(fb, fa) || strings.Contains(fa, fb))
}

// A local PDF Crossref has no record of is remembered beside the PDF cache
// (<paper id>.crossref.json), so that papers update does not ask again
// for it every time; ingesting it with --retry-failed asks anew.

type crossrefVerdict struct {
	Asked   time.Time `json:"asked"`
	Verdict string    `json:"verdict"`
}

func (in *Ingester) verdictFile(id string) string {
	return filepath.Join(in.CacheDir, strings.NewReplacer("/", "_", ":", "_").Replace(id)+".crossref.json")
}

func (in *Ingester) crossrefVerdict(id string) (crossrefVerdict, bool) {
	var v crossrefVerdict
	if in.CacheDir == "" {
		return v, false
	}
	b, err := os.ReadFile(in.verdictFile(id))
	return v, err == nil && json.Unmarshal(b, &v) == nil
}

// noteCrossrefVerdict records Crossref's answer; best effort, as a lost
// record only means asking again.
func (in *Ingester) noteCrossrefVerdict(id, verdict string, now time.Time) {
	if in.CacheDir == "" || os.MkdirAll(in.CacheDir, 0o700) != nil {
		return
	}
	b, _ := json.Marshal(crossrefVerdict{Asked: now.UTC(), Verdict: verdict})
	path := in.verdictFile(id)
	tmp := path + ".tmp"
	if os.WriteFile(tmp, b, 0o600) == nil && os.Rename(tmp, path) == nil {
		return
	}
	os.Remove(tmp)
}
