package crossref_test

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/papers-cli/papers/ingest/crossref"
	"github.com/papers-cli/papers/ingest/crossref/crossreftest"
)

var markup = regexp.MustCompile(`</?[a-z]+[:>]|&[a-z]+;`)

func newClient(s *crossreftest.Server) *crossref.Client {
	return &crossref.Client{HTTPClient: s.Client(), BaseURL: s.URL, Mailto: "reader@example.org", Delay: -1, Backoff: time.Millisecond}
}

// Every recorded DOI comes back with the fields a citation needs, clean.
func TestWorkRecorded(t *testing.T) {
	s := crossreftest.NewServer(t, crossreftest.Options{})
	c := newClient(s)
	ctx := context.Background()
	for _, d := range s.DOIs() {
		w, err := c.Work(ctx, d)
		if err != nil {
			t.Errorf("%s: %v", d, err)
			continue
		}
		if !strings.EqualFold(w.DOI, d) || w.Type == "" {
			t.Errorf("%s: DOI %q type %q", d, w.DOI, w.Type)
		}
		for _, f := range []string{w.Title(), w.Container(), w.Abstract(), strings.Join(w.Authors(), "; ")} {
			if markup.MatchString(f) || strings.Contains(f, "&amp;") || strings.Contains(f, "  ") {
				t.Errorf("%s: markup left in %q", d, f)
			}
		}
		if w.Title() == "" && w.Type != "component" && w.Type != "journal-issue" {
			t.Errorf("%s (%s): no title", d, w.Type)
		}
	}
	for _, c2 := range []struct {
		doi, title, container, date, pages string
		authors                            []string
	}{
		{"10.1371/journal.pone.0033693", "Methylphenidate Exposure Induces Dopamine Neuron Loss and Activation of Microglia in the Basal Ganglia of Mice", "PLoS ONE", "2012-03-21", "e33693", nil},
		{"10.1136/jclinpath-2020-206745", "Construction of a reference material panel for detecting KRAS/NRAS/EGFR/BRAF/MET mutations in plasma ctDNA", "Journal of Clinical Pathology", "2020-08-17", "", nil},
		{"10.1101/2024.04.01.587366", "", "bioRxiv", "2024-04-01", "", nil},
		{"10.1103/physrevlett.120.117701", "", "Physical Review Letters", "2018-03-13", "117701", nil},
		{"10.1109/icdcsw.2003.1203662", "", "23rd International Conference on Distributed Computing Systems Workshops, 2003. Proceedings.", "", "", nil},
		{"10.7600/jspfsm.56.60", "自律神経・循環器応答", "Japanese Journal of Physical Fitness and Sports Medicine", "2007", "", nil},
		{"10.1007/s40278-023-41815-2", "Convalescent-anti-sars-cov-2-plasma/immune-globulin: Fever and mild decrease in baseline oxygen saturation following off-label use: 3 case reports", "Reactions Weekly", "2023-06-24", "", nil},
		{"10.2903/j.efsa.2018.5239", "", "", "2018-04", "", []string{"EFSA Panel on Food Additives and Nutrient Sources added to Food (ANS)", "Maged Younes"}},
		{"10.3892/ijo_00000353", "", "", "", "", []string{"Stravopodis"}},
	} {
		w, err := c.Work(ctx, c2.doi)
		if err != nil {
			t.Errorf("%s: %v", c2.doi, err)
			continue
		}
		if c2.title != "" && w.Title() != c2.title {
			t.Errorf("%s: title %q, want %q", c2.doi, w.Title(), c2.title)
		}
		if c2.container != "" && w.Container() != c2.container {
			t.Errorf("%s: container %q, want %q", c2.doi, w.Container(), c2.container)
		}
		if w.Date().String() != c2.date && (c2.date != "" || c2.container != "") {
			t.Errorf("%s: date %q, want %q", c2.doi, w.Date(), c2.date)
		}
		if c2.pages != "" && w.Pages() != c2.pages {
			t.Errorf("%s: pages %q, want %q", c2.doi, w.Pages(), c2.pages)
		}
		for i, a := range c2.authors {
			if as := w.Authors(); len(as) <= i || as[i] != a {
				t.Errorf("%s: authors %q, want %q first", c2.doi, as, c2.authors)
				break
			}
		}
	}
	w, err := c.Work(ctx, "10.5194/cp-2020-95")
	if err != nil || !strings.Contains(w.Title(), "δ13C Decline") || !strings.HasPrefix(w.Abstract(), "During the early last glacial termination") {
		t.Errorf("double-escaped markup: %v %q / %.60q", err, w.Title(), w.Abstract())
	}
	w, err = c.Work(ctx, "10.1136/jclinpath-2020-206745")
	if err != nil || !strings.HasPrefix(w.Abstract(), "Background: The absence of high-quality") || !strings.Contains(w.Abstract(), "\n\nMethods: ") {
		t.Errorf("JATS sections: %v %.200q", err, w.Abstract())
	}
	// a ChemRxiv DOI without its version: Crossref redirects to the versioned one
	if w, err := c.Work(ctx, "10.26434/chemrxiv.5406907"); err != nil || w.DOI != "10.26434/chemrxiv.5406907.v5" {
		t.Errorf("redirect: %v %+v", err, w)
	}
}

