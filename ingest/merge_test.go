package ingest

import (
	"bytes"
	"context"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/papers-cli/papers/export"
	"github.com/papers-cli/papers/ingest/arxiv"
	"github.com/papers-cli/papers/ingest/arxiv/arxivtest"
	"github.com/papers-cli/papers/store"
)

// The four arXiv papers of the walk-through: three of the shared
// PDFs carry the arXiv stamp, DeepSeek-R1's does not but is byte for byte
// what the fake arXiv serves.
var walkThrough = []struct {
	id      string
	version int
	day     string
}{
	{"2501.12948", 1, "2025-01-22"}, {"2302.04761", 1, "2023-02-09"}, {"1111.2011", 2, "2011-11-08"}, {"2212.08073", 1, "2022-12-15"},
}

func walkThroughFixture(t *testing.T) *fixture {
	t.Helper()
	data := arxivtest.DataDir(t)
	var entries []arxiv.Entry
	for _, w := range walkThrough {
		day, _ := time.Parse("2006-01-02", w.day)
		entries = append(entries, entryFromReference(t, data, w.id, w.version, day))
	}
	return newFixture(t, arxivtest.Options{}, entries...)
}

// TestOnePaperOneEntry: a folder of PDFs and the same papers by arXiv id,
// in either order, make one paper each: the list, the search passages and
// the BibTeX have no twin.
func TestOnePaperOneEntry(t *testing.T) {
	ids := []string{"2501.12948", "2302.04761v1", "1111.2011", "2212.08073"}
	t.Parallel()
	for _, order := range []string{"local first", "arXiv first"} {
		t.Run(order, func(t *testing.T) {
			t.Parallel()
			f := walkThroughFixture(t)
			ctx := context.Background()
			dir := filepath.Join(f.data, "pdfs", "papers")
			steps := []func() (*Report, error){
				func() (*Report, error) { return f.in.Paths(ctx, []string{dir}) },
				func() (*Report, error) { return f.in.ArxivIDs(ctx, ids) },
			}
			if order == "arXiv first" {
				steps[0], steps[1] = steps[1], steps[0]
			}
			var reps []*Report
			for _, step := range steps {
				rep, err := step()
				if err != nil {
					t.Fatal(err)
				}
				if len(rep.Failed) > 0 {
					t.Errorf("failed: %+v", rep.Failed)
				}
				reps = append(reps, rep)
			}
			ps, err := f.lib.List(ctx, store.Filter{})
			if err != nil {
				t.Fatal(err)
			}
			if len(ps) != 8 {
				t.Fatalf("%d papers for the 8 PDFs: %s", len(ps), paperIDs(ps))
			}
			titles := map[string]string{}
			for _, p := range ps {
				k := strings.ToLower(strings.Join(strings.Fields(p.Title), " "))
				if prev, dup := titles[k]; dup {
					t.Errorf("%s and %s are the same paper %q", prev, p.ID, p.Title)
				}
				titles[k] = p.ID
			}
			for _, w := range walkThrough {
				p, err := f.lib.Get(ctx, w.id)
				if err != nil {
					t.Fatalf("%s: %v (papers: %s)", w.id, err, paperIDs(ps))
				}
				// arXiv's record (the fake's authors), the version, and
				// the full text.
				if p.Source != "arxiv" || p.Version != w.version || p.Pages == 0 || p.ArxivID != w.id || len(p.Categories) == 0 || p.MetadataSource["authors"] != "" {
					t.Errorf("%s: source %s v%d, %d pages, categories %v, authors %v from %q", w.id, p.Source, p.Version, p.Pages, p.Categories, p.Authors, p.MetadataSource["authors"])
				}
			}
			// The second step found everything held: nothing added twice.
			if got := len(reps[1].Added); order == "local first" && got != 0 || order == "arXiv first" && got != 4 {
				t.Errorf("second step added %v", reps[1].Added)
			}
			hits, err := f.lib.SearchText(ctx, "reinforcement learning reasoning", 20, store.Filter{}, store.Feedback{})
			if err != nil {
				t.Fatal(err)
			}
			seen := map[string]string{}
			for _, h := range hits {
				c, err := f.lib.ChunkTexts(ctx, []string{h.ChunkID})
				if err != nil {
					t.Fatal(err)
				}
				text := c[h.ChunkID].Text
				if prev, dup := seen[text]; dup {
					t.Errorf("passage %s repeats %s", h.ChunkID, prev)
				}
				seen[text] = h.ChunkID
			}
			var bib bytes.Buffer
			if err := export.BibTeX(&bib, ps, nil); err != nil {
				t.Fatal(err)
			}
			if n := strings.Count(bib.String(), "\n@"); n+1 != 8 || strings.Contains(bib.String(), "file://") || strings.Contains(bib.String(), "anonnd") {
				t.Errorf("BibTeX: %d entries, or a file:// url or an anonymous key:\n%s", n+1, bib.String())
			}
		})
	}
}

