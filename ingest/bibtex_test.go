package ingest

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/papers-cli/papers/export"
	"github.com/papers-cli/papers/export/exporttest"
	"github.com/papers-cli/papers/ingest/arxiv/arxivtest"
	"github.com/papers-cli/papers/store"
)

// A BibTeX file as reference managers write them: Zotero's, Mendeley's and
// JabRef's file fields (absolute, without its leading slash, relative),
// an ADS entry (journal macro, eprint), Crossref's own BibTeX for DOIs
// (the recorded transforms), an entry whose DOI a held corpus record has,
// a broken entry, a key given twice, a linked file that is not there.
func TestBibTeXIngest(t *testing.T) {
	f := newFixture(t, arxivtest.Options{})
	ctx := context.Background()
	dir := t.TempDir()
	papers := filepath.Join(f.data, "pdfs", "papers")
	abs := func(name string) string { a, _ := filepath.Abs(filepath.Join(papers, name)); return a }
	if err := os.MkdirAll(filepath.Join(dir, "pdfs"), 0o700); err != nil {
		t.Fatal(err)
	}
	copyFile(t, filepath.Join(papers, "papermage_emnlp2023demo.pdf"), filepath.Join(dir, "pdfs", "papermage.pdf"))
	corpus := filepath.Join(dir, "c.jsonl")
	if err := os.WriteFile(corpus, []byte(`{"_id":"pone-1","title":"Methylphenidate exposure","text":"An abstract.","metadata":{"doi":"10.1371/journal.pone.0033693"}}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := f.in.JSONL(ctx, corpus); err != nil {
		t.Fatal(err)
	}
	var crossrefBib []byte
	recorded, _ := filepath.Glob(filepath.Join(f.data, "metadata", "doi-bibtex", "10.1038_s42256-024-00832-8.bib"))
	for _, r := range recorded {
		b, _ := os.ReadFile(r)
		crossrefBib = append(crossrefBib, b...)
	}
	bib := fmt.Sprintf(`%% exported by hand from three managers
@article{wellawatte2023perspective,
  title = {A Perspective on Explanations of Molecular Prediction Models},
  author = {Wellawatte, Geemi P. and Gandhi, Heta A. and Seshadri, Aditi and White, Andrew D.},
  journal = {Journal of Chemical Theory and Computation},
  year = {2023},
  file = {Full Text PDF:%s:application/pdf},
}

@inproceedings{lo2023papermage,
  title = {{PaperMage}: A Unified Toolkit for Processing, Representing, and Manipulating Visually-Rich Scientific Documents},
  author = {Lo, Kyle and Shen, Zejiang and Newman, Benjamin},
  booktitle = {Proceedings of the 2023 Conference on Empirical Methods in Natural Language Processing: System Demonstrations},
  year = {2023},
  file = {:pdfs/papermage.pdf:PDF},
}

@article{Schick2023,
  author = {Schick, Timo and Dwivedi-Yu, Jane},
  title = {Toolformer: Language Models Can Teach Themselves to Use Tools},
  year = {2023},
  file = {:%s:pdf},
}

@ARTICLE{2009ApJS..182..543A,
  author = {{Abazajian}, Kevork N. and {Adelman-McCarthy}, Jennifer K.},
  title = "{The Seventh Data Release of the Sloan Digital Sky Survey}",
  journal = {\apjs},
  year = 2009, month = jun, volume = {182}, pages = {543-558},
  doi = {10.1088/0067-0049/182/2/543},
  eprint = {0812.0649}, archivePrefix = {arXiv}, primaryClass = {astro-ph},
  adsurl = {https://ui.adsabs.harvard.edu/abs/2009ApJS..182..543A},
}

@article{pone,
  title = {Methylphenidate Exposure Induces Dopamine Neuron Loss},
  author = {Oakes, Hannah V. and others},
  journal = {PLoS ONE}, year = {2012}, doi = {https://doi.org/10.1371/journal.pone.0033693},
  file = {:%s:PDF},
}

@misc{broken,
  title = {An unclosed {brace,
}

@misc{pone, title = {the same key again}}
%s`, abs("explanations_molecular_prediction_paperqa.pdf"), strings.TrimPrefix(abs("toolformer_2302.04761v1.pdf"), "/"), filepath.Join(dir, "gone.pdf"), crossrefBib)
	path := filepath.Join(dir, "refs.bib")
	if err := os.WriteFile(path, []byte(bib), 0o600); err != nil {
		t.Fatal(err)
	}
	rep, err := f.in.Run(ctx, Classify([]string{path}))
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Added) != 5 || len(rep.Updated) != 1 || rep.Updated[0] != "pone-1" {
		t.Errorf("added %v, updated %v", rep.Added, rep.Updated)
	}
	if len(rep.Failed) != 1 || rep.Failed[0].Item != path+":42" || !strings.Contains(rep.Failed[0].Reason, "not closed") {
		t.Errorf("failed %+v", rep.Failed)
	}
	if len(rep.Skipped) != 1 || !strings.Contains(rep.Skipped[0].Reason, "citation key pone given again") {
		t.Errorf("skipped %+v", rep.Skipped)
	}
	if len(rep.Missing) != 1 || rep.Missing[0].Path != filepath.Join(dir, "gone.pdf") || rep.Missing[0].Item != "pone-1" {
		t.Errorf("missing %+v", rep.Missing)
	}
	get := func(ref string) store.Paper {
		t.Helper()
		p, err := f.lib.FindPaper(ctx, ref)
		if err != nil {
			t.Fatalf("%s: %v", ref, err)
		}
		return p
	}
	if p := get("wellawatte2023perspective"); p.ID != "wellawatte2023perspective" || p.Pages == 0 || p.Source != "bibtex" || len(p.Authors) != 4 || p.Authors[0] != "Geemi P. Wellawatte" {
		t.Errorf("Zotero-style file: %+v", p)
	}
	if p := get("lo2023papermage"); p.Pages == 0 || p.Type != "paper-conference" || !strings.HasPrefix(p.Title, "PaperMage: A Unified") {
		t.Errorf("JabRef-style file: %+v", p)
	}
	if p := get("Schick2023"); p.ID != "2302.04761" || p.Pages != 17 || p.Version != 1 {
		t.Errorf("Mendeley-style file of an arXiv PDF: %+v", p)
	}
	if p := get("2009ApJS..182..543A"); p.ID != "0812.0649" || p.Venue != "The Astrophysical Journal Supplement Series" || p.Issued != "2009-06" ||
		p.DOI != "10.1088/0067-0049/182/2/543" || p.PageRange != "543-558" || !slices.Equal(p.Authors, []string{"Kevork N. Abazajian", "Jennifer K. Adelman-McCarthy"}) {
		t.Errorf("ADS entry: %+v", p)
	}
	if p := get("pone"); p.ID != "pone-1" || p.Venue != "PLoS ONE" || p.Source != "bibtex" {
		t.Errorf("entry joining a held paper by DOI: %+v", p)
	}
	if p := get("M_Bran_2024"); p.ID != "doi:10.1038/s42256-024-00832-8" || p.Venue != "Nature Machine Intelligence" || p.PageRange != "525-535" || p.Issued != "2024-05" {
		t.Errorf("Crossref's BibTeX: %+v", p)
	}
	// a second run reads nothing again
	before := extractCalls.Load()
	rep, err = f.in.Run(ctx, Classify([]string{path}))
	if err != nil || len(rep.Added)+len(rep.Updated) != 0 || len(rep.Unchanged) != 6 || extractCalls.Load() != before {
		t.Errorf("second run: %v %+v, %d extractions", err, rep, extractCalls.Load()-before)
	}
	// export writes the keys the entries had, and compiles
	got, err := export.Select(ctx, f.lib, export.Selection{Refs: []string{"wellawatte2023perspective", "2302.04761", "10.1038/s42256-024-00832-8", "2009ApJS..182..543A", "pone-1", "lo2023papermage"}})
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := export.BibTeX(&out, got.Papers, got.Keys); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"@article{wellawatte2023perspective,", "{Schick2023,", "{M_Bran_2024,", "{2009ApJS..182..543A,", "{pone,", "{lo2023papermage,"} {
		if !strings.Contains(out.String(), k) {
			t.Errorf("export lacks %s:\n%s", k, out.String())
		}
	}
	if r := exporttest.Check(t, out.Bytes()); len(r.BibTeXErrors)+len(r.BiberErrors)+len(r.NameWarnings()) > 0 || r.Entries != 6 {
		t.Errorf("export does not compile: %+v", r)
	}
}
