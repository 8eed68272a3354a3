package export

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/papers-cli/papers/ingest/arxiv/arxivtest"
	"github.com/papers-cli/papers/store"
)

// bibEntry is an entry read back from BibTeX text.
type bibEntry struct {
	typ, key string
	fields   map[string]string
}

// parseBibTeX is a strict reader of the BibTeX papers writes: every entry
// is @type{key, name = {value}, ...}, braces balance inside values, and
// LaTeX specials appear only escaped, except in TeX math between $ signs
// that pair up and in the verbatim fields doi and url (which must hold no
// braces or backslashes at all).
func parseBibTeX(t *testing.T, s string) []bibEntry {
	t.Helper()
	var out []bibEntry
	i := 0
	skipSpace := func() {
		for i < len(s) && strings.ContainsRune(" \t\n", rune(s[i])) {
			i++
		}
	}
	for {
		skipSpace()
		if i == len(s) {
			return out
		}
		if s[i] != '@' {
			t.Fatalf("offset %d: want @, got %q", i, s[i:min(len(s), i+20)])
		}
		j := strings.IndexByte(s[i:], '{')
		e := bibEntry{typ: s[i+1 : i+j], fields: map[string]string{}}
		i += j + 1
		k := strings.IndexByte(s[i:], ',')
		e.key = s[i : i+k]
		if strings.ContainsAny(e.key, " {}\\\",#%'()=~") || e.key == "" {
			t.Errorf("bad key %q", e.key)
		}
		i += k + 1
		for {
			skipSpace()
			if s[i] == '}' {
				i++
				break
			}
			eq := strings.IndexByte(s[i:], '=')
			name := strings.TrimSpace(s[i : i+eq])
			i += eq + 1
			skipSpace()
			if s[i] != '{' {
				t.Fatalf("entry %s field %s: value does not start with {", e.key, name)
			}
			depth, start, math := 0, i+1, false
			verbatim := name == "doi" || name == "url"
			for ; ; i++ {
				if i == len(s) {
					t.Fatalf("entry %s field %s: unbalanced braces", e.key, name)
				}
				c := s[i]
				if c == '\\' {
					i++ // an escaped character is not a brace
					continue
				}
				if c == '{' {
					depth++
				} else if c == '}' {
					depth--
					if depth == 0 {
						break
					}
				} else if c == '$' && !verbatim {
					math = !math
				} else if strings.IndexByte("#%&", c) >= 0 && !verbatim || strings.IndexByte("_~^", c) >= 0 && !verbatim && !math {
					t.Errorf("entry %s field %s: unescaped %q in %q", e.key, name, c, s[start:min(len(s), i+10)])
				}
			}
			if math {
				t.Errorf("entry %s field %s: unpaired $", e.key, name)
			}
			if verbatim && strings.ContainsAny(s[start:i], "{}\\") {
				t.Errorf("entry %s field %s: brace or backslash in verbatim %q", e.key, name, s[start:i])
			}
			if _, dup := e.fields[name]; dup {
				t.Errorf("entry %s: field %s twice", e.key, name)
			}
			e.fields[name] = s[start:i]
			i++
			skipSpace()
			if s[i] == ',' {
				i++
			}
		}
		out = append(out, e)
	}
}

