package bibtex

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/papers-cli/papers/ingest/arxiv/arxivtest"
)

// The BibTeX Crossref serves for DOIs (shared/data/metadata/doi-bibtex,
// 2018 multi-line and 2025-26 one-line forms) reads whole.
func TestParseRecordedCrossrefBibTeX(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(arxivtest.DataDir(t), "metadata", "doi-bibtex", "*.bib"))
	if len(files) < 8 {
		t.Fatalf("the recorded BibTeX of shared/data/metadata/doi-bibtex is needed, found %d files", len(files))
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		es, bad, err := Parse(strings.NewReader(string(b)))
		if err != nil || len(bad) > 0 || len(es) != 1 || es[0].Type != "article" || es[0].Fields["doi"] == "" {
			t.Errorf("%s: %v %v %+v", filepath.Base(f), err, bad, es)
		}
	}
	b, _ := os.ReadFile(filepath.Join(arxivtest.DataDir(t), "metadata", "doi-bibtex", "10.1126_science.169.3946.635.2018.bib"))
	es, _, _ := Parse(strings.NewReader(string(b)))
	if e := es[0]; e.Key != "Frank_1970" || e.Fields["year"] != "1970" || e.Fields["month"] != "aug" || Pages(e.Fields["pages"]) != "635-641" ||
		Text(e.Fields["publisher"]) != "American Association for the Advancement of Science (AAAS)" {
		t.Errorf("2018 form: %+v", e)
	}
}

func TestParse(t *testing.T) {
	src := `% a comment line, then text BibTeX ignores
@string{apj = "Astrophys. J."}
@String(jcomp = {J. Comp.})
@preamble{ "\newcommand{\noop}[1]{}" }
@comment{ jabref-meta: databaseType:bibtex; }

@Article{ok1,
  author = {M{\"u}ller, Hans and Jos{\'e} Garc{\'\i}a},
  title  = "The {BERT} Model: {\em Deep} Learning --- in 10\% of the Time",
  journal = apj # " Lett.",
  year = 2020, month = aug,
  pages = {1--10},
}

@inproceedings{broken,
  title = {An unclosed {brace,
  year = 2021
}

@misc(ok2, title = {Parens}, note = {a "quote" inside}, )
@book{nokey title = {x}}
@article{ok3, journal = mnras, title={T}, author={{OpenAI Team}}}
`
	es, bad, err := Parse(strings.NewReader(src))
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, e := range es {
		keys = append(keys, e.Key)
	}
	if !slices.Equal(keys, []string{"ok1", "ok2", "ok3"}) {
		t.Errorf("keys %q", keys)
	}
	if len(bad) != 2 || bad[0].Line != 15 || !strings.Contains(bad[0].Msg, "not closed") || bad[1].Line != 21 {
		t.Errorf("bad entries %+v", bad)
	}
	e := es[0]
	if e.Line != 7 || e.Type != "article" || e.Fields["journal"] != "Astrophys. J. Lett." || e.Fields["month"] != "August" || e.Fields["year"] != "2020" {
		t.Errorf("ok1 %+v", e)
	}
	if got := Text(e.Fields["title"]); got != "The BERT Model: Deep Learning — in 10% of the Time" {
		t.Errorf("title %q", got)
	}
	if e := es[2]; e.Fields["journal"] != `\mnras` || e.Fields["author"] != "{OpenAI Team}" {
		t.Errorf("an undefined macro: %+v", e)
	}
}

func TestFiles(t *testing.T) {
	dir := t.TempDir()
	e := Entry{Fields: map[string]string{
		// Zotero, JabRef (relative), Windows escapes
		"file": `Full Text PDF:/home/u/Zotero/storage/ABCD1234/Smith - 2020.pdf:application/pdf;Snapshot:/home/u/Zotero/storage/ABCD1234/page.html:text/html;:papers/x.pdf:PDF;C\:\\Users\\u\\y.pdf:PDF`,
		// BibDesk: a real value (Ed Summers' bibdesk2zotero write-up)
		"bdsk-file-1": `YnBsaXN0MDDSAQIDBFxyZWxhdGl2ZVBhdGhZYWxpYXNEYXRhXxBAcGFwZXJzL0JlcmcvVGhlIG11bHRpcGxlIGJvZGllcyBvZiB0aGUgbWVkaWNhbCByZWNvcmQgVG93YXJkLnBkZk8RAfAAAAAAAfAAAgAABk1hY09TWAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAABCRAAB/////x9UaGUgbXVsdGlwbGUgYm9kaWUjRkZGRkZGRkYucGRmAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAD/////AAAAAAAAAAAAAAAAAAEABAAACiBjdQAAAAAAAAAAAAAAAAAEQmVyZwACAF0vOlVzZXJzOmVkc3U6RHJvcGJveDpCaWJEZXNrOnBhcGVyczpCZXJnOlRoZSBtdWx0aXBsZSBib2RpZXMgb2YgdGhlIG1lZGljYWwgcmVjb3JkIFRvd2FyZC5wZGYAAA4AagA0AFQAaABlACAAbQB1AGwAdABpAHAAbABlACAAYgBvAGQAaQBlAHMAIABvAGYAIAB0AGgAZQAgAG0AZQBkAGkAYwBhAGwAIAByAGUAYwBvAHIAZAAgAFQAbwB3AGEAcgBkAC4AcABkAGYADwAOAAYATQBhAGMATwBTAFgAEgBbVXNlcnMvZWRzdS9Ecm9wYm94L0JpYkRlc2svcGFwZXJzL0JlcmcvVGhlIG11bHRpcGxlIGJvZGllcyBvZiB0aGUgbWVkaWNhbCByZWNvcmQgVG93YXJkLnBkZgAAEwABLwAAFQACAAv//wAAAAgADQAaACQAZwAAAAAAAAIBAAAAAAAAAAUAAAAAAAAAAAAAAAAAAAJb`,
		"local-url":   "file:///srv/papers/z.pdf",
	}}
	got := e.Files(dir)
	want := []string{"/home/u/Zotero/storage/ABCD1234/Smith - 2020.pdf", "/home/u/Zotero/storage/ABCD1234/page.html", filepath.Join(dir, "papers/x.pdf"),
		filepath.Join(dir, `C:\Users\u\y.pdf`), filepath.Join(dir, "papers/Berg/The multiple bodies of the medical record Toward.pdf"), "/srv/papers/z.pdf"}
	if !slices.Equal(got, want) {
		t.Errorf("Files =\n%q\nwant\n%q", got, want)
	}
}

// BenchmarkParse reads a 10,000-entry file made of the recorded Crossref
// BibTeX, each entry under its own key.
func BenchmarkParse(b *testing.B) {
	files, _ := filepath.Glob(filepath.Join(arxivtest.DataDir(b), "metadata", "doi-bibtex", "*.bib"))
	var recs []string
	for _, f := range files {
		d, err := os.ReadFile(f)
		if err != nil {
			b.Fatal(err)
		}
		recs = append(recs, string(d))
	}
	var sb strings.Builder
	for i := 0; i < 10000; i++ {
		r := recs[i%len(recs)]
		at := strings.IndexByte(r, '{')
		sb.WriteString(r[:at+1] + "k" + strconv.Itoa(i) + "_" + r[at+1:] + "\n")
	}
	src := sb.String()
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	for b.Loop() {
		es, bad, err := Parse(strings.NewReader(src))
		if err != nil || len(bad) > 0 || len(es) != 10000 {
			b.Fatalf("%v %v %d", err, bad, len(es))
		}
	}
}
