package ingest

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/papers-cli/papers/embed"
	"github.com/papers-cli/papers/ingest/arxiv"
	"github.com/papers-cli/papers/ingest/arxiv/arxivtest"
	"github.com/papers-cli/papers/store"
)

// realPapers are the arXiv papers among the shared PDFs.
var realPapers = map[string]string{
	"2302.04761": "toolformer_2302.04761v1.pdf",
	"2501.12948": "deepseek_r1_2501.12948.pdf",
	"2212.08073": "constitutional_ai_2212.08073.pdf",
	"2501.10120": "pasa_2501.10120.pdf",
	"1111.2011":  "arxiv_1111.2011v2.pdf",
}

// entryFromReference builds the arXiv record of a real paper from its
// pdftotext reference text: first line as title, the Abstract paragraph as
// summary.
func entryFromReference(t *testing.T, data, id string, version int, published time.Time) arxiv.Entry {
	t.Helper()
	name := strings.TrimSuffix(realPapers[id], ".pdf") + ".txt"
	b, err := os.ReadFile(filepath.Join(data, "pdfs", "reference-text", name))
	if err != nil {
		t.Fatal(err) // data came from arxivtest.DataDir, which checked it is there
	}
	text := string(b)
	title := strings.TrimSpace(strings.SplitN(strings.TrimSpace(text), "\n", 2)[0])
	abstract := text
	if i := strings.Index(strings.ToLower(text), "abstract"); i >= 0 {
		abstract = text[i+len("abstract"):]
	}
	abstract = strings.Join(strings.Fields(abstract)[:min(150, len(strings.Fields(abstract)))], " ")
	return arxiv.Entry{
		ID: id, Version: version, Title: title, Summary: abstract,
		Authors:   []arxiv.Author{{Name: "A. Author", Affiliations: []string{"Somewhere"}}, {Name: "B. Author"}},
		Published: published, Updated: published.Add(time.Duration(version-1) * 24 * time.Hour),
		PrimaryCategory: "cs.CL", Categories: []string{"cs.CL", "cs.AI"},
	}
}

type fixture struct {
	lib  *store.Library
	srv  *arxivtest.Server
	in   *Ingester
	data string
}

func newFixture(t *testing.T, opts arxivtest.Options, entries ...arxiv.Entry) *fixture {
	t.Helper()
	data := arxivtest.DataDir(t)
	opts.DataDir = data
	if len(entries) > 0 {
		opts.Entries = entries
	}
	if opts.PDFs == nil {
		opts.PDFs = map[string]string{}
		for id, f := range realPapers {
			opts.PDFs[id] = filepath.Join(data, "pdfs", "papers", f)
		}
	}
	srv := arxivtest.NewServer(t, opts)
	ctx := context.Background()
	lib, err := store.Open(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { lib.Close() })
	e := embed.NewLocal()
	if err := lib.EnsureEmbedder(ctx, e.Name(), e.Dimensions()); err != nil {
		t.Fatal(err)
	}
	client := arxiv.New()
	client.APIURL, client.PDFURL, client.Delay = srv.APIURL(), srv.PDFURL(), -1 // no pacing
	client.Backoff = time.Millisecond
	client.Logf = t.Logf
	return &fixture{lib: lib, srv: srv, data: data, in: &Ingester{
		Lib: lib, Embedder: e, Arxiv: client, CacheDir: filepath.Join(lib.Dir(), "cache", "pdf"),
	}}
}