func TestBibTeXRecordedPapers(t *testing.T) {
	var ps []store.Paper
	for _, e := range arxivtest.RecordedEntries(t, arxivtest.DataDir(t)) {
		p := store.Paper{ID: e.ID, Version: e.Version, Title: e.Title, Abstract: e.Summary, Published: e.Published,
			Categories: e.Categories, DOI: e.DOI, JournalRef: e.JournalRef, URL: e.AbsURL, Source: "arxiv"}
		for _, a := range e.Authors {
			p.Authors = append(p.Authors, a.Name)
		}
		ps = append(ps, p)
	}
	// Hard cases: specials in the title, twins of one key, no authors.
	day := time.Date(2025, 3, 1, 0, 0, 0, 0, time.UTC)
	ps = append(ps,
		store.Paper{ID: "2503.00001", Version: 2, Title: `Q&A at 100% with $O(n^2)$ cost_{k} {braces} ~tilde #1 \ back`, Authors: []string{"Élodie van der Berg", "Li Wei"}, Published: day, Source: "arxiv", Categories: []string{"cs.LG"}, DOI: "10.1000/x_y", JournalRef: "J. Stuff & Things 3 (2025)"},
		store.Paper{ID: "2503.00002", Version: 1, Title: "The Same Study", Authors: []string{"Ana Smith"}, Published: day, Source: "arxiv"},
		store.Paper{ID: "2503.00003", Version: 1, Title: "Same study again", Authors: []string{"Bob Smith"}, Published: day.AddDate(0, 1, 0), Source: "arxiv"},
		store.Paper{ID: "doc1", Title: "Local notes", Source: "jsonl"},
	)
	var buf bytes.Buffer
	if err := BibTeX(&buf, ps, nil); err != nil {
		t.Fatal(err)
	}
	entries := parseBibTeX(t, buf.String())
	if len(entries) != len(ps) {
		t.Fatalf("%d entries read back, %d written", len(entries), len(ps))
	}
	keys := map[string]bool{}
	for i, e := range entries {
		if keys[e.key] {
			t.Errorf("key %s repeated", e.key)
		}
		keys[e.key] = true
		if e.typ != "misc" || e.fields["title"] == "" {
			t.Errorf("entry %s: type %s title %q", e.key, e.typ, e.fields["title"])
		}
		if ps[i].Source == "arxiv" {
			if !strings.HasPrefix(e.fields["eprint"], ps[i].ID) || e.fields["archivePrefix"] != "arXiv" {
				t.Errorf("entry %s: eprint %q archivePrefix %q", e.key, e.fields["eprint"], e.fields["archivePrefix"])
			}
			if len(ps[i].Categories) > 0 && e.fields["primaryClass"] != ps[i].Categories[0] {
				t.Errorf("entry %s: primaryClass %q", e.key, e.fields["primaryClass"])
			}
		}
		if (ps[i].DOI != "") != (e.fields["doi"] != "") || (ps[i].JournalRef != "") != (e.fields["journal"] != "") {
			t.Errorf("entry %s: doi/journal %q %q for %q %q", e.key, e.fields["doi"], e.fields["journal"], ps[i].DOI, ps[i].JournalRef)
		}
	}
	math := 0
	for i, e := range entries {
		if strings.HasPrefix(ps[i].Title, "$ω$Test") {
			math++
			// pdflatex cannot read Unicode in math mode: ω is \omega there
			if !strings.HasPrefix(e.fields["title"], `{$\omega$Test: `) {
				t.Errorf("entry %s: math in the recorded title not kept as TeX: %s", e.key, e.fields["title"])
			}
		}
	}
	if math == 0 {
		t.Error("the recorded $ω$Test paper is missing; the math check ran on nothing")
	}
	n := len(entries)
	special := entries[n-4]
	if special.key != "vanderberg2025qa" {
		t.Errorf("key of the special paper = %s", special.key)
	}
	wantTitle := `{Q\&A at 100\% with $O(n^2)$ cost\_\{k\} \{braces\} \textasciitilde{}tilde \#1 \textbackslash{} back}`
	if special.fields["title"] != wantTitle {
		t.Errorf("escaped title\n got %s\nwant %s", special.fields["title"], wantTitle)
	}
	if special.fields["author"] != "van der Berg, Élodie and Wei, Li" || special.fields["eprint"] != "2503.00001v2" || special.fields["doi"] != `10.1000/x_y` {
		t.Errorf("special paper fields: %v", special.fields)
	}
	if entries[n-3].key != "smith2025samea" || entries[n-2].key != "smith2025sameb" {
		t.Errorf("twin keys = %s, %s; want smith2025samea, smith2025sameb", entries[n-3].key, entries[n-2].key)
	}
	if entries[n-1].key != "anonndlocal" {
		t.Errorf("key without author or date = %s", entries[n-1].key)
	}
	t.Logf("%d entries, e.g.\n%s", n, strings.SplitN(buf.String(), "\n\n", 2)[0])
}

func TestKeysDoNotDependOnOrder(t *testing.T) {
	day := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	a := store.Paper{ID: "1", Title: "Agents", Authors: []string{"X Lee"}, Published: day}
	b := store.Paper{ID: "2", Title: "Agents", Authors: []string{"Y Lee"}, Published: day.AddDate(0, 0, 1)}
	k1, k2 := Keys([]store.Paper{a, b}, nil), Keys([]store.Paper{b, a}, nil)
	if k1[0] != k2[1] || k1[1] != k2[0] || k1[0] != "lee2024agentsa" {
		t.Errorf("keys %v then %v", k1, k2)
	}
}

