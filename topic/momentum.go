package topic

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/papers-cli/papers/ingest/arxiv"
	"github.com/papers-cli/papers/internal/textkit"
	"github.com/papers-cli/papers/store"
)

// Weeks is how many weekly counts Momentum reports; the last 4 are compared
// with the 4 before them.
const Weeks = 12

// Week is one week's count of new papers (by first-version submission date).
type Week struct {
	Start string `json:"week_start"` // YYYY-MM-DD, UTC
	Count int    `json:"count"`
}

// Momentum is how fast a topic grows: papers in the last 4 weeks against
// the 4 weeks before, and its share of everything new on arXiv. It is the
// --json document of `papers momentum` (field names are stable).
type Momentum struct {
	Topic string `json:"topic"`
	Last4 int    `json:"last_4_weeks"`
	Prev4 int    `json:"previous_4_weeks"`
	// ChangePct is (Last4 - Prev4) / Prev4 in percent, rounded to 0.01;
	// null when Prev4 is 0.
	ChangePct *float64 `json:"change_pct"`
	// SharePct is Last4 as a percentage (rounded to 0.01) of all papers
	// submitted in the same 4 weeks: all of arXiv when Source is "arxiv",
	// the whole library when it is "library"; null when that total is 0.
	SharePct *float64 `json:"share_pct"`
	// AllLast4 is the denominator of SharePct.
	AllLast4 int    `json:"all_last_4_weeks"`
	Weekly   []Week `json:"weekly"` // oldest first, Weeks of them, the last one ending today
	Source   string `json:"source"` // "arxiv" or "library"
}

// weekBounds returns the start of the oldest of the Weeks weeks and the end
// (exclusive) of the newest: the weeks end with today (UTC).
func weekBounds(now time.Time) (start, end time.Time) {
	y, m, d := now.UTC().Date()
	end = time.Date(y, m, d, 0, 0, 0, 0, time.UTC).AddDate(0, 0, 1)
	return end.AddDate(0, 0, -7*Weeks), end
}

// DateRange is an arXiv `submittedDate:[A TO B]` clause covering [from, to)
// to the minute.
func DateRange(from, to time.Time) string {
	const layout = "200601021504"
	return fmt.Sprintf("submittedDate:[%s TO %s]", from.UTC().Format(layout), to.Add(-time.Minute).UTC().Format(layout))
}

// MomentumOnline measures the topic on arXiv itself: its submissions of the
// last Weeks weeks are read in one search sorted by submission date (2000
// per request, so one request for most topics), and all of arXiv's
// submissions of the last 4 weeks are counted with one more request.
func MomentumOnline(ctx context.Context, ax Arxiv, t store.Topic, now time.Time) (*Momentum, error) {
	start, end := weekBounds(now)
	counts := make([]int, Weeks)
	q := "(" + t.Query + ") AND " + DateRange(start, end)
	_, err := ax.Scan(ctx, q, arxiv.BySubmitted, arxiv.MaxPageSize, func(e arxiv.Entry) bool {
		if e.Published.Before(start) {
			return false
		}
		if i := weekIndex(start, e.Published); i >= 0 && i < Weeks {
			counts[i]++
		}
		return true
	})
	if err != nil {
		return nil, fmt.Errorf("momentum of %s: %w", t.Name, err)
	}
	all, err := ax.Count(ctx, DateRange(end.AddDate(0, 0, -28), end))
	if err != nil {
		return nil, fmt.Errorf("momentum of %s: count all new arXiv papers: %w", t.Name, err)
	}
	return newMomentum(t.Name, "arxiv", start, counts, all), nil
}

// Measure measures the topic on arXiv (MomentumOnline) or, when offline
// is set or arXiv cannot be asked, from the library (MomentumOffline; its
// Source says "library"). unreachable is why arXiv was not used (nil when
// it was, or when offline was asked for); err is what stopped both, or the
// context's error when it ended.
func Measure(ctx context.Context, ax Arxiv, lib *store.Library, t store.Topic, now time.Time, offline bool) (m *Momentum, unreachable, err error) {
	if !offline {
		if m, err = MomentumOnline(ctx, ax, t, now); err == nil {
			return m, nil, nil
		}
		if ctx.Err() != nil {
			return nil, nil, ctx.Err()
		}
		unreachable = err
	}
	m, err = MomentumOffline(ctx, lib, t, now)
	return m, unreachable, err
}