// TestLocalPDFOfflineThenArxiv: offline, a stamped PDF is keyed by its
// arXiv id and version with the file's record; the next run that reaches
// arXiv brings arXiv's record in one request, keeping the text.
func TestLocalPDFOfflineThenArxiv(t *testing.T) {
	t.Parallel()
	f := walkThroughFixture(t)
	ctx := context.Background()
	online := f.in.Arxiv
	offline := arxiv.New()
	offline.APIURL, offline.PDFURL, offline.Delay, offline.MaxTries = deadURL(t), deadURL(t), -1, 1
	f.in.Arxiv = offline
	var warnings []string
	f.in.Observer = func(e Event) {
		if e.Kind == Warning {
			warnings = append(warnings, e.Msg)
		}
	}
	dir := t.TempDir()
	for _, name := range []string{"toolformer_2302.04761v1.pdf", "arxiv_1111.2011v2.pdf", "papermage_emnlp2023demo.pdf"} {
		copyFile(t, filepath.Join(f.data, "pdfs", "papers", name), filepath.Join(dir, name))
	}
	rep, err := f.in.Paths(ctx, []string{dir})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Added) != 3 || len(warnings) != 1 || !strings.Contains(warnings[0], "2 papers keep the record of their PDF") {
		t.Fatalf("offline run: %+v, warnings %q", rep, warnings)
	}
	p, err := f.lib.Get(ctx, "2302.04761")
	if err != nil || p.Version != 1 || p.Source != "pdf" || p.Authors[0] != "Timo Schick" || p.MetadataSource["version"] != "pdf:stamp" {
		t.Fatalf("offline paper: %+v, %v", p, err)
	}
	pages := p.Pages
	f.in.Arxiv = online
	before := len(f.srv.Requests())
	rep, err = f.in.Paths(ctx, []string{dir})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(rep.Updated)
	if strings.Join(rep.Updated, ",") != "1111.2011,2302.04761" || len(rep.Unchanged) != 1 || len(rep.Added) != 0 {
		t.Errorf("online run: %+v", rep)
	}
	var lookups []url.Values
	for _, r := range f.srv.Requests()[before:] {
		if r.Kind == "api" {
			lookups = append(lookups, r.Query)
		}
	}
	if len(lookups) != 1 || lookups[0].Get("id_list") != "2302.04761v1,1111.2011v2" && lookups[0].Get("id_list") != "1111.2011v2,2302.04761v1" {
		t.Errorf("arXiv requests %v, want one id_list for both", lookups)
	}
	p, err = f.lib.Get(ctx, "2302.04761")
	if err != nil || p.Source != "arxiv" || p.Authors[0] != "A. Author" || p.Pages != pages || p.MetadataSource["version"] != "" || len(p.Categories) == 0 {
		t.Errorf("after arXiv: %+v, %v", p, err)
	}
	// A third run has nothing to do and asks arXiv nothing.
	before = len(f.srv.Requests())
	rep, err = f.in.Paths(ctx, []string{dir})
	if err != nil || len(rep.Unchanged) != 3 || len(f.srv.Requests()) != before {
		t.Errorf("third run: %+v, %v, %d requests", rep, err, len(f.srv.Requests())-before)
	}
}

// deadURL is an address nothing listens on.
func deadURL(t *testing.T) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return "http://" + addr + "/"
}

func paperIDs(ps []store.Paper) string {
	var ids []string
	for _, p := range ps {
		ids = append(ids, p.ID)
	}
	return strings.Join(ids, " ")
}

