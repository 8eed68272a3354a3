package ingest

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/papers-cli/papers/ingest/arxiv/arxivtest"
	"github.com/papers-cli/papers/ingest/crossref"
	"github.com/papers-cli/papers/ingest/crossref/crossreftest"
	"github.com/papers-cli/papers/ingest/fulltext"
	"github.com/papers-cli/papers/store"
)

// withCrossref gives the fixture's ingester a client of a fake Crossref
// serving the recorded responses.
func (f *fixture) withCrossref(t *testing.T, o crossreftest.Options) *crossreftest.Server {
	t.Helper()
	o.DataDir = f.data
	s := crossreftest.NewServer(t, o)
	f.in.Crossref = &crossref.Client{HTTPClient: s.Client(), BaseURL: s.URL, Delay: -1, Backoff: time.Millisecond, Logf: t.Logf}
	return s
}

// Every DOI recorded in shared/data/metadata ingests with its title,
// authors, year, venue and type as Crossref gives them; unknown DOIs fail
// alone, and a second run asks Crossref nothing.
func TestDOIsRecorded(t *testing.T) {
	f := newFixture(t, arxivtest.Options{})
	s := f.withCrossref(t, crossreftest.Options{})
	ctx := context.Background()
	dois := s.DOIs()
	slices.Sort(dois)
	rep, err := f.in.DOIs(ctx, append(slices.Clone(dois), "https://doi.org/10.1371/notarealdoi"))
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Added) != len(dois) || len(rep.Failed) != 1 || !strings.Contains(rep.Failed[0].Reason, "Crossref does not know the DOI 10.1371/notarealdoi") {
		t.Fatalf("added %d of %d, failed %+v", len(rep.Added), len(dois), rep.Failed)
	}
	client := f.in.Crossref.(*crossref.Client)
	for _, d := range dois {
		w, err := client.Work(ctx, d)
		if err != nil {
			t.Fatal(err)
		}
		p, err := f.lib.FindPaper(ctx, "doi:"+d)
		if err != nil {
			t.Errorf("%s: %v", d, err)
			continue
		}
		year := ""
		if !p.Published.IsZero() {
			year = p.Published.Format("2006")
		}
		wantYear := ""
		if w.Date().Year > 0 {
			wantYear = w.Date().String()[:4]
		}
		if p.ID != "doi:"+d || p.Source != "crossref" || p.Title != w.Title() || !slices.Equal(p.Authors, w.Authors()) ||
			year != wantYear || p.Venue != w.Container() || p.Type != w.CSLType() || p.DOI != d {
			t.Errorf("%s: stored %s %q by %q, %s, venue %q, type %q; Crossref: %q by %q, %s, %q, %s (%s)",
				d, p.ID, p.Title, p.Authors, year, p.Venue, p.Type, w.Title(), w.Authors(), wantYear, w.Container(), w.CSLType(), w.Type)
		}
	}
	// the types a citation needs, named as CSL names them
	for d, want := range map[string]string{
		"10.1371/journal.pone.0033693":                                 "article-journal PLoS ONE 2012",
		"10.1109/iccv.2007.4408927":                                    "paper-conference 2007 IEEE 11th International Conference on Computer Vision 2007",
		"10.1007/978-3-662-46370-3_13":                                 "chapter Shoulder Stiffness 2015",
		"10.1101/2024.04.01.587366":                                    "article bioRxiv 2024",
		"10.14264/uql.2020.791":                                        "thesis  2020",
		"10.1017/9781108348843":                                        "book  2019",
		"10.53731/ybhah-9jy85":                                         "post-weblog Front Matter 2023",
		"10.1103/physrevlett.120.117701":                               "article-journal Physical Review Letters 2018",
		"10.1023/a:1007154515475":                                      "article-journal Molecular and Cellular Biochemistry 2001",
		"10.1002/1096-9861(20010212)430:3<283::aid-cne1031>3.0.co;2-v": "article-journal The Journal of Comparative Neurology 2001",
	} {
		p, err := f.lib.FindPaper(ctx, "doi:"+d)
		if err != nil {
			t.Errorf("%s: %v", d, err)
			continue
		}
		got := strings.Join([]string{p.Type, p.Venue, p.Issued[:min(4, len(p.Issued))]}, " ")
		if d == "10.14264/uql.2020.791" && p.Publisher != "The University of Queensland" {
			t.Errorf("%s: school %q", d, p.Publisher)
		}
		if got != want && !(d == "10.14264/uql.2020.791" && got == "thesis  ") {
			t.Errorf("%s: %q, want %q", d, got, want)
		}
	}
	asked := len(s.Requests())
	rep, err = f.in.DOIs(ctx, dois)
	if err != nil || len(rep.Unchanged) != len(dois) || len(s.Requests()) != asked {
		t.Errorf("second run: %v, %d unchanged, %d more requests", err, len(rep.Unchanged), len(s.Requests())-asked)
	}
}

