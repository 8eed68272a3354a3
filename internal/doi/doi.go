// Package doi reads Digital Object Identifiers as people and sources
// write them: bare ("10.1145/1327452.1327492"), with a "doi:" label, or as
// a resolver URL ("https://doi.org/...", "http://dx.doi.org/..."). The
// library keys a DOI in lower case (DOIs are case-insensitive) without
// its resolver prefix. arXiv's own DOIs (10.48550/arXiv.*, registered
// with DataCite, unknown to Crossref) name an arXiv paper.
package doi

import (
	"net/url"
	"strings"

	"github.com/papers-cli/papers/internal/lazyre"
)

// shape is a DOI: "10.", a registrant code of 4 to 9 digits (with
// sub-codes "10.1000.10"), "/", and a suffix of printable characters.
var shape = lazyre.New(`^10\.\d{4,9}(?:\.\d+)*/\S+$`)

// inText finds a DOI inside other text (a field, a sentence).
var inText = lazyre.New(`\b10\.\d{4,9}(?:\.\d+)*/[^\s"<>{}]+`)

// resolvers are the prefixes a DOI is written behind.
var resolvers = []string{"https://doi.org/", "http://doi.org/", "https://dx.doi.org/", "http://dx.doi.org/",
	"https://www.doi.org/", "http://www.doi.org/", "doi.org/", "dx.doi.org/", "doi:", "doi "}

// Normalize is the form the library keys a DOI by: lower case, without a
// resolver prefix or label and without the punctuation that ends a
// sentence rather than the DOI (a trailing ".", ",", ";", or a ")" that
// closes nothing). It does not check the DOI's shape (Parse does).
func Normalize(s string) string {
	s = strings.TrimSpace(s)
	low := strings.ToLower(s)
	for _, p := range resolvers {
		if strings.HasPrefix(low, p) {
			low = strings.TrimSpace(low[len(p):])
			if strings.HasPrefix(p, "http") || strings.HasPrefix(p, "doi.org") || strings.HasPrefix(p, "dx.") {
				if u, err := url.PathUnescape(low); err == nil {
					low = u // https://doi.org/10.1000%2Fxyz
				}
			}
			break
		}
	}
	low = strings.TrimRight(low, ".,;:")
	for strings.HasSuffix(low, ")") && strings.Count(low, "(") < strings.Count(low, ")") ||
		strings.HasSuffix(low, "]") && strings.Count(low, "[") < strings.Count(low, "]") {
		low = strings.TrimRight(low[:len(low)-1], ".,;:")
	}
	return low
}

// Parse reads an argument meant as a DOI (bare, "doi:...", a doi.org URL)
// and returns it normalised; ok is false when s is not one.
func Parse(s string) (doi string, ok bool) {
	d := Normalize(s)
	if !shape.MatchString(d) {
		return "", false
	}
	return d, true
}

// Find returns the first DOI in text, normalised, or "".
func Find(text string) string {
	if m := inText.FindString(text); m != "" {
		return Normalize(m)
	}
	return ""
}

// arxivDOI is arXiv's DOI of a paper: 10.48550/arXiv.<id>.
var arxivDOI = lazyre.New(`(?i)^10\.48550/arxiv\.(\S+)$`)

// Arxiv returns the arXiv id (as written, possibly with a version) that an
// arXiv DOI names, or "" for any other DOI.
func Arxiv(doi string) string {
	if m := arxivDOI.FindStringSubmatch(Normalize(doi)); m != nil {
		return m[1]
	}
	return ""
}