// MomentumOffline measures the topic from the library alone: the topic's
// papers held, and the share of all papers the library holds from the same
// 4 weeks. It is only as complete as the last `papers update`.
func MomentumOffline(ctx context.Context, lib *store.Library, t store.Topic, now time.Time) (*Momentum, error) {
	start, end := weekBounds(now)
	until := end.Add(-time.Nanosecond)
	ps, err := lib.List(ctx, store.Filter{Topics: []string{t.Name}, Since: start, Until: until})
	if err != nil {
		return nil, fmt.Errorf("momentum of %s: %w", t.Name, err)
	}
	counts := make([]int, Weeks)
	for _, p := range ps {
		if i := weekIndex(start, p.Published); i >= 0 && i < Weeks {
			counts[i]++
		}
	}
	all, err := lib.List(ctx, store.Filter{Since: end.AddDate(0, 0, -28), Until: until})
	if err != nil {
		return nil, fmt.Errorf("momentum of %s: %w", t.Name, err)
	}
	return newMomentum(t.Name, "library", start, counts, len(all)), nil
}

func weekIndex(start, t time.Time) int {
	if t.Before(start) {
		return -1
	}
	return int(t.Sub(start) / (7 * 24 * time.Hour))
}

func newMomentum(name, source string, start time.Time, counts []int, all int) *Momentum {
	m := &Momentum{Topic: name, Source: source, AllLast4: all}
	for i, n := range counts {
		m.Weekly = append(m.Weekly, Week{Start: start.AddDate(0, 0, 7*i).Format("2006-01-02"), Count: n})
		switch {
		case i >= Weeks-4:
			m.Last4 += n
		case i >= Weeks-8:
			m.Prev4 += n
		}
	}
	if m.Prev4 > 0 {
		m.ChangePct = pct(float64(m.Last4-m.Prev4) / float64(m.Prev4))
	}
	if all > 0 {
		m.SharePct = pct(float64(m.Last4) / float64(all))
	}
	return m
}

// pct turns a ratio into a percentage rounded to 0.01.
func pct(r float64) *float64 {
	v := math.Round(r*100*100) / 100
	return &v
}

// Bars draws the weekly counts as a bar chart of Unicode blocks, one line
// per week: "2026-01-05 ████▍ 9". width is the longest bar in cells.
func Bars(weekly []Week, width int) string {
	if width <= 0 {
		width = 40
	}
	most := 0
	for _, w := range weekly {
		most = max(most, w.Count)
	}
	eighths := []string{"", "▏", "▎", "▍", "▌", "▋", "▊", "▉"}
	var b strings.Builder
	for _, w := range weekly {
		n := 0
		if most > 0 {
			n = int(math.Round(float64(w.Count) * float64(width*8) / float64(most)))
		}
		bar := strings.Repeat("█", n/8) + eighths[n%8]
		if bar == "" && w.Count > 0 {
			bar = "▏"
		}
		fmt.Fprintf(&b, "%s %-*s %d\n", w.Start, width, bar, w.Count)
	}
	return b.String()
}

// MomentumLibrary measures the whole library as MomentumOffline measures a
// topic: its papers of the last Weeks weeks by submission date. SharePct is
// nil (the library is all of itself).
func MomentumLibrary(ctx context.Context, lib *store.Library, now time.Time) (*Momentum, error) {
	start, end := weekBounds(now)
	ps, err := lib.List(ctx, store.Filter{Since: start, Until: end.Add(-time.Nanosecond), Brief: true})
	if err != nil {
		return nil, fmt.Errorf("momentum of the library: %w", err)
	}
	counts := make([]int, Weeks)
	for _, p := range ps {
		if i := weekIndex(start, p.Published); i >= 0 && i < Weeks {
			counts[i]++
		}
	}
	m := newMomentum("", "library", start, counts, 0)
	return m, nil
}

// Sentence words the momentum as a research feed's topic page does:
// "70 papers in the last four weeks, up 141% on the four weeks before.
// 0.7% of all new papers." The share names the library when it was
// counted there, and is left out when unknown.
func (m *Momentum) Sentence() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d %s in the last four weeks", m.Last4, textkit.Plural(m.Last4, "paper", "papers"))
	switch {
	case m.ChangePct == nil && m.Last4 > 0:
		b.WriteString(", none in the four weeks before.")
	case m.ChangePct == nil:
		b.WriteString(".")
	case math.Round(*m.ChangePct) > 0:
		fmt.Fprintf(&b, ", up %.0f%% on the four weeks before.", *m.ChangePct)
	case math.Round(*m.ChangePct) < 0:
		fmt.Fprintf(&b, ", down %.0f%% on the four weeks before.", -*m.ChangePct)
	default:
		b.WriteString(", as many as in the four weeks before.")
	}
	if m.SharePct != nil {
		whole := "all new papers"
		if m.Source == "library" {
			whole = "the library's new papers"
		}
		fmt.Fprintf(&b, " %s%% of %s.", shareText(*m.SharePct), whole)
	}
	return b.String()
}

// shareText prints a share with one decimal, or two when it would read 0.0.
func shareText(p float64) string {
	if p > 0 && p < 0.05 {
		return strconv.FormatFloat(p, 'f', 2, 64)
	}
	return strconv.FormatFloat(p, 'f', 1, 64)
}
