package ask

import (
	"strings"
	"unicode"

	"github.com/kljensen/snowball/english"
	"github.com/papers-cli/papers/internal/lazyre"
)

// Sentences of extracted PDF text carry what the page layout left in them:
// section headings run into the first sentence, figure axes and table cells
// before a caption, equation numbers, footnote marks glued to a period,
// words split at a line-end hyphen, and the LaTeX of arXiv metadata. The
// functions here tidy a sentence for an answer and say how much of it is
// debris.

var (
	latexWrap  = lazyre.New(`\\(?:emph|textbf|textit|texttt|textrm|textsc|mathrm|mathbf|mathit|mathcal|text|mbox|underline)\s*\{([^{}]*)\}`)
	latexMath  = lazyre.New(`\$([^$]{1,80})\$`)
	latexCmd   = lazyre.New(`\\([A-Za-z]+)`)
	lineHyphen = lazyre.New(`([\p{L}\d])- ([\p{L}\d][\p{L}\d]*)`)
	// "3.2 Datasets and Training For red teaming ...", "B.1 RL Algorithm We use ..."
	numberedHead = lazyre.New(`^(?:\d+(?:\.\d+)*\.?|[A-Z](?:\.\d+)+\.?)\s+`)
	captionStart = lazyre.New(`\b(?:Figure|Fig\.|Table|Tab\.)\s*\d+[a-z]?\s*[:.|]?\s`)
	footnoteDot  = lazyre.New(`(\p{Ll}{2}[).]?)\.(\d{1,2})$`)
	tocDots      = lazyre.New(`(?:\. ){3,}|\.{4,}`)
	spaceBefore  = lazyre.New(` +([,;:.!?)\]])`)
	refMark      = lazyre.New(`\s*\[\d+(?:\s*[,–-]\s*\d+)*\]`)
)

var latexSymbols = map[string]string{
	"times": "×", "cdot": "·", "pm": "±", "leq": "≤", "le": "≤", "geq": "≥", "ge": "≥", "approx": "≈",
	"sim": "~", "neq": "≠", "rightarrow": "→", "to": "→", "leftarrow": "←", "infty": "∞", "percent": "%",
	"alpha": "α", "beta": "β", "gamma": "γ", "delta": "δ", "epsilon": "ε", "varepsilon": "ε", "theta": "θ",
	"lambda": "λ", "mu": "μ", "pi": "π", "rho": "ρ", "sigma": "σ", "tau": "τ", "phi": "φ", "omega": "ω",
	"Delta": "Δ", "Omega": "Ω", "Sigma": "Σ", "ldots": "…", "dots": "…", "cdots": "…",
}

// clauseStarts are words that open a sentence after a heading that ran
// into it ("... Policy Optimization In order to save ...").
var clauseStarts = map[string]bool{
	"In": true, "For": true, "We": true, "To": true, "The": true, "This": true, "Our": true, "As": true,
	"Since": true, "When": true, "Given": true, "Unlike": true, "Following": true, "Here": true, "These": true,
	"It": true, "A": true, "An": true, "With": true, "On": true, "After": true, "While": true, "Although": true,
	"Because": true, "Specifically": true, "First": true, "Finally": true, "Each": true, "All": true, "Most": true,
}

// tidy returns s cleaned for an answer: LaTeX rendered as text, words
// re-joined at line-end hyphens, a leading section heading, figure debris
// or equation number dropped, a footnote mark after the final period
// dropped. section is the heading in force for the passage.
func tidy(s, section string) string {
	s = untex(s)
	if strings.Contains(s, "- ") {
		s = joinHyphens(s)
	}
	if h := strings.TrimSpace(section); h != "" && strings.HasPrefix(s, h+" ") && len(s) > len(h)+20 {
		s = strings.TrimSpace(s[len(h):])
	}
	s = dropHeading(s)
	s = dropLeadingDebris(s)
	// the paper's own reference marks ("[12]", "[3, 4]") would read as the
	// answer's citations
	s = refMark.ReplaceAllString(s, "")
	if i := strings.LastIndexByte(s, '.'); i >= 0 && i >= len(s)-3 && i < len(s)-1 {
		s = footnoteDot.ReplaceAllString(s, "$1.")
	}
	return strings.TrimSpace(s)
}

// joinHyphens joins words a line-end hyphen split ("DeepSeek- R1").
func joinHyphens(s string) string {
	return lineHyphen.ReplaceAllStringFunc(s, func(m string) string {
		i := strings.Index(m, "- ")
		switch strings.ToLower(m[i+2:]) {
		case "and", "or", "to", "as", "vs", "nor", "but", "versus":
			return m // "pre- and post-training"
		}
		return m[:i] + "-" + m[i+2:]
	})
}