// TestPlan: the merge rules on made-up papers.
func TestPlan(t *testing.T) {
	day := time.Date(2023, 1, 2, 0, 0, 0, 0, time.UTC)
	arx := store.Paper{ID: "2301.00001", ArxivID: "2301.00001", Version: 2, Title: "The arXiv Title", Abstract: "arXiv abstract", Authors: []string{"Ana Lima"},
		Source: "arxiv", Pages: 10, Chunks: 20, Published: day, Categories: []string{"cs.CL"}, Tags: []store.Tag{{Name: "rl", Source: "corpus"}}}
	local := store.Paper{ID: "2301.00001", ArxivID: "2301.00001", Version: 1, Title: "The arXiv Title (file)", Authors: []string{"A. Lima"}, Source: "pdf",
		Pages: 9, ContentHash: "aa", MetadataSource: map[string]string{"title": "pdf:layout", "authors": "pdf:layout"}}
	zot := store.Paper{ID: "zotero:u/ABCD", Title: "Zotero title", Authors: []string{"Lima, Ana"}, Source: "zotero", DOI: "10.1/x", Venue: "J. Things", Volume: "3",
		Type: "article-journal", Tags: []store.Tag{{Name: "zotero:Reading", Source: "zotero"}}}
	chunks := func(n int) []store.Chunk {
		cs := make([]store.Chunk, n)
		for i := range cs {
			cs[i] = store.Chunk{Seq: i, Text: "t", Vector: []float32{1}}
		}
		return cs
	}
	t.Run("an older local version keeps the newer paper", func(t *testing.T) {
		it, fresh, note := plan(candidate{paper: local, chunks: chunks(5), body: true}, []store.Paper{arx})
		if it.BodyFrom != arx.ID || it.Paper.Version != 2 || it.Paper.Title != arx.Title || it.Paper.Source != "arxiv" || fresh || !strings.Contains(note, "v2") {
			t.Errorf("item %+v fresh %v note %q", it, fresh, note)
		}
	})
	t.Run("a held abstract gains the full text", func(t *testing.T) {
		held := arx
		held.Pages, held.Version = 0, 1
		it, _, _ := plan(candidate{paper: local, chunks: chunks(5), body: true}, []store.Paper{held})
		if it.BodyFrom != "" || len(it.Chunks) != 4 || it.Paper.Pages != 9 || it.Paper.Title != arx.Title || it.Paper.ContentHash != "aa" || it.AbstractFrom != held.ID {
			t.Errorf("item %+v", it)
		}
	})
	t.Run("a Zotero item joins the arXiv paper", func(t *testing.T) {
		it, fresh, _ := plan(candidate{paper: zot, chunks: chunks(1), tagSource: "zotero"}, []store.Paper{arx})
		p := it.Paper
		if p.ID != arx.ID || p.Title != arx.Title || p.Venue != "J. Things" || p.DOI != "10.1/x" || p.Type != "article-journal" || it.BodyFrom != arx.ID || fresh {
			t.Errorf("merged %+v", it)
		}
		if p.MetadataSource["venue"] != "zotero" || p.MetadataSource["title"] != "" {
			t.Errorf("sources %v", p.MetadataSource)
		}
		if !slices.Contains(p.Tags, store.Tag{Name: "rl", Source: "corpus"}) || !slices.Contains(p.Tags, store.Tag{Name: "zotero:Reading", Source: "zotero"}) {
			t.Errorf("tags %v", p.Tags)
		}
	})
	t.Run("a Zotero re-run replaces its own tags and record", func(t *testing.T) {
		held := zot
		z2 := zot
		z2.Title, z2.Tags = "Zotero title, edited", nil
		it, fresh, _ := plan(candidate{paper: z2, chunks: chunks(1), tagSource: "zotero"}, []store.Paper{held})
		if it.Paper.Title != z2.Title || len(it.Paper.Tags) != 0 || fresh || it.Paper.ID != zot.ID {
			t.Errorf("item %+v", it)
		}
	})
	t.Run("a Zotero item whose PDF was replaced brings the new text", func(t *testing.T) {
		held := zot
		held.Pages, held.ContentHash, held.Chunks = 4, "old", 9
		z2 := zot
		z2.Pages, z2.ContentHash = 6, "new"
		it, _, _ := plan(candidate{paper: z2, chunks: chunks(7), body: true, tagSource: "zotero"}, []store.Paper{held})
		if it.BodyFrom != "" || it.Paper.ContentHash != "new" || it.Paper.Pages != 6 || len(it.Chunks) != 7 {
			t.Errorf("item %+v", it)
		}
		// a local file of the same paper does not replace the Zotero text
		f := local
		f.ID, f.ArxivID, f.Version, f.DOI = zot.ID, "", 0, zot.DOI
		it, _, _ = plan(candidate{paper: f, chunks: chunks(7), body: true}, []store.Paper{held})
		if it.BodyFrom != held.ID {
			t.Errorf("a local file replaced the Zotero item's text: %+v", it)
		}
	})
	t.Run("a local file becomes the arXiv paper", func(t *testing.T) {
		held := store.Paper{ID: "pdf:0123456789abcdef", Title: "Local", Source: "pdf", Pages: 3, ContentHash: "bb", Chunks: 7}
		inc := arx
		inc.Pages, inc.ContentHash = 0, "bb"
		it, _, _ := plan(candidate{paper: inc, chunks: chunks(1)}, []store.Paper{held})
		if it.Paper.ID != arx.ID || !slices.Equal(it.Absorb, []string{held.ID}) || it.BodyFrom != held.ID || it.Paper.Pages != 3 {
			t.Errorf("item %+v", it)
		}
	})
}

