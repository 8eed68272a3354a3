package fts

// The Porter stemmer exactly as SQLite FTS5's "porter" tokenizer applies it
// (its rule set includes Porter's later "bli"->"ble" and "logi"->"log"
// revisions, and its own reading of *v* and of the y rules), so that our
// index agrees with the FTS5 table token for token. Stem operates on the
// bytes of a folded token; non-ASCII bytes count as consonants.

// maxStemmed is FTS5_PORTER_MAX_TOKEN: longer tokens, and tokens shorter
// than three bytes, are not stemmed.
const maxStemmed = 64

// Stem returns the stem of the folded token w, reusing buf (which may be
// nil) for the result when it has room. w itself is not modified.
func Stem(w, buf []byte) []byte {
	if len(w) > maxStemmed || len(w) < 3 {
		return append(buf[:0], w...)
	}
	b := append(buf[:0], w...)
	b = step1a(b)
	if b2, ok := step1b(b); ok {
		b = b2
		if b2, ok := applyFirst(b, step1b2Rules); ok {
			b = b2
		} else if c := b[len(b)-1]; len(b) >= 2 && !isVowel(c, false) && c != 'l' && c != 's' && c != 'z' && c == b[len(b)-2] {
			b = b[:len(b)-1]
		} else if mEq1(b) && oStar(b) {
			b = append(b, 'e')
		}
	} else {
		b = b2
	}
	// Step 1c.
	if b[len(b)-1] == 'y' && hasVowel(b[:len(b)-1]) {
		b[len(b)-1] = 'i'
	}
	b, _ = applyFirst(b, step2Rules)
	b, _ = applyFirst(b, step3Rules)
	b, _ = applyFirst(b, step4Rules)
	// Step 5a.
	if n := len(b); b[n-1] == 'e' && (mGt1(b[:n-1]) || (mEq1(b[:n-1]) && !oStar(b[:n-1]))) {
		b = b[:n-1]
	}
	// Step 5b.
	if n := len(b); n > 1 && b[n-1] == 'l' && b[n-2] == 'l' && mGt1(b[:n-1]) {
		b = b[:n-1]
	}
	return b
}

// isVowel reports whether c is a vowel; y is one when the letter before it
// is a consonant (prevCons).
func isVowel(c byte, prevCons bool) bool {
	return c == 'a' || c == 'e' || c == 'i' || c == 'o' || c == 'u' || (prevCons && c == 'y')
}

// gobbleVC returns the length of the shortest prefix of s holding a vowel
// followed by a consonant (the first "VC"), or 0 if there is none. prevCons
// says whether the letter before s was a consonant.
func gobbleVC(s []byte, prevCons bool) int {
	cons := prevCons
	i := 0
	for ; i < len(s); i++ {
		if cons = !isVowel(s[i], cons); !cons {
			break
		}
	}
	for i++; i < len(s); i++ {
		if cons = !isVowel(s[i], cons); cons {
			return i + 1
		}
	}
	return 0
}

// mGt0, mGt1 and mEq1 are Porter's measure conditions m > 0, m > 1, m = 1.
func mGt0(s []byte) bool { return gobbleVC(s, false) > 0 }

func mGt1(s []byte) bool {
	n := gobbleVC(s, false)
	return n > 0 && gobbleVC(s[n:], true) > 0
}

func mEq1(s []byte) bool {
	n := gobbleVC(s, false)
	return n > 0 && gobbleVC(s[n:], true) == 0
}

// oStar is Porter's *o: s ends consonant-vowel-consonant, the last not w, x
// or y.
func oStar(s []byte) bool {
	n := len(s)
	if n == 0 {
		return false
	}
	if c := s[n-1]; c == 'w' || c == 'x' || c == 'y' {
		return false
	}
	mask, cons := 0, false
	for _, c := range s {
		cons = !isVowel(c, cons)
		mask <<= 1
		if cons {
			mask |= 1
		}
	}
	return mask&7 == 5
}

// hasVowel is FTS5's *v*: a, e, i, o or u anywhere, or y after the first
// letter.
func hasVowel(s []byte) bool {
	for i, c := range s {
		if isVowel(c, i > 0) {
			return true
		}
	}
	return false
}