func TestArxivIDsFullText(t *testing.T) {
	day := time.Date(2023, 2, 9, 18, 0, 0, 0, time.UTC)
	var entries []arxiv.Entry
	f := newFixture(t, arxivtest.Options{})
	entries = append(entries, entryFromReference(t, f.data, "2302.04761", 1, day))
	f = newFixture(t, arxivtest.Options{}, entries...)
	ctx := context.Background()

	rep, err := f.in.ArxivIDs(ctx, []string{"https://arxiv.org/abs/2302.04761v1", "1111.2011", "9912.99999"})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(rep.Added, ",") != "2302.04761,1111.2011" {
		t.Errorf("added %v, want both papers", rep.Added)
	}
	if len(rep.Failed) != 1 || rep.Failed[0].Item != "9912.99999" || !strings.Contains(rep.Failed[0].Reason, "not found") {
		t.Errorf("failed = %+v, want the unknown id reported as not found", rep.Failed)
	}
	p, err := f.lib.Get(ctx, "2302.04761")
	if err != nil {
		t.Fatal(err)
	}
	if p.Pages != 17 || p.Version != 1 || p.Chunks < 30 || p.TextError != "" {
		t.Errorf("toolformer stored with %d pages, v%d, %d chunks, text error %q", p.Pages, p.Version, p.Chunks, p.TextError)
	}
	old, err := f.lib.Get(ctx, "1111.2011")
	if err != nil {
		t.Fatal(err)
	}
	if old.Version != 2 || !strings.HasPrefix(old.Title, "Quantum Criticality for Extended Nodes") || old.Pages != 8 {
		t.Errorf("1111.2011 stored as %+v", old)
	}
	chunks, err := f.lib.Chunks(ctx, "2302.04761")
	if err != nil {
		t.Fatal(err)
	}
	if chunks[0].Seq != 0 || chunks[0].PageStart != 0 || !strings.Contains(chunks[0].Text, "Toolformer") {
		t.Errorf("first chunk should be title+abstract, got %+v", chunks[0])
	}
	last := chunks[len(chunks)-1]
	if last.PageEnd < 15 || last.PageEnd > 17 {
		t.Errorf("last chunk ends on page %d of 17", last.PageEnd)
	}
	// glued words would show up as very long tokens
	for _, c := range chunks {
		for _, w := range strings.Fields(c.Text) {
			if len(w) > 45 && !strings.Contains(w, "/") && !strings.Contains(w, "-") {
				t.Errorf("chunk %d has a glued word %q", c.Seq, w)
			}
		}
	}

	// idempotent: nothing downloaded again, nothing changed
	before := len(f.srv.Requests())
	rep, err = f.in.ArxivIDs(ctx, []string{"2302.04761v1", "1111.2011v2"})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Unchanged) != 2 || len(rep.Added)+len(rep.Updated) != 0 {
		t.Errorf("second run: %+v", rep)
	}
	for _, r := range f.srv.Requests()[before:] {
		if r.Kind == "pdf" {
			t.Errorf("second run downloaded %s again", r.Path)
		}
	}
	again, _ := f.lib.Chunks(ctx, "2302.04761")
	if len(again) != len(chunks) {
		t.Errorf("chunks changed from %d to %d on re-ingest", len(chunks), len(again))
	}
}

func TestNewerVersionReplacesOlder(t *testing.T) {
	day := time.Date(2025, 1, 22, 0, 0, 0, 0, time.UTC)
	data := arxivtest.DataDir(t)
	v1 := entryFromReference(t, data, "2501.12948", 1, day)
	v2 := v1
	v2.Version, v2.Title = 2, v1.Title+" (revised)"
	f := newFixture(t, arxivtest.Options{}, v1, v2)
	f.in.AbstractsOnly = true
	ctx := context.Background()
	if _, err := f.in.ArxivIDs(ctx, []string{"2501.12948v1"}); err != nil {
		t.Fatal(err)
	}
	rep, err := f.in.ArxivIDs(ctx, []string{"2501.12948"})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Updated) != 1 {
		t.Fatalf("latest version should update the paper: %+v", rep)
	}
	p, _ := f.lib.Get(ctx, "2501.12948")
	chunks, _ := f.lib.Chunks(ctx, "2501.12948")
	if p.Version != 2 || len(chunks) != 1 || !strings.Contains(chunks[0].Text, "(revised)") {
		t.Errorf("after update: v%d, chunks %+v", p.Version, chunks)
	}
	// asking for the older version again does not downgrade
	rep, _ = f.in.ArxivIDs(ctx, []string{"2501.12948v1"})
	if p, _ := f.lib.Get(ctx, "2501.12948"); p.Version != 2 || len(rep.Unchanged) != 1 {
		t.Errorf("older version replaced the newer: v%d, %+v", p.Version, rep)
	}
}

