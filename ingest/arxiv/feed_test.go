package arxiv_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/papers-cli/papers/ingest/arxiv"
	"github.com/papers-cli/papers/internal/shareddata"
)

// dataFile returns the path of a file under shared/data/arxiv, failing the
// test if the shared data is missing.
func dataFile(t testing.TB, rel string) string {
	t.Helper()
	return shareddata.Path(t, "arxiv", rel)
}

func parseFile(t *testing.T, rel string) (*arxiv.Feed, error) {
	t.Helper()
	f, err := os.Open(dataFile(t, rel))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	return arxiv.ParseFeed(f)
}

func date(s string) time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return t
}

// TestParseFeedRecorded checks concrete values read from each recorded
// response, in both formats.
func TestParseFeedRecorded(t *testing.T) {
	tests := []struct {
		file                  string
		total, start, perPage int
		entries               int
		index                 int // entry checked against want
		want                  arxiv.Entry
		summaryPrefix         string
		summarySuffix         string
	}{
		{
			file: "api-2016/id_list_1111.2011v2.xml", total: 1, start: 0, perPage: 10, entries: 1,
			want: arxiv.Entry{
				ID: "1111.2011", Version: 2,
				Title: "Quantum Criticality for Extended Nodes on a Bethe Lattice in the Large Connectivity Limit",
				Authors: []arxiv.Author{
					{Name: "James M. Murray"}, {Name: "Adrian Del Maestro"}, {Name: "Zlatko Tesanovic"},
				},
				Published:       date("2011-11-08T18:48:36Z"),
				Updated:         date("2012-04-02T12:38:54Z"),
				PrimaryCategory: "cond-mat.str-el",
				Categories:      []string{"cond-mat.str-el", "cond-mat.stat-mech"},
				Comment:         "8 pages, 3 figures. Published version",
				JournalRef:      "Phys. Rev. B 85, 115117 (2012)",
				DOI:             "10.1103/PhysRevB.85.115117",
				AbsURL:          "http://arxiv.org/abs/1111.2011v2",
				PDFURL:          "http://arxiv.org/pdf/1111.2011v2",
			},
			summaryPrefix: "Theoretical description of anisotropic systems, such as layered superconductors and coupled spin chains,",
			summarySuffix: "is similar to adding a single extra dimension to the theory describing a single node.",
		},
		{
			file: "api-2016/search_au_del_maestro.xml", total: 31, perPage: 10, entries: 10, index: 1,
			want: arxiv.Entry{
				ID: "cond-mat/0412498", Version: 1,
				Title:           "Thermal melting of density waves on the square lattice",
				Authors:         []arxiv.Author{{Name: "Adrian Del Maestro"}, {Name: "Subir Sachdev"}},
				Published:       date("2004-12-19T16:18:24Z"),
				Updated:         date("2004-12-19T16:18:24Z"),
				PrimaryCategory: "cond-mat.str-el",
				Categories:      []string{"cond-mat.str-el", "cond-mat.stat-mech"},
				Comment:         "12 pages, 5 figures",
				JournalRef:      "Physical Review B 71, 184511 (2005)",
				DOI:             "10.1103/PhysRevB.71.184511",
				AbsURL:          "http://arxiv.org/abs/cond-mat/0412498v1",
				PDFURL:          "http://arxiv.org/pdf/cond-mat/0412498v1",
			},
			summaryPrefix: `We present the theory of the effect of thermal fluctuations on commensurate "p x p" density wave ordering on the square lattice (p >= 3, integer).`,
		},
		{
			file: "api-2016/search_au_del_maestro_AND_ti_checkerboard.xml", total: 1, perPage: 10, entries: 1,
			want: arxiv.Entry{
				ID: "cond-mat/0603029", Version: 1,
				Title: "From stripe to checkerboard order on the square lattice in the presence of quenched disorder",
				Authors: []arxiv.Author{
					{Name: "Adrian Del Maestro"}, {Name: "Bernd Rosenow"}, {Name: "Subir Sachdev"},
				},
				Published:       date("2006-03-02T02:22:45Z"),
				Updated:         date("2006-03-02T02:22:45Z"),
				PrimaryCategory: "cond-mat.str-el",
				Categories:      []string{"cond-mat.str-el", "cond-mat.supr-con"},
				Comment:         "10 pages, 11 figures; added reference",
				JournalRef:      "Phys. Rev. B 74, 024520 (2006)",
				DOI:             "10.1103/PhysRevB.74.024520",
				AbsURL:          "http://arxiv.org/abs/cond-mat/0603029v1",
				PDFURL:          "http://arxiv.org/pdf/cond-mat/0603029v1",
			},
			summaryPrefix: "We discuss the effects of quenched disorder on a model of charge density wave (CDW) ordering on the square lattice.",
		},
		{
			file: "api-2017/deep_dream-0.atom", total: 24617, perPage: 10, entries: 10,
			want: arxiv.Entry{
				ID: "1611.09520", Version: 2,
				Title:           "Hierarchical Neural Representation of Dreamed Objects Revealed by Brain Decoding with Deep Neural Network Features",
				Authors:         []arxiv.Author{{Name: "Tomoyasu Horikawa"}, {Name: "Yukiyasu Kamitani"}},
				Published:       date("2016-11-29T08:18:38Z"),
				Updated:         date("2017-01-23T06:54:20Z"),
				PrimaryCategory: "q-bio.NC",
				Categories:      []string{"q-bio.NC"},
				AbsURL:          "http://arxiv.org/abs/1611.09520v2",
				PDFURL:          "http://arxiv.org/pdf/1611.09520v2",
			},
			summaryPrefix: "Dreaming is generally thought to be generated by spontaneous brain activity during sleep",
		},
		{
			file: "api-2017/deep_dream-1.atom", total: 24617, start: 1, perPage: 10, entries: 10,
			want: arxiv.Entry{
				ID: "1511.08339", Version: 2,
				Title:           "Dreaming of atmospheres",
				Authors:         []arxiv.Author{{Name: "I. P. Waldmann"}},
				Published:       date("2015-11-26T10:03:56Z"),
				Updated:         date("2016-02-11T10:58:04Z"),
				PrimaryCategory: "astro-ph.EP",
				Categories:      []string{"astro-ph.EP"},
				Comment:         "ApJ accepted",
				DOI:             "10.3847/0004-637X/820/2/107",
				AbsURL:          "http://arxiv.org/abs/1511.08339v2",
				PDFURL:          "http://arxiv.org/pdf/1511.08339v2",
			},
			summaryPrefix: "Here we introduce the RobERt (Robotic Exoplanet Recognition) algorithm",
		},
		{
			file: "api-2026/id_astro-ph_0601001_s0_m100_3150dca9dc76.xml", total: 1, perPage: 100, entries: 1,
			want: arxiv.Entry{
				ID: "astro-ph/0601001", Version: 1,
				Title: "Frequency of Hot Jupiters and Very Hot Jupiters from the OGLE-III Transit Surveys Toward the Galactic Bulge and Carina",
				Authors: []arxiv.Author{
					{Name: "Andrew Gould", Affiliations: []string{"Ohio State"}},
					{Name: "Susan Dorsher", Affiliations: []string{"Ohio State"}},
					{Name: "B. Scott Gaudi", Affiliations: []string{"CfA"}},
					{Name: "Andrzej Udalski", Affiliations: []string{"Warsaw University Observatory"}},
				},
				Published:       date("2006-01-02T14:57:58Z"),
				Updated:         date("2006-01-02T14:57:58Z"),
				PrimaryCategory: "astro-ph",
				Categories:      []string{"astro-ph"},
				Comment:         "62 pages including 16 figures and 9 tables. Submitted to Acta Astronomica. Full resolution version at http://www.astronomy.ohio-state.edu/~gould/ogle_hot_jupiters.ps.gz",
				JournalRef:      "ActaAstron.56:1-50,2006",
				AbsURL:          "https://arxiv.org/abs/astro-ph/0601001v1",
				PDFURL:          "https://arxiv.org/pdf/astro-ph/0601001v1",
			},
			summaryPrefix: "We derive the frequencies of hot Jupiters (HJs) with 3--5 day periods",
			summarySuffix: "but there are too few in the sample to map this distribution in detail.",
		},
		{
			file: "api-2026/id_quant-ph_0201082v1_s0_m100_86989fe779ef.xml", total: 1, perPage: 100, entries: 1,
			want: arxiv.Entry{
				ID: "quant-ph/0201082", Version: 1,
				Title:           "Quantum Computers and Quantum Computer Languages: Quantum Assembly Language and Quantum C Language",
				Authors:         []arxiv.Author{{Name: "Stephen Blaha"}},
				Published:       date("2002-01-18T15:08:05Z"),
				Updated:         date("2002-01-18T15:08:05Z"),
				PrimaryCategory: "quant-ph",
				Categories:      []string{"quant-ph", "cs.PL"},
				Comment:         "32 pages",
				AbsURL:          "https://arxiv.org/abs/quant-ph/0201082v1",
				PDFURL:          "https://arxiv.org/pdf/quant-ph/0201082v1",
			},
			summaryPrefix: "We show a representation of Quantum Computers",
		},
		{
			file: "api-2026/id_2104.12255v1_s0_m100_6ae69987ffe1.xml", total: 1, perPage: 100, entries: 1,
			want: arxiv.Entry{
				ID: "2104.12255", Version: 1,
				Title:           "0",
				Authors:         []arxiv.Author{{Name: "Quan Thoi Minh Nguyen"}},
				Published:       date("2021-04-20T16:07:14Z"),
				Updated:         date("2021-04-20T16:07:14Z"),
				PrimaryCategory: "cs.CR",
				Categories:      []string{"cs.CR"},
				AbsURL:          "https://arxiv.org/abs/2104.12255v1",
				PDFURL:          "https://arxiv.org/pdf/2104.12255v1",
			},
			summaryPrefix: "What is the funniest number in cryptography? 0.",
		},
		{
			file: "api-2026/id_1605.08386_s0_m100_199195aa31ad.xml", total: 1, perPage: 100, entries: 1,
			want: arxiv.Entry{
				ID: "1605.08386", Version: 1,
				Title:           "Heat-bath random walks with Markov bases",
				Authors:         []arxiv.Author{{Name: "Caprice Stanley"}, {Name: "Tobias Windisch"}},
				Published:       date("2016-05-26T17:59:46Z"),
				Updated:         date("2016-05-26T17:59:46Z"),
				PrimaryCategory: "math.CO",
				Categories:      []string{"math.CO", "math.ST"},
				Comment:         "20 pages, 3 figures",
				AbsURL:          "https://arxiv.org/abs/1605.08386v1",
				PDFURL:          "https://arxiv.org/pdf/1605.08386v1",
			},
			summaryPrefix: "Graphs on lattice points are studied",
		},
		{
			file: "api-2026/q_testing_s0_m10_bc5a6c384fe9.xml", total: 214881, perPage: 10, entries: 10,
			want: arxiv.Entry{
				ID: "2202.12139", Version: 1,
				Title: "Testing Deep Learning Models: A First Comparative Study of Multiple Testing Techniques",
				Authors: []arxiv.Author{
					{Name: "Mohit Kumar Ahuja"}, {Name: "Arnaud Gotlieb"}, {Name: "Helge Spieker"},
				},
				Published:       date("2022-02-24T15:05:19Z"),
				Updated:         date("2022-02-24T15:05:19Z"),
				PrimaryCategory: "cs.SE",
				Categories:      []string{"cs.SE", "cs.LG"},
				Comment:         "Artificial Intelligence in Software Testing 2022 workshop @ ICST 2022",
				JournalRef:      "Artificial Intelligence in Software Testing @ 2022 IEEE International Conference on Software Testing, Verification and Validation Workshops (ICSTW)",
				DOI:             "10.1109/ICSTW55395.2022.00035",
				AbsURL:          "https://arxiv.org/abs/2202.12139v1",
				PDFURL:          "https://arxiv.org/pdf/2202.12139v1",
			},
			summaryPrefix: "Deep Learning (DL) has revolutionized the capabilities of vision-based systems (VBS)",
		},
		{
			file: "api-2026/id_0808.05394_1707.08567_s0_m100_42e5aa0ec3af.xml", total: 1, perPage: 100, entries: 1,
			want: arxiv.Entry{
				ID: "1707.08567", Version: 1,
				Title:           "Proceedings of Workshop AEW10: Concepts in Information Theory and Communications",
				Published:       date("2017-07-27T08:18:33Z"),
				Updated:         date("2017-07-27T08:18:33Z"),
				PrimaryCategory: "cs.IT",
				Categories:      []string{"cs.IT"},
				Comment:         "44 pages, editors for the proceedings: Yanling Chen and A. J. Han Vinck",
				AbsURL:          "https://arxiv.org/abs/1707.08567v1",
				PDFURL:          "https://arxiv.org/pdf/1707.08567v1",
			},
			summaryPrefix: `The 10th Asia-Europe workshop in "Concepts in Information Theory and Communications" AEW10`,
		},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			feed, err := parseFile(t, tc.file)
			if err != nil {
				t.Fatal(err)
			}
			if feed.TotalResults != tc.total || feed.StartIndex != tc.start || feed.ItemsPerPage != tc.perPage {
				t.Errorf("total/start/perPage = %d/%d/%d, want %d/%d/%d",
					feed.TotalResults, feed.StartIndex, feed.ItemsPerPage, tc.total, tc.start, tc.perPage)
			}
			if len(feed.Entries) != tc.entries {
				t.Fatalf("got %d entries, want %d", len(feed.Entries), tc.entries)
			}
			got := feed.Entries[tc.index]
			if !strings.HasPrefix(got.Summary, tc.summaryPrefix) || !strings.HasSuffix(got.Summary, tc.summarySuffix) {
				t.Errorf("summary = %q\nwant prefix %q and suffix %q", got.Summary, tc.summaryPrefix, tc.summarySuffix)
			}
			got.Summary = ""
			if tc.want.Authors == nil {
				got.Authors = nil // too many to list (34 for 1707.08567)
			}
			checkEntry(t, got, tc.want)
		})
	}
}

