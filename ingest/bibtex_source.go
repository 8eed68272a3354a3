package ingest

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"unicode"

	"github.com/papers-cli/papers/ingest/arxiv"
	"github.com/papers-cli/papers/ingest/bibtex"
	"github.com/papers-cli/papers/ingest/chunk"
	"github.com/papers-cli/papers/internal/doi"
	"github.com/papers-cli/papers/internal/lazyre"
	"github.com/papers-cli/papers/internal/people"
	"github.com/papers-cli/papers/internal/safetext"
	"github.com/papers-cli/papers/internal/tex"
	"github.com/papers-cli/papers/store"
)

// ErrBibUnreadable is the failure of a .bib file that cannot be read.
var ErrBibUnreadable = errors.New("cannot read the BibTeX file")

// BibTeX ingests a BibTeX file: every entry with its type, fields and
// citation key. An entry with an arXiv id (eprint, an arxiv.org URL, an
// arXiv DOI, a journal "arXiv preprint arXiv:ID") or a DOI is that paper,
// joined with what the library holds of it (one entry per paper), keyed
// by its arXiv id, else "doi:DOI"; another is keyed by its citation key.
// The key is kept (an identifier of kind IDBibTeX, by which show and
// export find the paper and which export writes again). The PDF an entry
// links (a file field as Zotero, JabRef and Mendeley write it, BibDesk's
// bdsk-file-N) brings its full text; one that is absent is listed in
// Report.Missing. An entry that cannot be read fails alone, named by its
// line ("refs.bib:12"). A re-run reads again only the entries that
// changed (their text or their PDF). Nothing is asked online: entries with
// an arXiv id get arXiv's record at the next papers update.
func (in *Ingester) BibTeX(ctx context.Context, path string) (*Report, error) {
	r := in.newRun()
	f, err := os.Open(path)
	if err != nil {
		err = fmt.Errorf("%w %s: %w", ErrBibUnreadable, path, unwrapPathError(err))
		r.fail(0, path, err, false)
		return r.report(), err
	}
	entries, bad, err := bibtex.Parse(f)
	f.Close()
	if err != nil {
		err = fmt.Errorf("%w %s: %w", ErrBibUnreadable, path, err)
		r.fail(0, path, err, false)
		return r.report(), err
	}
	for _, b := range bad {
		r.fail(b.Line, fmt.Sprintf("%s:%d", path, b.Line), fmt.Errorf("skipped: %s", b.Msg), false)
	}
	if len(entries) == 0 && len(bad) == 0 {
		r.fail(0, path, fmt.Errorf("%w %s: no BibTeX entries in it", ErrBibUnreadable, path), false)
		return r.report(), nil
	}
	held, err := in.Lib.Identifiers(ctx, store.IDBibTeX)
	if err != nil {
		return r.report(), err
	}
	dir := filepath.Dir(path)
	var recs []record
	seen := map[string]bool{}
	for _, e := range entries {
		pos, item := e.Line, fmt.Sprintf("%s:%d", path, e.Line)
		if seen[e.Key] {
			r.skip(pos, item, "citation key "+e.Key+" given again: the first entry is kept")
			continue
		}
		seen[e.Key] = true
		p, err := paperFromBibTeX(e)
		if err != nil {
			r.fail(pos, item, err, false)
			continue
		}
		pdfPath, missing := entryPDF(ctx, e, dir)
		for _, m := range missing {
			r.missingFile(pos, item, e.Key, m)
		}
		stamp := entryStamp(e, pdfPath)
		if h, ok := held[e.Key]; ok && h.Stamp == stamp {
			r.record(pos, outcome{id: h.PaperID, result: store.Unchanged, stored: true})
			r.emit(Event{Kind: Stored, Item: h.PaperID, Result: store.Unchanged})
			continue
		}
		c := candidate{pos: pos, item: item, paper: p, tagSource: "bibtex",
			chunks: []store.Chunk{chunk.Abstract(p.ID, p.Title, p.Abstract)},
			ids:    []store.Identifier{{Kind: store.IDBibTeX, Value: e.Key, Stamp: stamp}}}
		recs = append(recs, record{c: c, pdf: pdfPath})
	}
	err = in.putRecords(ctx, r, recs)
	return r.report(), err
}