func TestCSLJSON(t *testing.T) {
	p := store.Paper{ID: "2501.12948", Version: 1, Title: "DeepSeek-R1:\n Incentivizing", Authors: []string{"DeepSeek-AI", "Daya Guo"},
		Published: time.Date(2025, 1, 22, 0, 0, 0, 0, time.UTC), Source: "arxiv", DOI: "10.1/2"}
	var buf bytes.Buffer
	if err := CSLJSON(&buf, []store.Paper{p}, nil); err != nil {
		t.Fatal(err)
	}
	var items []map[string]any
	if err := json.Unmarshal(buf.Bytes(), &items); err != nil {
		t.Fatal(err)
	}
	it := items[0]
	if it["id"] != "deepseekai2025deepseekr1" || it["type"] != "article" || it["title"] != "DeepSeek-R1: Incentivizing" ||
		it["number"] != "2501.12948v1" || it["DOI"] != "10.1/2" || it["publisher"] != "arXiv" {
		t.Errorf("item = %v", it)
	}
	authors := it["author"].([]any)
	if authors[0].(map[string]any)["literal"] != "DeepSeek-AI" || authors[1].(map[string]any)["family"] != "Guo" {
		t.Errorf("authors = %v", authors)
	}
	if d := it["issued"].(map[string]any)["date-parts"].([]any)[0].([]any); d[0].(float64) != 2025 || d[2].(float64) != 22 {
		t.Errorf("issued = %v", d)
	}
}

// A twin's suffixed key must not take the key of a paper whose title word
// already ends in that letter ("Learninga" vs the "Learning" twins).
func TestKeysUniqueAcrossGroups(t *testing.T) {
	day := time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC)
	ps := []store.Paper{
		{ID: "2602.00001", Title: "Learninga: a Machine", Authors: []string{"Ludwig van Beethoven"}, Published: day},
		{ID: "2602.00002", Title: "Learning Agents to Compose", Authors: []string{"Ludwig van Beethoven"}, Published: day},
		{ID: "2602.00003", Title: "Learning, again", Authors: []string{"L. van Beethoven"}, Published: day.AddDate(0, 1, 0)},
		{ID: "2602.00004", Title: "Learningaa", Authors: []string{"L. van Beethoven"}, Published: day},
		{ID: "2602.00005", Title: "Learningb", Authors: []string{"L. van Beethoven"}, Published: day},
	}
	entries, items := exportBoth(t, ps)
	seen, ids := map[string]bool{}, map[string]bool{}
	for i, e := range entries {
		if seen[e.key] {
			t.Errorf("BibTeX key %s repeated", e.key)
		}
		seen[e.key] = true
		if ids[items[i].ID] {
			t.Errorf("CSL-JSON id %s repeated", items[i].ID)
		}
		ids[items[i].ID] = true
	}
	// Stable: every order of the same set gives each paper the same key.
	want := map[string]string{}
	for i, k := range Keys(ps, nil) {
		want[ps[i].ID] = k
	}
	if want["2602.00001"] != "vanbeethoven2026learninga" {
		t.Errorf("the paper whose own key is learninga got %s", want["2602.00001"])
	}
	rev := slices.Clone(ps)
	slices.Reverse(rev)
	for i, k := range Keys(rev, nil) {
		if want[rev[i].ID] != k {
			t.Errorf("%s: key %s in one order, %s in another", rev[i].ID, want[rev[i].ID], k)
		}
	}
}

// bibNames splits a BibTeX author field as BibTeX does: on " and " outside
// braces, case-insensitively.
func bibNames(field string) []string {
	var out []string
	depth, start := 0, 0
	for i := 0; i < len(field); i++ {
		switch field[i] {
		case '{':
			depth++
		case '}':
			depth--
		case ' ':
			if depth == 0 && i+5 <= len(field) && strings.EqualFold(field[i:i+5], " and ") {
				out = append(out, field[start:i])
				start = i + 5
				i += 4
			}
		}
	}
	return append(out, field[start:])
}

