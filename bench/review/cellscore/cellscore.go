// Package cellscore scores papers review cells against gold written from
// the papers: the figures the review benchmarks (bench/review/qa,
// bench/review/grid) print.
//
// A cell the paper states is right when its answer or its quote holds the
// fact: every term of one of the fact's alternatives, compared as
// eval.Missing compares (case and space insensitive). Its page is right
// when it is among the pages that state the fact. A cell the paper does
// not state is right when the review marks it "not stated". A stated cell
// whose gold has no pages (a paper from a corpus, which has no pages) is
// judged on its fact alone.
package cellscore

import (
	"fmt"
	"slices"

	"github.com/papers-cli/papers/eval"
	"github.com/papers-cli/papers/review"
)

// Gold is what a cell should hold. Facts and Pages matter only when Stated.
type Gold struct {
	Stated bool
	// Facts are alternatives, each the terms a right cell holds together.
	Facts [][]string
	// Pages are the pages that state the fact; none when the paper has
	// no pages, and then the cell's page is not judged.
	Pages []int
}

// Verdict is one cell's score.
type Verdict struct {
	Answered  bool // the review stated an answer (for a stated gold cell)
	Right     bool // stated: the answer or quote holds the fact; not stated: marked so
	PageRight bool // stated and answered: the cell's page is among the gold pages
	Paged     bool // stated and answered, and the gold has pages to judge the cell's page by
}

// Holds reports whether text holds every term of one of the alternatives.
func Holds(text string, alternatives [][]string) bool {
	for _, alt := range alternatives {
		if len(eval.Missing(text, alt)) == 0 {
			return true
		}
	}
	return false
}

// Judge scores cell c against g.
func Judge(c review.Cell, g Gold) Verdict {
	if !g.Stated {
		return Verdict{Right: !c.Stated}
	}
	if !c.Stated {
		return Verdict{}
	}
	return Verdict{
		Answered:  true,
		Right:     Holds(c.Answer+" "+c.Quote, g.Facts),
		PageRight: c.Page > 0 && slices.Contains(g.Pages, c.Page),
		Paged:     len(g.Pages) > 0,
	}
}

// Tally adds up verdicts.
type Tally struct {
	Stated    int // gold cells the paper states
	Answered  int // of them, cells the review answered
	Right     int // of them, cells whose answer or quote holds the fact
	PageRight int // answered cells with a right page
	Paged     int // answered cells whose gold has pages (the page figure's denominator)
	Unstated  int // gold cells the paper does not state
	Marked    int // of them, cells the review marked not stated
}

// Add counts v, a verdict on a cell whose gold has stated.
func (t *Tally) Add(stated bool, v Verdict) {
	if !stated {
		t.Unstated++
		if v.Right {
			t.Marked++
		}
		return
	}
	t.Stated++
	if v.Answered {
		t.Answered++
	}
	if v.Right {
		t.Right++
	}
	if v.PageRight {
		t.PageRight++
	}
	if v.Paged {
		t.Paged++
	}
}

// Pct prints n of d with its percentage: "12/16 (75%)".
func Pct(n, d int) string {
	return fmt.Sprintf("%d/%d (%.0f%%)", n, d, 100*float64(n)/float64(max(d, 1)))
}

// String prints the three acceptance figures of issue 28: stated cells
// right (of every stated cell), page right (of the stated cells the review
// answered whose gold has pages) and not-stated cells marked so.
func (t Tally) String() string {
	return fmt.Sprintf("stated right %s  page right %s  not stated marked %s  (answered %s)",
		Pct(t.Right, t.Stated), Pct(t.PageRight, t.Paged), Pct(t.Marked, t.Unstated), Pct(t.Answered, t.Stated))
}
