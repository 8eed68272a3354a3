package arxiv

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/papers-cli/papers/internal/lazyre"
)

var (
	// newStyleID matches identifiers since April 2007: YYMM.NNNN (to 2014)
	// or YYMM.NNNNN (since 2015), with an optional version.
	newStyleID = lazyre.New(`^(\d{4}\.\d{4,5})(?:v(\d+))?$`)
	// oldStyleID matches identifiers before April 2007: archive[.SUBJ]/YYMMNNN.
	oldStyleID = lazyre.New(`^([a-z]+(?:-[a-z]+)?(?:\.[A-Z]{2})?/\d{7})(?:v(\d+))?$`)
)

// ParseID parses an arXiv identifier in any of the forms people paste:
// a bare id ("2501.12948", "astro-ph/0601001"), one with a version
// ("2210.03629v3", "hep-th/9901001v2"), an "arXiv:" prefixed id, or an
// abs/pdf URL ("https://arxiv.org/abs/1111.2011",
// "http://arxiv.org/pdf/2501.12948v1.pdf").
//
// It returns the versionless id and the version, or 0 when s names no
// version. Anything else is an error that quotes s. ParseID checks the
// form only: a well-formed id may still be unknown to arXiv.
func ParseID(s string) (id string, version int, err error) {
	orig := s
	s = strings.TrimSpace(s)
	if rest, ok := trimPrefixFold(s, "arxiv:"); ok {
		s = rest
	} else if rest, ok := stripArxivURL(s); ok {
		s = rest
	}
	for _, re := range []*lazyre.Regexp{newStyleID, oldStyleID} {
		m := re.FindStringSubmatch(s)
		if m == nil {
			continue
		}
		if re == newStyleID && !newStyleDigitsOK(m[1]) {
			return "", 0, fmt.Errorf("parse arxiv id %q: ids from 0704 to 1412 have 4 digits after the dot, from 1501 on 5", orig)
		}
		if m[2] == "" {
			return m[1], 0, nil
		}
		v, err := strconv.Atoi(m[2])
		if err != nil || v < 1 {
			return "", 0, fmt.Errorf("parse arxiv id %q: bad version %q", orig, m[2])
		}
		return m[1], v, nil
	}
	return "", 0, fmt.Errorf("parse arxiv id %q: not an arXiv id (want e.g. 2501.12948, 2210.03629v3, hep-th/9901001 or an arxiv.org/abs/ URL)", orig)
}

// LooksLikeID reports whether s is an arXiv id or abs/pdf URL that ParseID
// accepts, as opposed to a free-text search query.
func LooksLikeID(s string) bool {
	_, _, err := ParseID(s)
	return err == nil
}

// newStyleDigitsOK checks the number's width against its YYMM: arXiv moved
// from 4 to 5 digits in January 2015.
func newStyleDigitsOK(id string) bool {
	yymm, num, _ := strings.Cut(id, ".")
	if yymm >= "1501" {
		return len(num) == 5
	}
	return len(num) == 4
}

// stripArxivURL returns the id part of an arxiv.org abs or pdf URL.
func stripArxivURL(s string) (string, bool) {
	rest := s
	for _, scheme := range []string{"https://", "http://"} {
		if r, ok := trimPrefixFold(rest, scheme); ok {
			rest = r
			break
		}
	}
	host, path, ok := strings.Cut(rest, "/")
	if !ok {
		return "", false
	}
	host = strings.ToLower(host)
	if host != "arxiv.org" && !strings.HasSuffix(host, ".arxiv.org") {
		return "", false
	}
	if i := strings.IndexAny(path, "?#"); i >= 0 {
		path = path[:i]
	}
	path = strings.TrimSuffix(path, "/")
	switch {
	case strings.HasPrefix(path, "abs/"):
		return strings.TrimPrefix(path, "abs/"), true
	case strings.HasPrefix(path, "pdf/"):
		return strings.TrimSuffix(strings.TrimPrefix(path, "pdf/"), ".pdf"), true
	}
	return "", false
}

func trimPrefixFold(s, prefix string) (string, bool) {
	if len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix) {
		return s[len(prefix):], true
	}
	return s, false
}

// idWithVersion formats id and version as arXiv writes them: "2501.12948v1",
// or the bare id when version is 0.
func idWithVersion(id string, version int) string {
	if version <= 0 {
		return id
	}
	return id + "v" + strconv.Itoa(version)
}