// corpusPapers reads the topic corpus the way papers ingest --jsonl does:
// authors are one comma-separated string.
func corpusPapers(t *testing.T) []store.Paper {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(arxivtest.DataDir(t), "topic", "rl-for-llm-agents.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var ps []store.Paper
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var rec struct {
			ID       string `json:"_id"`
			Title    string `json:"title"`
			Metadata struct {
				Published string `json:"published"`
				Authors   string `json:"authors"`
			} `json:"metadata"`
		}
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatal(err)
		}
		p := store.Paper{ID: rec.ID, Title: rec.Title, Source: "jsonl"}
		p.Published, _ = time.Parse(time.DateOnly, rec.Metadata.Published)
		for _, a := range strings.Split(rec.Metadata.Authors, ",") {
			if a = strings.TrimSpace(a); a != "" {
				p.Authors = append(p.Authors, a)
			}
		}
		ps = append(ps, p)
	}
	return ps
}

func TestAuthors(t *testing.T) {
	ps := corpusPapers(t)
	day := time.Date(2026, 1, 5, 0, 0, 0, 0, time.UTC)
	ps = append(ps,
		store.Paper{ID: "corp", Title: "A Report", Authors: []string{"Research and Development Team", "Jane Doe"}, Published: day},
		store.Paper{ID: "corp2", Title: "Another Report", Authors: []string{"OpenAI Superalignment Team"}, Published: day},
		store.Paper{ID: "plus", Title: "Only the Marker", Authors: []string{"Ada Lovelace", "+3"}, Published: day},
	)
	marked := 0
	entries, items := exportBoth(t, ps)
	for i, e := range entries {
		p := ps[i]
		more := strings.Contains(p.Authors[len(p.Authors)-1], "+")
		want := len(p.Authors)
		if strings.TrimLeft(p.Authors[len(p.Authors)-1], "+0123456789") == "" {
			want-- // the marker stood alone
		}
		names := bibNames(e.fields["author"])
		if more {
			marked++
			if names[len(names)-1] != "others" {
				t.Errorf("%s: author list %q does not end with others", p.ID, e.fields["author"])
			}
			names = names[:len(names)-1]
		}
		if len(names) != want {
			t.Errorf("%s: BibTeX reads %d authors %q, want %d from %q", p.ID, len(names), names, want, p.Authors)
		}
		if len(items[i].Author) != want {
			t.Errorf("%s: CSL-JSON has %d authors %v, want %d", p.ID, len(items[i].Author), items[i].Author, want)
		}
		for _, n := range names {
			if strings.Contains(n, "+") {
				t.Errorf("%s: BibTeX author %q", p.ID, n)
			}
		}
		for _, n := range items[i].Author {
			if strings.Contains(n.Family+n.Given+n.Literal, "+") {
				t.Errorf("%s: CSL-JSON author %+v", p.ID, n)
			}
		}
	}
	if marked < 2 {
		t.Fatalf("the corpus has %d author lists with a +N marker; the test needs some", marked)
	}
	byID := map[string]bibEntry{}
	for i, e := range entries {
		byID[ps[i].ID] = e
	}
	if got := byID["corp"].fields["author"]; got != "{Research and Development Team} and Doe, Jane" {
		t.Errorf("corporate author = %q", got)
	}
	if got := byID["corp2"].fields["author"]; got != "{OpenAI Superalignment Team}" {
		t.Errorf("corporate author = %q", got)
	}
	if got := byID["topic-001"].fields["author"]; got != "Shrivastava, Vaishnavi and Kauffmann, Piero and Awadallah, Ahmed and others" {
		t.Errorf("topic-001 authors = %q", got)
	}
	if got := byID["plus"].fields["author"]; got != "Lovelace, Ada and others" {
		t.Errorf("lone marker: authors = %q", got)
	}
	if items[len(items)-3].Author[0].Literal != "Research and Development Team" {
		t.Errorf("CSL-JSON corporate author = %+v", items[len(items)-3].Author[0])
	}
	for i, p := range ps {
		if len(p.Authors) == 1 && strings.Contains(p.Authors[0], "+") && strings.Contains(entries[i].key, "1") {
			t.Errorf("%s: key %s built from the marker", p.ID, entries[i].key)
		}
	}
}

