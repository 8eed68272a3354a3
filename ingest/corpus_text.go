package ingest

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/papers-cli/papers/ingest/chunk"
)

// corpusText is the structure of a corpus record's full text: its abstract
// when the text opens with an "Abstract" heading, and the body after it as
// one page whose headings are known.
type corpusText struct {
	Abstract string     // "" when the text names no abstract
	Body     chunk.Page // the text after the abstract, with its headings
}

// parseCorpusText reads the structure full-text corpora give a paper
// (QASPER, S2ORC dumps, papers converted from LaTeX or HTML): paragraphs
// separated by blank lines, and each section's heading on a line of its own
// at the head of its first paragraph ("Introduction\nClinical text ...",
// nested headings joined as "Experiments ::: Results"). A heading found
// this way starts a section, so it is the section of the chunks under it
// and never part of the sentence that follows it.
func parseCorpusText(text string) corpusText {
	var heads []chunk.Heading
	abstractAt, bodyAt := -1, 0
	for off := 0; off < len(text); {
		end := strings.Index(text[off:], "\n\n")
		if end < 0 {
			end = len(text)
		} else {
			end += off
		}
		block := strings.TrimLeft(text[off:end], "\n")
		start := end - len(block)
		if first, rest, ok := strings.Cut(block, "\n"); ok && strings.TrimSpace(rest) != "" && isHeadingLine(first) {
			name := strings.Join(strings.Fields(first), " ")
			switch {
			case abstractAt < 0 && len(heads) == 0 && strings.EqualFold(name, "abstract"):
				abstractAt = start + len(first) + 1
			default:
				if abstractAt >= 0 && bodyAt == 0 {
					bodyAt = start
				}
				heads = append(heads, chunk.Heading{Offset: start, Text: name})
			}
		}
		off = end + 2
	}
	var ct corpusText
	if abstractAt >= 0 {
		stop := len(text)
		if bodyAt > 0 {
			stop = bodyAt
		}
		ct.Abstract = strings.Join(strings.Fields(text[abstractAt:stop]), " ")
		if bodyAt == 0 {
			bodyAt = stop
		}
		if n := strings.Count(ct.Abstract, " ") + 1; n > maxAbstractWords {
			// no heading ends it: the "abstract" is the paper
			ct.Abstract, bodyAt = "", 0
		}
	}
	ct.Body = chunk.Page{N: 0, Text: text[bodyAt:]}
	for _, h := range heads {
		ct.Body.Headings = append(ct.Body.Headings, chunk.Heading{Offset: h.Offset - bodyAt, Text: h.Text})
	}
	return ct
}

// maxAbstractWords bounds an abstract: a longer one runs into the body.
const maxAbstractWords = 600

// maxHeadingWords bounds a heading line; nested headings (" ::: ") may be
// twice as long.
const maxHeadingWords = 12

// isHeadingLine reports whether a line at the head of a paragraph is a
// section heading rather than the paragraph's first line: short, starting
// with a capital letter or a section number, not ending a sentence and not
// markup (LaTeX, formulas).
func isHeadingLine(line string) bool {
	line = strings.TrimSpace(line)
	if line == "" || len(line) > 200 {
		return false
	}
	words := strings.Fields(line)
	limit := maxHeadingWords
	if strings.Contains(line, ":::") {
		limit *= 2
	}
	if len(words) > limit {
		return false
	}
	r, _ := utf8.DecodeRuneInString(line)
	if !unicode.IsUpper(r) && !unicode.IsDigit(r) {
		return false
	}
	last, _ := utf8.DecodeLastRuneInString(line)
	if strings.ContainsRune(".,;:?!", last) || strings.ContainsAny(line, "$\\{}=") {
		return false
	}
	letters := 0
	for _, r := range line {
		if unicode.IsLetter(r) {
			letters++
		}
	}
	return letters >= 3
}
