// Package cite renders how a paper is cited for people, the same in every
// command: its page span ("3-4"), its author line ("Guo and Yang", "Guo et
// al.") and its web address (the arXiv abstract page of the version held).
package cite

import (
	"strconv"

	"github.com/papers-cli/papers/store"
)

// Pages renders a chunk's page span: "" for the title and abstract (start
// 0), "3" for one page, "3-4" for a span.
func Pages(start, end int) string {
	switch {
	case start <= 0:
		return ""
	case end <= start:
		return strconv.Itoa(start)
	}
	return strconv.Itoa(start) + "-" + strconv.Itoa(end)
}

// Authors is the author line of a citation: "" for none, the name for one,
// "A and B" for two, "A et al." for more.
func Authors(authors []string) string {
	switch len(authors) {
	case 0:
		return ""
	case 1:
		return authors[0]
	case 2:
		return authors[0] + " and " + authors[1]
	}
	return authors[0] + " et al."
}

// ArxivURL is the arXiv abstract page of a paper, of version v when v > 0:
// https://arxiv.org/abs/2501.12948v2.
func ArxivURL(id string, v int) string {
	u := "https://arxiv.org/abs/" + id
	if v > 0 {
		u += "v" + strconv.Itoa(v)
	}
	return u
}

// URL is the web address of a paper: the one its source gave, else the
// arXiv abstract page of the version held for an arXiv paper, else "".
func URL(p store.Paper) string {
	if p.URL != "" {
		return p.URL
	}
	if p.Source == "arxiv" && p.ID != "" {
		return ArxivURL(p.ID, p.Version)
	}
	return ""
}