func TestSearchWithFaults(t *testing.T) {
	data := arxivtest.DataDir(t)
	day := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	var entries []arxiv.Entry
	// the three newest, which the search takes, are the shorter papers
	// (17, 22 and 15 pages; Constitutional AI's 34 come fourth)
	for i, id := range []string{"2302.04761", "2501.12948", "2501.10120", "2212.08073"} {
		entries = append(entries, entryFromReference(t, data, id, 1, day.AddDate(0, 0, -i)))
	}
	f := newFixture(t, arxivtest.Options{TooManyRequests: 1, Resets: 1, HTMLPDFs: 1}, entries...)
	ctx := context.Background()
	rep, err := f.in.ArxivQuery(ctx, `abs:"tool use" AND cat:cs.CL`, 3)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Added) != 3 || len(rep.Failed) != 0 {
		t.Fatalf("report %+v", rep)
	}
	if rep.Added[0] != "2302.04761" {
		t.Errorf("newest first: got %v", rep.Added)
	}
	for _, id := range rep.Added {
		if p, _ := f.lib.Get(ctx, id); p.Pages == 0 {
			t.Errorf("%s has no full text after the faults were retried: %s", id, p.TextError)
		}
	}
}

func TestTruncatedPDFKeepsAbstract(t *testing.T) {
	data := arxivtest.DataDir(t)
	e := entryFromReference(t, data, "2302.04761", 1, time.Now())
	f := newFixture(t, arxivtest.Options{TruncatePDFs: true}, e)
	ctx := context.Background()
	rep, err := f.in.ArxivIDs(ctx, []string{"2302.04761"})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Added) != 0 || len(rep.Failed) != 1 || !rep.Failed[0].AbstractKept {
		t.Fatalf("report %+v: want the paper reported once, failed with its abstract kept", rep)
	}
	if !strings.Contains(rep.Failed[0].Reason, "truncated") {
		t.Errorf("reason %q should say the PDF was truncated", rep.Failed[0].Reason)
	}
	p, _ := f.lib.Get(ctx, "2302.04761")
	if p.Chunks != 1 || p.TextError == "" {
		t.Errorf("paper %+v should hold its abstract and the reason", p)
	}
	if files, _ := filepath.Glob(filepath.Join(f.in.CacheDir, "*.pdf*")); len(files) != 0 {
		t.Errorf("a failed download left files in the cache: %v", files)
	}
}

func TestCancelStopsCleanly(t *testing.T) {
	data := arxivtest.DataDir(t)
	var entries []arxiv.Entry
	for i, id := range []string{"2302.04761", "2501.12948", "2212.08073"} {
		entries = append(entries, entryFromReference(t, data, id, 1, time.Now().AddDate(0, 0, -i)))
	}
	f := newFixture(t, arxivtest.Options{Latency: 200 * time.Millisecond}, entries...)
	ctx, cancel := context.WithCancel(context.Background())
	f.in.Observer = func(e Event) {
		if e.Kind == Stored {
			cancel() // stop after the first paper is committed
		}
	}
	rep, err := f.in.ArxivQuery(ctx, "all:x", 3)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if rep == nil || len(rep.Added) != 1 {
		t.Fatalf("report %+v, want the one finished paper", rep)
	}
	n, _, _ := f.lib.Count(context.Background())
	if n != 1 {
		t.Errorf("library holds %d papers, want the 1 finished", n)
	}
}

