package bibtex

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/papers-cli/papers/internal/tex"
)

// Text is a field's value as plain text: TeX accents as Unicode ({\"u},
// \'e), escaped specials as themselves (\&, \%, \_), ~ as a space, "--"
// and "---" as dashes, text commands reduced to their text
// (\emph{Word}, \textsc{bert}), case-protecting braces dropped, and
// whitespace collapsed. TeX math between $ signs is kept as written, as
// arXiv's titles keep it.
func Text(s string) string {
	s = tex.FromTeX(s)
	var b strings.Builder
	inMath := false
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '$':
			inMath = !inMath
			b.WriteByte(c)
			i++
		case inMath:
			b.WriteByte(c)
			i++
		case c == '\\' && i+1 < len(s):
			n := s[i+1]
			if strings.IndexByte(`&%_#${}~^ `, n) >= 0 {
				switch n {
				case '~', ' ':
					b.WriteByte(' ')
				default:
					b.WriteByte(n)
				}
				i += 2
				continue
			}
			if n == '\\' {
				b.WriteByte(' ') // a line break
				i += 2
				continue
			}
			j := i + 1
			for j < len(s) && isLetter(s[j]) {
				j++
			}
			name := s[i+1 : j]
			if r, ok := symbols[name]; ok {
				b.WriteString(r)
			} else if name == "" {
				_, w := utf8.DecodeRuneInString(s[j:]) // \- (a hyphenation hint), \, (a thin space)
				j += w
				if s[i+1] == ',' {
					b.WriteByte(' ')
				}
			}
			// another command: its name goes, its argument (in braces,
			// dropped below) stays: \emph{Word} -> Word
			i = j
		case c == '{' || c == '}':
			i++
		case c == '~':
			b.WriteByte(' ')
			i++
		case c == '-' && strings.HasPrefix(s[i:], "---"):
			b.WriteString("—")
			i += 3
		case c == '-' && strings.HasPrefix(s[i:], "--"):
			b.WriteString("–")
			i += 2
		default:
			b.WriteByte(c)
			i++
		}
	}
	return strings.Join(strings.FieldsFunc(b.String(), unicode.IsSpace), " ")
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// symbols are the commands that stand for text.
var symbols = map[string]string{
	"LaTeX": "LaTeX", "TeX": "TeX", "BibTeX": "BibTeX", "textendash": "–", "textemdash": "—", "textquoteright": "’",
	"textquoteleft": "‘", "textquotedblleft": "“", "textquotedblright": "”", "dag": "†", "ddag": "‡", "S": "§", "P": "¶",
	"copyright": "©", "textregistered": "®", "texttrademark": "™", "pounds": "£", "euro": "€", "textbackslash": `\`,
	"textasciitilde": "~", "textasciicircum": "^", "textbar": "|", "textless": "<", "textgreater": ">", "ldots": "…", "dots": "…",
	"textellipsis": "…", "slash": "/", "textdegree": "°", "textperiodcentered": "·", "textbullet": "•",
}

// Pages is a pages field as the library keeps it: "5921-5932" for
// BibTeX's "5921--5932".
func Pages(s string) string {
	return strings.NewReplacer("–", "-", "—", "-").Replace(Text(s))
}