// A corpus record that names its arXiv paper joins it (keeping the text
// held, adding its tags); its _id finds the paper; a re-run is unchanged.
// The topic corpus's tags land as tags of source "corpus".
func TestCorpusRecordJoinsArxivPaper(t *testing.T) {
	f := walkThroughFixture(t)
	ctx := context.Background()
	if _, err := f.in.ArxivIDs(ctx, []string{"2302.04761"}); err != nil {
		t.Fatal(err)
	}
	held, _ := f.lib.Get(ctx, "2302.04761")
	corpus := filepath.Join(t.TempDir(), "c.jsonl")
	writeFile(t, corpus, `{"_id": "tf", "title": "Toolformer (corpus)", "text": "Short text.", "metadata": {"url": "https://arxiv.org/abs/2302.04761", "tags": "tools, self-supervision"}}`+"\n"+
		`{"_id": "other", "title": "Another", "text": "More text.", "metadata": {"tags": ["a tag", "b+2"]}}`+"\n")
	for run := 0; run < 2; run++ {
		rep, err := f.in.JSONL(ctx, corpus)
		if err != nil {
			t.Fatal(err)
		}
		want := "2302.04761 other"
		got := strings.Join(append(rep.Updated, rep.Added...), " ")
		if run == 1 {
			got = strings.Join(rep.Unchanged, " ")
		}
		if got != want || len(rep.Failed) != 0 {
			t.Errorf("run %d: %+v", run+1, rep)
		}
	}
	p, err := f.lib.Get(ctx, "2302.04761")
	if err != nil || p.Title != held.Title || p.Pages != held.Pages || p.Chunks != held.Chunks ||
		!slices.Equal(p.Tags, []store.Tag{{Name: "self-supervision", Source: "corpus"}, {Name: "tools", Source: "corpus"}}) {
		t.Errorf("merged paper %+v, %v", p, err)
	}
	if got, err := f.lib.FindPaper(ctx, "tf"); err != nil || got.ID != "2302.04761" {
		t.Errorf("FindPaper(tf) = %s, %v", got.ID, err)
	}
	o, _ := f.lib.Get(ctx, "other")
	if !slices.Equal(o.Tags, []store.Tag{{Name: "a tag", Source: "corpus"}, {Name: "b", Source: "corpus"}}) {
		t.Errorf("tags of a list: %v", o.Tags)
	}
}

func writeFile(t *testing.T, path, s string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestReportNamesEachPaperOnce: items of one run that are one paper (two
// Zotero items with one DOI: the second joins the first) report it once,
// where the first came, as added.
func TestReportNamesEachPaperOnce(t *testing.T) {
	r := (&Ingester{}).newRun()
	r.record(0, outcome{id: "zotero:AXKNRJCL", result: store.Added, stored: true})
	r.record(1, outcome{id: "2410.01698", result: store.Unchanged, stored: true})
	r.record(2, outcome{id: "zotero:AXKNRJCL", result: store.Updated, stored: true}) // the duplicate item
	r.record(3, outcome{id: "2410.01698", result: store.Updated, stored: true})
	rep := r.report()
	if strings.Join(rep.Added, ",") != "zotero:AXKNRJCL" || strings.Join(rep.Updated, ",") != "2410.01698" || len(rep.Unchanged) != 0 {
		t.Errorf("added %v, updated %v, unchanged %v; want each paper once, in its strongest list", rep.Added, rep.Updated, rep.Unchanged)
	}
}
