package pdf

import (
	"fmt"
	"strings"
	"unicode"
)

// judge decides whether the text is usable: none at all (a scan), or
// garbage (a bad OCR layer, unmapped fonts).
func judge(doc *Document) error {
	var alnum, total, bad, tokens, badTok int
	for _, p := range doc.Pages {
		for _, r := range p.Text {
			if unicode.IsSpace(r) {
				continue
			}
			total++
			switch {
			case unicode.IsLetter(r) || unicode.IsDigit(r):
				alnum++
			case r == unicode.ReplacementChar || unicode.Is(unicode.Co, r) || unicode.IsControl(r):
				bad++
			}
		}
		for _, f := range strings.Fields(p.Text) {
			tokens++
			if !wordLike(f) {
				badTok++
			}
		}
	}
	// A page or two with a short text (a form, a label) is text; many
	// pages with a few stray characters are a scan.
	if alnum == 0 || alnum < 20 && len(doc.Pages) > 2 {
		return ErrNoText
	}
	empty := 0
	for _, p := range doc.Pages {
		if letters(p.Text) < 5 {
			empty++
		}
	}
	if empty > 0 && empty*4 >= len(doc.Pages) {
		doc.warnf("%d of %d pages have no text layer (scanned images?)", empty, len(doc.Pages))
	}
	badChars := float64(bad) / float64(total)
	badWords := float64(badTok) / float64(tokens)
	switch {
	case badChars > 0.2 || badWords > 0.6:
		doc.warnf("text layer looks garbled: %.0f%% unreadable characters, %.0f%% non-words", 100*badChars, 100*badWords)
		return fmt.Errorf("%w: %.0f%% of tokens are not words", ErrGarbled, 100*badWords)
	case badChars > 0.05 || badWords > 0.4:
		doc.warnf("text layer may be garbled: %.0f%% unreadable characters, %.0f%% non-words", 100*badChars, 100*badWords)
	}
	return nil
}

// wordLike says whether a token looks like a word, a number or a usual
// piece of punctuation: not OCR debris such as "l", "t»Bfl" or "Eeai&r".
func wordLike(tok string) bool {
	t := strings.TrimFunc(tok, func(r rune) bool { return unicode.IsPunct(r) && r != '&' })
	if t == "" {
		return true // punctuation alone: dashes, bullets
	}
	rs := []rune(t)
	var let, dig, upper, lowerAfterUpper, other int
	vowel := false
	for i, r := range rs {
		switch {
		case unicode.IsLetter(r):
			let++
			if r > 0x2ff || strings.ContainsRune("aeiouyAEIOUYàâäéèêëîïôöùûüÿáíóú", r) {
				vowel = true
			}
			if unicode.IsUpper(r) {
				upper++
				if i > 0 && unicode.IsLower(rs[i-1]) && unicode.IsLower(rs[max(0, i-2)]) && i+1 < len(rs) && unicode.IsLower(rs[i+1]) {
					lowerAfterUpper++ // "wiTh": case flips inside a word
				}
			}
		case unicode.IsDigit(r):
			dig++
		case r == '-' || r == '\'' || r == '’' || r == '.' || r == '/':
		default:
			other++
		}
	}
	if dig > 0 && let == 0 {
		return true
	}
	if let == 1 && len(rs) == 1 {
		return strings.ContainsRune("aAIiox", rs[0]) || rs[0] > 0x2ff
	}
	if other > 0 || lowerAfterUpper > 0 {
		return false
	}
	return let > 0 && (vowel || upper == let || dig > 0 || let <= 3)
}