func TestBibTeXVerbatimAndMath(t *testing.T) {
	day := time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		name, title, doi, url       string
		wantTitle, wantDOI, wantURL string
	}{
		{name: "doi and url verbatim", title: "Plain", doi: "10.1000/abc_def%20x", url: "https://example.org/a_b?q=1%202&x#frag",
			wantTitle: "{Plain}", wantDOI: "10.1000/abc_def%20x", wantURL: "https://example.org/a_b?q=1%202&x#frag"},
		{name: "braces and spaces in a url", title: "Plain", doi: "10.1000/{odd", url: "https://example.org/a{b}/c\\d e",
			wantTitle: "{Plain}", wantDOI: "10.1000/%7Bodd", wantURL: "https://example.org/a%7Bb%7D/c%5Cd%20e"},
		{name: "math kept", title: `$\alpha$-Divergence for $O(n^2)$ Sorting_fast`,
			wantTitle: `{$\alpha$-Divergence for $O(n^2)$ Sorting\_fast}`},
		{name: "specials in math that break LaTeX", title: `A $50\%$ and $a % b # c$ bound`,
			wantTitle: `{A $50\%$ and $a \% b \# c$ bound}`},
		{name: "unpaired dollar is text", title: `Costs $5 and $O(n)$ time`,
			wantTitle: `{Costs \$5 and \$O(n)\$ time}`},
		{name: "math with unbalanced braces is text", title: `A $\{x$ set`,
			wantTitle: `{A \$\textbackslash{}\textbraceleft{}x\$ set}`},
		// BibTeX counts a brace after a backslash too: "\{" alone would
		// leave the field open and swallow the rest of the file.
		{name: "a lone brace in text", title: `Sets {x and y}} z`,
			wantTitle: `{Sets \textbraceleft{}x and y\textbraceright{}\textbraceright{} z}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := store.Paper{ID: "2506.00001", Version: 1, Title: tt.title, Authors: []string{"Ana Lima"}, Published: day, Source: "arxiv", DOI: tt.doi, URL: tt.url}
			var buf bytes.Buffer
			if err := BibTeX(&buf, []store.Paper{p}, nil); err != nil {
				t.Fatal(err)
			}
			e := parseBibTeX(t, buf.String())[0]
			if e.fields["title"] != tt.wantTitle {
				t.Errorf("title\n got %s\nwant %s", e.fields["title"], tt.wantTitle)
			}
			if e.fields["doi"] != tt.wantDOI {
				t.Errorf("doi = %q, want %q", e.fields["doi"], tt.wantDOI)
			}
			if tt.url != "" && e.fields["url"] != tt.wantURL {
				t.Errorf("url = %q, want %q", e.fields["url"], tt.wantURL)
			}
		})
	}
}

// A published paper is a journal article: arXiv is neither its publisher
// nor its number, which styles would print next to the journal. The arXiv
// id stays in the URL; preprints keep publisher arXiv and the id as number.
func TestCSLJSONPublished(t *testing.T) {
	var ps []store.Paper
	for _, e := range arxivtest.RecordedEntries(t, arxivtest.DataDir(t)) {
		ps = append(ps, store.Paper{ID: e.ID, Version: e.Version, Title: e.Title, Published: e.Published,
			DOI: e.DOI, JournalRef: e.JournalRef, URL: e.AbsURL, Source: "arxiv"})
	}
	ps = append(ps, store.Paper{ID: "2611.00001", Version: 1, Title: "Published Later", Published: time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC),
		JournalRef: "J. Later 1 (2027)", Source: "arxiv"})
	var buf bytes.Buffer
	if err := CSLJSON(&buf, ps, nil); err != nil {
		t.Fatal(err)
	}
	var items []map[string]any
	if err := json.Unmarshal(buf.Bytes(), &items); err != nil {
		t.Fatal(err)
	}
	published := 0
	for i, it := range items {
		if ps[i].JournalRef == "" {
			if it["type"] != "article" || it["publisher"] != "arXiv" || !strings.HasPrefix(fmt.Sprint(it["number"]), ps[i].ID) {
				t.Errorf("preprint %s: %v", ps[i].ID, it)
			}
			continue
		}
		published++
		if it["type"] != "article-journal" || it["container-title"] != ps[i].JournalRef {
			t.Errorf("%s: type %v container-title %v", ps[i].ID, it["type"], it["container-title"])
		}
		for _, k := range []string{"publisher", "number", "genre"} {
			if v, ok := it[k]; ok {
				t.Errorf("%s: journal article has %s %v", ps[i].ID, k, v)
			}
		}
		if !strings.Contains(fmt.Sprint(it["URL"]), ps[i].ID) {
			t.Errorf("%s: URL %v lost the arXiv id", ps[i].ID, it["URL"])
		}
	}
	if published < 2 {
		t.Fatalf("%d published papers checked", published)
	}
}

// exportBoth exports ps as BibTeX and as CSL-JSON and parses both back.
func exportBoth(t *testing.T, ps []store.Paper) ([]bibEntry, []CSLItem) {
	t.Helper()
	var bib, csl bytes.Buffer
	if err := BibTeX(&bib, ps, nil); err != nil {
		t.Fatal(err)
	}
	if err := CSLJSON(&csl, ps, nil); err != nil {
		t.Fatal(err)
	}
	var items []CSLItem
	if err := json.Unmarshal(csl.Bytes(), &items); err != nil {
		t.Fatal(err)
	}
	return parseBibTeX(t, bib.String()), items
}

// Sources write TeX themselves: arXiv spells accents as TeX in author
// names, and titles hold Unicode inside math, which pdflatex cannot read.
func TestBibTeXSourceTeX(t *testing.T) {
	day := time.Date(2012, 4, 1, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		name, title, author         string
		wantTitle, wantAuthor, csl  string
		wantCSLFamily, wantCSLGiven string
	}{
		{name: "unicode in math", title: "The $π$-Calculus with $α≤β$ and $πr^2$", author: "Ana Lima",
			wantTitle: `{The $\pi$-Calculus with $\alpha\leq\beta$ and $\pi r^2$}`, wantAuthor: "Lima, Ana",
			csl: "The $π$-Calculus with $α≤β$ and $πr^2$", wantCSLFamily: "Lima", wantCSLGiven: "Ana"},
		{name: "greek in text", title: "β-VAE at 3×3 for Δημήτρης", author: "Ana Lima",
			wantTitle: `{$\beta$-VAE at 3$\times$3 for Δημήτρης}`, wantAuthor: "Lima, Ana",
			csl: "β-VAE at 3×3 for Δημήτρης", wantCSLFamily: "Lima", wantCSLGiven: "Ana"},
		{name: "tex accents kept", title: `Fr\"ohlich's {\"U}ber \v{C}ech and \c c`, author: `J\"urg Fr\"ohlich`,
			wantTitle: `{Fr{\"o}hlich's {\"U}ber {\v{C}}ech and {\c{c}}}`, wantAuthor: `Fr{\"o}hlich, J{\"u}rg`,
			csl: "Fröhlich's Über Čech and ç", wantCSLFamily: "Fröhlich", wantCSLGiven: "Jürg"},
		{name: "letters and dotless i", title: `Stra\ss e, \o{}re and na\"{\i}ve`, author: `P. Zgliczy\'nski`,
			wantTitle: `{Stra{\ss}e, {\o}re and na{\"{\i}}ve}`, wantAuthor: `Zgliczy{\'n}ski, P.`,
			csl: "Straße, øre and naïve", wantCSLFamily: "Zgliczyński", wantCSLGiven: "P."},
		{name: "a backslash that is no accent", title: `A \ B \textbf x`, author: "Ana Lima",
			wantTitle: `{A \textbackslash{} B \textbackslash{}textbf x}`, wantAuthor: "Lima, Ana",
			csl: `A \ B \textbf x`, wantCSLFamily: "Lima", wantCSLGiven: "Ana"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := store.Paper{ID: "1204.00001", Version: 1, Title: tt.title, Authors: []string{tt.author}, Published: day, Source: "arxiv"}
			entries, items := exportBoth(t, []store.Paper{p})
			if got := entries[0].fields["title"]; got != tt.wantTitle {
				t.Errorf("title\n got %s\nwant %s", got, tt.wantTitle)
			}
			if got := entries[0].fields["author"]; got != tt.wantAuthor {
				t.Errorf("author = %s, want %s", got, tt.wantAuthor)
			}
			if items[0].Title != tt.csl || len(items[0].Author) != 1 || items[0].Author[0].Family != tt.wantCSLFamily || items[0].Author[0].Given != tt.wantCSLGiven {
				t.Errorf("CSL-JSON title %q author %+v; want %q %s, %s", items[0].Title, items[0].Author, tt.csl, tt.wantCSLFamily, tt.wantCSLGiven)
			}
			if strings.Contains(entries[0].key, "\\") || !strings.HasPrefix(entries[0].key, asciiWord(tt.wantCSLFamily)) {
				t.Errorf("key %s", entries[0].key)
			}
		})
	}
}

