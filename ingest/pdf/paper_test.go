package pdf

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestPaperCauses: research papers (a Zotero user's library, held out from
// the peer set, and the shared papers) where a general cause lost or broke
// text that pdftotext reads; one case per cause, each checked by a phrase
// of the page as it is printed. The whole set is scored by bench/extract/sweep (BENCHMARKS.md,
// issue 17).
func TestPaperCauses(t *testing.T) {
	z := needData(t, "zotero/yi1699-zotero7/storage")
	papers := needData(t, "pdfs/papers")
	cases := []struct {
		file, cause string // file: under the Zotero storage, or /NAME in pdfs/papers
		want, not   []string
	}{
		// IEEE's Times-Roman uses /MacRomanEncoding: ı, the spacing
		// accents TeX sets over letters and © sit in its upper half.
		{"4LLXMVZB/Thung和Raveendran - 2009 - A survey of image quality measures.pdf", "MacRomanEncoding's upper half",
			[]string{"İsmail Avcıbaş", "Boǧaziçi University"}, []string{"Avcbas"}},
		// Source Han Serif with a ToUnicode that maps nothing: the
		// embedded cmap maps both "⻓" (a radical) and "长" to one glyph.
		{"8UTQ2DC7/3549a0b8-ecd6-478b-800d-9ce30dcdae56(翻译结果).pdf", "CJK radicals sharing an ideograph's glyph",
			[]string{"另一个分支使用步长为 1 的 LCB", "不对齐"}, []string{"⻓", "⻬"}},
		// A table of methods whose "Framework" column holds two words in
		// two columns ("Discrete | Diffusion"), under section rows that
		// span both ("Landmark Works"): read row by row, as pdftotext does.
		{"Z236VBWT/_.pdf", "columns under a spanning section row",
			[]string{"Landmark Works Discrete Diffusion Discrete Diffusion Discrete Score Discrete Score Continuous SDE"},
			[]string{"Landmark Works Discrete Discrete Discrete Discrete"}},
		// A subscript under a superscript: the stream draws W^Q, then
		// moves back for the i; pdftotext puts the i first where it starts
		// left of the superscript (after W's italic correction) and keeps
		// the order where both start together (c_i^1, Toolformer).
		{"TQJUQX4V/_.pdf", "subscripts under superscripts",
			[]string{"matrices WiQ ∈ Rdmodel×dk , WiK ∈ Rdmodel×dk , WiV"}, []string{"WQi"}},
		{"/toolformer_2302.04761v1.pdf", "subscripts under superscripts that start together",
			[]string{"candidates c1i , c2i , . . . , cki ."}, nil},
		// Letters of two sizes set apart (a product of two subscripted
		// symbols) are two words, as pdftotext reads them.
		{"TQJUQX4V/_.pdf", "a change of size at a small gap",
			[]string{"qi ki, has mean 0 and variance dk ."}, []string{"qiki"}},
		// A capitalised word hyphenated at a line end, which the paper
		// writes whole elsewhere (pdftotext joins every line-end hyphen).
		{"/papermage_emnlp2023demo.pdf", "line-end hyphens before a capital",
			[]string{"For example, GROBID (Grobid, 2008–2023)", "2019. SciBERT: A pretrained"}, []string{"GRO- BID"}},
		// Author blocks side by side above the columns, the abstract in
		// the left one: each block whole, then the columns (the right
		// block was read at the top of the right column).
		{"4LLXMVZB/Thung和Raveendran - 2009 - A survey of image quality measures.pdf", "author blocks side by side",
			[]string{"Kim-Han Thung Dept. of Electrical Engineering University of Malaya Lembah Pantai, 50603 Kuala Lumpur Paramesran Raveendran Dept. of Electrical Engineering University of Malaya Lembah Pantai, 50603 Kuala Lumpur Abstract—Image quality"},
			nil},
		// A taxonomy table over both columns, its labels on both sides
		// of the gutter (some across it, on the baseline of others): the
		// body's columns start below a blank strip (3.5em) and are read
		// after the whole table, not each after its half of it.
		{"Z236VBWT/_.pdf", "a table's labels over both columns",
			[]string{"number of diffusion steps as a variable. Truncation, another approach, balances generation"},
			[]string{"diffusion steps as a Progressive Distill"}},
		{"8GEPCWSV/Hore和Ziou - 2010 - Image Quality Metrics PSNR vs. SSIM.pdf", "author blocks side by side",
			[]string{"e-mail: alain.hore@usherbrooke.ca Djemel Ziou MOIVRE", "e-mail: djemel.ziou@usherbrooke.ca Abstract—In this paper"},
			nil},
		// A drop cap followed by a small capital: the gap after the cap
		// (0.22em of the small capital, 0.18em of the body) is no space.
		{"Z236VBWT/_.pdf", "a drop cap before small capitals",
			[]string{"1 INTRODUCTION HOw can we enable machines"}, []string{"H Ow"}},
	}
	for _, c := range cases {
		path := filepath.Join(z, c.file)
		if strings.HasPrefix(c.file, "/") {
			path = filepath.Join(papers, c.file)
		}
		t.Run(strings.SplitN(strings.TrimPrefix(c.file, "/"), "/", 2)[0], func(t *testing.T) {
			doc, err := extractShared(path)
			if err != nil {
				t.Fatalf("%s: %v", c.cause, err)
			}
			flat := strings.Join(strings.Fields(doc.Text()), " ")
			for _, w := range c.want {
				if !strings.Contains(flat, w) {
					t.Errorf("%s: text lacks %q", c.cause, w)
				}
			}
			for _, w := range c.not {
				if strings.Contains(flat, w) {
					t.Errorf("%s: text has %q", c.cause, w)
				}
			}
		})
	}
}

// TestCentredLinesAreNoIndent: an affiliation's lines are centred, so each
// shorter line starts right of the one above; that is no first-line indent
// and starts no paragraph.
func TestCentredLinesAreNoIndent(t *testing.T) {
	z := needData(t, "zotero/yi1699-zotero7/storage")
	doc, err := extractShared(filepath.Join(z, "8GEPCWSV/Hore和Ziou - 2010 - Image Quality Metrics PSNR vs. SSIM.pdf"))
	if err != nil {
		t.Fatal(err)
	}
	want := "Djemel Ziou\nMOIVRE, Département d’informatique, Faculté des\nsciences, Université de Sherbrooke\n"
	if !strings.Contains(doc.Text(), want) {
		t.Errorf("text lacks %q", want)
	}
}

// TestHangingIndentIsOneParagraph: a reference list sets each entry's
// first line at the left and the rest indented; the indent of the second
// line starts no paragraph (IEEE's "[1] ... An introduction to" then
// "variational autoencoders," was cut in two).
func TestHangingIndentIsOneParagraph(t *testing.T) {
	z := needData(t, "zotero/yi1699-zotero7/storage")
	doc, err := extractShared(filepath.Join(z, "Z236VBWT/_.pdf"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"[1] D. P. Kingma, M. Welling et al., “An introduction to\nvariational autoencoders,”",
		"• H. Cao is with the Department of Computer Science and Engineering, The\nChinese University",
	} {
		if !strings.Contains(doc.Text(), want) {
			t.Errorf("text lacks %q", want)
		}
	}
}

// TestSentenceAcrossColumnsIsOneParagraph: the left column ends inside a
// sentence ("... as a") and the right one goes on with it ("variable.
// Truncation ..."): no paragraph break between them.
func TestSentenceAcrossColumnsIsOneParagraph(t *testing.T) {
	z := needData(t, "zotero/yi1699-zotero7/storage")
	doc, err := extractShared(filepath.Join(z, "Z236VBWT/_.pdf"))
	if err != nil {
		t.Fatal(err)
	}
	want := "number of diffusion steps as a\nvariable. Truncation, another approach"
	if !strings.Contains(doc.Text(), want) {
		t.Errorf("text lacks %q", want)
	}
}
