package pdf

import (
	"bytes"
	"encoding/xml"
	"strings"
	"time"

	"github.com/papers-cli/papers/ingest/pdf/syntax"
	"github.com/papers-cli/papers/internal/lazyre"
	"github.com/papers-cli/papers/internal/people"
)

// Metadata is what a PDF says about itself, read offline from its XMP
// packet, its Info dictionary and the layout of its first page. Nothing is
// guessed beyond that: a field the file does not give stays empty.
type Metadata struct {
	// Authors in the order printed, "Given Family" as set ("Zlatko
	// Tešanović"), superscript markers removed.
	Authors []string
	// Date is the publication date as precisely as known: "2023",
	// "2023-02" or "2023-02-09".
	Date string
	// DOI without a resolver prefix ("10.1109/TIP.2023.3326396"). arXiv's
	// own DOIs (10.48550/arXiv.*) give ArxivID instead.
	DOI string
	// ArxivID with its version when printed ("2302.04761v1"): from the
	// arXiv stamp (Document.ArxivID), else an arxiv.org URL or an
	// "arXiv:" mention on the first page that names one paper only.
	ArxivID string
	// From XMP (PRISM): where the paper appeared.
	Venue, Volume, Issue, PageRange string
	// Sources says where each field came from, by name ("title",
	// "authors", "date", "doi", "arxiv_id", "venue"): "xmp", "info",
	// "layout" (the first page's lines), "stamp" (arXiv's side stamp) or
	// "text" (a mention on the first page).
	Sources map[string]string
}

func (m *Metadata) set(field, source string) {
	if m.Sources == nil {
		m.Sources = map[string]string{}
	}
	m.Sources[field] = source
}

// readMetadata fills doc.Meta (and may improve doc.Title from XMP). The PDF
// library panics on malformed objects: what was read before one is kept.
func readMetadata(f source, pls []pageLayout, doc *Document) {
	defer func() {
		if recover() != nil {
			doc.warnf("the metadata could not all be read")
		}
	}()
	m := &doc.Meta
	info := null
	func() {
		defer func() { recover() }()
		info = f.Trailer().Key("Info")
	}()
	x := readXMP(f)
	infoText := func(key string) string {
		defer func() { recover() }()
		return strings.TrimSpace(clean(info.Key(key).Text()))
	}
	// Title: chooseTitle took a sensible Info /Title printed on page 1,
	// else the layout's; XMP's dc:title is as good as Info's.
	if doc.Title != "" {
		if t := infoText("Title"); t != "" && strings.Join(strings.Fields(t), " ") == strings.Join(strings.Fields(doc.Title), " ") {
			m.set("title", "info")
		} else {
			m.set("title", "layout")
		}
	}
	if notice(doc.Title) && m.Sources["title"] == "layout" {
		// a permission or copyright notice set above the title, larger
		// than the body: look again without it
		doc.Title = guessTitle(withoutLines(pls, doc.Title), bodySize(pls))
	}
	if t := clean(x.title); sensibleTitle(t) && len(t) <= 300 && onFirstPage(t, pls) && m.Sources["title"] != "info" {
		doc.Title = t
		m.set("title", "xmp")
	}
	if SectionHeading(doc.Title) {
		// a contents page or an excerpt: the page's largest line names a
		// part, and what follows it is no author block
		doc.Title = ""
		delete(m.Sources, "title")
	}
	// Authors: XMP dc:creator, Info /Author, else the block under the
	// title. Producers write a whole list into one creator or /Author
	// ("A, B and C", "A; B"): people.Split makes it one name per person.
	creators, infoAuthors := people.SplitEach(x.creators), people.Split(infoText("Author"))
	switch {
	case plausibleAuthors(creators):
		m.Authors = creators
		m.set("authors", "xmp")
	case plausibleAuthors(infoAuthors):
		m.Authors = infoAuthors
		m.set("authors", "info")
	default:
		if as := layoutAuthors(pls, doc.Title); len(as) > 0 {
			m.Authors = as
			m.set("authors", "layout")
		}
	}
	// arXiv id: the stamp, else a URL or mention on page 1.
	if doc.ArxivID != "" {
		m.ArxivID = doc.ArxivID
		m.set("arxiv_id", "stamp")
	} else if id := arxivMention(doc); id != "" {
		m.ArxivID = id
		m.set("arxiv_id", "text")
	}
	// DOI: XMP, Info (IEEE writes it in /Subject), then page 1.
	for _, c := range []struct{ v, src string }{{x.doi, "xmp"}, {infoText("doi"), "info"}, {doiIn(infoText("Subject")), "info"}, {pageDOI(doc), "text"}} {
		if d := cleanDOI(c.v); d != "" {
			if id := arxivDOI.FindStringSubmatch(d); id != nil {
				if m.ArxivID == "" {
					m.ArxivID = id[1]
					m.set("arxiv_id", c.src)
				}
				continue
			}
			m.DOI = d
			m.set("doi", c.src)
			break
		}
	}
	m.Venue, m.Volume, m.Issue = clean(x.venue), clean(x.volume), clean(x.number)
	if x.startPage != "" {
		m.PageRange = x.startPage
		if x.endPage != "" && x.endPage != x.startPage {
			m.PageRange += "-" + x.endPage
		}
	}
	if m.Venue != "" {
		m.set("venue", "xmp")
	}
	// Date: the stamp's, XMP's publication date, a year printed on page 1
	// (a venue line, a copyright), else when the file was made.
	if t, err := time.Parse("2 Jan 2006", doc.ArxivDate); err == nil {
		m.Date = t.Format("2006-01-02")
		m.set("date", "stamp")
	} else if d := xmpDate(x.pubDate); d != "" {
		m.Date = d
		m.set("date", "xmp")
	} else if y := printedYear(pls); y != "" {
		m.Date = y
		m.set("date", "layout")
	} else if d := pdfDate(infoText("CreationDate")); d != "" {
		m.Date = d
		m.set("date", "info")
	} else if d := xmpDate(x.created); d != "" {
		m.Date = d
		m.set("date", "xmp")
	}
}