func checkEntry(t *testing.T, got, want arxiv.Entry) {
	t.Helper()
	check := func(field string, g, w any) {
		t.Helper()
		if !equal(g, w) {
			t.Errorf("%s = %#v, want %#v", field, g, w)
		}
	}
	check("ID", got.ID, want.ID)
	check("Version", got.Version, want.Version)
	check("Title", got.Title, want.Title)
	check("Authors", got.Authors, want.Authors)
	check("Published", got.Published, want.Published)
	check("Updated", got.Updated, want.Updated)
	check("PrimaryCategory", got.PrimaryCategory, want.PrimaryCategory)
	check("Categories", got.Categories, want.Categories)
	check("Comment", got.Comment, want.Comment)
	check("JournalRef", got.JournalRef, want.JournalRef)
	check("DOI", got.DOI, want.DOI)
	check("AbsURL", got.AbsURL, want.AbsURL)
	check("PDFURL", got.PDFURL, want.PDFURL)
}

func equal(a, b any) bool {
	switch a := a.(type) {
	case time.Time:
		return a.Equal(b.(time.Time))
	case []string:
		return slices.Equal(a, b.([]string))
	case []arxiv.Author:
		return slices.EqualFunc(a, b.([]arxiv.Author), func(x, y arxiv.Author) bool {
			return x.Name == y.Name && slices.Equal(x.Affiliations, y.Affiliations)
		})
	}
	return a == b
}

