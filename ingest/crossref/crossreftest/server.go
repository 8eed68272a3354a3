// Package crossreftest is a fake Crossref for tests: an httptest server
// that answers with the real responses recorded in
// shared/data/metadata (see its README), byte for byte, with the headers
// Crossref sent (rate limits, content type; never Content-Encoding or
// Content-Length, as the README asks).
//
// What it serves:
//   - GET /works/{doi}: the recorded record of that DOI (raw "/" or
//     "%2F", any case), after a recorded 301 where Crossref redirected
//     (an unversioned ChemRxiv DOI); any other DOI gets Crossref's 404,
//     "Resource not found." as text/plain.
//   - GET /works?query.bibliographic=...: the recorded title search whose
//     query.title is the same title (case, punctuation and a trailing
//     stop ignored), with its top hit, right or wrong, as Crossref gave
//     it; any other query gets the recorded answer to a paper Crossref
//     does not hold (PaperQA's title, whose hits are other papers).
//   - Faults: the first TooManyRequests requests answer 429 with
//     Retry-After, the next ServiceUnavailable 503.
//
// Requests() lists what was asked, with the User-Agent and mailto.
package crossreftest

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"unicode"

	"github.com/papers-cli/papers/ingest/arxiv/arxivtest"
)

// Options configure a Server; the zero value serves the recordings.
type Options struct {
	// DataDir is the shared test data folder; default arxivtest.DataDir.
	DataDir string
	// TooManyRequests: the first N requests answer 429 with Retry-After:
	// RetryAfter (default "0"); then ServiceUnavailable more answer 503.
	TooManyRequests    int
	RetryAfter         string
	ServiceUnavailable int
	// Works maps more DOIs to files holding a /works/{doi} envelope, for
	// records a test makes of its own.
	Works map[string]string
}

// Request is one request the server received.
type Request struct {
	Path, Query, UserAgent string
}

// Server is a running fake Crossref; it stops with the test.
type Server struct {
	*httptest.Server
	opts     Options
	works    map[string]recording // by lower-case DOI
	searches []search
	noHit    recording

	mu       sync.Mutex
	requests []Request
	faults   int
}

type recording struct {
	file    string
	headers map[string]string
	status  int
	loc     string // a redirect's Location
}

type search struct {
	title, author string // query.title (normalised) and query.author
	rec           recording
}

// manifest is the part of shared/data/metadata/manifest.json read here.
type manifest struct {
	Entries []struct {
		File    *string `json:"file"`
		Request struct {
			URL string `json:"url"`
		} `json:"request"`
		Response struct {
			Status  int               `json:"status"`
			Headers map[string]string `json:"headers"`
		} `json:"response"`
	} `json:"entries"`
}

// NewServer starts a fake Crossref from the recordings.
func NewServer(t testing.TB, o Options) *Server {
	t.Helper()
	if o.DataDir == "" {
		o.DataDir = arxivtest.DataDir(t)
	}
	dir := filepath.Join(o.DataDir, "metadata")
	raw, err := os.ReadFile(filepath.Join(dir, "manifest.json"))
	if err != nil {
		t.Fatalf("crossreftest: the recorded Crossref responses are needed (shared/data/metadata, see its README): %v", err)
	}
	var m manifest
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatalf("crossreftest: read %s/manifest.json: %v", dir, err)
	}
	s := &Server{opts: o, works: map[string]recording{}}
	for _, e := range m.Entries {
		u, err := url.Parse(e.Request.URL)
		if err != nil || u.Host != "api.crossref.org" {
			continue
		}
		rec := recording{headers: e.Response.Headers, status: e.Response.Status}
		for k, v := range e.Response.Headers {
			if strings.EqualFold(k, "location") {
				rec.loc = v
			}
		}
		if e.File != nil {
			rec.file = filepath.Join(dir, *e.File)
		}
		switch path := u.EscapedPath(); {
		case strings.HasPrefix(path, "/works/") && !strings.Contains(path, "/transform"):
			d, err := url.PathUnescape(strings.TrimPrefix(path, "/works/"))
			if err != nil || u.RawQuery != "" && !strings.HasPrefix(u.RawQuery, "mailto=") {
				continue
			}
			if rec.status == http.StatusOK || rec.status == http.StatusMovedPermanently {
				s.works[strings.ToLower(d)] = rec
			}
		case path == "/works" && u.Query().Get("query.title") != "" && u.Query().Get("select") == "":
			q := u.Query()
			s.searches = append(s.searches, search{title: normTitle(q.Get("query.title")), author: q.Get("query.author"), rec: rec})
			if strings.Contains(rec.file, "paperqa-arxiv-only") {
				s.noHit = rec
			}
		}
	}
	for d, f := range o.Works {
		s.works[strings.ToLower(d)] = recording{file: f, status: http.StatusOK, headers: map[string]string{"content-type": "application/json"}}
	}
	if len(s.works) == 0 || s.noHit.file == "" {
		t.Fatalf("crossreftest: no recorded Crossref works or searches in %s (see its README)", dir)
	}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.Close)
	return s
}

