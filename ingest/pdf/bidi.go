package pdf

import (
	"strings"
	"unicode"
)

// PDFs draw right-to-left script (Arabic, Hebrew) in visual order: glyph
// after glyph from left to right, so a line read in stream order spells
// its words backwards. logicalOrder turns one line into reading order, as
// pdftotext does:
//
//   - a line whose strong characters are mostly right-to-left is reversed
//     as a whole, and then its left-to-right runs (Latin words with what
//     lies between them, and each number) are put back as drawn;
//   - in a mostly left-to-right line only its right-to-left runs (from
//     the first right-to-left letter to the last, with the spaces and
//     punctuation between them) are reversed, numbers inside them kept.
//
// Brackets in reversed text are mirrored, and combining marks stay with
// the letter they follow. Lines without right-to-left letters are returned
// as they are. This is a simplification of the Unicode bidirectional
// algorithm, enough for text lines: embedded levels are not nested.
func logicalOrder(s string) string {
	rtl, ltr := 0, 0
	for _, r := range s {
		switch bidiClass(r) {
		case bidiR:
			rtl++
		case bidiL:
			ltr++
		}
	}
	if rtl == 0 {
		return s
	}
	cs := clusters(s)
	var out []cluster
	if rtl > ltr {
		// Units in visual order, emitted from the right: a Latin run (from
		// a letter up to the next right-to-left letter, less the spaces and
		// punctuation at its end) or a number as drawn, else one cluster.
		var us [][2]int
		for i := 0; i < len(cs); {
			j := i + 1
			if cs[i].class == bidiL {
				end := j
				for k := j; k < len(cs) && cs[k].class != bidiR; k++ {
					if cs[k].class != bidiN {
						end = k + 1
					}
				}
				j = end
			} else if cs[i].class == bidiD {
				j = numberEnd(cs, i)
			}
			us = append(us, [2]int{i, j})
			i = j
		}
		for u := len(us) - 1; u >= 0; u-- {
			out = appendUnit(out, cs[us[u][0]:us[u][1]])
		}
	} else {
		for i := 0; i < len(cs); {
			if cs[i].class != bidiR {
				out = append(out, cs[i])
				i++
				continue
			}
			// A right-to-left run: to the last right-to-left letter or
			// number before the next left-to-right letter.
			end := i + 1
			for k := end; k < len(cs) && cs[k].class != bidiL; k++ {
				if cs[k].class != bidiN {
					end = k + 1
				}
			}
			var us [][2]int
			for k := i; k < end; {
				j := k + 1
				if cs[k].class == bidiD {
					j = numberEnd(cs[:end], k)
				}
				us = append(us, [2]int{k, j})
				k = j
			}
			for u := len(us) - 1; u >= 0; u-- {
				out = appendUnit(out, cs[us[u][0]:us[u][1]])
			}
			i = end
		}
	}
	var b strings.Builder
	b.Grow(len(s))
	for _, c := range out {
		b.WriteString(c.text)
	}
	return b.String()
}

// appendUnit appends a unit of a reversed run: a single bracket mirrored,
// anything longer (a Latin run, a number) as drawn.
func appendUnit(out, u []cluster) []cluster {
	if len(u) == 1 {
		if m, ok := mirror[u[0].text]; ok {
			return append(out, cluster{text: m, class: bidiN})
		}
	}
	return append(out, u...)
}

// numberEnd returns the end of the number starting at cs[i]: digits and
// the separators between two digits ("3,001", "12.5", "1/2").
func numberEnd(cs []cluster, i int) int {
	j := i + 1
	for j < len(cs) {
		if cs[j].class == bidiD {
			j++
			continue
		}
		if j+1 < len(cs) && cs[j+1].class == bidiD && strings.Contains(".,:/-", cs[j].text) {
			j += 2
			continue
		}
		break
	}
	return j
}

const (
	bidiN = iota // neutral: spaces, punctuation
	bidiL        // left-to-right letter
	bidiR        // right-to-left letter
	bidiD        // digit
)

func bidiClass(r rune) int {
	switch {
	case unicode.IsDigit(r):
		return bidiD
	case unicode.In(r, unicode.Arabic, unicode.Hebrew, unicode.Syriac, unicode.Thaana, unicode.Nko) && (unicode.IsLetter(r) || unicode.IsMark(r)):
		return bidiR
	case unicode.IsLetter(r):
		return bidiL
	}
	return bidiN
}

type cluster struct {
	text  string
	class int
}

// clusters splits s into letters with the combining marks after them.
func clusters(s string) []cluster {
	var cs []cluster
	start := -1
	for i, r := range s {
		if unicode.Is(unicode.Mn, r) && start >= 0 {
			continue
		}
		if start >= 0 {
			cs[len(cs)-1].text = s[start:i]
		}
		cs = append(cs, cluster{class: bidiClass(r)})
		start = i
	}
	if start >= 0 {
		cs[len(cs)-1].text = s[start:]
	}
	return cs
}

var mirror = map[string]string{"(": ")", ")": "(", "[": "]", "]": "[", "{": "}", "}": "{", "<": ">", ">": "<", "«": "»", "»": "«"}