// What is known of a paper (from Zotero, say) shapes its entry: the type,
// the journal or proceedings, volume, issue, pages, a date of the
// precision given; a local file's path is never its url.
func TestTypedEntries(t *testing.T) {
	ps := []store.Paper{
		{ID: "zotero:u/AAAA1111", Type: "article-journal", Title: "Infrared Small and Dim Target Detection With Transformer Under Complex Backgrounds",
			Authors: []string{"Fangcen Liu", "Chenqiang Gao"}, Venue: "IEEE Transactions on Image Processing", Volume: "32", PageRange: "5921-5932",
			DOI: "10.1109/TIP.2023.3326396", Issued: "2023-05", Published: time.Date(2023, 5, 1, 0, 0, 0, 0, time.UTC), Source: "zotero"},
		{ID: "zotero:u/BBBB2222", Type: "paper-conference", Title: "Image Quality Metrics: PSNR vs. SSIM", Authors: []string{"Alain Hore", "Djemel Ziou"},
			Venue: "2010 20th International Conference on Pattern Recognition", PageRange: "2366–2369", Publisher: "IEEE", Issued: "2010",
			Published: time.Date(2010, 1, 1, 0, 0, 0, 0, time.UTC), Source: "zotero"},
		{ID: "2410.01698", ArxivID: "2410.01698", Version: 1, Type: "article", Title: "COSMIC", Authors: []string{"Ziyuan Zhang"},
			Published: time.Date(2024, 10, 2, 0, 0, 0, 0, time.UTC), Categories: []string{"eess.IV"}, Source: "zotero"},
		{ID: "pdf:0123456789abcdef", Title: "A Perspective on Explanations of Molecular Prediction Models", Authors: []string{"Geemi P. Wellawatte"},
			Issued: "2023-02-01", Published: time.Date(2023, 2, 1, 0, 0, 0, 0, time.UTC), URL: "file:///home/u/papers/x.pdf", Source: "pdf"},
	}
	entries, items := exportBoth(t, ps)
	want := []struct {
		typ, key string
		fields   map[string]string
		csl      string
	}{
		{"article", "liu2023infrared", map[string]string{"journal": "IEEE Transactions on Image Processing", "volume": "32", "pages": "5921--5932",
			"doi": "10.1109/TIP.2023.3326396", "year": "2023", "month": "may"}, "article-journal"},
		{"inproceedings", "hore2010image", map[string]string{"booktitle": "2010 20th International Conference on Pattern Recognition", "pages": "2366--2369",
			"publisher": "IEEE", "year": "2010"}, "paper-conference"},
		{"misc", "zhang2024cosmic", map[string]string{"eprint": "2410.01698v1", "archivePrefix": "arXiv", "primaryClass": "eess.IV", "url": "https://arxiv.org/abs/2410.01698"}, "article"},
		{"misc", "wellawatte2023perspective", map[string]string{"year": "2023"}, "article"},
	}
	for i, w := range want {
		e := entries[i]
		if e.typ != w.typ || e.key != w.key {
			t.Errorf("entry %d: @%s{%s, want @%s{%s", i, e.typ, e.key, w.typ, w.key)
		}
		for k, v := range w.fields {
			if e.fields[k] != v {
				t.Errorf("%s: %s = %q, want %q", e.key, k, e.fields[k], v)
			}
		}
		if strings.HasPrefix(e.fields["url"], "file:") {
			t.Errorf("%s: url %q is a local path", e.key, e.fields["url"])
		}
		if items[i].Type != w.csl {
			t.Errorf("%s: CSL type %s, want %s", e.key, items[i].Type, w.csl)
		}
	}
	if _, ok := entries[3].fields["url"]; ok {
		t.Errorf("local file exported with url %q", entries[3].fields["url"])
	}
	if it := items[0]; it.ContainerTitle != "IEEE Transactions on Image Processing" || it.Volume != "32" || it.Page != "5921-5932" ||
		fmt.Sprint(it.Issued.DateParts) != "[[2023 5]]" || it.Publisher != "" || it.Number != "" {
		t.Errorf("CSL journal article %+v", it)
	}
	if it := items[1]; fmt.Sprint(it.Issued.DateParts) != "[[2010]]" || it.Publisher != "IEEE" {
		t.Errorf("CSL conference paper %+v", it)
	}
	if it := items[2]; it.Publisher != "arXiv" || it.Number != "2410.01698v1" {
		t.Errorf("CSL preprint %+v", it)
	}
}