// Requests returns the requests received so far.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// DOIs are the DOIs whose records the server holds (status 200), in no
// particular order.
func (s *Server) DOIs() []string {
	var out []string
	for d, r := range s.works {
		if r.status == http.StatusOK {
			out = append(out, d)
		}
	}
	return out
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.requests = append(s.requests, Request{Path: r.URL.Path, Query: r.URL.RawQuery, UserAgent: r.UserAgent()})
	fault := 0
	switch s.faults++; {
	case s.faults <= s.opts.TooManyRequests:
		fault = http.StatusTooManyRequests
	case s.faults <= s.opts.TooManyRequests+s.opts.ServiceUnavailable:
		fault = http.StatusServiceUnavailable
	}
	s.mu.Unlock()
	if fault != 0 {
		if fault == http.StatusTooManyRequests {
			ra := s.opts.RetryAfter
			if ra == "" {
				ra = "0"
			}
			w.Header().Set("Retry-After", ra)
		}
		w.Header().Set("X-Rate-Limit-Limit", "5")
		w.Header().Set("X-Rate-Limit-Interval", "1s")
		http.Error(w, http.StatusText(fault), fault)
		return
	}
	switch {
	case r.Method != http.MethodGet:
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
	case strings.HasPrefix(r.URL.Path, "/works/"):
		d := strings.ToLower(strings.TrimPrefix(r.URL.Path, "/works/"))
		rec, ok := s.works[d]
		if !ok {
			w.Header().Set("Content-Type", "text/plain")
			w.WriteHeader(http.StatusNotFound)
			w.Write([]byte("Resource not found."))
			return
		}
		s.write(w, rec)
	case r.URL.Path == "/works" && r.URL.Query().Get("query.bibliographic") != "":
		q := normTitle(r.URL.Query().Get("query.bibliographic"))
		author := r.URL.Query().Get("query.author")
		rec, exact := s.noHit, false
		for _, sr := range s.searches {
			if (sr.title == q || strings.HasPrefix(q, sr.title+" ")) && !exact && (sr.author == "" || sr.author == author) {
				rec, exact = sr.rec, sr.author == author
			}
		}
		s.write(w, rec)
	default:
		w.Header().Set("Content-Type", "text/plain")
		w.WriteHeader(http.StatusNotFound)
		w.Write([]byte("Resource not found."))
	}
}

// write sends a recording with the headers Crossref sent, except those
// describing the encoding on the wire.
func (s *Server) write(w http.ResponseWriter, rec recording) {
	for k, v := range rec.headers {
		switch strings.ToLower(k) {
		case "content-encoding", "content-length", "transfer-encoding", "connection", "date", "location":
			continue
		}
		w.Header().Set(k, v)
	}
	if rec.loc != "" {
		w.Header().Set("Location", rec.loc)
		w.WriteHeader(rec.status)
		return
	}
	body, err := os.ReadFile(rec.file)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.WriteHeader(rec.status)
	w.Write(body)
}

// normTitle lower-cases a title and keeps its words.
func normTitle(s string) string {
	return strings.Join(strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }), " ")
}