// xmpFields are the fields of an XMP packet papers reads.
type xmpFields struct {
	title, doi, venue, volume, number, startPage, endPage, pubDate, created string
	creators                                                                []string
}

// readXMP parses the document's XMP packet (the catalog's /Metadata
// stream), if any. Elements and attributes are matched by local name, as
// producers bind the namespaces to various prefixes.
func readXMP(f source) (x xmpFields) {
	defer func() {
		if r := recover(); r != nil {
			if a, ok := r.(syntax.Abort); ok {
				panic(a)
			}
		}
	}()
	md := f.Root().Key("Metadata")
	if md.Kind() != syntax.Stream {
		return x
	}
	data, err := md.Bytes(1 << 20)
	if err != nil && len(data) == 0 {
		return x
	}
	dec := xml.NewDecoder(bytes.NewReader(data))
	dec.Strict = false
	var path []string
	var text strings.Builder
	setField := func(name, v string) {
		v = strings.TrimSpace(v)
		if v == "" {
			return
		}
		switch name {
		case "title":
			if x.title == "" {
				x.title = v
			}
		case "creator":
			x.creators = append(x.creators, v)
		case "doi":
			x.doi = v
		case "identifier":
			if x.doi == "" && doiIn(v) != "" {
				x.doi = doiIn(v)
			}
		case "publicationName":
			x.venue = v
		case "volume":
			x.volume = v
		case "number":
			x.number = v
		case "startingPage":
			x.startPage = v
		case "endingPage":
			x.endPage = v
		case "publicationDate", "coverDate", "coverDisplayDate":
			if x.pubDate == "" {
				x.pubDate = v
			}
		case "CreateDate":
			x.created = v
		}
	}
	// field is the XMP property an element's text belongs to: the element
	// itself, or the property above an rdf:Alt/Seq/Bag and its rdf:li.
	field := func() string {
		for i := len(path) - 1; i >= 0; i-- {
			switch path[i] {
			case "li", "Alt", "Seq", "Bag":
				continue
			}
			return path[i]
		}
		return ""
	}
	for {
		tok, err := dec.Token()
		if err != nil {
			break
		}
		switch t := tok.(type) {
		case xml.StartElement:
			path = append(path, t.Name.Local)
			text.Reset()
			if t.Name.Local == "Description" {
				for _, a := range t.Attr { // <rdf:Description prism:doi="...">
					setField(a.Name.Local, a.Value)
				}
			}
		case xml.CharData:
			text.Write(t)
		case xml.EndElement:
			if len(path) > 0 {
				if name := path[len(path)-1]; name == "li" || len(path) > 0 && !isContainer(name) {
					if f := field(); f != "" && (name == "li" || f == name) {
						setField(f, text.String())
					}
				}
				path = path[:len(path)-1]
			}
			text.Reset()
		}
	}
	return x
}