// An ADS journal macro is the journal's name in every format; an entry
// without authors carries a key to sort and label by; authors a source
// gave as one list are one person each.
func TestJournalMacrosKeysAndListedAuthors(t *testing.T) {
	ps := []store.Paper{
		{ID: "bib:ads", Type: "article-journal", Title: "The Sloan Digital Sky Survey", Authors: []string{"Thomason, Kayla; Ali Babar, Md; Brand, Ruth"},
			Venue: `\apjs`, Volume: "182", PageRange: "543", Issued: "2009", Source: "bibtex"},
		{ID: "zotero:u/NTLRQY6E", Type: "article-journal", Title: "Functional Map of the World", Source: "zotero"},
	}
	entries, items := exportBoth(t, ps)
	if e := entries[0]; e.fields["journal"] != "The Astrophysical Journal Supplement Series" || e.fields["author"] != "Thomason, Kayla and Ali Babar, Md and Brand, Ruth" {
		t.Errorf("ADS entry: %v", e.fields)
	}
	if items[0].ContainerTitle != "The Astrophysical Journal Supplement Series" || len(items[0].Author) != 3 {
		t.Errorf("CSL: %+v", items[0])
	}
	if e := entries[1]; e.fields["key"] != "{Functional Map of the World}" || e.fields["author"] != "" {
		t.Errorf("authorless entry: %v", e.fields)
	}
}

