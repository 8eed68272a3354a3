package crossref

import (
	"encoding/json"
	"fmt"
	"html"
	"strconv"
	"strings"
	"unicode"

	"github.com/papers-cli/papers/internal/lazyre"
	"github.com/papers-cli/papers/internal/people"
)

// Work is the part of Crossref's record of a DOI (its "message") that
// papers reads. Text fields are as Crossref serves them, markup and all:
// the methods below give them clean.
type Work struct {
	DOI                 string             `json:"DOI"`
	Type                string             `json:"type"`    // journal-article, proceedings-article, book-chapter, posted-content, ...
	Subtype             string             `json:"subtype"` // posted-content: preprint, blog, ...
	RawTitle            []string           `json:"title"`
	RawSubtitle         []string           `json:"subtitle"`
	RawOriginalTitle    []string           `json:"original-title"`
	ContainerTitle      []string           `json:"container-title"`
	ShortContainerTitle []string           `json:"short-container-title"`
	Author              []Person           `json:"author"`
	Editor              []Person           `json:"editor"`
	Issued              Date               `json:"issued"`
	Published           Date               `json:"published"`
	PublishedPrint      Date               `json:"published-print"`
	PublishedOnline     Date               `json:"published-online"`
	Posted              Date               `json:"posted"`
	Approved            Date               `json:"approved"`
	Volume              string             `json:"volume"`
	Issue               string             `json:"issue"`
	Page                string             `json:"page"`
	ArticleNumber       string             `json:"article-number"`
	Publisher           string             `json:"publisher"`
	Institution         []Institution      `json:"institution"`
	RawAbstract         string             `json:"abstract"`
	URL                 string             `json:"URL"`
	Link                []Link             `json:"link"`
	Score               float64            `json:"score"`
	Relation            map[string][]Match `json:"relation"`
}

// Person is an author or editor: a person (given, family) or an
// organisation (name).
type Person struct {
	Given    string `json:"given"`
	Family   string `json:"family"`
	Suffix   string `json:"suffix"`
	Name     string `json:"name"`
	Sequence string `json:"sequence"`
}

// Institution is where a thesis was defended, a report written or a
// preprint posted (bioRxiv).
type Institution struct {
	Name string `json:"name"`
}

// Link is a full-text link a publisher deposited.
type Link struct {
	URL                 string `json:"URL"`
	ContentType         string `json:"content-type"`
	IntendedApplication string `json:"intended-application"`
}

// Match is one related item (relation "is-preprint-of", ...).
type Match struct {
	ID     string `json:"id"`
	IDType string `json:"id-type"`
}

// Date is a Crossref date as precisely as it is known: year, month and
// day, 0 where unknown (Crossref writes [[null]] for none at all).
type Date struct{ Year, Month, Day int }

// UnmarshalJSON reads {"date-parts": [[2012, 3, 21]]} (numbers, null or
// numeric strings).
func (d *Date) UnmarshalJSON(b []byte) error {
	var v struct {
		Parts [][]any `json:"date-parts"`
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return nil // an unreadable date is an unknown one
	}
	if len(v.Parts) == 0 {
		return nil
	}
	var nums [3]int
	for i, p := range v.Parts[0] {
		if i >= 3 {
			break
		}
		switch x := p.(type) {
		case float64:
			nums[i] = int(x)
		case string:
			nums[i], _ = strconv.Atoi(x)
		}
	}
	if nums[0] <= 0 {
		return nil
	}
	d.Year, d.Month, d.Day = nums[0], nums[1], nums[2]
	if d.Month < 1 || d.Month > 12 {
		d.Month, d.Day = 0, 0
	}
	if d.Day < 0 || d.Day > 31 {
		d.Day = 0
	}
	return nil
}

// String is the date as "2012", "2012-03" or "2012-03-21"; "" when unknown.
func (d Date) String() string {
	switch {
	case d.Year == 0:
		return ""
	case d.Month == 0:
		return fmt.Sprintf("%04d", d.Year)
	case d.Day == 0:
		return fmt.Sprintf("%04d-%02d", d.Year, d.Month)
	}
	return fmt.Sprintf("%04d-%02d-%02d", d.Year, d.Month, d.Day)
}

// Date is when the work was published, as precisely as Crossref knows:
// its issued date, else the first of print, online, posting (preprints)
// and approval (theses). Never the date the record was deposited.
func (w *Work) Date() Date {
	for _, d := range []Date{w.Issued, w.PublishedPrint, w.PublishedOnline, w.Published, w.Posted, w.Approved} {
		if d.Year > 0 {
			return d
		}
	}
	return Date{}
}

// Title is the work's title with its subtitle ("Title: Subtitle"),
// markup removed; the title in its original language when Crossref has
// no other.
func (w *Work) Title() string {
	t := first(w.RawTitle)
	if t == "" {
		t = first(w.RawOriginalTitle)
	}
	if st := first(w.RawSubtitle); st != "" && t != "" && !strings.Contains(strings.ToLower(t), strings.ToLower(st)) {
		if strings.HasSuffix(t, "?") || strings.HasSuffix(t, "!") || strings.HasSuffix(t, ":") {
			t += " " + st
		} else {
			t += ": " + st
		}
	}
	return t
}