func TestLocalPDFsAndCorpus(t *testing.T) {
	f := newFixture(t, arxivtest.Options{})
	ctx := context.Background()
	dir := t.TempDir()
	tool := filepath.Join(f.data, "pdfs", "papers", "toolformer_2302.04761v1.pdf")
	copyFile(t, tool, filepath.Join(dir, "a", "toolformer.pdf"))
	copyFile(t, tool, filepath.Join(dir, "b", "same-file-again.PDF"))
	os.WriteFile(filepath.Join(dir, "b", "not-a-pdf.pdf"), []byte("<html>nope</html>"), 0o644)
	enc := filepath.Join(f.data, "pdfs", "awkward", "user_password_is_password.pdf")

	rep, err := f.in.Paths(ctx, []string{dir, enc, filepath.Join(dir, "missing.pdf")})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Added) != 1 || len(rep.Updated) != 0 {
		t.Errorf("the same file twice should be one paper: %+v", rep)
	}
	if len(rep.Skipped) != 1 || filepath.Base(rep.Skipped[0].Item) != "same-file-again.PDF" || rep.Skipped[0].Reason != "same content as "+filepath.Join(dir, "a", "toolformer.pdf") {
		t.Errorf("skipped %+v, want same-file-again.PDF as the same content as a/toolformer.pdf", rep.Skipped)
	}
	reasons := map[string]string{}
	for _, fl := range rep.Failed {
		reasons[filepath.Base(fl.Item)] = fl.Reason
	}
	for name, want := range map[string]string{"not-a-pdf.pdf": "not a PDF", "user_password_is_password.pdf": "encrypted", "missing.pdf": "no such file"} {
		if !strings.Contains(strings.ToLower(reasons[name]), strings.ToLower(want)) {
			t.Errorf("%s: reason %q, want it to mention %q", name, reasons[name], want)
		}
	}
	p, err := f.lib.Get(ctx, rep.Added[0])
	if err != nil {
		t.Fatal(err)
	}
	// Its arXiv stamp keys it; arXiv (here) does not know the id, so the
	// file's own record stays, each field saying where it came from.
	if p.ID != "2302.04761" || p.ArxivID != p.ID || p.Version != 1 || !strings.Contains(p.Title, "Toolformer") || p.Pages != 17 || p.Abstract == "" ||
		len(p.Authors) != 8 || p.Authors[0] != "Timo Schick" || p.Issued != "2023-02-09" ||
		p.MetadataSource["title"] != "pdf:layout" || p.MetadataSource["arxiv_id"] != "pdf:stamp" || p.MetadataSource["authors"] != "pdf:layout" {
		t.Errorf("local paper %+v", p)
	}

	corpus := filepath.Join(dir, "corpus.jsonl")
	src, err := os.ReadFile(filepath.Join(f.data, "topic", "rl-for-llm-agents.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(strings.TrimSpace(string(src)), "\n")
	bad := strings.Join(lines[:3], "") + "{not json\n" + `{"title":"no id"}` + "\n" + strings.Join(lines[3:], "")
	os.WriteFile(corpus, []byte(bad), 0o644)
	rep, err = f.in.JSONL(ctx, corpus)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Added) != 30 || len(rep.Failed) != 2 {
		t.Fatalf("corpus: %d added, failed %+v", len(rep.Added), rep.Failed)
	}
	if rep.Failed[0].Item != "corpus.jsonl:4" || !strings.Contains(rep.Failed[0].Reason, "not a JSON record") {
		t.Errorf("bad line reported as %+v", rep.Failed[0])
	}
	tp, _ := f.lib.Get(ctx, "topic-001")
	if tp.Published.Format("2006-01-02") != "2026-05-23" || len(tp.Authors) == 0 || len(tp.Categories) == 0 {
		t.Errorf("corpus metadata not kept: %+v", tp)
	}
	// The feed separates affiliations with " · " and numbers them as the
	// paper's header does: one affiliation each, without its number.
	tp2, _ := f.lib.Get(ctx, "topic-002")
	if got := strings.Join(tp2.Affiliations, "|"); got != "Oregon State University|Pennsylvania State University|Adobe Inc. +1" {
		t.Errorf("topic-002 affiliations %q", tp2.Affiliations)
	}
	if got := strings.Join(tp.Affiliations, "|"); got != "Microsoft Research" {
		t.Errorf("topic-001 affiliations %q", tp.Affiliations)
	}
	rep, _ = f.in.JSONL(ctx, corpus)
	if len(rep.Unchanged) != 30 || len(rep.Added) != 0 {
		t.Errorf("re-ingesting the corpus: %d unchanged, %d added", len(rep.Unchanged), len(rep.Added))
	}
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(filepath.Dir(to), 0o755)
	if err := os.WriteFile(to, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestArxivLookupFailureIsReported(t *testing.T) {
	f := newFixture(t, arxivtest.Options{ServiceUnavailable: 4}) // every try of the one look-up
	rep, err := f.in.ArxivIDs(context.Background(), []string{"2501.12948", "2302.04761"})
	if err == nil || !strings.Contains(err.Error(), "503") {
		t.Fatalf("err = %v, want the look-up's 503", err)
	}
	if n := strings.Count(err.Error(), "look up"); n != 1 {
		t.Errorf("err = %v: says \"look up\" %d times, want once", err, n)
	}
	if rep == nil {
		t.Fatal("no report with the error")
	}
	var items []string
	for _, fl := range rep.Failed {
		items = append(items, fl.Item)
		if !strings.Contains(fl.Reason, "503") {
			t.Errorf("%s: reason %q, want the look-up's error", fl.Item, fl.Reason)
		}
	}
	if strings.Join(items, ",") != "2501.12948,2302.04761" {
		t.Errorf("failed %v, want both ids", items)
	}
}

func TestCorpusDuplicateIDKeepsTheFirst(t *testing.T) {
	f := newFixture(t, arxivtest.Options{})
	src, err := os.ReadFile(filepath.Join(f.data, "topic", "rl-for-llm-agents.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(strings.TrimSpace(string(src)), "\n")
	again := strings.Replace(lines[0], `"title": "`, `"title": "Revised: `, 1)
	if again == lines[0] {
		t.Fatalf("could not change the title of %.80s", lines[0])
	}
	corpus := filepath.Join(t.TempDir(), "corpus.jsonl")
	os.WriteFile(corpus, []byte(lines[0]+lines[1]+lines[2]+strings.TrimSpace(again)+"\n"), 0o644)
	var warnings []string
	f.in.Observer = func(e Event) {
		if e.Kind == Warning {
			warnings = append(warnings, e.Item+": "+e.Msg)
		}
	}
	rep, err := f.in.JSONL(context.Background(), corpus)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(rep.Added, ",") != "topic-001,topic-002,topic-003" || len(rep.Updated)+len(rep.Failed) != 0 {
		t.Errorf("report %+v, want each id added once", rep)
	}
	if len(warnings) != 1 || !strings.Contains(warnings[0], `"topic-001"`) || !strings.Contains(warnings[0], "line 1") || !strings.Contains(warnings[0], "line 4") {
		t.Errorf("warnings %q, want one naming topic-001 and lines 1 and 4", warnings)
	}
	if p, _ := f.lib.Get(context.Background(), "topic-001"); strings.HasPrefix(p.Title, "Revised") {
		t.Errorf("title %q: the later record replaced the first", p.Title)
	}
}

func TestIDClashBetweenSourcesKeepsThePaperHeld(t *testing.T) {
	ctx := context.Background()
	data := arxivtest.DataDir(t)
	f := newFixture(t, arxivtest.Options{}, entryFromReference(t, data, "2302.04761", 1, time.Now()))
	f.in.AbstractsOnly = true
	local := filepath.Join(f.data, "pdfs", "papers", "deepseek_r1_2501.12948.pdf") // no arXiv stamp: keyed by its hash
	hash, err := store.HashFile(local)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.in.ArxivIDs(ctx, []string{"1111.2011"}); err != nil {
		t.Fatal(err)
	}
	corpus := filepath.Join(t.TempDir(), "corpus.jsonl")
	os.WriteFile(corpus, []byte(`{"_id": "1111.2011", "title": "A corpus record", "text": "Not the arXiv paper."}`+"\n"+
		`{"_id": "2302.04761", "title": "Another corpus record", "text": "Not Toolformer."}`+"\n"+
		`{"_id": "pdf:`+hash[:16]+`", "title": "A third record", "text": "Not the PDF."}`+"\n"), 0o644)

	for _, tc := range []struct {
		name, id, held string
		run            func() (*Report, error)
	}{
		{"corpus _id of an arXiv paper", "1111.2011", "arxiv", func() (*Report, error) { return f.in.JSONL(ctx, corpus) }},
		{"arXiv paper with a corpus _id", "2302.04761", "jsonl", func() (*Report, error) { return f.in.ArxivIDs(ctx, []string{"2302.04761"}) }},
		{"PDF with a corpus _id", "pdf:" + hash[:16], "jsonl", func() (*Report, error) { return f.in.Paths(ctx, []string{local}) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rep, err := tc.run()
			if err != nil {
				t.Fatal(err)
			}
			refused := false
			for _, fl := range rep.Failed {
				refused = refused || strings.Contains(fl.Reason, tc.id) && strings.Contains(fl.Reason, "from "+tc.held)
			}
			if !refused {
				t.Errorf("failed %+v, want %s refused as held from %s", rep.Failed, tc.id, tc.held)
			}
			if p, err := f.lib.Get(ctx, tc.id); err != nil || p.Source != tc.held {
				t.Errorf("%s is now from %q (%v), want the %s paper kept", tc.id, p.Source, err, tc.held)
			}
		})
	}
}

// TestFailedPDFIsRetriedOnASchedule: a PDF that 404s is tried once, the
// paper reported once (failed, abstract kept); later runs do not download
// it again until its retry time (they report it unchanged, saying when);
// --retry-failed tries at once; once the PDF is there, the full text comes
// in and the failure is forgotten.
func TestFailedPDFIsRetriedOnASchedule(t *testing.T) {
	data := arxivtest.DataDir(t)
	e := entryFromReference(t, data, "2302.04761", 1, time.Now())
	f := newFixture(t, arxivtest.Options{PDFs: map[string]string{}}, e) // no PDF: 404
	ctx := context.Background()
	pdfRequests := func() int {
		n := 0
		for _, r := range f.srv.Requests() {
			if r.Kind == "pdf" {
				n++
			}
		}
		return n
	}
	rep, err := f.in.ArxivIDs(ctx, []string{"2302.04761"})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Added) != 0 || len(rep.Failed) != 1 || !rep.Failed[0].AbstractKept || !strings.Contains(rep.Failed[0].Reason, "404") || pdfRequests() != 1 {
		t.Fatalf("first run: %+v, %d PDF requests; want it failed once, abstract kept, after 1 request", rep, pdfRequests())
	}
	var notes []string
	f.in.Observer = func(ev Event) {
		if ev.Kind == Stored && ev.Msg != "" {
			notes = append(notes, ev.Msg)
		}
	}
	rep, err = f.in.ArxivIDs(ctx, []string{"2302.04761"})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Unchanged) != 1 || len(rep.Failed) != 0 || pdfRequests() != 1 || len(notes) != 1 || !strings.Contains(notes[0], "next try after") {
		t.Fatalf("second run: %+v, %d PDF requests, notes %q; want it unchanged without a download, saying when it is tried next", rep, pdfRequests(), notes)
	}
	f.in.RetryFailed = true
	if rep, _ = f.in.ArxivIDs(ctx, []string{"2302.04761"}); len(rep.Failed) != 1 || pdfRequests() != 2 {
		t.Fatalf("--retry-failed: %+v, %d PDF requests; want one more try", rep, pdfRequests())
	}
	fail, ok := f.in.textFailureOf("2302.04761v1")
	if !ok || fail.Attempts != 2 {
		t.Fatalf("recorded failure %+v (%v), want 2 attempts", fail, ok)
	}
	// the retry time passes, and arXiv has the PDF now
	f.in.RetryFailed = false
	fail.Last = fail.Last.Add(-retryAfter(2) - time.Minute)
	b, _ := json.Marshal(fail)
	os.WriteFile(f.in.failureFile("2302.04761v1"), b, 0o600)
	g := newFixture(t, arxivtest.Options{}, e)
	f.in.Arxiv = g.in.Arxiv
	rep, err = f.in.ArxivIDs(ctx, []string{"2302.04761"})
	if err != nil || len(rep.Updated) != 1 || len(rep.Failed) != 0 {
		t.Fatalf("after the retry time: %+v, %v; want the full text in", rep, err)
	}
	if p, _ := f.lib.Get(ctx, "2302.04761"); p.Pages == 0 {
		t.Error("the full text did not come in")
	}
	if _, ok := f.in.textFailureOf("2302.04761v1"); ok {
		t.Error("the failure is still recorded after the full text came in")
	}
}

func TestRetryAfter(t *testing.T) {
	want := []time.Duration{6 * time.Hour, 24 * time.Hour, 96 * time.Hour, 168 * time.Hour, 168 * time.Hour}
	for i, w := range want {
		if got := retryAfter(i + 1); got != w {
			t.Errorf("retryAfter(%d) = %v, want %v", i+1, got, w)
		}
	}
}

// TestFootnoted: footnote numbers come off only when every affiliation
// carries its own, in order.
func TestFootnoted(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"1Oregon State University|2Adobe Inc. +1", "Oregon State University|Adobe Inc. +1"},
		{"3M Company|Stanford University", "3M Company|Stanford University"},
		{"1A|3B", "1A|3B"},
		{"1Tsinghua|2Zhejiang|3CUHK|4A|5B|6C|7D|8E|9F|10G|11H", "Tsinghua|Zhejiang|CUHK|A|B|C|D|E|F|G|H"},
		{"12 Rue de la Paix", "12 Rue de la Paix"},
		{"1|2", "1|2"},
	} {
		if got := strings.Join(footnoted(strings.Split(c.in, "|")), "|"); got != c.want {
			t.Errorf("footnoted(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