// untex renders the LaTeX arXiv abstracts carry: "12 \times" is "12 ×",
// "\emph{PARPO}" is "PARPO", "$π$" is "π".
func untex(s string) string {
	if !strings.ContainsAny(s, `\$`) {
		return s
	}
	for i := 0; i < 3 && strings.Contains(s, `\`); i++ {
		s = latexWrap.ReplaceAllString(s, "$1")
	}
	s = latexMath.ReplaceAllString(s, "$1")
	s = strings.NewReplacer(`\%`, "%", `\&`, "&", `\_`, "_", `\#`, "#", `\{`, "{", `\}`, "}", `~`, " ").Replace(s)
	s = latexCmd.ReplaceAllStringFunc(s, func(m string) string {
		if sym, ok := latexSymbols[m[1:]]; ok {
			return sym
		}
		return m[1:]
	})
	return strings.Join(strings.Fields(s), " ")
}

// dropHeading removes a section heading that runs into the sentence: a
// section number and the title-case words after it, up to the capitalised
// word that opens the clause ("3.2 Datasets and Training For red ..."), or
// three or more title-case words before a clause opener ("Group Relative
// Policy Optimization In order to ...").
func dropHeading(s string) string {
	numbered := false
	rest := s
	if loc := numberedHead.FindStringIndex(s); loc != nil {
		numbered, rest = true, s[loc[1]:]
	}
	words := strings.Fields(rest)
	titleCase := 0
	for i, w := range words {
		r := []rune(w)
		if i > 0 && clauseStarts[w] && i+1 < len(words) && startsLower(words[i+1]) {
			if numbered || titleCase >= 3 {
				return strings.Join(words[i:], " ")
			}
			return s
		}
		switch {
		case unicode.IsUpper(r[0]) || unicode.IsDigit(r[0]):
			titleCase++
		case len(w) <= 4 && functionWord(w): // "and", "of", "for", "the"
		default:
			// a lower-case word: the heading (if any) ended before the
			// previous capitalised word
			if numbered && i >= 2 {
				j := i - 1
				for j > 0 && clauseStarts[words[j-1]] {
					j-- // "127 The AqSolDB curated ...": the article opens the sentence
				}
				if j == 0 {
					return rest // a number before the sentence, not a heading
				}
				return strings.Join(words[j:], " ")
			}
			return s
		}
		if i > 12 {
			return s
		}
	}
	return s
}

func startsLower(w string) bool {
	r := []rune(w)
	return len(r) > 0 && unicode.IsLower(r[0])
}

func functionWord(w string) bool {
	switch strings.ToLower(w) {
	case "and", "of", "for", "the", "a", "an", "in", "on", "to", "with", "via", "from", "by", "at", "or", "vs.", "vs":
		return true
	}
	return false
}

// dropLeadingDebris removes what layout left before the sentence proper:
// figure axes and table cells before a caption ("3.5 3.0 2.5 ... Figure 10
// Absolute harmfulness ..."), and equation numbers and symbols before a
// capitalised word ("(41) N 2t 2t This double log ...").
func dropLeadingDebris(s string) string {
	if !strings.Contains(s, "Fig") && !strings.Contains(s, "Tab") {
		// no caption
	} else if loc := captionStart.FindStringIndex(s); loc != nil && loc[0] > 0 && (debrisShare(s[:loc[0]]) >= 0.3 || tabular(s[:loc[0]])) {
		s = s[loc[0]:]
	}
	words := strings.Fields(s)
	for i, w := range words {
		if i >= 8 {
			break
		}
		r := []rune(w)
		if unicode.IsUpper(r[0]) && (len(r) > 1 || w == "A") && i+1 < len(words) && (startsLower(words[i+1]) || clauseStarts[w]) {
			if i > 0 {
				return strings.Join(words[i:], " ")
			}
			break
		}
		if !isDebrisToken(w) {
			break
		}
	}
	return s
}

// isDebrisToken: a number, a symbol, an equation label or a one- or
// two-character token.
func isDebrisToken(w string) bool {
	n, letters := 0, 0
	for _, r := range w {
		n++
		if unicode.IsLetter(r) {
			letters++
		}
	}
	return n <= 2 || letters*2 < n
}

// debrisShare is the share of the tokens of s that are numbers, symbols or
// fragments: about 0.1 for prose, over 0.4 for table rows and figure axes.
func debrisShare(s string) float64 {
	words := strings.Fields(s)
	if len(words) == 0 {
		return 0
	}
	n := 0
	for _, w := range words {
		if isDebrisToken(strings.Trim(w, ",;:()[]")) && !functionWord(w) {
			n++
		}
	}
	return float64(n) / float64(len(words))
}

// tabular reports text of ten words or more with hardly a function word:
// table cells and figure labels (prose is about 40% function words).
func tabular(s string) bool {
	words := strings.Fields(s)
	if len(words) < 10 {
		return false
	}
	n := 0
	for _, w := range words {
		if english.IsStopWord(strings.ToLower(strings.Trim(w, ",;:()[]."))) {
			n++
		}
	}
	return float64(n) < 0.12*float64(len(words))
}

// debris is how much of s is layout debris, in [0,1]: the share of
// number, symbol and fragment tokens, and at least 0.6 for table-like text.
func debris(s string) float64 {
	d := debrisShare(s)
	if tabular(s) {
		d = max(d, 0.6)
	}
	return d
}

// isTOC reports a table-of-contents line ("2.3.3 Rejection Sampling . . . 10").
func isTOC(s string) bool {
	return (strings.Contains(s, ". . .") || strings.Contains(s, "....")) && tocDots.MatchString(s)
}

// isHeadingLine reports a line of a passage that is a heading, not text:
// short, without a final period, and the passage's section or numbered or
// in title case.
func isHeadingLine(line, section string) bool {
	line = strings.TrimSpace(line)
	words := strings.Fields(line)
	if len(words) == 0 || len(words) > 14 || strings.HasSuffix(line, ".") && !numberedHead.MatchString(line+" ") {
		return false
	}
	if section != "" && strings.EqualFold(line, strings.TrimSpace(section)) {
		return true
	}
	if numberedHead.MatchString(line) && len(words) <= 10 {
		return true
	}
	caps := 0
	for _, w := range words {
		r := []rune(w)
		if unicode.IsUpper(r[0]) || unicode.IsDigit(r[0]) {
			caps++
		} else if !functionWord(w) {
			return false
		}
	}
	return caps >= 2 && !strings.HasSuffix(line, "?")
}

// tidySpacing tidies the spacing of an answer sentence.
func tidySpacing(s string) string {
	return spaceBefore.ReplaceAllString(strings.Join(strings.Fields(s), " "), "$1")
}
