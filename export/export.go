// Package export writes library papers as citations for reference managers
// and LaTeX: BibTeX and CSL-JSON (what Zotero, pandoc and citeproc read).
//
// The entry type follows what is known of the paper (Paper.Type, set from
// Zotero): @article with journal, volume, number, pages and doi for a
// journal article, @inproceedings for a conference paper, @incollection,
// @book, @phdthesis, @techreport; everything else is @misc. Papers on
// arXiv carry eprint, archivePrefix and primaryClass in the form arXiv's
// own "Export BibTeX citation" uses. Local files' paths are never written
// as a url.
package export

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"

	"github.com/papers-cli/papers/internal/cite"
	"github.com/papers-cli/papers/internal/people"
	"github.com/papers-cli/papers/internal/tex"
	"github.com/papers-cli/papers/store"
)

// Keys returns a citation key for each paper, in order. A paper with a
// key of its own (own[p.ID]: the citation key its BibTeX entry had) keeps
// it, unless another paper of ps has the same one. The others get the
// first author's surname, the year and the first significant word of the
// title, in lower case ASCII ("guo2025deepseek"); keys that would repeat
// (or be another paper's own) get suffixes a, b, c... assigned in
// (published, id) order, skipping any suffixed key another paper has as
// its own ("Learninga: ..." keeps learninga, so two "Learning ..." papers
// get learningb and learningc). The same set of papers always gets the
// same keys whatever order they come in.
func Keys(ps []store.Paper, own map[string]string) []string {
	keys := make([]string, len(ps))
	taken := map[string]bool{}
	ownCount := map[string]int{}
	for _, p := range ps {
		if k := own[p.ID]; validKey(k) {
			ownCount[k]++
		}
	}
	groups := map[string][]int{}
	for i, p := range ps {
		if k := own[p.ID]; validKey(k) && ownCount[k] == 1 {
			keys[i], taken[k] = k, true
			continue
		}
		b := baseKey(p)
		keys[i] = b
		groups[b] = append(groups[b], i)
	}
	var shared []string
	for b, idx := range groups {
		if len(idx) < 2 && !taken[b] {
			taken[b] = true
		} else {
			shared = append(shared, b)
		}
	}
	// Sorted, so which group skips which suffix does not depend on map order.
	slices.Sort(shared)
	for _, b := range shared {
		idx := groups[b]
		slices.SortFunc(idx, func(x, y int) int {
			if c := ps[x].Published.Compare(ps[y].Published); c != 0 {
				return c
			}
			return strings.Compare(ps[x].ID, ps[y].ID)
		})
		n := 0
		for _, i := range idx {
			for taken[b+suffix(n)] {
				n++
			}
			keys[i] = b + suffix(n)
			taken[keys[i]] = true
			n++
		}
	}
	return keys
}