// A paper held from another source with the same DOI (a corpus record)
// is the DOI's paper: Crossref's record joins it, one entry.
func TestDOIJoinsHeldPaper(t *testing.T) {
	f := newFixture(t, arxivtest.Options{})
	f.withCrossref(t, crossreftest.Options{})
	ctx := context.Background()
	corpus := filepath.Join(t.TempDir(), "c.jsonl")
	line := `{"_id":"pone-1","title":"Methylphenidate exposure induces dopamine neuron loss","text":"An abstract.","metadata":{"doi":"https://doi.org/10.1371/JOURNAL.PONE.0033693","authors":"Ann Lee, Bo Chen"}}` + "\n"
	if err := os.WriteFile(corpus, []byte(line), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := f.in.JSONL(ctx, corpus); err != nil {
		t.Fatal(err)
	}
	rep, err := f.in.Run(ctx, Classify([]string{"doi:10.1371/journal.pone.0033693"}))
	if err != nil || len(rep.Updated) != 1 || rep.Updated[0] != "pone-1" {
		t.Fatalf("run: %v %+v", err, rep)
	}
	n, _, _ := f.lib.Count(ctx)
	p, err := f.lib.FindPaper(ctx, "doi:10.1371/journal.pone.0033693")
	if n != 1 || err != nil || p.Venue != "PLoS ONE" || p.Source != "crossref" || len(p.Authors) != 6 {
		t.Errorf("%d papers; %v %+v", n, err, p)
	}
}

// Three Zotero items with one DOI are one paper, whichever batch they
// come in.
func TestOneEntryPerDOIInABatch(t *testing.T) {
	f := newFixture(t, arxivtest.Options{})
	ctx := context.Background()
	r := f.in.newRun()
	var cs []candidate
	for i, key := range []string{"AAAA1111", "BBBB2222", "CCCC3333"} {
		p := store.Paper{ID: "zotero:" + key, Title: "Vector Quotient Filters", Source: "zotero", DOI: []string{"10.1145/3448016.3452841", "https://doi.org/10.1145/3448016.3452841", "10.1145/3448016.3452841"}[i]}
		c := candidate{pos: i, item: p.ID, paper: p, tagSource: "zotero", chunks: []store.Chunk{{Seq: 0, Text: p.Title}},
			ids: []store.Identifier{{Kind: store.IDZotero, Value: "u/" + key}}}
		if err := embedChunks(ctx, f.in.Embedder, c.chunks); err != nil {
			t.Fatal(err)
		}
		cs = append(cs, c)
	}
	for _, o := range r.putCandidates(ctx, cs) {
		if o.err != nil {
			t.Fatal(o.err)
		}
	}
	n, _, _ := f.lib.Count(ctx)
	rep := r.report()
	if n != 1 || len(rep.Added) != 1 {
		t.Errorf("%d papers, report %+v; want one", n, rep)
	}
	for _, key := range []string{"zotero:AAAA1111", "zotero:BBBB2222", "zotero:CCCC3333"} {
		if p, err := f.lib.FindPaper(ctx, key); err != nil || p.ID != "zotero:AAAA1111" {
			t.Errorf("%s: %v %s", key, err, p.ID)
		}
	}
}

// writePDF writes a one-page PDF of p and returns its path.
func writePDF(t *testing.T, dir string, name string, p crossreftest.Page) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, crossreftest.PDF(p), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// A local PDF names its DOI on its first page: Crossref's record fills it
// (venue, year, type, the authors as Crossref lists them), and show's
// metadata sources say which fields stayed the file's.
func TestLocalPDFFilledFromCrossref(t *testing.T) {
	f := newFixture(t, arxivtest.Options{})
	s := f.withCrossref(t, crossreftest.Options{})
	ctx := context.Background()
	dir := t.TempDir()
	byDOI := writePDF(t, dir, "pone.pdf", crossreftest.Page{
		Title:   "Methylphenidate Exposure Induces Dopamine Neuron Loss and Activation of Microglia in the Basal Ganglia of Mice",
		Authors: []string{"Sheila M. Fleming", "Someone Else"}, DOI: "10.1371/journal.pone.0033693",
		Abstract: "Methylphenidate is a psychostimulant widely prescribed for attention deficit hyperactivity disorder, and used off-label for weight loss. We examined its effects on dopamine neurons.",
	})
	byTitle := writePDF(t, dir, "chem.pdf", crossreftest.Page{
		Title: "Augmenting large language models with chemistry tools", Authors: []string{"Andres M. Bran", "Sam Cox"},
		Abstract: "Large language models have shown strong performance in tasks across domains but struggle with chemistry-related problems. These models also lack access to external knowledge sources.",
	})
	notHeld := writePDF(t, dir, "paperqa.pdf", crossreftest.Page{
		Title: "PaperQA: Retrieval-Augmented Generative Agent for Scientific Research", Authors: []string{"Jakub Lála", "Odhran O'Donoghue"},
		Abstract: "Large Language Models generalize well across language tasks, but suffer from hallucinations and uninterpretability, making it difficult to assess their accuracy without ground-truth.",
	})
	var notes []string
	f.in.Observer = func(e Event) {
		if e.Kind == Note || e.Kind == Warning {
			notes = append(notes, e.Msg)
		}
	}
	rep, err := f.in.Paths(ctx, []string{byDOI, byTitle, notHeld})
	if err != nil || len(rep.Added) != 3 {
		t.Fatalf("%v %+v", err, rep)
	}
	p, err := f.lib.FindPaper(ctx, "doi:10.1371/journal.pone.0033693")
	if err == nil {
		if p.Venue != "PLoS ONE" || p.Issued != "2012-03-21" || p.Type != "article-journal" || p.Source != "pdf" || p.Pages != 1 ||
			len(p.Authors) != 6 || p.MetadataSource["abstract"] != "pdf:text" || !strings.HasPrefix(p.ID, "pdf:") ||
			p.MetadataSource["venue"] != "crossref" || p.MetadataSource["title"] != "crossref" || p.MetadataSource["published"] != "crossref" {
			t.Errorf("PDF with a DOI: %+v", p)
		}
	} else {
		t.Errorf("PDF with a DOI: %v", err)
	}
	p, err = f.lib.FindPaper(ctx, "doi:10.1038/s42256-024-00832-8")
	if err != nil || p.Venue != "Nature Machine Intelligence" || p.Issued != "2024-05-08" || p.Pages != 1 {
		t.Errorf("PDF found by title: %v %+v", err, p)
	}
	ps, _ := f.lib.PapersFrom(ctx, "pdf")
	ps = slices.DeleteFunc(ps, hasCrossref)
	if len(ps) != 1 || !strings.HasPrefix(ps[0].Title, "PaperQA") || ps[0].DOI != "" {
		t.Fatalf("the PDF Crossref does not hold keeps its own record: %+v", ps)
	}
	if !slices.ContainsFunc(notes, func(n string) bool {
		return strings.Contains(n, "title similarity") && strings.Contains(n, "below 0.85")
	}) {
		t.Errorf("no note says why the search hit was refused: %q", notes)
	}
	// papers update asks nothing more: Crossref's answer is remembered
	asked := len(s.Requests())
	if rep, err := f.in.FillCrossref(ctx); err != nil || len(rep.Updated) != 0 || len(s.Requests()) != asked {
		t.Errorf("fill after a verdict: %v %+v, %d requests", err, rep, len(s.Requests())-asked)
	}
}

// Offline, a local PDF keeps the file's record, with a warning; the next
// update fills it in from Crossref.
func TestLocalPDFOfflineFilledByUpdate(t *testing.T) {
	f := newFixture(t, arxivtest.Options{})
	ctx := context.Background()
	f.in.Crossref = &crossref.Client{BaseURL: "http://127.0.0.1:1", Delay: -1, Backoff: time.Millisecond}
	path := writePDF(t, t.TempDir(), "vqf.pdf", crossreftest.Page{Title: "Vector Quotient Filters", Authors: []string{"Prashant Pandey"},
		DOI: "10.1145/3448016.3452841", Abstract: "Today's filters, such as quotient, cuckoo, and Morton, have a trade-off between space and speed."})
	var warned bool
	f.in.Observer = func(e Event) {
		warned = warned || e.Kind == Warning && strings.Contains(e.Msg, "Crossref could not be reached")
	}
	if rep, err := f.in.Paths(ctx, []string{path}); err != nil || len(rep.Added) != 1 || !warned {
		t.Fatalf("offline: %v %+v, warned %v", err, rep, warned)
	}
	if ps, _ := f.lib.PapersFrom(ctx, "pdf"); len(ps) != 1 || ps[0].Venue != "" {
		t.Fatalf("offline record: %+v", ps)
	}
	f.withCrossref(t, crossreftest.Options{})
	rep, err := f.in.FillCrossref(ctx)
	if err != nil || len(rep.Updated) != 1 {
		t.Fatalf("fill: %v %+v", err, rep)
	}
	p, err := f.lib.FindPaper(ctx, "doi:10.1145/3448016.3452841")
	if err != nil || p.Venue != "Proceedings of the 2021 International Conference on Management of Data" || p.Type != "paper-conference" || p.Pages != 1 {
		t.Errorf("filled: %v %+v", err, p)
	}
}

// doiStyles are how publishers print a paper's DOI on its first page: a
// resolver URL (ACM, Nature, Springer, Elsevier), PLOS's "doi:", IEEE's
// footer, Wiley's "DOI:", an old dx.doi.org URL, and a long DOI broken
// across two lines.
var doiStyles = []func(d string) (string, bool){
	func(d string) (string, bool) { return "https://doi.org/" + d, false },
	func(d string) (string, bool) { return "Citation: PLoS ONE 7(3): e33693. doi:" + d, false },
	func(d string) (string, bool) { return "Digital Object Identifier " + d, true },
	func(d string) (string, bool) { return "DOI: " + d, true },
	func(d string) (string, bool) { return "http://dx.doi.org/" + d, false },
	func(d string) (string, bool) {
		if i := strings.LastIndexAny(d, "./"); i > strings.Index(d, "/") && i < len(d)-1 {
			return "https://doi.org/" + d[:i+1] + "\n" + d[i+1:], false
		}
		return "https://doi.org/" + d, false
	},
}

// Local PDFs whose first page prints their DOI get venue and year from
// Crossref: one PDF per recorded work that has both, its DOI printed in
// one of the publishers' styles, all ingested in one run against the
// recorded responses. The goal is 90%; the figure is in BENCHMARKS.md.
func TestLocalPDFsWithDOIFilled(t *testing.T) {
	f := newFixture(t, arxivtest.Options{})
	s := f.withCrossref(t, crossreftest.Options{})
	ctx := context.Background()
	client := f.in.Crossref.(*crossref.Client)
	dir := t.TempDir()
	type want struct{ doi, venue, year string }
	var wants []want
	var paths []string
	dois := s.DOIs()
	slices.Sort(dois)
	for _, d := range dois {
		w, err := client.Work(ctx, d)
		if err != nil {
			t.Fatal(err)
		}
		if w.Container() == "" || w.Date().Year == 0 || w.Title() == "" {
			continue // nothing to fill: Crossref has no venue or year for it
		}
		line, foot := doiStyles[len(wants)%len(doiStyles)](w.DOI)
		page := crossreftest.Page{Title: w.Title(), Authors: w.Authors()[:min(3, len(w.Authors()))], DOILine: line, DOIAtFoot: foot,
			Abstract: w.Abstract()}
		if page.Abstract == "" {
			page.Abstract = "This paper's first page prints its title, its authors and its DOI, as journals print them."
		}
		paths = append(paths, writePDF(t, dir, fmt.Sprintf("%02d.pdf", len(wants)), page))
		wants = append(wants, want{d, w.Container(), fmt.Sprint(w.Date().Year)})
	}
	rep, err := f.in.Paths(ctx, paths)
	if err != nil || len(rep.Added) != len(wants) {
		t.Fatalf("%v: added %d of %d, failed %+v", err, len(rep.Added), len(wants), rep.Failed)
	}
	filled := 0
	for i, w := range wants {
		p, err := f.lib.FindPaper(ctx, "doi:"+w.doi)
		switch {
		case err != nil:
			t.Logf("%s (%s): not found by its DOI: %v", w.doi, paths[i], err)
		case p.Venue != w.venue || p.Issued[:min(4, len(p.Issued))] != w.year:
			t.Logf("%s: venue %q, issued %q; Crossref: %q, %s", w.doi, p.Venue, p.Issued, w.venue, w.year)
		default:
			filled++
		}
	}
	rate := float64(filled) / float64(len(wants))
	t.Logf("venue and year filled for %d of %d local PDFs with a DOI on page 1 (%.1f%%)", filled, len(wants), 100*rate)
	if rate < 0.9 {
		t.Errorf("venue and year filled for %.1f%% of the PDFs, want at least 90%%", 100*rate)
	}
}

// hostRouter sends every request to one test server, whatever its host:
// the recorded Crossref records link real publishers' PDFs, and nothing
// may leave the machine.
type hostRouter struct{ target *url.URL }

func (h hostRouter) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.URL.Scheme, r.URL.Host = h.target.Scheme, h.target.Host
	return http.DefaultTransport.RoundTrip(r)
}

