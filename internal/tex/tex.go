// Package tex reads and writes the TeX that bibliographic records carry:
// accents spelled as TeX (arXiv's "J\"urg Fr\"ohlich", a .bib file's
// {\"u}), Unicode symbols that pdflatex can set only as math commands,
// and the journal macros of the NASA ADS (\apj, \mnras).
package tex

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/papers-cli/papers/internal/lazyre"
	"golang.org/x/text/unicode/norm"
)

// TeX that sources write themselves. arXiv's metadata spells accents as
// TeX ("J\"urg Fr\"ohlich", "Zgliczy\'nski"), and titles carry math between
// $ signs that may hold Unicode symbols ("$π$"), which pdflatex cannot read
// in math mode. Both are handled here: accents are kept as TeX in BibTeX
// (braced, so BibTeX sorts and case-changes them as one letter) and turned
// into Unicode for CSL-JSON; Unicode symbols become TeX commands.

// texAccent matches one TeX accent or special letter at the start of a
// string, optionally in a brace group: \"u, \"{u}, {\"u}, \'{\i}, \v{c},
// \c c, \ss, \o{}, {\aa}.
var texAccent = lazyre.New(`^(?:\{\\(?:` + accentBody + `)\}|\\(?:` + accentBody + `))`)

const accentBody = `[` + symbolAccents + `](?:\{(?:[A-Za-z]|\\[ij])\}|[A-Za-z]|\\[ij](?:\{\}|\b))` +
	`|[uvHckrdbt](?:\{(?:[A-Za-z]|\\[ij])\}| [A-Za-z])` +
	`|(?:ss|aa|AA|ae|AE|oe|OE|o|O|l|L|i|j)(?:\{\}| |\b)`

// accentMarks are the combining marks of TeX's accent commands.
var accentMarks = map[byte]rune{
	'"': 0x308, '\'': 0x301, '`': 0x300, '^': 0x302, '~': 0x303, '=': 0x304, '.': 0x307,
	'u': 0x306, 'v': 0x30c, 'H': 0x30b, 'c': 0x327, 'k': 0x328, 'r': 0x30a, 'd': 0x323, 'b': 0x331, 't': 0x361,
}

// texLetters are TeX's special letters.
var texLetters = map[string]string{
	"ss": "ß", "aa": "å", "AA": "Å", "ae": "æ", "AE": "Æ", "oe": "œ", "OE": "Œ",
	"o": "ø", "O": "Ø", "l": "ł", "L": "Ł", "i": "ı", "j": "ȷ",
}

