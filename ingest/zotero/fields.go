package zotero

import (
	"fmt"
	"strings"

	"github.com/papers-cli/papers/ingest/arxiv"
	"github.com/papers-cli/papers/internal/doi"
	"github.com/papers-cli/papers/internal/lazyre"
	"github.com/papers-cli/papers/internal/people"
	"github.com/papers-cli/papers/internal/tex"
)

// What an item's fields mean, read the way Zotero writes them.

// dateSQL is Zotero's stored form of a date: its reading of the date as
// "YYYY-MM-DD" (00 for an unknown month or day, 0000-00-00 when it could
// not read one), a space, then the date as typed.
var dateSQL = lazyre.New(`^(\d{4})-(\d{2})-(\d{2})(?:\s|$)`)

// looseDate finds a date in text Zotero did not normalise: ISO forms.
var looseDate = lazyre.New(`\b((?:1[5-9]|20)\d\d)(?:[-/.](\d{1,2})(?:[-/.](\d{1,2}))?)?\b`)

// Date returns the item's date as precisely as it is known: "2023",
// "2023-05" or "2023-05-17"; "" when it has none.
func (it Item) Date() string { return ParseDate(it.Fields["date"]) }

// ParseDate reads a Zotero date field ("2023-05-00 2023-05", "2009-12-00
// 12/2009", "0000-00-00 Spring 2023", "2020") as "YYYY", "YYYY-MM" or
// "YYYY-MM-DD".
func ParseDate(s string) string {
	s = strings.TrimSpace(s)
	if m := dateSQL.FindStringSubmatch(s); m != nil {
		if m[1] != "0000" {
			return joinDate(m[1], m[2], m[3])
		}
		s = strings.TrimSpace(s[len(m[0]):]) // Zotero could not read it: try the text
	}
	if m := looseDate.FindStringSubmatch(s); m != nil {
		mo, d := pad(m[2]), pad(m[3])
		if mo > "12" {
			mo, d = "", ""
		}
		return joinDate(m[1], mo, d)
	}
	return ""
}

func pad(s string) string {
	if len(s) == 1 {
		return "0" + s
	}
	return s
}

func joinDate(y, m, d string) string {
	switch {
	case m == "" || m == "00":
		return y
	case d == "" || d == "00":
		return y + "-" + m
	}
	return y + "-" + m + "-" + d
}

var (
	arxivExtra = lazyre.New(`(?im)^\s*(?:arxiv(?:\s*id)?\s*:|_eprint\s*:|eprint\s*:)\s*(?:arxiv:)?\s*(\S+)`)
	arxivAny   = lazyre.New(`(?i)arxiv\.org/(?:abs|pdf)/(\S+?)(?:\.pdf)?(?:[?#]\S*)?$`)
	doiExtra   = lazyre.New(`(?im)^\s*DOI\s*:\s*(10\.\S+)`)
)

// ArxivID is the item's arXiv id, with its version when a field gives it
// ("2410.01698", "2303.11366v4"), from any of the places Zotero and its
// translators put it: an arxiv.org url, "arXiv:2410.01698 [eess]" or
// "_eprint: 2209.09673" in extra, the archive ID "arXiv:2410.01698", an
// arXiv DOI (10.48550/arXiv.2410.01698) or a preprint's number; "" when
// none is a valid id.
func (it Item) ArxivID() string {
	var cands []string
	f := it.Fields
	if m := arxivAny.FindStringSubmatch(f["url"]); m != nil {
		cands = append(cands, m[1])
	}
	for _, m := range arxivExtra.FindAllStringSubmatch(f["extra"], -1) {
		cands = append(cands, m[1])
	}
	for _, k := range []string{"archiveID", "number"} {
		if v, ok := strings.CutPrefix(strings.TrimSpace(f[k]), "arXiv:"); ok {
			cands = append(cands, v)
		}
	}
	if id := doi.Arxiv(f["DOI"]); id != "" {
		cands = append(cands, id)
	}
	best := ""
	for _, c := range cands {
		id, v, err := arxiv.ParseID(strings.TrimRight(c, ".,;"))
		if err != nil {
			continue
		}
		if best == "" {
			best = id
		}
		if v > 0 && best == id {
			return fmt.Sprintf("%sv%d", id, v) // the versioned form of the same id
		}
	}
	return best
}

