package textkit

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kljensen/snowball/english"
)

func TestWords(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"GRPO-style RL, 3x faster!", []string{"GRPO", "style", "RL", "3x", "faster"}},
		{"  ", nil},
		{"naïve Bayes über 中文词", []string{"naïve", "Bayes", "über", "中文词"}},
	} {
		if got := Words(tc.in); !slices.Equal(got, tc.want) {
			t.Errorf("Words(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestStemIsPorter2: the cached stem is the stemmer's, before and after
// the cache is full, and short words are only lower-cased.
func TestStemIsPorter2(t *testing.T) {
	for _, w := range []string{"running", "Generalization", "agents", "policies", "an", "IT"} {
		want := english.Stem(w, true)
		for range 2 { // computed, then from the cache
			if got := Stem(w); got != want {
				t.Errorf("Stem(%q) = %q, want %q", w, got, want)
			}
		}
	}
	stemCount.Store(maxStems) // full: computed every time, still right
	defer stemCount.Store(0)
	if got := Stem("tokenizations"); got != english.Stem("tokenizations", true) {
		t.Errorf("Stem with a full cache = %q", got)
	}
	if _, cached := stems.Load("tokenizations"); cached {
		t.Error("a full cache grew")
	}
}

func TestCountPluralDay(t *testing.T) {
	if Count(1, "paper") != "1 paper" || Count(0, "paper") != "0 papers" || Count(12, "chunk") != "12 chunks" {
		t.Error("Count")
	}
	if Plural(1, "is", "are") != "is" || Plural(2, "is", "are") != "are" {
		t.Error("Plural")
	}
	if Day(time.Time{}) != "" || Day(time.Date(2025, 1, 2, 23, 0, 0, 0, time.FixedZone("x", -3600))) != "2025-01-03" {
		t.Error("Day: zero is empty, others are their UTC date")
	}
	if w, cut := FirstWords("a  b\nc d", 3); w != "a b c" || !cut {
		t.Errorf("FirstWords = %q, %v", w, cut)
	}
	if w, cut := FirstWords("a b", 3); w != "a b" || cut {
		t.Errorf("FirstWords of a short text = %q, %v", w, cut)
	}
}

// TestWideCharacters: a CJK title takes two columns a character, so
// truncation and wrapping by columns (not runes) keep lines within the
// width; ANSI styles take none.
func TestWideCharacters(t *testing.T) {
	title := "大规模语言模型的强化学习综述与展望"
	if Width(title) != 2*len([]rune(title)) {
		t.Fatalf("Width(%q) = %d", title, Width(title))
	}
	for _, w := range []int{5, 10, 17, 40} {
		if got := Truncate(title, w); Width(got) > w || Width(title) > w && !strings.HasSuffix(got, "…") {
			t.Errorf("Truncate(_, %d) = %q (%d columns)", w, got, Width(got))
		}
		for _, line := range Wrap(title+" and the English words after it "+title, w) {
			if Width(line) > w {
				t.Errorf("Wrap(_, %d) line %q is %d columns", w, line, Width(line))
			}
		}
	}
	bold := "\x1b[1mbold\x1b[0m"
	if Width(bold) != 4 || Truncate(bold, 10) != bold || Pad(bold, 6) != bold+"  " {
		t.Errorf("ANSI styles counted: width %d", Width(bold))
	}
	if Pad(title, 10) != title || Width(Pad("中", 5)) != 5 {
		t.Error("Pad")
	}
}

func TestCountLetters(t *testing.T) {
	for _, c := range []struct {
		w    string
		want Letters
	}{
		{"Co-ReAct", Letters{Upper: 3, UpperInner: 2, Lower: 4}},
		{"GPT4", Letters{Upper: 3, UpperInner: 2, Digits: 1}},
		{"learning", Letters{Lower: 8}},
		{"数据集", Letters{Other: 3}},
		{"ǅemal", Letters{Other: 1, Lower: 4}}, // ǅ is title case: neither upper nor lower
	} {
		if got := CountLetters(c.w); got != c.want {
			t.Errorf("CountLetters(%q) = %+v, want %+v", c.w, got, c.want)
		}
	}
}
