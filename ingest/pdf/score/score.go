// Package score compares extracted text with a reference extraction
// (pdftotext): word F1 over the bag of words and bigram F1 over adjacent word
// pairs, which also measures spacing and reading order.
package score

import (
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// Words returns the lower-cased alphanumeric words of 2+ characters of text,
// in order, after NFKC and after joining words hyphenated at line ends
// ("exam-\nple" -> "example").
func Words(text string) []string {
	text = norm.NFKC.String(text)
	text = joinHyphens(text)
	var out []string
	var cur []rune
	flush := func() {
		if len(cur) >= 2 {
			out = append(out, string(cur))
		}
		cur = cur[:0]
	}
	for _, r := range text {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			cur = append(cur, unicode.ToLower(r))
			continue
		}
		flush()
	}
	flush()
	return out
}

// joinHyphens removes "-\n" between two letters, as pdftotext does, and a
// soft hyphen (U+00AD) that ends a line likewise: pdftotext prints the
// hyphen of "impossibil-" + "ity" as U+00AD where the PDF maps its hyphen
// glyphs to it, and that is still a word split at a line end.
func joinHyphens(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	s = strings.ReplaceAll(s, "\u00ad\n", "-\n")
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		if i+1 < len(lines) && strings.HasSuffix(l, "-") && len(l) > 1 {
			r := []rune(l)
			next := strings.TrimLeft(lines[i+1], " ")
			if len(r) >= 2 && unicode.IsLetter(r[len(r)-2]) && next != "" && unicode.IsLower([]rune(next)[0]) {
				b.WriteString(string(r[:len(r)-1]))
				continue
			}
		}
		b.WriteString(l)
		if i+1 < len(lines) {
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// Result is the comparison of one text with its reference.
type Result struct {
	WordP, WordR, WordF1       float64
	BigramP, BigramR, BigramF1 float64
	Words, RefWords            int
}

// Compare scores got against ref.
func Compare(got, ref string) Result {
	gw, rw := Words(got), Words(ref)
	var res Result
	res.Words, res.RefWords = len(gw), len(rw)
	res.WordP, res.WordR, res.WordF1 = f1(bag(gw), bag(rw))
	res.BigramP, res.BigramR, res.BigramF1 = f1(bag(bigrams(gw)), bag(bigrams(rw)))
	return res
}

func bigrams(w []string) []string {
	var out []string
	for i := 0; i+1 < len(w); i++ {
		out = append(out, w[i]+" "+w[i+1])
	}
	return out
}

func bag(w []string) map[string]int {
	m := make(map[string]int, len(w))
	for _, x := range w {
		m[x]++
	}
	return m
}

func f1(got, ref map[string]int) (p, r, f float64) {
	var common, ng, nr int
	for k, v := range got {
		ng += v
		common += min(v, ref[k])
	}
	for _, v := range ref {
		nr += v
	}
	if ng == 0 && nr == 0 {
		return 1, 1, 1
	}
	if ng > 0 {
		p = float64(common) / float64(ng)
	}
	if nr > 0 {
		r = float64(common) / float64(nr)
	}
	if p+r > 0 {
		f = 2 * p * r / (p + r)
	}
	return p, r, f
}

// Ligatures counts the words of ref that hold an "fi", "fl" or "ff" (the
// letters a font's ligature glyphs draw) and how many of them got has: a
// reader that loses the ligature glyphs prints "rst" for "first".
func Ligatures(got, ref string) (found, total int) {
	missed, total := ligatureWords(got, ref)
	return total - len(missed), total
}

// LigatureMisses returns the words Ligatures counts as not found, in the
// order of ref, each as often as it is missed: what to look at when the
// count falls short (pdftotext joins the halves of "task-specific" broken
// at a line end into "taskspecific", and splits small capitals, "D IFFERENT").
func LigatureMisses(got, ref string) []string {
	missed, _ := ligatureWords(got, ref)
	return missed
}

func ligatureWords(got, ref string) (missed []string, total int) {
	have := bag(Words(got))
	for _, w := range Words(ref) {
		if strings.Contains(w, "fi") || strings.Contains(w, "fl") || strings.Contains(w, "ff") {
			total++
			if have[w] > 0 {
				have[w]--
			} else {
				missed = append(missed, w)
			}
		}
	}
	return missed, total
}

// MixedLines counts the lines of got (of six words or more) whose words
// come from two distant places of ref: two runs of three or more words
// that follow each other in the line but stand over 30 words apart in ref,
// as when a line of the left column is read together with the line of the
// right column beside it, or a word hyphenated at one column's end is
// joined with the other column's next word. A run is placed by word
// trigrams that occur once in each text: a phrase that repeats (a running
// head on every page) says nothing of where it was read. total is the
// number of lines looked at.
func MixedLines(got, ref string) (mixed, total int) {
	rw := Words(ref)
	at := map[[3]string][]int{}
	for i := 0; i+2 < len(rw); i++ {
		k := [3]string{rw[i], rw[i+1], rw[i+2]}
		if len(at[k]) < 2 {
			at[k] = append(at[k], i)
		}
	}
	inGot := map[[3]string]int{}
	gw := Words(got)
	for i := 0; i+2 < len(gw); i++ {
		inGot[[3]string{gw[i], gw[i+1], gw[i+2]}]++
	}
	for k, v := range at {
		if len(v) > 1 || inGot[k] > 1 {
			delete(at, k)
		}
	}
	for _, line := range strings.Split(got, "\n") {
		lw := Words(line)
		if len(lw) < 6 {
			continue
		}
		total++
		prevEnd, runs, far := -1, 0, false
		for i := 0; i+2 < len(lw); {
			cands := at[[3]string{lw[i], lw[i+1], lw[i+2]}]
			if len(cands) == 0 {
				i++
				continue
			}
			// the candidate that goes on from the previous run, else the
			// longest match
			best, bestLen, bestNear := -1, 0, false
			for _, c := range cands {
				n := 0
				for i+n < len(lw) && c+n < len(rw) && lw[i+n] == rw[c+n] {
					n++
				}
				near := prevEnd >= 0 && abs(c-prevEnd) <= 30
				if best < 0 || near && !bestNear || near == bestNear && n > bestLen {
					best, bestLen, bestNear = c, n, near
				}
			}
			if prevEnd >= 0 && abs(best-prevEnd) > 30 {
				far = true
			}
			runs++
			prevEnd = best + bestLen
			i += bestLen
		}
		if far && runs >= 2 {
			mixed++
		}
	}
	return mixed, total
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