func mS0rT(s []byte) bool {
	n := len(s)
	return n > 0 && (s[n-1] == 's' || s[n-1] == 't') && mGt1(s)
}

type rule struct {
	suffix string
	cond   func(stem []byte) bool // nil: always
	repl   string
}

// applyFirst finds the first rule whose suffix ends b with at least one
// byte before it. If its condition holds on the stem, the suffix is
// replaced and ok is true; either way no later rule is tried (rules that
// share an ending are listed longest first).
func applyFirst(b []byte, rules []rule) (_ []byte, ok bool) {
	n := len(b)
	for _, r := range rules {
		if n <= len(r.suffix) || string(b[n-len(r.suffix):]) != r.suffix {
			continue
		}
		stem := b[:n-len(r.suffix)]
		if r.cond != nil && !r.cond(stem) {
			return b, false
		}
		return append(stem, r.repl...), true
	}
	return b, false
}

func step1a(b []byte) []byte {
	n := len(b)
	if b[n-1] != 's' {
		return b
	}
	switch {
	case b[n-2] == 'e':
		if (n > 4 && b[n-4] == 's' && b[n-3] == 's') || (n > 3 && b[n-3] == 'i') {
			return b[:n-2] // sses -> ss, ies -> i
		}
		return b[:n-1]
	case b[n-2] != 's':
		return b[:n-1]
	}
	return b
}

// step1b removes -eed/-ed/-ing; ok reports that -ed or -ing was removed
// (which triggers the clean-ups of step 1b).
func step1b(b []byte) ([]byte, bool) {
	n := len(b)
	switch {
	case n > 3 && string(b[n-3:]) == "eed":
		if mGt0(b[:n-3]) {
			return b[:n-1], false
		}
	case n > 2 && string(b[n-2:]) == "ed":
		if hasVowel(b[:n-2]) {
			return b[:n-2], true
		}
	case n > 3 && string(b[n-3:]) == "ing":
		if hasVowel(b[:n-3]) {
			return b[:n-3], true
		}
	}
	return b, false
}

var step1b2Rules = []rule{{"at", nil, "ate"}, {"bl", nil, "ble"}, {"iz", nil, "ize"}}

var step2Rules = []rule{
	{"ational", mGt0, "ate"}, {"tional", mGt0, "tion"},
	{"enci", mGt0, "ence"}, {"anci", mGt0, "ance"},
	{"izer", mGt0, "ize"},
	{"logi", mGt0, "log"},
	{"bli", mGt0, "ble"}, {"alli", mGt0, "al"}, {"entli", mGt0, "ent"}, {"eli", mGt0, "e"}, {"ousli", mGt0, "ous"},
	{"ization", mGt0, "ize"}, {"ation", mGt0, "ate"}, {"ator", mGt0, "ate"},
	{"alism", mGt0, "al"}, {"iveness", mGt0, "ive"}, {"fulness", mGt0, "ful"}, {"ousness", mGt0, "ous"},
	{"aliti", mGt0, "al"}, {"iviti", mGt0, "ive"}, {"biliti", mGt0, "ble"},
}

var step3Rules = []rule{
	{"ical", mGt0, "ic"},
	{"ness", mGt0, ""},
	{"icate", mGt0, "ic"}, {"iciti", mGt0, "ic"},
	{"ful", mGt0, ""},
	{"ative", mGt0, ""},
	{"alize", mGt0, "al"},
}

var step4Rules = []rule{
	{"al", mGt1, ""},
	{"ance", mGt1, ""}, {"ence", mGt1, ""},
	{"er", mGt1, ""},
	{"ic", mGt1, ""},
	{"able", mGt1, ""}, {"ible", mGt1, ""},
	{"ant", mGt1, ""}, {"ement", mGt1, ""}, {"ment", mGt1, ""}, {"ent", mGt1, ""},
	{"ion", mS0rT, ""}, {"ou", mGt1, ""},
	{"ism", mGt1, ""},
	{"ate", mGt1, ""}, {"iti", mGt1, ""},
	{"ous", mGt1, ""},
	{"ive", mGt1, ""},
	{"ize", mGt1, ""},
}