// validKey says whether k can be written as a BibTeX citation key: no
// blanks, braces, commas, quotes, "#", "%" or "=".
func validKey(k string) bool {
	return k != "" && !strings.ContainsFunc(k, func(r rune) bool {
		return unicode.IsSpace(r) || unicode.IsControl(r) || strings.ContainsRune(`{}(),"#%=\`, r)
	})
}

// suffix is a, b, ..., z, aa, ab, ...
func suffix(n int) string {
	s := ""
	for {
		s = string(rune('a'+n%26)) + s
		n = n/26 - 1
		if n < 0 {
			return s
		}
	}
}

var titleSkip = map[string]bool{"a": true, "an": true, "the": true, "on": true, "of": true, "in": true, "to": true, "for": true, "and": true, "is": true, "are": true, "do": true, "does": true, "with": true, "at": true, "by": true, "from": true, "towards": true, "toward": true}

func baseKey(p store.Paper) string {
	surname := "anon"
	if names, _ := people.Names(p.Authors); len(names) > 0 {
		n := names[0]
		if n.Org {
			// "Research and Development Team" -> research, not the whole name.
			n.Family = firstWord(n.Family)
		}
		if s := asciiWord(n.Family); s != "" {
			surname = s
		}
	}
	year := "nd"
	if !p.Published.IsZero() {
		year = fmt.Sprint(p.Published.Year())
	}
	return surname + year + firstWord(p.Title)
}

// firstWord is the first word of s that is not a stop word, as asciiWord.
func firstWord(s string) string {
	for _, w := range strings.Fields(s) {
		if a := asciiWord(w); a != "" && !titleSkip[a] {
			return a
		}
	}
	return ""
}

// asciiWord folds accents away and keeps lower-case ASCII letters and digits.
func asciiWord(s string) string {
	var b strings.Builder
	for _, r := range norm.NFKD.String(s) {
		r = unicode.ToLower(r)
		if r < 128 && (unicode.IsLetter(r) || unicode.IsDigit(r)) {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// Escape makes text safe in a BibTeX field: LaTeX's special characters are
// escaped (\ # $ % & _ { } ~ ^) and whitespace collapsed. Non-ASCII letters
// are kept as UTF-8, which biber and modern bibtex read.
func Escape(s string) string {
	return escapeText(strings.Join(strings.Fields(s), " "))
}

// escapeText is Escape without the whitespace collapsing. Braces become \{
// and \} when they pair up; BibTeX counts a brace after a backslash too,
// so unpaired ones become \textbraceleft{} and \textbraceright{}, which
// leave the field balanced.
func escapeText(s string) string {
	paired := tex.Balanced(s)
	var b strings.Builder
	for i := 0; i < len(s); {
		if s[i] == '\\' || s[i] == '{' && strings.HasPrefix(s[i+1:], `\`) {
			if t, _, n := tex.AccentAt(s[i:]); n > 0 { // J\"urg stays TeX: {\"u}
				b.WriteString(t)
				i += n
				continue
			}
		}
		r, w := utf8.DecodeRuneInString(s[i:])
		i += w
		switch r {
		case '\\':
			b.WriteString(`\textbackslash{}`)
		case '#', '$', '%', '&', '_':
			b.WriteByte('\\')
			b.WriteRune(r)
		case '{', '}':
			switch {
			case paired:
				b.WriteByte('\\')
				b.WriteRune(r)
			case r == '{':
				b.WriteString(`\textbraceleft{}`)
			default:
				b.WriteString(`\textbraceright{}`)
			}
		case '~':
			b.WriteString(`\textasciitilde{}`)
		case '^':
			b.WriteString(`\textasciicircum{}`)
		default:
			if run, n := tex.SymbolRun(s[i-w:]); n > 0 { // Greek letters or symbols pdflatex cannot set as text
				b.WriteString(run)
				i += n - w
				continue
			}
			b.WriteRune(r)
		}
	}
	return b.String()
}

// escapeTitle is Escape except that TeX math between $ signs is kept as
// TeX, as arXiv's own BibTeX keeps it ("$\alpha$-Divergence"). Only when
// the $ signs pair up and every math span balances its braces (BibTeX
// counts \{ too); otherwise the whole title is escaped as text. Inside math
// a bare % # or & would end the line or the field in LaTeX and is escaped.
func escapeTitle(s string) string {
	parts := strings.Split(strings.Join(strings.Fields(s), " "), "$")
	if len(parts) < 3 || len(parts)%2 == 0 {
		return Escape(s)
	}
	var b strings.Builder
	for i, part := range parts {
		if i%2 == 0 {
			b.WriteString(escapeText(part))
			continue
		}
		b.WriteByte('$')
		depth := 0
		for j := 0; j < len(part); j++ {
			c := part[j]
			switch {
			case c == '{':
				depth++
			case c == '}':
				if depth--; depth < 0 {
					return Escape(s)
				}
			case c == '\\' && j+1 < len(part) && part[j+1] != '{' && part[j+1] != '}':
				b.WriteByte(c) // \alpha, \%: the next byte is not special
				j++
				c = part[j]
			case c == '%' || c == '#' || c == '&':
				b.WriteByte('\\')
			case c >= utf8.RuneSelf:
				// $π$ stops pdflatex: Unicode symbols become commands ($\pi$)
				r, w := utf8.DecodeRuneInString(part[j:])
				if cmd, ok := tex.MathCommand(r, part[j+w:]); ok {
					b.WriteString(cmd)
					j += w - 1
					continue
				}
			}
			b.WriteByte(c)
		}
		if depth != 0 {
			return Escape(s)
		}
		b.WriteByte('$')
	}
	return b.String()
}

// verbatim makes a doi or url value safe in BibTeX, where biblatex and the
// url package read them verbatim: nothing is escaped (10.1000/a_b%20c stays
// as is), but braces and backslashes, which BibTeX would count or LaTeX
// read, and whitespace are percent-encoded as in a URL.
func verbatim(s string) string {
	return strings.NewReplacer("{", "%7B", "}", "%7D", `\`, "%5C", " ", "%20").Replace(strings.Join(strings.Fields(s), " "))
}

// bibTypes maps the CSL item types papers records (Paper.Type) to BibTeX
// entry types and the field their container goes in.
var bibTypes = map[string]struct{ entry, container string }{
	"article-journal":   {"article", "journal"},
	"article-magazine":  {"article", "journal"},
	"article-newspaper": {"article", "journal"},
	"paper-conference":  {"inproceedings", "booktitle"},
	"chapter":           {"incollection", "booktitle"},
	"book":              {"book", ""},
	"thesis":            {"phdthesis", ""},
	"report":            {"techreport", ""},
}

// BibTeX writes one entry per paper, keys from Keys (own: the papers'
// own citation keys, see Selected.Keys; nil for none), typed as the
// package doc says.
func BibTeX(w io.Writer, ps []store.Paper, own map[string]string) error {
	keys := Keys(ps, own)
	var b strings.Builder
	for i, p := range ps {
		if i > 0 {
			b.WriteString("\n")
		}
		bt, typed := bibTypes[p.Type]
		if !typed {
			bt.entry = "misc"
		}
		fmt.Fprintf(&b, "@%s{%s,\n", bt.entry, keys[i])
		field := func(k, v string) {
			if strings.TrimSpace(v) != "" {
				fmt.Fprintf(&b, "  %-13s = {%s},\n", k, v)
			}
		}
		// Double braces keep the title's capitalisation.
		field("title", "{"+escapeTitle(p.Title)+"}")
		names, more := people.Names(p.Authors)
		var as []string
		for _, n := range names {
			as = append(as, bibName(n))
		}
		if more && len(as) > 0 {
			as = append(as, "others") // BibTeX styles print "et al."
		}
		field("author", strings.Join(as, " and "))
		if len(as) == 0 {
			// what BibTeX styles sort and label by when there is no author
			field("key", "{"+escapeTitle(p.Title)+"}")
		}
		venue, _ := tex.Journal(p.Venue) // an ADS macro (\apjs) is the journal's name
		if venue == "" && (!typed || bt.container == "journal") {
			venue = p.JournalRef // arXiv's journal reference: "Phys. Rev. B 85, 115117 (2012)"
		}
		switch {
		case bt.container != "":
			field(bt.container, Escape(venue))
		case p.Type == "thesis":
			field("school", Escape(p.Publisher))
		case p.Type == "report":
			field("institution", Escape(p.Publisher))
		case !typed:
			field("journal", Escape(venue))
		}
		field("volume", Escape(p.Volume))
		field("number", Escape(p.Issue))
		field("pages", Escape(pageRange(p.PageRange)))
		if bt.entry == "book" || bt.entry == "inproceedings" || bt.entry == "incollection" {
			field("publisher", Escape(p.Publisher))
		}
		if y, m, _ := issued(p); y > 0 {
			field("year", fmt.Sprint(y))
			if m > 0 && typed {
				field("month", monthNames[m-1])
			}
		}
		if id := arxivID(p); id != "" {
			idv := id
			if p.Version > 0 {
				idv = fmt.Sprintf("%sv%d", id, p.Version)
			}
			field("eprint", Escape(idv))
			field("archivePrefix", "arXiv")
			if len(p.Categories) > 0 {
				field("primaryClass", Escape(p.Categories[0]))
			}
		}
		field("doi", verbatim(p.DOI))
		field("url", verbatim(urlOf(p)))
		out := strings.TrimSuffix(b.String(), ",\n") + "\n}\n"
		b.Reset()
		b.WriteString(out)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// bibName writes a name as BibTeX reads one person: "Family, Given",
// "Family, Suffix, Given", or in braces when it has no given name (a
// one-word name, an organisation), so that no word of it ("and", a
// comma) is read as a separator.
func bibName(n people.Name) string {
	switch {
	case n.Org || n.Given == "":
		return "{" + Escape(strings.TrimSpace(n.Family+" "+n.Suffix)) + "}"
	case n.Suffix != "":
		return Escape(n.Family) + ", " + Escape(n.Suffix) + ", " + Escape(n.Given)
	}
	return Escape(n.Family) + ", " + Escape(n.Given)
}

var monthNames = []string{"jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"}

// pageRange writes a range with BibTeX's en dash: "5921-5932" -> "5921--5932".
func pageRange(s string) string {
	s = strings.TrimSpace(s)
	if strings.Contains(s, "--") {
		return s
	}
	return strings.NewReplacer("–", "--", "—", "--", "-", "--").Replace(s)
}

// arxivID is the paper's arXiv id, if it is on arXiv.
func arxivID(p store.Paper) string {
	if p.ArxivID != "" {
		return p.ArxivID
	}
	if p.Source == "arxiv" {
		return p.ID
	}
	return ""
}

// issued is the paper's publication date as precisely as known: year,
// month (0 if unknown) and day (0 if unknown).
func issued(p store.Paper) (y, m, d int) {
	if p.Issued != "" {
		parts := strings.Split(p.Issued, "-")
		vals := make([]int, 3)
		for i := 0; i < len(parts) && i < 3; i++ {
			fmt.Sscan(parts[i], &vals[i])
		}
		if vals[0] > 0 {
			return vals[0], vals[1], vals[2]
		}
	}
	if p.Published.IsZero() {
		return 0, 0, 0
	}
	t := p.Published.UTC()
	return t.Year(), int(t.Month()), t.Day()
}

// urlOf is the paper's web address: its URL unless that is a local file's
// path, else its arXiv page.
func urlOf(p store.Paper) string {
	if p.URL != "" && !strings.HasPrefix(strings.ToLower(p.URL), "file:") {
		return p.URL
	}
	if id := arxivID(p); id != "" {
		return cite.ArxivURL(id, 0)
	}
	return ""
}

// CSLItem is one CSL-JSON item (the subset papers fills).
type CSLItem struct {
	ID             string    `json:"id"`
	Type           string    `json:"type"`
	Title          string    `json:"title"`
	Author         []CSLName `json:"author,omitempty"`
	Issued         *CSLDate  `json:"issued,omitempty"`
	URL            string    `json:"URL,omitempty"`
	DOI            string    `json:"DOI,omitempty"`
	ContainerTitle string    `json:"container-title,omitempty"`
	Volume         string    `json:"volume,omitempty"`
	Issue          string    `json:"issue,omitempty"`
	Page           string    `json:"page,omitempty"`
	Publisher      string    `json:"publisher,omitempty"`
	Number         string    `json:"number,omitempty"` // the arXiv id with version, preprints only
	Genre          string    `json:"genre,omitempty"`
	Abstract       string    `json:"abstract,omitempty"`
}

// CSLName is a CSL-JSON name.
type CSLName struct {
	Family  string `json:"family,omitempty"`
	Given   string `json:"given,omitempty"`
	Literal string `json:"literal,omitempty"`
	Suffix  string `json:"suffix,omitempty"`
}

// CSLDate is a CSL-JSON date.
type CSLDate struct {
	DateParts [][]int `json:"date-parts"`
}

// CSLJSON writes the papers as a CSL-JSON array, ids from Keys. A paper of
// known type (Paper.Type) is an item of that type with its container,
// volume, issue, pages and publisher; arXiv preprints are "article" items
// with publisher arXiv and the id as number, as Zotero records them;
// published ones are "article-journal" items that name their journal,
// without arXiv's publisher and number. The date has the precision the
// source gave (2023, 2023-05, 2023-05-17). A "+N" marker
// for authors the source left out is dropped: CSL-JSON has no "and others"
// name, and styles add "et al." by their own rules.
func CSLJSON(w io.Writer, ps []store.Paper, own map[string]string) error {
	keys := Keys(ps, own)
	items := make([]CSLItem, 0, len(ps))
	for i, p := range ps {
		it := CSLItem{ID: keys[i], Type: "article", Title: tex.FromTeX(strings.Join(strings.Fields(p.Title), " ")), URL: urlOf(p), DOI: p.DOI,
			Abstract: strings.Join(strings.Fields(p.Abstract), " ")}
		names, _ := people.Names(p.Authors)
		for _, n := range names {
			if n.Given == "" && (n.Org || n.Suffix == "") {
				it.Author = append(it.Author, CSLName{Literal: tex.FromTeX(n.Family)})
			} else {
				it.Author = append(it.Author, CSLName{Family: tex.FromTeX(n.Family), Given: tex.FromTeX(n.Given), Suffix: n.Suffix})
			}
		}
		if y, m, d := issued(p); y > 0 {
			parts := []int{y}
			if m > 0 {
				parts = append(parts, m)
				if d > 0 {
					parts = append(parts, d)
				}
			}
			it.Issued = &CSLDate{DateParts: [][]int{parts}}
		}
		if id := arxivID(p); id != "" && p.Type == "" || p.Type == "article" {
			it.Publisher, it.Genre = "arXiv", "Preprint"
			if id != "" {
				it.Number = id
				if p.Version > 0 {
					it.Number = fmt.Sprintf("%sv%d", id, p.Version)
				}
			} else {
				it.Publisher = p.Publisher
			}
		}
		if p.Type != "" {
			it.Type = p.Type
			venue, _ := tex.Journal(p.Venue)
			it.ContainerTitle, it.Volume, it.Issue, it.Page = tex.FromTeX(venue), p.Volume, p.Issue, p.PageRange
			if p.Type != "article" {
				it.Publisher, it.Number, it.Genre = p.Publisher, "", ""
			}
		} else if p.JournalRef != "" {
			// Styles print publisher and number for any type that has them
			// ("Phys. Rev. B 85 ... arXiv 1111.2011v2"); the URL still
			// leads to the arXiv version.
			it.Type, it.ContainerTitle = "article-journal", p.JournalRef
			it.Publisher, it.Number, it.Genre = "", "", ""
		}
		items = append(items, it)
	}
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(items)
}

// risTypes maps the CSL item types papers records to RIS reference types,
// as Zotero's RIS translator writes them.
var risTypes = map[string]string{
	"article-journal": "JOUR", "article-magazine": "MGZN", "article-newspaper": "NEWS", "paper-conference": "CONF",
	"chapter": "CHAP", "book": "BOOK", "thesis": "THES", "report": "RPRT", "dataset": "DATA", "webpage": "ELEC",
	"post-weblog": "BLOG", "entry-encyclopedia": "ENCYC", "entry-dictionary": "DICT", "manuscript": "MANSCPT",
	"patent": "PAT", "software": "COMP", "speech": "SLIDE", "standard": "STAND", "article": "UNPB",
}

// RIS writes the papers as RIS records (what EndNote, Zotero, Mendeley
// and RefWorks import), IDs from Keys: TY from the paper's type (an arXiv
// preprint is UNPB, unpublished work; a paper of unknown type GEN), TI,
// one AU per author ("Family, Given"), PY and DA with the precision known,
// T2 (journal, proceedings or book), VL, IS, SP and EP, PB, DO, UR, AB and
// one KW per tag. Values are UTF-8 on one line each; TeX accents become
// Unicode.
func RIS(w io.Writer, ps []store.Paper, own map[string]string) error {
	keys := Keys(ps, own)
	var b strings.Builder
	for i, p := range ps {
		field := func(tag, v string) {
			if v = strings.Join(strings.Fields(v), " "); v != "" {
				fmt.Fprintf(&b, "%s  - %s\r\n", tag, v)
			}
		}
		ty := risTypes[p.Type]
		switch {
		case ty != "":
		case p.Type == "" && (arxivID(p) != "" && p.JournalRef == ""):
			ty = "UNPB"
		case p.Type == "" && p.JournalRef != "":
			ty = "JOUR"
		default:
			ty = "GEN"
		}
		field("TY", ty)
		field("ID", keys[i])
		field("TI", tex.FromTeX(p.Title))
		names, _ := people.Names(p.Authors)
		for _, n := range names {
			switch {
			case n.Org || n.Given == "":
				field("AU", tex.FromTeX(strings.TrimSpace(n.Family+" "+n.Suffix)))
			case n.Suffix != "":
				field("AU", tex.FromTeX(n.Family+", "+n.Given+", "+n.Suffix))
			default:
				field("AU", tex.FromTeX(n.Family+", "+n.Given))
			}
		}
		if y, m, d := issued(p); y > 0 {
			field("PY", fmt.Sprint(y))
			da := fmt.Sprintf("%04d/", y)
			if m > 0 {
				da += fmt.Sprintf("%02d", m)
			}
			da += "/"
			if d > 0 && m > 0 {
				da += fmt.Sprintf("%02d", d)
			}
			field("DA", da+"/")
		}
		venue, _ := tex.Journal(p.Venue)
		if venue == "" {
			venue = p.JournalRef
		}
		field("T2", tex.FromTeX(venue))
		field("VL", p.Volume)
		field("IS", p.Issue)
		if sp, ep, ok := strings.Cut(strings.NewReplacer("–", "-", "—", "-", "--", "-").Replace(p.PageRange), "-"); ok {
			field("SP", sp)
			field("EP", ep)
		} else {
			field("SP", p.PageRange)
		}
		field("PB", p.Publisher)
		field("DO", p.DOI)
		field("UR", urlOf(p))
		if id := arxivID(p); id != "" {
			idv := id
			if p.Version > 0 {
				idv = fmt.Sprintf("%sv%d", id, p.Version)
			}
			field("AN", "arXiv:"+idv)
		}
		field("AB", tex.FromTeX(p.Abstract))
		for _, t := range p.Tags {
			field("KW", t.Name)
		}
		b.WriteString("ER  - \r\n\r\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}