// Container is the journal, proceedings or book the work appeared in;
// for a preprint, the server it was posted to (bioRxiv), which Crossref
// gives as its institution.
func (w *Work) Container() string {
	if c := first(w.ContainerTitle); c != "" {
		return c
	}
	if w.Type == "posted-content" && len(w.Institution) > 0 {
		return Clean(w.Institution[0].Name)
	}
	return ""
}

// Authors are the work's authors as the library stores names (see package
// people), in Crossref's order: people by given and family name,
// organisations by their name. A work without authors (a book of
// chapters) gives its editors.
func (w *Work) Authors() []string {
	ps := w.Author
	if len(ps) == 0 {
		ps = w.Editor
	}
	var out []string
	for _, p := range ps {
		n := people.Name{Family: Clean(p.Family), Given: Clean(p.Given), Suffix: Clean(p.Suffix)}
		if n.Family == "" {
			n = people.Name{Family: Clean(p.Name), Org: true}
			if n.Family == "" {
				n.Family, n.Org = n.Given, false // a given name alone
			}
		}
		if n.Family != "" {
			out = append(out, n.String())
		}
	}
	return out
}

// Pages is the work's page range, or its article number where it has no
// pages (PLOS, Physical Review).
func (w *Work) Pages() string {
	if p := strings.TrimSpace(w.Page); p != "" {
		return p
	}
	return strings.TrimSpace(w.ArticleNumber)
}

// Abstract is the work's abstract as plain text: JATS paragraphs apart by
// blank lines, section titles as "Background: ...", a leading "Abstract"
// dropped; "" when Crossref has none.
func (w *Work) Abstract() string {
	s := w.RawAbstract
	if strings.TrimSpace(s) == "" {
		return ""
	}
	s = jatsTitleEnd.ReplaceAllString(s, ": ")
	s = jatsParaEnd.ReplaceAllString(s, "\n\n")
	var paras []string
	for _, p := range strings.Split(s, "\n\n") {
		if p = Clean(p); p != "" {
			paras = append(paras, p)
		}
	}
	out := strings.Join(paras, "\n\n")
	out = strings.TrimSpace(abstractHead.ReplaceAllString(out, ""))
	return out
}

var (
	jatsTitleEnd = lazyre.New(`\s*</(?:jats:)?title>\s*`)
	jatsParaEnd  = lazyre.New(`</(?:jats:)?(?:p|sec)>`)
	abstractHead = lazyre.New(`^(?i)abstract(?:\s*[.:]\s*|\s*\n)`)
)

// PDF is the address of the full text as a PDF that the publisher
// deposited for anyone to read (content type application/pdf, meant for
// text mining or any use), or "".
func (w *Work) PDF() string {
	for _, l := range w.Link {
		if strings.EqualFold(l.ContentType, "application/pdf") && l.IntendedApplication != "similarity-checking" && strings.HasPrefix(l.URL, "http") {
			return l.URL
		}
	}
	return ""
}

func first(ss []string) string {
	for _, s := range ss {
		if s = Clean(s); s != "" {
			return s
		}
	}
	return ""
}

// Clean turns a Crossref text field into plain text: HTML entities decoded
// (twice-escaped ones too: "&amp;lt;sup&amp;gt;"), markup tags (JATS, MathML,
// <i>) removed, and whitespace collapsed; the line breaks and indentation
// Crossref keeps around tags join what they split ("KRAS / NRAS" set as
// "KRAS/NRAS" stays "KRAS/NRAS").
func Clean(s string) string {
	for i := 0; i < 3 && strings.Contains(s, "&"); i++ {
		u := html.UnescapeString(s)
		if u == s {
			break
		}
		s = u
	}
	s = markupBreak.ReplaceAllString(s, "/")
	s = tag.ReplaceAllString(s, "")
	return strings.Join(strings.FieldsFunc(s, func(r rune) bool { return unicode.IsSpace(r) }), " ")
}

var (
	// tag is a markup tag: a name right after "<" (so "p < 0.05" is text).
	tag = lazyre.New(`</?[A-Za-z][\w:.-]*(?:\s[^<>]*)?/?>`)
	// markupBreak is a slash set on its own line between tags.
	markupBreak = lazyre.New(`[ \t]*\n\s*/\s*|/[ \t]*\n\s*`)
)

// cslTypes maps Crossref's work types to CSL item types, as Crossref's
// own CSL-JSON does.
var cslTypes = map[string]string{
	"journal-article": "article-journal", "proceedings-article": "paper-conference",
	"book-chapter": "chapter", "book-part": "chapter", "book-section": "chapter",
	"book": "book", "monograph": "book", "edited-book": "book", "reference-book": "book", "book-set": "book",
	"dissertation": "thesis", "report": "report", "report-component": "report", "dataset": "dataset",
	"posted-content": "article", "peer-review": "review", "standard": "standard",
	"reference-entry": "entry-encyclopedia", "journal-issue": "periodical", "journal": "periodical",
	"proceedings": "book", "component": "document", "other": "document",
}

// CSLType is the work's CSL item type ("article-journal",
// "paper-conference", "chapter", "book", "thesis", "report", "dataset",
// "article" for a preprint, "post-weblog" for a blog post, "review",
// "periodical"; "document" for what CSL has no name for).
func (w *Work) CSLType() string {
	if w.Type == "posted-content" && w.Subtype == "blog" {
		return "post-weblog"
	}
	if t, ok := cslTypes[w.Type]; ok {
		return t
	}
	return "document"
}