// missingFile lists a file an entry links that cannot be read.
func (r *run) missingFile(pos int, item, key string, m Missing) {
	r.mu.Lock()
	if r.missing == nil {
		r.missing = map[int][]Missing{}
	}
	m.Attachment = key
	r.missing[pos] = append(r.missing[pos], m)
	r.mu.Unlock()
	r.emit(Event{Kind: Note, Item: item, Msg: "linked file " + m.Path + " missing: " + m.Reason})
}

// entryPDF is the first file the entry links that is a PDF (by its first
// bytes), and the linked files that cannot be read.
func entryPDF(ctx context.Context, e bibtex.Entry, dir string) (string, []Missing) {
	var missing []Missing
	for _, f := range e.Files(dir) {
		st, err := os.Stat(f)
		switch {
		case err != nil:
			missing = append(missing, Missing{Path: f, Reason: unwrapPathError(err).Error()})
		case st.IsDir():
		default:
			why := notPDF(ctx, f)
			if why == "" {
				return f, missing
			}
			if strings.EqualFold(filepath.Ext(f), ".pdf") {
				missing = append(missing, Missing{Path: f, Reason: why})
			}
		}
	}
	return "", missing
}

// entryStamp tells a re-run whether an entry changed: its fields and its
// PDF's size and modification time.
func entryStamp(e bibtex.Entry, pdfPath string) string {
	h := sha256.New()
	keys := make([]string, 0, len(e.Fields))
	for k := range e.Fields {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	fmt.Fprintf(h, "%s\x00%s\x00", e.Type, e.Key)
	for _, k := range keys {
		fmt.Fprintf(h, "%s\x00%s\x00", k, e.Fields[k])
	}
	if st, err := os.Stat(pdfPath); pdfPath != "" && err == nil {
		fmt.Fprintf(h, "%s\x00%d\x00%d", pdfPath, st.Size(), st.ModTime().UnixNano())
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}

// bibTypes maps BibTeX (and biblatex) entry types to CSL types; an entry
// of another type keeps no type.
var bibTypes = map[string]string{
	"article": "article-journal", "inproceedings": "paper-conference", "conference": "paper-conference",
	"incollection": "chapter", "inbook": "chapter", "book": "book", "booklet": "book", "mvbook": "book", "collection": "book",
	"phdthesis": "thesis", "mastersthesis": "thesis", "thesis": "thesis", "techreport": "report", "report": "report",
	"unpublished": "manuscript", "online": "webpage", "electronic": "webpage", "www": "webpage", "dataset": "dataset",
	"software": "software", "patent": "patent", "manual": "document", "proceedings": "book",
}

var (
	arxivJournal = lazyre.New(`(?i)^(?:arxiv(?:\s+preprint)?(?:\s+arxiv)?\s*:?\s*(\S+)|corr)$`)
	yearRe       = lazyre.New(`\b(1[5-9]\d\d|20\d\d)\b`)
)

// paperFromBibTeX is an entry as a paper (source "bibtex"), keyed as
// BibTeX describes (see Ingester.BibTeX).
func paperFromBibTeX(e bibtex.Entry) (store.Paper, error) {
	f := func(k string) string { return bibtex.Text(e.Fields[k]) }
	p := store.Paper{
		Source: "bibtex", Type: bibTypes[e.Type], Title: f("title"), Abstract: f("abstract"),
		Volume: f("volume"), Issue: f("number"), PageRange: bibtex.Pages(e.Fields["pages"]),
	}
	if p.Issue == "" {
		p.Issue = f("issue")
	}
	for _, k := range []string{"author", "editor"} {
		if v := strings.TrimSpace(e.Fields[k]); v != "" {
			p.Authors = people.BibTeX(v, bibtex.Text)
			break
		}
	}
	for _, k := range []string{"journal", "journaltitle", "booktitle", "howpublished", "series"} {
		if v := strings.TrimSpace(e.Fields[k]); v != "" {
			if j, ok := tex.Journal(v); ok {
				p.Venue = j // an ADS macro: \apj
			} else {
				p.Venue = bibtex.Text(v)
			}
			break
		}
	}
	for _, k := range []string{"publisher", "school", "institution", "organization"} {
		if v := f(k); v != "" {
			p.Publisher = v
			break
		}
	}
	p.Issued = bibDate(f("date"), f("year"), f("month"))
	if t, ok := issuedTime(p.Issued); ok {
		p.Published = t
	}
	p.URL = strings.TrimSpace(e.Fields["url"])
	if d, ok := doi.Parse(f("doi")); ok {
		p.DOI = d
	}
	// arXiv: eprint (with archivePrefix or eprinttype arXiv, or an id
	// alone), arxivid, an arXiv DOI, an arxiv.org URL, a journal that is
	// arXiv itself (Google Scholar's "arXiv preprint arXiv:ID", DBLP's
	// CoRR with volume abs/ID)
	prefix := strings.ToLower(f("archiveprefix") + f("eprinttype"))
	cands := []string{f("arxivid"), f("arxiv"), doi.Arxiv(p.DOI), p.URL}
	if prefix == "" || strings.Contains(prefix, "arxiv") {
		cands = append([]string{f("eprint")}, cands...)
	}
	if m := arxivJournal.FindStringSubmatch(p.Venue); m != nil {
		cands = append(cands, m[1], strings.TrimPrefix(p.Volume, "abs/"))
		p.Venue, p.Volume = "", ""
		if p.Type == "article-journal" {
			p.Type = "article" // a preprint, not a journal article
		}
	}
	for _, c := range cands {
		if id, v, err := arxiv.ParseID(strings.TrimSpace(c)); err == nil {
			p.ArxivID, p.Version = id, v
			break
		}
	}
	if doi.Arxiv(p.DOI) != "" {
		p.DOI = "" // arXiv's own DOI names the arXiv paper, not a published one
	}
	for _, t := range strings.FieldsFunc(f("keywords"), func(r rune) bool { return r == ',' || r == ';' }) {
		if t = strings.TrimSpace(t); t != "" {
			p.Tags = append(p.Tags, store.Tag{Name: t, Source: "bibtex"})
		}
	}
	switch {
	case p.ArxivID != "":
		p.ID = p.ArxivID
	case p.DOI != "":
		p.ID = "doi:" + p.DOI
	default:
		p.ID = bibKeyID(e.Key)
	}
	if p.Title == "" && len(p.Authors) == 0 && p.DOI == "" && p.ArxivID == "" {
		return p, fmt.Errorf("entry %s has no title, author, DOI or arXiv id", e.Key)
	}
	return p, nil
}

// bibKeyID is the library id of an entry known by its citation key only:
// the key, unless every command would read it as something else (an arXiv
// id or a DOI in any form: "bib:KEY" then) or it holds a control
// character (which "bib:" and a hex escape replace).
func bibKeyID(key string) string {
	if strings.IndexFunc(key, unicode.IsControl) >= 0 || safetext.Clean(key) != key {
		return "bib:" + hex.EncodeToString([]byte(key))
	}
	_, _, errArxiv := arxiv.ParseID(key)
	if _, isDOI := doi.Parse(key); errArxiv == nil || isDOI || strings.Contains(key, ":") {
		return "bib:" + key
	}
	return key
}

// bibDate is an entry's date as precisely as it gives it: biblatex's date
// ("2020-08-17", "2020-08"), else year and month (a name, an abbreviation
// or a number).
func bibDate(date, year, month string) string {
	if d := strings.TrimSpace(date); d != "" {
		if _, ok := issuedTime(d); ok {
			return d
		}
		if m := yearRe.FindString(d); m != "" {
			return m
		}
	}
	y := yearRe.FindString(year)
	if y == "" {
		return ""
	}
	m := strings.ToLower(strings.TrimSpace(month))
	for i, name := range []string{"jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"} {
		if strings.HasPrefix(m, name) || m == fmt.Sprint(i+1) || m == fmt.Sprintf("%02d", i+1) {
			return fmt.Sprintf("%s-%02d", y, i+1)
		}
	}
	return y
}
