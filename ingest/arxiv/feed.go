// Package arxiv is the client of the arXiv API (export.arxiv.org/api/query):
// it builds queries, pages through results, parses both Atom formats arXiv
// has served (per-element namespaces and http links before ~2024, a single
// root declaration and https links since), downloads PDFs, and paces every
// request so that one process never sends arXiv more than one request per
// Delay on one connection.
package arxiv

import (
	"encoding/xml"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// XML namespaces of the arXiv API's Atom feed.
const (
	nsAtom       = "http://www.w3.org/2005/Atom"
	nsArxiv      = "http://arxiv.org/schemas/atom"
	nsOpenSearch = "http://a9.com/-/spec/opensearch/1.1/"
)

// Author is one author of a paper, with the affiliations arXiv lists for
// them (often none).
type Author struct {
	Name         string
	Affiliations []string
}

// Entry is one paper version as the arXiv API describes it.
type Entry struct {
	// ID is the versionless arXiv id: "2501.12948", "astro-ph/0601001".
	// Papers are keyed by it; a newer Version replaces an older one.
	ID string
	// Version is the version this entry describes (1, 2, ...), or 0 if the
	// feed's id carried none.
	Version int
	// Title and Summary have their whitespace collapsed to single spaces
	// (arXiv wraps them over several lines) and are trimmed.
	Title, Summary string
	Authors        []Author
	// Published is the submission time of version 1; Updated that of this
	// version. Both are UTC; zero if absent or malformed.
	Published, Updated time.Time
	// PrimaryCategory is e.g. "cs.CL"; Categories holds it first, then the
	// cross-lists in feed order, without duplicates.
	PrimaryCategory string
	Categories      []string
	// Comment, JournalRef and DOI are arXiv's optional fields, trimmed and
	// whitespace-collapsed; empty when absent.
	Comment, JournalRef, DOI string
	// AbsURL and PDFURL are the links the feed gives (http or https as
	// served). AbsURL falls back to the entry id URL; PDFURL is empty when
	// the feed lists no PDF (e.g. withdrawn versions).
	AbsURL, PDFURL string
}

// IDVersion returns the id with its version, "2501.12948v1", or the bare
// id when the version is unknown.
func (e Entry) IDVersion() string { return idWithVersion(e.ID, e.Version) }

// Feed is one page of API results.
type Feed struct {
	// TotalResults is arXiv's count of all results of the query, not of
	// this page; StartIndex is this page's offset in them.
	TotalResults, StartIndex, ItemsPerPage int
	Entries                                []Entry
	// Skipped says why each entry of the page that could not be read (an
	// id that is not an arXiv id) was left out of Entries.
	Skipped []string
}

// Read is how many entries the page held, Entries and Skipped: what
// paging advances by.
func (f *Feed) Read() int { return len(f.Entries) + len(f.Skipped) }

// emptyButMore reports a page with no entries although totalResults says
// the query has results from start on: arXiv sends such pages under load.
// A page of a query with no results at all (totalResults 0) is believed.
func (f *Feed) emptyButMore(start int) bool { return f.Read() == 0 && start < f.TotalResults }

// APIError is an error arXiv reported as an Atom error feed (an entry
// whose id contains /api/errors), e.g. "incorrect id format for abc".
// Such errors are the request's fault and are never retried.
type APIError struct {
	// Message is arXiv's own wording, from the error entry's summary.
	Message string
}

func (e *APIError) Error() string { return "arxiv api: " + e.Message }

type xmlFeed struct {
	XMLName      xml.Name   `xml:"http://www.w3.org/2005/Atom feed"`
	TotalResults string     `xml:"http://a9.com/-/spec/opensearch/1.1/ totalResults"`
	StartIndex   string     `xml:"http://a9.com/-/spec/opensearch/1.1/ startIndex"`
	ItemsPerPage string     `xml:"http://a9.com/-/spec/opensearch/1.1/ itemsPerPage"`
	Entries      []xmlEntry `xml:"http://www.w3.org/2005/Atom entry"`
}

type xmlEntry struct {
	ID         string      `xml:"http://www.w3.org/2005/Atom id"`
	Title      string      `xml:"http://www.w3.org/2005/Atom title"`
	Summary    string      `xml:"http://www.w3.org/2005/Atom summary"`
	Published  string      `xml:"http://www.w3.org/2005/Atom published"`
	Updated    string      `xml:"http://www.w3.org/2005/Atom updated"`
	Authors    []xmlAuthor `xml:"http://www.w3.org/2005/Atom author"`
	Links      []xmlLink   `xml:"http://www.w3.org/2005/Atom link"`
	Categories []xmlTerm   `xml:"http://www.w3.org/2005/Atom category"`
	Primary    xmlTerm     `xml:"http://arxiv.org/schemas/atom primary_category"`
	Comment    string      `xml:"http://arxiv.org/schemas/atom comment"`
	JournalRef string      `xml:"http://arxiv.org/schemas/atom journal_ref"`
	DOI        string      `xml:"http://arxiv.org/schemas/atom doi"`
}

type xmlAuthor struct {
	Name         string   `xml:"http://www.w3.org/2005/Atom name"`
	Affiliations []string `xml:"http://arxiv.org/schemas/atom affiliation"`
}

type xmlLink struct {
	Href  string `xml:"href,attr"`
	Rel   string `xml:"rel,attr"`
	Type  string `xml:"type,attr"`
	Title string `xml:"title,attr"`
}

type xmlTerm struct {
	Term string `xml:"term,attr"`
}

// ParseFeed parses one arXiv API response body (either Atom format). An
// error feed yields an *APIError; malformed XML yields an error saying so.
// An entry whose id cannot be parsed is left out and listed in Skipped:
// one bad entry must not cost the page (and a followed topic every later
// update). ParseFeed does not close r.
func ParseFeed(r io.Reader) (*Feed, error) {
	var xf xmlFeed
	dec := xml.NewDecoder(r)
	if err := dec.Decode(&xf); err != nil {
		return nil, fmt.Errorf("parse arxiv feed: %w", err)
	}
	for _, xe := range xf.Entries {
		if strings.Contains(xe.ID, "/api/errors") {
			msg := collapse(xe.Summary)
			if msg == "" {
				msg = collapse(xe.ID)
			}
			return nil, &APIError{Message: msg}
		}
	}
	f := &Feed{
		TotalResults: atoi(xf.TotalResults),
		StartIndex:   atoi(xf.StartIndex),
		ItemsPerPage: atoi(xf.ItemsPerPage),
		Entries:      make([]Entry, 0, len(xf.Entries)),
	}
	for i, xe := range xf.Entries {
		e, err := xe.entry()
		if err != nil {
			f.Skipped = append(f.Skipped, fmt.Sprintf("entry %d (%q): %v", i+1, clip(collapse(xe.Title), 80), err))
			continue
		}
		f.Entries = append(f.Entries, e)
	}
	return f, nil
}

func (xe xmlEntry) entry() (Entry, error) {
	rawID := strings.TrimSpace(xe.ID)
	id, version, err := ParseID(rawID)
	if err != nil {
		return Entry{}, err
	}
	e := Entry{
		ID:              id,
		Version:         version,
		Title:           collapse(xe.Title),
		Summary:         collapse(xe.Summary),
		Published:       parseTime(xe.Published),
		Updated:         parseTime(xe.Updated),
		PrimaryCategory: strings.TrimSpace(xe.Primary.Term),
		Comment:         collapse(xe.Comment),
		JournalRef:      collapse(xe.JournalRef),
		DOI:             collapse(xe.DOI),
	}
	for _, a := range xe.Authors {
		au := Author{Name: collapse(a.Name)}
		for _, aff := range a.Affiliations {
			if aff = collapse(aff); aff != "" {
				au.Affiliations = append(au.Affiliations, aff)
			}
		}
		e.Authors = append(e.Authors, au)
	}
	seen := map[string]bool{}
	add := func(c string) {
		if c = strings.TrimSpace(c); c != "" && !seen[c] {
			seen[c] = true
			e.Categories = append(e.Categories, c)
		}
	}
	add(e.PrimaryCategory)
	for _, c := range xe.Categories {
		add(c.Term)
	}
	if e.PrimaryCategory == "" && len(e.Categories) > 0 {
		e.PrimaryCategory = e.Categories[0]
	}
	for _, l := range xe.Links {
		switch {
		case l.Rel == "alternate" && e.AbsURL == "":
			e.AbsURL = strings.TrimSpace(l.Href)
		case (l.Title == "pdf" || l.Type == "application/pdf") && e.PDFURL == "":
			e.PDFURL = strings.TrimSpace(l.Href)
		}
	}
	if e.AbsURL == "" && strings.HasPrefix(rawID, "http") {
		e.AbsURL = rawID
	}
	return e, nil
}

// clip shortens s to at most n bytes at a rune boundary, marking the cut.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "..."
}

// collapse joins s's lines and runs of spaces into single spaces.
func collapse(s string) string { return strings.Join(strings.Fields(s), " ") }

func atoi(s string) int {
	n, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil || n < 0 {
		return 0
	}
	return n
}

func parseTime(s string) time.Time {
	t, err := time.Parse(time.RFC3339, strings.TrimSpace(s))
	if err != nil {
		return time.Time{}
	}
	return t.UTC()
}