// TestParseFeedAllRecorded checks the invariants of Entry on every
// recorded response.
func TestParseFeedAllRecorded(t *testing.T) {
	dataDir := shareddata.Path(t, "arxiv")
	files, err := filepath.Glob(filepath.Join(dataDir, "api-20*", "*"))
	if err != nil || len(files) < 25 {
		t.Fatalf("found %d recorded API responses under %s (want the api-2016, api-2017 and api-2026 folders; see shared/data/README.md)", len(files), dataDir)
	}
	entryTag := regexp.MustCompile(`<entry>`)
	for _, f := range files {
		rel, _ := filepath.Rel(dataDir, f)
		t.Run(rel, func(t *testing.T) {
			raw, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			feed, err := parseFile(t, rel)
			if strings.Contains(string(raw), "/api/errors") {
				var apiErr *arxiv.APIError
				if !errors.As(err, &apiErr) {
					t.Fatalf("error feed: got %v, want *APIError", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if want := len(entryTag.FindAll(raw, -1)); len(feed.Entries) != want {
				t.Errorf("got %d entries, the file has %d", len(feed.Entries), want)
			}
			for _, e := range feed.Entries {
				if !arxiv.LooksLikeID(e.ID) || e.Version < 1 {
					t.Errorf("bad id/version %q v%d", e.ID, e.Version)
				}
				for field, s := range map[string]string{"title": e.Title, "summary": e.Summary, "comment": e.Comment} {
					if s != strings.Join(strings.Fields(s), " ") {
						t.Errorf("%s %s not collapsed: %q", e.ID, field, s)
					}
				}
				if e.Title == "" || e.Summary == "" || len(e.Authors) == 0 {
					t.Errorf("%s: empty title, summary or authors", e.ID)
				}
				if len(e.Categories) == 0 || e.Categories[0] != e.PrimaryCategory {
					t.Errorf("%s: categories %v do not start with primary %q", e.ID, e.Categories, e.PrimaryCategory)
				}
				if e.Published.IsZero() || e.Updated.Before(e.Published) {
					t.Errorf("%s: published %v updated %v", e.ID, e.Published, e.Updated)
				}
				if !strings.HasSuffix(e.AbsURL, "/abs/"+e.IDVersion()) || !strings.HasSuffix(e.PDFURL, "/pdf/"+e.IDVersion()) {
					t.Errorf("%s: links %q %q", e.ID, e.AbsURL, e.PDFURL)
				}
			}
		})
	}
}

func TestParseFeedErrorAndEmpty(t *testing.T) {
	t.Run("error feed", func(t *testing.T) {
		_, err := parseFile(t, "api-2026/id_abc_s0_m100_b79c8dcf6bc3.xml")
		var apiErr *arxiv.APIError
		if !errors.As(err, &apiErr) {
			t.Fatalf("got %v, want *APIError", err)
		}
		if apiErr.Message != "incorrect id format for abc" {
			t.Errorf("message = %q", apiErr.Message)
		}
	})
	for _, file := range []string{
		"api-2026/id_0000.0000_s0_m100_8b51d9633a68.xml",
		"api-2026/id_0808.05394_s0_m100_7b0c7d0a7cdd.xml",
	} {
		t.Run(file, func(t *testing.T) {
			feed, err := parseFile(t, file)
			if err != nil {
				t.Fatal(err)
			}
			if feed.TotalResults != 0 || len(feed.Entries) != 0 || feed.ItemsPerPage != 100 {
				t.Errorf("got %+v, want an empty page of 100", feed)
			}
		})
	}
}

// TestParseFeedCategories covers what the recordings lack: a primary
// category listed late or twice, and none given at all.
func TestParseFeedCategories(t *testing.T) {
	const feed = `<?xml version="1.0"?>
<feed xmlns="http://www.w3.org/2005/Atom" xmlns:arxiv="http://arxiv.org/schemas/atom">
 <entry><id>http://arxiv.org/abs/2501.12948v3</id><title>A
   B</title><summary>s</summary>
  <category term="cs.LG"/><category term="cs.CL"/><category term="cs.LG"/>
  <arxiv:primary_category term="cs.CL"/></entry>
 <entry><id>http://arxiv.org/abs/2501.00001</id><title>C</title>
  <category term="math.CO"/><category term="math.ST"/></entry>
</feed>`
	f, err := arxiv.ParseFeed(strings.NewReader(feed))
	if err != nil {
		t.Fatal(err)
	}
	if got := f.Entries[0]; !slices.Equal(got.Categories, []string{"cs.CL", "cs.LG"}) || got.Title != "A B" || got.Version != 3 {
		t.Errorf("entry 1 = %+v", got)
	}
	if got := f.Entries[1]; got.PrimaryCategory != "math.CO" || !slices.Equal(got.Categories, []string{"math.CO", "math.ST"}) ||
		got.Version != 0 || got.AbsURL != "http://arxiv.org/abs/2501.00001" {
		t.Errorf("entry 2 = %+v", got)
	}
}

func TestParseFeedMalformed(t *testing.T) {
	for name, in := range map[string]string{
		"not xml":   "<html><body>busy</body></html>",
		"empty":     "",
		"truncated": `<feed xmlns="http://www.w3.org/2005/Atom"><entry><id>http://arxiv.org/abs/2501.12948v1</id>`,
	} {
		t.Run(name, func(t *testing.T) {
			if f, err := arxiv.ParseFeed(strings.NewReader(in)); err == nil {
				t.Errorf("got %+v, want an error", f)
			}
		})
	}
}

func FuzzParseFeed(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join(shareddata.Path(f, "arxiv"), "api-20*", "*"))
	if len(files) == 0 {
		f.Fatal("no recorded API responses under the shared data's arxiv folder (see shared/data/README.md)")
	}
	for _, p := range files {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		// Long pages stall the fuzzer (it minimises every new input, byte
		// by byte): keep their first entry, which has every element kind.
		if i := bytes.Index(b, []byte("</entry>")); len(b) > 8<<10 && i > 0 {
			b = append(b[:i+len("</entry>"):i+len("</entry>")], "\n</feed>\n"...)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		feed, err := arxiv.ParseFeed(strings.NewReader(string(b)))
		if err == nil && feed == nil {
			t.Fatal("nil feed without error")
		}
	})
}