// AccentAt reads a TeX accent at the start of s. It returns the accent as
// BibTeX should hold it ({\"u}), as Unicode (ü) and the bytes it spans,
// or n == 0 when s does not start with one.
func AccentAt(s string) (tex, uni string, n int) {
	m := texAccent.FindString(s)
	if m == "" {
		return "", "", 0
	}
	body := m
	if body[0] == '{' {
		body = body[1 : len(body)-1]
	}
	cmd := body[1:] // after the backslash
	if name := strings.TrimSuffix(strings.TrimSuffix(cmd, " "), "{}"); texLetters[name] != "" {
		return `{\` + name + "}", texLetters[name], len(m) // \ss e is "ße": the space ends the command
	}
	mark := accentMarks[cmd[0]]
	arg := strings.TrimLeft(cmd[1:], " ")
	if strings.HasPrefix(arg, "{") && strings.HasSuffix(arg, "}") {
		arg = arg[1 : len(arg)-1]
	}
	arg = strings.TrimSuffix(arg, "{}")
	letter := strings.TrimPrefix(arg, `\`) // \i and \j are the dotless letters
	if mark == 0 || letter == "" {
		return "", "", 0
	}
	if len(arg) == 1 && strings.IndexByte(symbolAccents, cmd[0]) >= 0 {
		tex = `{\` + cmd[:1] + arg + "}"
	} else {
		tex = `{\` + cmd[:1] + "{" + arg + "}}"
	}
	return tex, norm.NFC.String(letter + string(mark)), len(m)
}

// symbolAccents are the accent commands named by a symbol, which take
// their letter without braces (\"u); the others are letters (\v{c}).
const symbolAccents = `"'` + "`" + `^~=.`

// FromTeX turns the TeX accents of s into Unicode ("J\"urg" -> "Jürg") for
// outputs that are not TeX (CSL-JSON). Everything else is left as it is.
func FromTeX(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		start := i
		if s[i] == '{' && i+1 < len(s) && s[i+1] == '\\' || s[i] == '\\' {
			if _, uni, n := AccentAt(s[i:]); n > 0 {
				b.WriteString(uni)
				i += n
				continue
			}
		}
		_, w := utf8.DecodeRuneInString(s[i:])
		b.WriteString(s[start : i+w])
		i += w
	}
	return b.String()
}

// mathSymbols are the Unicode characters that titles write inside (and
// outside) TeX math, with the math-mode command pdflatex needs for them.
var mathSymbols = map[rune]string{
	'α': `\alpha`, 'β': `\beta`, 'γ': `\gamma`, 'δ': `\delta`, 'ε': `\epsilon`, 'ϵ': `\epsilon`, 'ζ': `\zeta`,
	'η': `\eta`, 'θ': `\theta`, 'ϑ': `\vartheta`, 'ι': `\iota`, 'κ': `\kappa`, 'λ': `\lambda`, 'μ': `\mu`, 'µ': `\mu`,
	'ν': `\nu`, 'ξ': `\xi`, 'π': `\pi`, 'ϖ': `\varpi`, 'ρ': `\rho`, 'ϱ': `\varrho`, 'σ': `\sigma`, 'ς': `\varsigma`,
	'τ': `\tau`, 'υ': `\upsilon`, 'φ': `\phi`, 'ϕ': `\phi`, 'χ': `\chi`, 'ψ': `\psi`, 'ω': `\omega`,
	'Γ': `\Gamma`, 'Δ': `\Delta`, 'Θ': `\Theta`, 'Λ': `\Lambda`, 'Ξ': `\Xi`, 'Π': `\Pi`, 'Σ': `\Sigma`,
	'Υ': `\Upsilon`, 'Φ': `\Phi`, 'Ψ': `\Psi`, 'Ω': `\Omega`,
	'≤': `\leq`, '≥': `\geq`, '≠': `\neq`, '≈': `\approx`, '≡': `\equiv`, '∼': `\sim`, '≪': `\ll`, '≫': `\gg`,
	'×': `\times`, '÷': `\div`, '±': `\pm`, '∓': `\mp`, '·': `\cdot`, '∘': `\circ`, '∗': `\ast`,
	'→': `\to`, '←': `\leftarrow`, '↔': `\leftrightarrow`, '⇒': `\Rightarrow`, '⇔': `\Leftrightarrow`, '↦': `\mapsto`,
	'∞': `\infty`, '∂': `\partial`, '∇': `\nabla`, '∑': `\sum`, '∏': `\prod`, '∫': `\int`, '√': `\surd`,
	'∈': `\in`, '∉': `\notin`, '⊂': `\subset`, '⊆': `\subseteq`, '∪': `\cup`, '∩': `\cap`, '∅': `\emptyset`,
	'∀': `\forall`, '∃': `\exists`, '¬': `\neg`, '∧': `\wedge`, '∨': `\vee`, '⊕': `\oplus`, '⊗': `\otimes`,
	'−': `-`, 'ℓ': `\ell`, 'ℏ': `\hbar`, 'ℝ': `\mathbb{R}`, 'ℕ': `\mathbb{N}`, 'ℤ': `\mathbb{Z}`, 'ℚ': `\mathbb{Q}`, 'ℂ': `\mathbb{C}`,
	'′': `\prime`, '°': `^{\circ}`, '∝': `\propto`, '⊥': `\perp`, '∥': `\parallel`, '⟨': `\langle`, '⟩': `\rangle`,
	'⁰': `^{0}`, '¹': `^{1}`, '²': `^{2}`, '³': `^{3}`, '⁴': `^{4}`, '⁵': `^{5}`, '⁶': `^{6}`, '⁷': `^{7}`, '⁸': `^{8}`, '⁹': `^{9}`,
	'⁺': `^{+}`, '⁻': `^{-}`, '₀': `_{0}`, '₁': `_{1}`, '₂': `_{2}`, '₃': `_{3}`, '₄': `_{4}`, 'ᵢ': `_{i}`, 'ⱼ': `_{j}`,
}

// MathCommand returns the TeX command for r in math mode, followed by a
// space when the next character is a letter (\pi r, not \pir).
func MathCommand(r rune, next string) (string, bool) {
	cmd, ok := mathSymbols[r]
	if !ok {
		return "", false
	}
	if nr, _ := utf8.DecodeRuneInString(next); isASCIILetter(nr) && cmd[len(cmd)-1] != '}' {
		cmd += " "
	}
	return cmd, true
}

func isASCIILetter(r rune) bool { return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' }

// SymbolRun reads the run of Greek letters (or the one other symbol of
// mathSymbols) at the start of s, in text rather than math. It returns it
// as TeX math ("$\\beta$") and the bytes it spans, or n == 0 when s does
// not start with one. A Greek word that is not all symbols ("Δημήτρης",
// with its accents) is returned as it is: it is a name, not notation.
func SymbolRun(s string) (string, int) {
	r, w := utf8.DecodeRuneInString(s)
	cmd, ok := mathSymbols[r]
	if !ok {
		return "", 0
	}
	if !unicode.Is(unicode.Greek, r) {
		return "$" + cmd + "$", w
	}
	var b strings.Builder
	b.WriteString("$")
	n, all := 0, true
	for n < len(s) {
		r, w := utf8.DecodeRuneInString(s[n:])
		if !unicode.Is(unicode.Greek, r) {
			break
		}
		cmd, ok := MathCommand(r, s[n+w:])
		if !ok {
			all = false
		}
		b.WriteString(cmd)
		n += w
	}
	if !all {
		return s[:n], n
	}
	return strings.TrimSpace(b.String()) + "$", n
}

// Balanced reports whether every brace of s closes one opened before it
// and every one opened is closed (BibTeX counts \{ and \} too).
func Balanced(s string) bool {
	depth := 0
	for _, r := range s {
		switch r {
		case '{':
			depth++
		case '}':
			if depth--; depth < 0 {
				return false
			}
		}
	}
	return depth == 0
}
