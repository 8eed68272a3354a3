package topic

import "testing"

// The momentum sentence reads as the feed's topic page words it.
func TestMomentumSentence(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	for _, tc := range []struct {
		m    Momentum
		want string
	}{
		{Momentum{Last4: 70, Prev4: 29, ChangePct: f(141.38), SharePct: f(0.7), Source: "arxiv"},
			"70 papers in the last four weeks, up 141% on the four weeks before. 0.7% of all new papers."},
		{Momentum{Last4: 1, Prev4: 4, ChangePct: f(-75), SharePct: f(12.5), Source: "library"},
			"1 paper in the last four weeks, down 75% on the four weeks before. 12.5% of the library's new papers."},
		{Momentum{Last4: 3, Prev4: 3, ChangePct: f(0), SharePct: f(0.01), Source: "arxiv"},
			"3 papers in the last four weeks, as many as in the four weeks before. 0.01% of all new papers."},
		{Momentum{Last4: 5, Source: "library"}, "5 papers in the last four weeks, none in the four weeks before."},
		{Momentum{Source: "library"}, "0 papers in the last four weeks."},
	} {
		if got := tc.m.Sentence(); got != tc.want {
			t.Errorf("Sentence() = %q\nwant         %q", got, tc.want)
		}
	}
}
