package pdf

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
)

// TestMetadataOffline: what the shared papers say about themselves, read
// without a network. The truth is the papers' own title pages (and arXiv
// for the stamped ones). The goal is title and first author right for at
// least 90% of them, and every arXiv stamp read with its version.
func TestMetadataOffline(t *testing.T) {
	dir := needData(t, "pdfs/papers")
	cases := []struct {
		file, title, first, arxiv, date string
		authors                         int
	}{
		{"adarefiner_naacl2024findings.pdf", "AdaRefiner: Refining Decisions of Language Models with Adaptive Feedback", "Wanpeng Zhang", "", "2024", 2},
		{"arxiv_1111.2011v2.pdf", "Quantum Criticality for Extended Nodes on a Bethe Lattice in the Large Connectivity Limit", "James M. Murray", "1111.2011v2", "2012-04-02", 3},
		{"constitutional_ai_2212.08073.pdf", "Constitutional AI: Harmlessness from AI Feedback", "Yuntao Bai", "2212.08073v1", "2022-12-15", 51},
		{"deepseek_r1_2501.12948.pdf", "DeepSeek-R1: Incentivizing Reasoning Capability in LLMs via Reinforcement Learning", "DeepSeek-AI", "", "2025-01-23", 1},
		{"explanations_molecular_prediction_paperqa.pdf", "A Perspective on Explanations of Molecular Prediction Models", "Geemi P. Wellawatte", "", "2023-02-01", 4},
		{"papermage_emnlp2023demo.pdf", "PaperMage: A Unified Toolkit for Processing, Representing, and Manipulating Visually-Rich Scientific Documents", "Kyle Lo", "", "2023-11-09", 17},
		{"pasa_2501.10120.pdf", "PaSa: An LLM Agent for Comprehensive Academic Paper Search", "Yichen He", "2501.10120v1", "2025-01-17", 7},
		{"toolformer_2302.04761v1.pdf", "Toolformer: Language Models Can Teach Themselves to Use Tools", "Timo Schick", "2302.04761v1", "2023-02-09", 8},
	}
	right := 0
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			doc, err := extractShared(filepath.Join(dir, c.file))
			if err != nil {
				t.Fatal(err)
			}
			m := doc.Meta
			ok := doc.Title == c.title && len(m.Authors) > 0 && m.Authors[0] == c.first
			if ok {
				right++
			} else {
				t.Errorf("title %q, authors %q; want %q by %s", doc.Title, m.Authors, c.title, c.first)
			}
			if len(m.Authors) != c.authors {
				t.Errorf("%d authors, want %d: %q", len(m.Authors), c.authors, m.Authors)
			}
			if m.ArxivID != c.arxiv || c.arxiv != "" && m.Sources["arxiv_id"] != "stamp" {
				t.Errorf("arXiv id %q from %q, want %q from the stamp", m.ArxivID, m.Sources["arxiv_id"], c.arxiv)
			}
			if m.Date != c.date {
				t.Errorf("date %q (from %s), want %q", m.Date, m.Sources["date"], c.date)
			}
			if m.Sources["title"] == "" || m.Sources["authors"] != "layout" {
				t.Errorf("sources %v: want title's and authors' (layout) named", m.Sources)
			}
			for _, a := range m.Authors {
				if strings.ContainsAny(a, "∗†‡0123456789,") {
					t.Errorf("author %q keeps a marker", a)
				}
			}
		})
	}
	if right*10 < len(cases)*9 {
		t.Errorf("title and first author right for %d of %d papers; the goal is 90%%", right, len(cases))
	}
}