// RIS: one record per paper, typed, a person per AU line, dates with the
// precision known, pages split, CRLF line ends.
func TestRIS(t *testing.T) {
	ps := []store.Paper{
		{ID: "zotero:u/AAAA1111", Type: "article-journal", Title: "Infrared Small and Dim Target Detection", Authors: []string{"Fangcen Liu", "King, Jr., Martin"},
			Venue: `\mnras`, Volume: "32", Issue: "4", PageRange: "5921–5932", DOI: "10.1109/tip.2023.3326396", Issued: "2023-05",
			Published: time.Date(2023, 5, 1, 0, 0, 0, 0, time.UTC), Source: "zotero", Tags: []store.Tag{{Name: "to-read", Source: "user"}}},
		{ID: "2410.01698", ArxivID: "2410.01698", Version: 2, Title: `J\"urg's $\alpha$ paper`, Authors: []string{"GTEx Consortium", "Ziyuan Zhang"},
			Published: time.Date(2024, 10, 2, 0, 0, 0, 0, time.UTC), Source: "arxiv"},
	}
	var b bytes.Buffer
	if err := RIS(&b, ps, nil); err != nil {
		t.Fatal(err)
	}
	got := b.String()
	for _, want := range []string{
		"TY  - JOUR\r\nID  - liu2023infrared\r\nTI  - Infrared Small and Dim Target Detection\r\nAU  - Liu, Fangcen\r\nAU  - King, Martin, Jr.\r\nPY  - 2023\r\nDA  - 2023/05//\r\n",
		"T2  - Monthly Notices of the Royal Astronomical Society\r\nVL  - 32\r\nIS  - 4\r\nSP  - 5921\r\nEP  - 5932\r\nDO  - 10.1109/tip.2023.3326396\r\n",
		"KW  - to-read\r\nER  - \r\n\r\n",
		"TY  - UNPB\r\n", "TI  - Jürg's $\\alpha$ paper\r\nAU  - GTEx Consortium\r\nAU  - Zhang, Ziyuan\r\nPY  - 2024\r\nDA  - 2024/10/02/\r\n",
		"UR  - https://arxiv.org/abs/2410.01698\r\nAN  - arXiv:2410.01698v2\r\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("RIS lacks %q:\n%s", want, got)
		}
	}
	if strings.Count(got, "ER  - ") != 2 {
		t.Errorf("RIS records: %s", got)
	}
}
