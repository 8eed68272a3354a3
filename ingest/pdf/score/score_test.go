package score

import (
	"slices"
	"strings"
	"testing"
)

func TestWords(t *testing.T) {
	got := Words("The ﬁrst exam-\nple: a multi-turn\nGPT-4 test, impossibil\u00ad\nity.")
	want := []string{"the", "first", "example", "multi", "turn", "gpt", "test", "impossibility"}
	if len(got) != len(want) {
		t.Fatalf("Words = %q, want %q", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("Words = %q, want %q", got, want)
		}
	}
}

func TestCompare(t *testing.T) {
	cases := []struct {
		got, ref   string
		word, bigr float64
	}{
		{"alpha beta gamma", "alpha beta gamma", 1, 1},
		{"gamma beta alpha", "alpha beta gamma", 1, 0},
		{"alphabeta gamma", "alpha beta gamma", 0.4, 0},
		{"", "", 1, 1},
	}
	for _, c := range cases {
		r := Compare(c.got, c.ref)
		if r.WordF1 < c.word-1e-9 || r.WordF1 > c.word+1e-9 || r.BigramF1 < c.bigr-1e-9 || r.BigramF1 > c.bigr+1e-9 {
			t.Errorf("Compare(%q, %q) = word %.3f bigram %.3f, want %.3f %.3f", c.got, c.ref, r.WordF1, r.BigramF1, c.word, c.bigr)
		}
	}
}

func TestLigatures(t *testing.T) {
	found, total := Ligatures("the rst le system is exible", "the first file system is flexible, efficient")
	if found != 0 || total != 4 {
		t.Errorf("Ligatures = %d of %d, want 0 of 4", found, total)
	}
	found, total = Ligatures("the ﬁrst ﬁle system", "the first file system")
	if found != 2 || total != 2 {
		t.Errorf("Ligatures = %d of %d, want 2 of 2", found, total)
	}
	// pdftotext joins a compound broken at a line end; ours keeps its hyphen
	missed := LigatureMisses("a task-specific file, a file", "a taskspecific\nfile, a file and a file")
	if want := []string{"taskspecific", "file"}; !slices.Equal(missed, want) {
		t.Errorf("LigatureMisses = %q, want %q", missed, want)
	}
}

func TestMixedLines(t *testing.T) {
	left := "we consider existing summarization datasets with an average summary length of more than one hundred words and collect them here for our study today"
	right := "before discussing our method we first attempt to understand current human evaluation practices in long form summarization through a comprehensive survey of papers"
	ref := left + "\n" + strings.Repeat("filler words of the page go here ", 20) + "\n" + right
	lw, rw := strings.Fields(left), strings.Fields(right)
	ours := strings.Join(lw[:8], " ") + " " + strings.Join(rw[:8], " ") + "\n" + strings.Join(rw[8:], " ")
	if m, n := MixedLines(ours, ref); m != 1 || n != 2 {
		t.Errorf("MixedLines = %d of %d, want 1 of 2", m, n)
	}
	if m, n := MixedLines(left+"\n"+right, ref); m != 0 || n != 2 {
		t.Errorf("MixedLines of whole lines = %d of %d, want 0 of 2", m, n)
	}
}