// TestMetadataFromXMPAndInfo: publishers' PDFs carry XMP (Dublin Core and
// PRISM) and Info fields; those come before the layout. The files are a
// Zotero user's (../shared/data/zotero).
func TestMetadataFromXMPAndInfo(t *testing.T) {
	dir := needData(t, "zotero/yi1699-zotero7/storage")
	cases := []struct {
		key, file                                string
		title, first, doi, venue, volume, pages  string
		titleSrc, authorSrc, doiSrc, date, arxiv string
	}{
		{key: "H8IZDJEM", file: "Liu 等 - 2023 - Infrared Small and Dim Target Detection With Transformer Under Complex Backgrounds.pdf",
			title: "Infrared Small and Dim Target Detection With Transformer Under Complex Backgrounds", first: "Fangcen Liu",
			doi: "10.1109/TIP.2023.3326396", venue: "IEEE Transactions on Image Processing", volume: "32", pages: "5921-5932",
			titleSrc: "info", authorSrc: "xmp", doiSrc: "xmp", date: "2023"},
		{key: "YIHBNPGU", file: "Curzi 等 - 2020 - Large Constellations of Small Satellites A Survey of Near Future Challenges and Missions.pdf",
			title: "Large Constellations of Small Satellites: A Survey of Near Future Challenges and Missions", first: "Giacomo Curzi",
			doi: "10.3390/aerospace7090133", titleSrc: "info", authorSrc: "info", doiSrc: "text", date: "2020-09-07"},
		{key: "TQJUQX4V", file: "_.pdf", title: "Attention Is All You Need", first: "Ashish Vaswani",
			titleSrc: "layout", authorSrc: "layout", arxiv: "1706.03762v7", date: "2023-08-02"},
		{key: "7ZR5RBQZ", file: "Yuan和Haimi-Cohen - 2020 - Image Compression Based on Compressive Sensing End-to-End Comparison with JPEG.pdf",
			title: "Image Compression Based on Compressive Sensing: End-to-End Comparison with JPEG", first: "Xin Yuan",
			titleSrc: "layout", authorSrc: "layout", arxiv: "1706.01000v3", date: "2020-01-19"},
	}
	for _, c := range cases {
		t.Run(c.key, func(t *testing.T) {
			doc, err := ExtractFile(context.Background(), filepath.Join(dir, c.key, c.file))
			if err != nil {
				t.Fatal(err)
			}
			m := doc.Meta
			first := ""
			if len(m.Authors) > 0 {
				first = m.Authors[0]
			}
			if doc.Title != c.title || first != c.first || m.Sources["title"] != c.titleSrc || m.Sources["authors"] != c.authorSrc {
				t.Errorf("title %q (%s), first author %q (%s); want %q (%s), %q (%s)", doc.Title, m.Sources["title"], first, m.Sources["authors"],
					c.title, c.titleSrc, c.first, c.authorSrc)
			}
			if m.DOI != c.doi || c.doi != "" && m.Sources["doi"] != c.doiSrc {
				t.Errorf("doi %q (%s), want %q (%s)", m.DOI, m.Sources["doi"], c.doi, c.doiSrc)
			}
			if m.Venue != c.venue || m.Volume != c.volume || m.PageRange != c.pages {
				t.Errorf("venue %q volume %q pages %q; want %q %q %q", m.Venue, m.Volume, m.PageRange, c.venue, c.volume, c.pages)
			}
			if m.Date != c.date || m.ArxivID != c.arxiv {
				t.Errorf("date %q arXiv %q; want %q %q", m.Date, m.ArxivID, c.date, c.arxiv)
			}
		})
	}
}

// TestMetadataInventsNothing: a Chinese paper's author line spaces a
// two-character name out ("于 恒") and the Chinese abstract (摘 要) and
// keywords follow it; an excerpt starts at "1 Introduction", which is no
// title, and has no authors on it (nor has a game book whose first page is
// its table of contents: 619 pages, too slow for a test; SectionHeading
// is checked here).
func TestMetadataInventsNothing(t *testing.T) {
	z := needData(t, "zotero/yi1699-zotero7/storage")
	awk := needData(t, "pdfs/awkward")
	cases := []struct {
		path, title string
		authors     []string
	}{
		{filepath.Join(z, "I4W6ZZ9W", "基于深度学习的图像压缩算法研究综述.pdf"), "基于深度学习的图像压缩算法研究综述", []string{"于恒", "梅红岩", "许晓明", "贾慧萍"}},
		{filepath.Join(awk, "autogen_excerpt_markitdown_test.pdf"), "", nil},
	}
	for _, c := range cases {
		t.Run(filepath.Base(c.path), func(t *testing.T) {
			doc, err := ExtractFile(context.Background(), c.path)
			if err != nil {
				t.Fatal(err)
			}
			if doc.Title != c.title || strings.Join(doc.Meta.Authors, "|") != strings.Join(c.authors, "|") {
				t.Errorf("title %q, authors %q; want %q, %q", doc.Title, doc.Meta.Authors, c.title, c.authors)
			}
		})
	}
	for in, want := range map[string]bool{"Table of Contents": true, "1 Introduction": true, "IV. References": true, "Appendix A": true,
		"Introduction to Reinforcement Learning": false, "Contents of the Mind": false} {
		if got := SectionHeading(in); got != want {
			t.Errorf("SectionHeading(%q) = %v", in, got)
		}
	}
}

