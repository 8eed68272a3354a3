package crossreftest

import (
	"bytes"
	"fmt"
	"html"
	"strings"

	"golang.org/x/text/encoding/charmap"
)

// Page is the first page of a paper as a journal prints it: its title set
// large, its authors, its venue line and DOI, and its abstract.
type Page struct {
	Title   string
	Authors []string
	Venue   string
	DOI     string // printed as "https://doi.org/DOI" when set
	// DOILine, when set, is printed instead, as a publisher prints it
	// ("Digital Object Identifier 10.1109/..."; a "\n" in it breaks the
	// line); DOIAtFoot puts it at the foot of the page.
	DOILine   string
	DOIAtFoot bool
	Abstract  string
	// InfoAuthor is the Info dictionary's /Author and XMPCreators the XMP
	// packet's dc:creator entries, as producers write them (a whole list
	// in one string, often).
	InfoAuthor  string
	XMPCreators []string
}

// PDF returns a one-page PDF of p (PDF 1.4, Helvetica, WinAnsi text;
// characters outside Latin-1 become "?"), for tests of what ingest makes
// of a local PDF whose first page names its DOI or only its title: the
// recorded Crossref responses come without their papers' PDFs.
func PDF(p Page) []byte {
	var content bytes.Buffer
	y := 720.0
	line := func(size float64, s string) {
		fmt.Fprintf(&content, "BT /F1 %.0f Tf 72 %.1f Td (%s) Tj ET\n", size, y, pdfString(s))
		y -= size * 1.4
	}
	for _, l := range wrap(p.Title, 48) {
		line(20, l)
	}
	y -= 8
	if len(p.Authors) > 0 {
		for _, l := range wrap(strings.Join(p.Authors, ", "), 80) {
			line(11, l)
		}
	}
	y -= 6
	if p.Venue != "" {
		line(9, p.Venue)
	}
	doiLine := p.DOILine
	if doiLine == "" && p.DOI != "" {
		doiLine = "https://doi.org/" + p.DOI
	}
	if !p.DOIAtFoot {
		for _, l := range strings.Split(doiLine, "\n") {
			line(9, l)
		}
	}
	y -= 12
	if p.Abstract != "" {
		line(11, "Abstract")
		for _, l := range wrap(p.Abstract, 95) {
			if y < 90 {
				break
			}
			line(10, l)
		}
	}
	if p.DOIAtFoot {
		y = 60
		for _, l := range strings.Split(doiLine, "\n") {
			line(8, l)
		}
	}
	var b bytes.Buffer
	var offs []int
	obj := func(s string) {
		offs = append(offs, b.Len())
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", len(offs), s)
	}
	b.WriteString("%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
	catalog := "<< /Type /Catalog /Pages 2 0 R >>"
	if len(p.XMPCreators) > 0 {
		catalog = "<< /Type /Catalog /Pages 2 0 R /Metadata 7 0 R >>"
	}
	obj(catalog)
	obj("<< /Type /Pages /Kids [3 0 R] /Count 1 >>")
	obj("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 4 0 R >> >> /Contents 5 0 R >>")
	obj("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>")
	obj(fmt.Sprintf("<< /Length %d >>\nstream\n%sendstream", content.Len(), content.String()))
	obj(fmt.Sprintf("<< /Title (%s) /Author (%s) /Producer (crossreftest) >>", pdfString(p.Title), pdfString(p.InfoAuthor)))
	if len(p.XMPCreators) > 0 {
		var x strings.Builder
		x.WriteString(`<?xpacket begin="" id="W5M0MpCehiHzreSzNTczkc9d"?><x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">`)
		x.WriteString(`<rdf:Description rdf:about="" xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:creator><rdf:Seq>`)
		for _, c := range p.XMPCreators {
			x.WriteString("<rdf:li>" + html.EscapeString(c) + "</rdf:li>")
		}
		x.WriteString(`</rdf:Seq></dc:creator></rdf:Description></rdf:RDF></x:xmpmeta><?xpacket end="w"?>`)
		obj(fmt.Sprintf("<< /Type /Metadata /Subtype /XML /Length %d >>\nstream\n%s\nendstream", x.Len()+1, x.String()))
	}
	xref := b.Len()
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", len(offs)+1)
	for _, o := range offs {
		fmt.Fprintf(&b, "%010d 00000 n \n", o)
	}
	fmt.Fprintf(&b, "trailer\n<< /Size %d /Root 1 0 R /Info 6 0 R >>\nstartxref\n%d\n%%%%EOF\n", len(offs)+1, xref)
	return b.Bytes()
}

// wrap cuts s into lines of at most n characters, at spaces.
func wrap(s string, n int) []string {
	var out []string
	cur := ""
	for _, w := range strings.Fields(s) {
		if cur != "" && len(cur)+1+len(w) > n {
			out = append(out, cur)
			cur = ""
		}
		if cur != "" {
			cur += " "
		}
		cur += w
	}
	if cur != "" {
		out = append(out, cur)
	}
	return out
}

// pdfString is s in WinAnsi with PDF's string escapes.
func pdfString(s string) string {
	enc := charmap.Windows1252.NewEncoder()
	var b strings.Builder
	for _, r := range s {
		e, err := enc.String(string(r))
		if err != nil {
			e = "?"
		}
		switch e {
		case "(", ")", `\`:
			b.WriteString(`\` + e)
		default:
			b.WriteString(e)
		}
	}
	return b.String()
}