// DOI is the item's DOI (not arXiv's own, which ArxivID reads), from its
// DOI field or a "DOI: ..." line of extra (where Zotero kept it for item
// types without the field).
func (it Item) DOI() string {
	d := strings.TrimSpace(it.Fields["DOI"])
	if d == "" {
		if m := doiExtra.FindStringSubmatch(it.Fields["extra"]); m != nil {
			d = m[1]
		}
	}
	if doi.Arxiv(d) != "" {
		return ""
	}
	return d
}

// cslTypes maps Zotero item types to CSL types (as Zotero's own CSL
// export does).
var cslTypes = map[string]string{
	"journalArticle": "article-journal", "magazineArticle": "article-magazine", "newspaperArticle": "article-newspaper",
	"conferencePaper": "paper-conference", "preprint": "article", "book": "book", "bookSection": "chapter",
	"thesis": "thesis", "report": "report", "webpage": "webpage", "blogPost": "post-weblog", "forumPost": "post",
	"document": "document", "manuscript": "manuscript", "presentation": "speech", "patent": "patent",
	"dataset": "dataset", "computerProgram": "software", "encyclopediaArticle": "entry-encyclopedia",
	"dictionaryEntry": "entry-dictionary", "letter": "personal_communication", "email": "personal_communication",
	"instantMessage": "personal_communication", "interview": "interview", "film": "motion_picture",
	"videoRecording": "motion_picture", "audioRecording": "song", "podcast": "broadcast", "radioBroadcast": "broadcast",
	"tvBroadcast": "broadcast", "artwork": "graphic", "map": "map", "standard": "standard", "statute": "legislation",
	"case": "legal_case", "hearing": "hearing", "bill": "bill",
}

// CSLType is the item's CSL type ("document" for types CSL has no name
// for).
func (it Item) CSLType() string {
	if t, ok := cslTypes[it.Type]; ok {
		return t
	}
	return "document"
}

// Authors are the item's authors as display names: the creators of the
// item type's primary kind (authors of an article, the director of a
// film), else its creators other than editors and the like, else its
// editors. Two-field names read "Given Family", or "Family, Given" when
// the family name has several words that are not particles (so it is not
// split wrong later; see package people); single-field names
// (organisations, many CJK names) stay whole.
func (it Item) Authors() []string {
	pick := func(keep func(Creator) bool) []string {
		var out []string
		for _, c := range it.Creators {
			if keep(c) {
				if n := c.Name(); n != "" {
					out = append(out, n)
				}
			}
		}
		return out
	}
	if as := pick(func(c Creator) bool { return c.Primary }); len(as) > 0 {
		return as
	}
	secondary := map[string]bool{"editor": true, "seriesEditor": true, "translator": true, "reviewedAuthor": true, "bookAuthor": true}
	if as := pick(func(c Creator) bool { return !secondary[c.Type] }); len(as) > 0 {
		return as
	}
	return pick(func(c Creator) bool { return c.Type == "editor" })
}

// Name is the creator's display name (see Authors), in the form
// people.Name.String writes.
func (c Creator) Name() string {
	first, last := strings.Join(strings.Fields(c.First), " "), strings.Join(strings.Fields(c.Last), " ")
	switch {
	case c.Single || first == "":
		return last
	case last == "":
		return first
	}
	return people.Name{Family: last, Given: first}.String()
}

// Venue is where the item appeared: its publication (journal,
// proceedings, book, website...), else the conference's name. An ADS
// journal macro that an import from the ADS left ("\apj") is the
// journal's name.
func (it Item) Venue() string {
	for _, k := range []string{"publicationTitle", "proceedingsTitle", "bookTitle", "websiteTitle", "conferenceName", "seriesTitle"} {
		if v := strings.TrimSpace(it.Fields[k]); v != "" {
			v, _ = tex.Journal(v)
			return v
		}
	}
	return ""
}

// Publisher is the item's publisher, university, institution or
// repository (Zotero's base field publisher covers them all).
func (it Item) Publisher() string { return strings.TrimSpace(it.Fields["publisher"]) }