func isContainer(name string) bool {
	switch name {
	case "Alt", "Seq", "Bag", "Description", "RDF", "xmpmeta":
		return true
	}
	return false
}

var (
	// DOIs keep < > ( ) [ ] ; : (SICI DOIs: 10.1002/1096-9861(20010212)430:3<283::aid-cne1031>3.0.co;2-v)
	doiRe    = lazyre.New(`\b(10\.\d{4,9}/[^\s"{}]+)`)
	arxivDOI = lazyre.New(`(?i)^10\.48550/arxiv\.(\d{4}\.\d{4,5}(?:v\d+)?)$`)
	// pageDOIRe wants the DOI labelled (IEEE prints "Digital Object
	// Identifier 10.1109/...") or as a resolver URL: a bare 10.xxx/yyy on
	// page 1 may be a cited work's.
	pageDOIRe = lazyre.New(`(?i)(?:\bdoi\s*[:.]?\s*|doi\.org/|digital object identifier\s*:?\s*)(10\.\d{4,9}/[^\s"{}]+)`)
	// doiRest is the rest of a DOI a line break cut after "." "-" "_" or "/".
	doiRest = lazyre.New(`^\n\n?([A-Za-z0-9][^\s"{}]*)`)
)

func doiIn(s string) string {
	if m := doiRe.FindStringSubmatch(s); m != nil {
		return m[1]
	}
	return ""
}

// cleanDOI strips the resolver prefix and the punctuation that ends a
// sentence rather than the DOI.
func cleanDOI(s string) string {
	s = strings.TrimSpace(s)
	if m := doiRe.FindStringSubmatch(s); m != nil {
		s = m[1]
	} else {
		return ""
	}
	s = strings.TrimRight(s, ".,;:)]")
	if strings.Count(s, "(") < strings.Count(s, ")") {
		s = strings.TrimRight(s, ")")
	}
	return s
}

func pageDOI(doc *Document) string {
	if len(doc.Pages) == 0 {
		return ""
	}
	text := doc.Pages[0].Text
	m := pageDOIRe.FindStringSubmatchIndex(text)
	if m == nil {
		return ""
	}
	d := text[m[2]:m[3]]
	if strings.ContainsAny(d[len(d)-1:], "./-_") {
		if r := doiRest.FindStringSubmatch(text[m[3]:]); r != nil && strings.ContainsAny(r[1], "0123456789") {
			d += r[1] // "https://doi.org/10.1371/journal.\npone.0033693", not a sentence's next word
		}
	}
	return d
}

var (
	arxivURL        = lazyre.New(`(?i)arxiv\.org/(?:abs|pdf)/((?:\d{4}\.\d{4,5}|[a-z\-]+(?:\.[A-Z]{2})?/\d{7})(?:v\d+)?)`)
	arxivMentionPat = lazyre.New(`(?i)\barxiv:\s?((?:\d{4}\.\d{4,5}|[a-z\-]+(?:\.[A-Z]{2})?/\d{7})(?:v\d+)?)`)
)

// arxivMention finds the paper's own arXiv id on the first page: an
// arxiv.org URL or an "arXiv:" mention, when the page names one paper only
// (a page that names several is citing others). The id comes with its
// version when one of the mentions gives it.
func arxivMention(doc *Document) string {
	if len(doc.Pages) == 0 {
		return ""
	}
	text := doc.Pages[0].Text
	best := map[string]string{} // versionless id -> longest form seen
	for _, re := range []*lazyre.Regexp{arxivURL, arxivMentionPat} {
		for _, m := range re.FindAllStringSubmatch(text, -1) {
			id := m[1]
			if bare := versionless(id); len(id) > len(best[bare]) {
				best[bare] = id
			}
		}
	}
	if len(best) != 1 {
		return ""
	}
	for _, id := range best {
		return id
	}
	return ""
}

