package score

import "testing"

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
