// Package role names what a piece of a paper's text is there for: running
// text, a heading, a figure's caption, a table, the text inside a figure,
// a footnote, a running head, an entry of the reference list or a display
// equation. PDF extraction labels every line with one; chunks carry the
// role of the text they hold, so that answers quote only prose, search can
// show a table as a table, and a reader can leave out what it does not
// want.
package role

import (
	"fmt"
	"strings"
)

// Role is one of the constants below; the zero value "" is read as Body
// (chunks stored before roles existed).
type Role string

const (
	// Body is running text. Chunks of body text hold the headings of their
	// section too: both are prose.
	Body Role = "body"
	// Heading is a section heading (a line of its own).
	Heading Role = "heading"
	// Caption is the caption of a figure, table or algorithm.
	Caption Role = "caption"
	// Table is the text of a table, a row a line.
	Table Role = "table"
	// Figure is text drawn inside a figure: labels, axes, legends, boxes.
	Figure Role = "figure"
	// Footnote is a footnote at the foot of a page or column.
	Footnote Role = "footnote"
	// Furniture is a running head or foot, a page number, a line number
	// or a stamp in the margin; extraction leaves it out of the text.
	Furniture Role = "furniture"
	// Reference is an entry of the reference list (bibliography).
	Reference Role = "reference"
	// Equation is a display equation.
	Equation Role = "equation"
)

// All lists the roles in the order they are documented.
var All = []Role{Body, Heading, Caption, Table, Figure, Footnote, Furniture, Reference, Equation}

// Prose says whether text of this role reads as sentences a reader can
// quote: body text and headings ("" is Body).
func (r Role) Prose() bool { return r == Body || r == Heading || r == "" }

// OfChunk is the role of a chunk that holds text of role r: headings go
// with the body text of their section.
func (r Role) OfChunk() Role {
	if r == Heading || r == "" {
		return Body
	}
	return r
}

// Parse reads a role's name (case-insensitive, "figure-text" and plural
// forms accepted); "" is an error.
func Parse(s string) (Role, error) {
	k := strings.ToLower(strings.TrimSpace(s))
	k = strings.TrimSuffix(k, "s")
	if k == "figure-text" || k == "figure_text" {
		k = "figure"
	}
	for _, r := range All {
		if string(r) == k {
			return r, nil
		}
	}
	return "", fmt.Errorf("unknown text role %q (want one of %s)", s, strings.Join(names(), ", "))
}

func names() []string {
	out := make([]string, len(All))
	for i, r := range All {
		out[i] = string(r)
	}
	return out
}