var versionSuffix = lazyre.New(`v\d+$`)

func versionless(id string) string { return versionSuffix.ReplaceAllString(id, "") }

// plausibleAuthors rejects what producers put in author fields that is no
// author list: a user name, "Administrator", a typesetter.
func plausibleAuthors(as []string) bool {
	if len(as) == 0 {
		return false
	}
	for _, a := range as {
		low := strings.ToLower(a)
		if !strings.ContainsRune(a, ' ') && len(as) == 1 && !hasCJK(a) || strings.Contains(low, "admin") || strings.Contains(low, "user") ||
			strings.Contains(low, "microsoft") || strings.Contains(low, "@") || letters(a) < 2 {
			return false
		}
	}
	return true
}

// xmpDate reads XMP's dates (ISO 8601, or PRISM's display dates "Dec.
// 2009", "2023") as precisely as they are given.
func xmpDate(s string) string {
	s = strings.TrimSpace(s)
	if s == "" {
		return ""
	}
	if m := isoDate.FindStringSubmatch(s); m != nil {
		return strings.TrimRight(m[1]+"-"+m[2]+"-"+m[3], "-")
	}
	for _, layout := range []string{"Jan. 2006", "Jan 2006", "January 2006", "2 Jan. 2006", "2 January 2006"} {
		if t, err := time.Parse(layout, strings.Join(strings.Fields(s), " ")); err == nil {
			if strings.Contains(layout, "2 ") {
				return t.Format("2006-01-02")
			}
			return t.Format("2006-01")
		}
	}
	if m := yearRe.FindString(s); m != "" {
		return m
	}
	return ""
}

var (
	isoDate = lazyre.New(`^((?:19|20)\d\d)-?(\d\d)?-?(\d\d)?`)
	yearRe  = lazyre.New(`\b(?:19|20)\d\d\b`)
	pdfDay  = lazyre.New(`^D:((?:19|20)\d\d)(\d\d)?(\d\d)?`)
)

// pdfDate reads a PDF date ("D:20230210013806Z") as YYYY-MM-DD.
func pdfDate(s string) string {
	m := pdfDay.FindStringSubmatch(strings.TrimSpace(s))
	if m == nil {
		return ""
	}
	if m[2] == "" || m[2] == "00" {
		return m[1]
	}
	if m[3] == "" || m[3] == "00" {
		return m[1] + "-" + m[2]
	}
	return m[1] + "-" + m[2] + "-" + m[3]
}

// venueYear matches a year on a line of the first page that says where
// and when the paper appeared: "Findings of ... NAACL 2024, pages ...",
// "Published as a conference paper at ICLR 2024", "© 2023 ...".
var venueYear = lazyre.New(`(?i)(?:©|\(c\)|copyright|proceedings|findings of|published (?:as|in|at)|conference|journal|transactions|workshop)\D{0,80}?\b((?:19|20)\d\d)\b`)

func printedYear(pls []pageLayout) string {
	if len(pls) == 0 {
		return ""
	}
	for _, l := range pls[0].lines {
		if m := venueYear.FindStringSubmatch(l.text); m != nil {
			return m[1]
		}
	}
	return ""
}

// notice says whether a title found in the layout is a sentence: a
// paragraph ending with a full stop, as notices are and titles are not.
func notice(t string) bool {
	return strings.HasSuffix(t, ".") && len(strings.Fields(t)) >= 12
}

// withoutLines returns pls with the first page's lines that are part of
// text blanked, for guessTitle to skip (the pages share nothing else).
func withoutLines(pls []pageLayout, text string) []pageLayout {
	if len(pls) == 0 {
		return pls
	}
	out := append([]pageLayout(nil), pls...)
	ls := append([]line(nil), pls[0].lines...)
	want := lettersOnly(text)
	for i := range ls {
		if lt := lettersOnly(ls[i].text); lt != "" && strings.Contains(want, lt) {
			ls[i].text = ""
		}
	}
	out[0].lines = ls
	return out
}