func TestSplitNames(t *testing.T) {
	cases := []struct {
		in   string
		want []string
	}{
		{"James M. Murray,1 Adrian Del Maestro,1, 2 and Zlatko Tešanović1", []string{"James M. Murray", "Adrian Del Maestro", "Zlatko Tešanović"}},
		{"Kyle Loα∗ Zejiang Shenα,τ ∗", []string{"Kyle Lo", "Zejiang Shen"}},
		{"Jane Dwivedi-Yu Roberto Dessì†", []string{"Jane Dwivedi-Yu", "Roberto Dessì"}},
		{"Tom Henighan, Tristan Hume, Samuel R. Bowman", []string{"Tom Henighan", "Tristan Hume", "Samuel R. Bowman"}},
		{"Aidan N. Gomez∗ †", []string{"Aidan N. Gomez"}},
	}
	for _, c := range cases {
		if got := splitNames(c.in); strings.Join(got, "|") != strings.Join(c.want, "|") {
			t.Errorf("splitNames(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	for _, s := range []string{"Meta AI Research †Universitat Pompeu Fabra", "{kylel, lucas}@allenai.org", "1ByteDance Research", "αAllen Institute for AI"} {
		if !affiliationLine(s) {
			t.Errorf("affiliationLine(%q) = false", s)
		}
	}
}

func TestArxivMentionAndDates(t *testing.T) {
	one := &Document{Pages: []Page{{N: 1, Text: "Code at https://arxiv.org/abs/2410.01698 and arXiv:2410.01698v2 [eess.IV]"}}}
	if got := arxivMention(one); got != "2410.01698v2" {
		t.Errorf("arxivMention = %q, want the versioned mention", got)
	}
	two := &Document{Pages: []Page{{N: 1, Text: "Following arXiv:2101.00001 and arXiv:2202.00002, we"}}}
	if got := arxivMention(two); got != "" {
		t.Errorf("a page citing two papers gave %q", got)
	}
	for in, want := range map[string]string{"D:20230210013806Z": "2023-02-10", "D:2019": "2019", "D:202305": "2023-05", "garbage": ""} {
		if got := pdfDate(in); got != want {
			t.Errorf("pdfDate(%q) = %q, want %q", in, got, want)
		}
	}
	for in, want := range map[string]string{"  Dec. 2009": "2009-12", "2023-05-17T10:00:00Z": "2023-05-17", "    2023": "2023", "2021-07": "2021-07"} {
		if got := xmpDate(in); got != want {
			t.Errorf("xmpDate(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestArxivStampsElsewhere: the other stamped PDFs of the shared data (an
// iOS re-save, an AES copy-protected excerpt, a peer tool's fixture, a
// Zotero user's v10) give their arXiv id with its version too, so every
// shared PDF that carries a stamp gets it (with TestMetadataOffline's four
// and TestMetadataFromXMPAndInfo's two).
func TestArxivStampsElsewhere(t *testing.T) {
	data := needData(t, "")
	for file, want := range map[string]string{
		"pdfs/awkward/reflexion_2303.11366v4_ios_resaved.pdf": "2303.11366v4",
		"pdfs/awkward/layoutparser_2p_copy_protected_aes.pdf": "2103.15348v2",
		"pdfs/peer/pdfs/pdfplumber/issue-982-example.pdf":     "1601.03642v1",
		"zotero/yi1699-zotero7/storage/Z236VBWT/_.pdf":        "2209.02646v10",
	} {
		t.Run(filepath.Base(file), func(t *testing.T) {
			doc, err := extractShared(filepath.Join(data, file))
			if err != nil {
				t.Fatal(err)
			}
			if doc.Meta.ArxivID != want || doc.Meta.Sources["arxiv_id"] != "stamp" {
				t.Errorf("arXiv id %q from %q, want %q from the stamp", doc.Meta.ArxivID, doc.Meta.Sources["arxiv_id"], want)
			}
		})
	}
}