// Unknown DOIs and arXiv's DOIs (DataCite's, not Crossref's) are a clear
// not-found; the polite pool's mailto rides on every request.
func TestWorkNotFound(t *testing.T) {
	s := crossreftest.NewServer(t, crossreftest.Options{})
	c := newClient(s)
	for _, d := range []string{"10.1371/notarealdoi", "10.48550/arXiv.2312.07559"} {
		_, err := c.Work(context.Background(), d)
		var nf *crossref.NotFoundError
		if !errors.Is(err, crossref.ErrNotFound) || !errors.As(err, &nf) || nf.DOI != d {
			t.Errorf("%s: %v, want not found", d, err)
		}
		if !strings.Contains(err.Error(), "Crossref does not know the DOI "+d) {
			t.Errorf("%s: %q does not say what went wrong", d, err)
		}
	}
	for _, r := range s.Requests() {
		q, _ := url.ParseQuery(r.Query)
		if q.Get("mailto") != "reader@example.org" || !strings.Contains(r.UserAgent, "mailto:reader@example.org") {
			t.Errorf("request %s?%s (User-Agent %q) is not in the polite pool", r.Path, r.Query, r.UserAgent)
		}
	}
}

// 429 and 503 are retried, honouring Retry-After; past the tries the error
// says so.
func TestWorkRetries(t *testing.T) {
	s := crossreftest.NewServer(t, crossreftest.Options{TooManyRequests: 2, RetryAfter: "0", ServiceUnavailable: 1})
	c := newClient(s)
	var notes []string
	c.Logf = func(f string, a ...any) { notes = append(notes, f) }
	if _, err := c.Work(context.Background(), "10.1371/journal.pone.0033693"); err != nil {
		t.Fatalf("after 2 429s and a 503: %v", err)
	}
	if n := len(s.Requests()); n != 4 || len(notes) != 3 {
		t.Errorf("%d requests, %d retry notes; want 4 and 3", n, len(notes))
	}
	s = crossreftest.NewServer(t, crossreftest.Options{ServiceUnavailable: 10})
	c = newClient(s)
	_, err := c.Work(context.Background(), "10.1371/journal.pone.0033693")
	var se *crossref.StatusError
	if !errors.As(err, &se) || se.Code != http.StatusServiceUnavailable || !strings.Contains(err.Error(), "gave up after 4 tries") {
		t.Errorf("a Crossref down for good: %v", err)
	}
	// Retry-After is honoured: a 429 asking for a minute stops at the
	// caller's deadline, not at the client's backoff.
	s = crossreftest.NewServer(t, crossreftest.Options{TooManyRequests: 1, RetryAfter: "60"})
	c = newClient(s)
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if _, err := c.Work(ctx, "10.1371/journal.pone.0033693"); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Retry-After: 60 under a 50 ms deadline: %v", err)
	}
}

// A bibliographic search returns Crossref's hits, best first, right or
// wrong: the caller judges them.
func TestSearch(t *testing.T) {
	s := crossreftest.NewServer(t, crossreftest.Options{})
	c := newClient(s)
	ctx := context.Background()
	ws, err := c.Search(ctx, crossref.Query{Bibliographic: "Augmenting large language models with chemistry tools", Author: "Andres M. Bran"})
	if err != nil || len(ws) == 0 || ws[0].DOI != "10.1038/s42256-024-00832-8" {
		t.Fatalf("search: %v %+v", err, ws)
	}
	ws, err = c.Search(ctx, crossref.Query{Bibliographic: "PaperQA: Retrieval-Augmented Generative Agent for Scientific Research"})
	if err != nil || len(ws) == 0 || strings.Contains(ws[0].Title(), "PaperQA") {
		t.Fatalf("a paper Crossref does not hold: %v, top hit %q", err, ws[0].Title())
	}
	q, _ := url.ParseQuery(s.Requests()[0].Query)
	if q.Get("query.bibliographic") == "" || q.Get("query.author") != "Andres M. Bran" || q.Get("rows") == "" {
		t.Errorf("search request: %v", q)
	}
}
