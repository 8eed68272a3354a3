package resolve

import (
	"context"
	"strconv"
	"strings"
	"time"

	"github.com/papers-cli/papers/store"
)

// Filter is a selection of papers as a user names it: papers by any
// spelling of their ids, topics by name, tags, arXiv categories, author
// name parts, dates (see Date and Period) and the saved papers. The kinds
// are ANDed, the values of one kind ORed (store.Filter).
type Filter struct {
	Papers     []string
	Topics     []string
	Tags       []string
	Saved      bool // only the papers the user saved
	Categories []string
	Authors    []string
	Since      string // on or after: YYYY-MM-DD, YYYY-MM, YYYY, RFC 3339, or 7d, 4w, 3m, 1y back
	Until      string // on or before, the whole period named: --until 2023 keeps all of 2023
}

// Check validates what needs no library (dates, categories) and returns
// the store filter so far; mistakes are *InvalidError.
func (f Filter) Check(now time.Time) (store.Filter, error) {
	sf := store.Filter{Categories: f.Categories, Authors: f.Authors, Tags: f.Tags, Saved: f.Saved}
	for _, t := range f.Tags {
		if strings.TrimSpace(t) == "" {
			return sf, invalid("--tag is empty: give a tag's name (papers show ID lists a paper's tags)")
		}
	}
	var err error
	if sf.Since, err = Date(f.Since, now); err != nil {
		return sf, err
	}
	if _, sf.Until, err = Period(f.Until, now); err != nil {
		return sf, err
	}
	if !sf.Since.IsZero() && !sf.Until.IsZero() && sf.Since.After(sf.Until) {
		return sf, invalid("--since %s is after --until %s: nothing can match", f.Since, f.Until)
	}
	for _, c := range f.Categories {
		if strings.ContainsAny(c, ", ") {
			return sf, invalid("--category %q: give one category per flag (--category cs.LG --category cs.CL)", c)
		}
	}
	return sf, nil
}

// Resolve returns the store filter f names. Papers and topics are looked
// up in lib: one it does not hold is an error naming it, not an empty
// result.
func (f Filter) Resolve(ctx context.Context, lib Library, now time.Time) (store.Filter, error) {
	sf, err := f.Check(now)
	if err != nil {
		return sf, err
	}
	if sf.IDs, err = Papers(ctx, lib, f.Papers); err != nil {
		return sf, err
	}
	for _, n := range f.Topics {
		tp, err := Topic(ctx, lib, n)
		if err != nil {
			return sf, err
		}
		sf.Topics = append(sf.Topics, tp.Name)
	}
	return sf, nil
}

// Date reads an absolute date (YYYY-MM-DD, YYYY-MM, YYYY, RFC 3339) or a
// span back from now (7d, 4w, 3m, 1y); "" is the zero time.
func Date(s string, now time.Time) (time.Time, error) {
	t, _, err := Period(s, now)
	return t, err
}

// Period is Date that also returns the last instant of the period s
// names: the end of the day, month or year for YYYY-MM-DD, YYYY-MM and
// YYYY ("--until 2023" includes all of 2023), the instant itself otherwise.
func Period(s string, now time.Time) (start, end time.Time, err error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return time.Time{}, time.Time{}, nil
	}
	for _, p := range []struct {
		layout      string
		years, mons int
		days        int
	}{{"2006-01-02", 0, 0, 1}, {"2006-01", 0, 1, 0}, {"2006", 1, 0, 0}} {
		if t, err := time.Parse(p.layout, s); err == nil {
			return t, t.AddDate(p.years, p.mons, p.days).Add(-time.Nanosecond), nil
		}
	}
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t, t, nil
	}
	t, err := span(s, now)
	return t, t, err
}

// span reads a span back from now: 7d, 4w, 3m, 1y.
func span(s string, now time.Time) (time.Time, error) {
	if len(s) >= 2 {
		n, err := strconv.Atoi(s[:len(s)-1])
		if err == nil && n >= 0 {
			switch s[len(s)-1] {
			case 'd':
				return now.AddDate(0, 0, -n), nil
			case 'w':
				return now.AddDate(0, 0, -7*n), nil
			case 'm':
				return now.AddDate(0, -n, 0), nil
			case 'y':
				return now.AddDate(-n, 0, 0), nil
			}
		}
	}
	return time.Time{}, invalid("invalid date %q: use YYYY-MM-DD, YYYY-MM, YYYY or a span back from today like 7d, 4w, 3m, 1y", s)
}
