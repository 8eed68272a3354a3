package pdf

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/papers-cli/papers/role"
)

// lineRoles maps each line of the document's text to its role (a line
// that appears twice keeps its first).
func lineRoles(doc *Document) map[string]role.Role {
	out := map[string]role.Role{}
	for _, p := range doc.Pages {
		for _, s := range p.Spans {
			for _, ln := range strings.Split(p.Text[s.Start:s.End], "\n") {
				if _, ok := out[ln]; !ok && ln != "" {
					out[ln] = s.Role
				}
			}
		}
	}
	return out
}

// bodyText is the document's text without its furniture (running heads,
// page numbers, the arXiv stamp).
func bodyText(doc *Document) string {
	var b strings.Builder
	for _, p := range doc.Pages {
		for _, s := range p.Spans {
			if s.Role != role.Furniture {
				b.WriteString(p.Text[s.Start:s.End])
			}
		}
		b.WriteByte('\f')
	}
	return b.String()
}

// TestRoles: lines of real papers and what they are there for, one or two
// per role and layout (ACL's two columns with figures, tables, footnotes and
// display math; IEEE's small-capital headings and tables captioned above
// them; Acrobat-made two columns with a caption below a figure).
func TestRoles(t *testing.T) {
	z := needData(t, "zotero/yi1699-zotero7/storage")
	papers := needData(t, "pdfs/papers")
	peer := needData(t, "pdfs/peer/pdfs")
	cases := []struct {
		file string
		want map[string]role.Role // line -> role
	}{
		{filepath.Join(papers, "toolformer_2302.04761v1.pdf"), map[string]role.Role{
			"3 Tools": role.Heading,
			"We explore a variety of tools to address different":         role.Body,
			"Figure 3: An exemplary prompt P (x) used to generate":       role.Caption,
			"Input: Joe Biden was born in Scranton, Pennsylvania.":       role.Figure,
			"Table 1: Examples of inputs and outputs for all APIs used.": role.Caption,
			"207,241": role.Table,
			"Li(z) = − wj−i · log pM (xj | z, x1:j−1)":                role.Equation,
			"2 We discard all examples where M does not generate the": role.Footnote,
			"Armen Aghajanyan, Dmytro Okhonko, Mike Lewis,":           role.Reference,
			"Number of Examples": role.Table,
			"The name derives from “la tortuga”, the Spanish word for": role.Figure,
			"Large language models achieve impressive zero-":           role.Body,
		}},
		{filepath.Join(z, "H8IZDJEM/Liu 等 - 2023 - Infrared Small and Dim Target Detection With Transformer Under Complex Backgrounds.pdf"), map[string]role.Role{
			"I. INTRODUCTION": role.Heading,
			"B. Combining Self-Attention Mechanisms With CNNs": role.Heading,
			"TABLE I":                               role.Caption,
			"THE RESOLUTIONS OF DIFFERENT DATASTES": role.Caption,
			"REFERENCES":                            role.Heading,
			// a first page's notes, longer than twenty lines
			"Manuscript received 8 November 2021; revised 6 July 2022, 28 November": role.Footnote,
		}},
		// notes in 9 points over a copyright line in 8
		{filepath.Join(peer, "pymupdf/test_2861.pdf"), map[string]role.Role{
			"1 “Practitioners of alchemy should know that the kinds of metals cannot be changed": role.Footnote,
			"Copyright © 2021 by Gabriele Ferrario":                                              role.Footnote,
		}},
		// an abstract in small type over the columns is no note, though
		// its affiliations start with marks; revtex's citations set as
		// notes are references
		{filepath.Join(papers, "arxiv_1111.2011v2.pdf"), map[string]role.Role{
			"1 Institute for Quantum Matter and Department of Physics and Astronomy,": role.Body,
			"1 D. C. Johnston, Adv. Phys. 59, 803 (2010).":                            role.Reference,
		}},
		// code listings at a column's foot are no notes
		{filepath.Join(papers, "papermage_emnlp2023demo.pdf"), map[string]role.Role{
			"1 >>> import papermage as pm": role.Body,
		}},
		{filepath.Join(peer, "cermine/cermine-web__src__test__resources__pdf__test1.pdf"), map[string]role.Role{
			"1 Introduction": role.Heading,
			"Over the last two and a half years we have designed,": role.Body,
		}},
		// a table's row labels read as a column of their own; a table
		// of contents; a line of a paragraph that is mostly math
		{filepath.Join(papers, "deepseek_r1_2501.12948.pdf"), map[string]role.Role{
			"Benchmark (Metric)":         role.Table,
			"LiveCodeBench (Pass@1-COT)": role.Table,
			"1.1 Contributions . . . . . . . . . . . . . . . . . . . . . . . . . . . . . . . . . . . . . . . 4": role.Table,
		}},
		{filepath.Join(papers, "adarefiner_naacl2024findings.pdf"), map[string]role.Role{
			"(S, A, P, Ω, O, R, γ). Here, s ∈ S and a ∈ A": role.Body,
		}},
		// a text face named STIX Two Text is no math font
		{filepath.Join(peer, "pymupdf/test_2861.pdf"), map[string]role.Role{
			"Le De anima alchimique du pseudo-Avicenne by Sébastien Moureau": role.Body,
		}},
		// Chinese running text has no spaces to count words by
		{filepath.Join(z, "I4W6ZZ9W/基于深度学习的图像压缩算法研究综述.pdf"), map[string]role.Role{
			"CNN 在图像领域发展迅速,特别是在计算机视觉": role.Body,
			"3.1 基于卷积神经网络的图像压缩方法":     role.Heading,
		}},
		// IEEE's first heading, right under the index terms
		{filepath.Join(z, "4LLXMVZB/Thung和Raveendran - 2009 - A survey of image quality measures.pdf"), map[string]role.Role{
			"I. INTRODUCTION": role.Heading,
		}},
		// "Method", bold in a table's header row, is no section
		{filepath.Join(papers, "pasa_2501.10120.pdf"), map[string]role.Role{
			"Method":           role.Table,
			"5.3 Main results": role.Heading,
		}},
	}
	for _, c := range cases {
		t.Run(filepath.Base(c.file), func(t *testing.T) {
			t.Parallel()
			doc, err := extractShared(c.file)
			if err != nil {
				t.Fatal(err)
			}
			got := lineRoles(doc)
			for line, want := range c.want {
				r, ok := got[line]
				switch {
				case !ok:
					t.Errorf("no line %q", line)
				case r != want:
					t.Errorf("%q is %s, want %s", line, r, want)
				}
			}
		})
	}
}