// With DOIPDFs a DOI's open-access PDF brings its text: the link Crossref
// lists, else the one its landing page names; a DOI with none keeps its
// record and abstract, and a paywall's HTML is reported with the abstract
// kept.
func TestDOIFullText(t *testing.T) {
	f := newFixture(t, arxivtest.Options{})
	s := f.withCrossref(t, crossreftest.Options{})
	ctx := context.Background()
	chem := crossreftest.PDF(crossreftest.Page{Title: "Augmenting large language models with chemistry tools", Authors: []string{"Andres M. Bran"},
		Abstract: "Large language models have shown strong performance in tasks across domains but struggle with chemistry-related problems."})
	pone := crossreftest.PDF(crossreftest.Page{Title: "Methylphenidate Exposure Induces Dopamine Neuron Loss and Activation of Microglia in the Basal Ganglia of Mice",
		Abstract: "Methylphenidate is a psychostimulant widely prescribed for attention deficit hyperactivity disorder."})
	mux := http.NewServeMux()
	// Crossref's record of 10.1038/s42256-024-00832-8 links www.nature.com/articles/s42256-024-00832-8.pdf
	mux.HandleFunc("/articles/s42256-024-00832-8.pdf", func(w http.ResponseWriter, r *http.Request) { w.Write(chem) })
	mux.HandleFunc("/resolve/10.1371/journal.pone.0033693", func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte(`<html><head><meta name="citation_pdf_url" content="/plosone/article/file?id=10.1371/journal.pone.0033693&amp;type=printable"></head></html>`))
	})
	mux.HandleFunc("/plosone/article/file", func(w http.ResponseWriter, r *http.Request) { w.Write(pone) })
	mux.HandleFunc("/resolve/10.1109/iccv.2007.4408927", func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte(`<html><head><meta name="citation_pdf_url" content="/stamp.pdf"></head></html>`))
	})
	mux.HandleFunc("/stamp.pdf", func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte("<!DOCTYPE html><html>Sign in to IEEE Xplore</html>"))
	})
	mux.HandleFunc("/resolve/", func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte("<html><head><title>A landing page</title></head></html>"))
	})
	pub := httptest.NewServer(mux)
	defer pub.Close()
	target, _ := url.Parse(pub.URL)
	hc := &http.Client{Transport: hostRouter{target}}
	f.in.FullText = &fulltext.Client{HTTPClient: hc, Resolver: pub.URL + "/resolve"}
	f.in.DOIPDFs = true
	rep, err := f.in.DOIs(ctx, []string{"10.1038/s42256-024-00832-8", "10.1371/journal.pone.0033693", "10.1109/iccv.2007.4408927", "10.1103/physrevlett.120.117701"})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Added) != 3 || len(rep.Failed) != 1 || rep.Failed[0].Item != "10.1109/iccv.2007.4408927" || !rep.Failed[0].AbstractKept || !strings.Contains(rep.Failed[0].Reason, "HTML page") {
		t.Errorf("added %v, failed %+v", rep.Added, rep.Failed)
	}
	for d, pages := range map[string]int{"10.1038/s42256-024-00832-8": 1, "10.1371/journal.pone.0033693": 1, "10.1109/iccv.2007.4408927": 0, "10.1103/physrevlett.120.117701": 0} {
		p, err := f.lib.FindPaper(ctx, "doi:"+d)
		if err != nil || p.Pages != pages || p.Venue == "" {
			t.Errorf("%s: %v, %d pages (want %d), venue %q", d, err, p.Pages, pages, p.Venue)
		}
	}
	asked := len(s.Requests())
	// the PDF is not fetched again; a paper without text is asked again
	rep, err = f.in.DOIs(ctx, []string{"10.1038/s42256-024-00832-8"})
	if err != nil || len(rep.Unchanged) != 1 || len(s.Requests()) != asked {
		t.Errorf("again: %v %+v, %d Crossref requests", err, rep, len(s.Requests())-asked)
	}
}
