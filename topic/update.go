package topic

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/papers-cli/papers/ingest"
	"github.com/papers-cli/papers/ingest/arxiv"
	"github.com/papers-cli/papers/store"
)

// Arxiv is what topics need of the arXiv client (*arxiv.Client).
type Arxiv interface {
	// Scan reads a search newest first by sortBy until fn returns false.
	Scan(ctx context.Context, query, sortBy string, pageSize int, fn func(arxiv.Entry) bool) (int, error)
	// Count returns the total results of a query.
	Count(ctx context.Context, query string) (int, error)
}

var _ Arxiv = (*arxiv.Client)(nil)

// Defaults of UpdateOptions.
const (
	DefaultWindow = 12 * 7 * 24 * time.Hour // the first update reads back 12 weeks, what momentum charts
	DefaultMax    = 1000
	// Lag is how far behind the cursor every update reads again: arXiv
	// announces a paper up to a few days after its submission (and
	// cross-lists later still), so a paper can appear with a stamp older
	// than the newest one the last run saw. A week is a safe margin; held
	// papers in it cost one page of the listing, no download.
	Lag = 7 * 24 * time.Hour
)

// UpdateOptions tune Update. The zero value is usable.
type UpdateOptions struct {
	// Now is the time of the run (default time.Now()).
	Now time.Time
	// Window bounds how far back (by arXiv's "updated" stamp) any update
	// reads: the first update of a topic ingests this window. Default
	// DefaultWindow.
	Window time.Duration
	// Max bounds the entries one run has to ingest, i.e. not held at their
	// version (default DefaultMax); the rest come with the next run, as the
	// cursor does not move past them.
	Max int
	// PageSize is how many entries one API request asks for (default: the
	// client's page size).
	PageSize int
}

// UpdateResult says what one topic's update did.
type UpdateResult struct {
	Topic   string         `json:"topic"`
	Fetched int            `json:"fetched"` // entries read from arXiv and handed to ingest
	Report  *ingest.Report `json:"report"`
	// Gap, when not nil, is a span the run did not read: the window did
	// not reach back to the cursor (the machine was off for longer than
	// the window), so papers stamped in it were not fetched and the cursor
	// stays where it was until a run with a longer window covers it.
	Gap *Gap `json:"gap,omitempty"`
	// Truncated is true when Max stopped the run before it reached Lag
	// behind the cursor (or the window's start).
	Truncated bool `json:"truncated"`
}

// Gap is a span of arXiv "updated" stamps an update did not read.
type Gap struct {
	From time.Time `json:"from"` // the cursor: where the last complete run reached
	To   time.Time `json:"to"`   // the window's start: where this run stopped
}

// Update fetches what is new or revised in the topic since its last update
// and ingests it with in (whose Arxiv must be the same client as ax, so
// pacing holds across both).
//
// It reads the topic's query sorted by last-updated date, newest first,
// back to Lag before the topic's cursor (the newest entry of the last
// complete run), or to the window's start, or until Max entries need
// ingesting, whichever comes first. Entries held in the library at the same
// or a newer version and not newer than the cursor are not ingested again
// (they only join the topic); the others are ingested newest first. Every
// paper stored (added, updated, unchanged, or kept with its abstract only)
// joins the topic, even when the run is interrupted; those the library did
// not hold before join as brought by the topic (topic rm --purge deletes
// only those). The run time is recorded when the run ends without error;
// the cursor moves only when every paper seen was stored (PDF failures
// that kept the abstract are reported but do not hold it back), so an
// interrupted or partly failed run is simply run again. A run whose window does not reach back to the cursor
// leaves it too, and says so in UpdateResult.Gap: what lies between was not
// read.
func Update(ctx context.Context, lib *store.Library, ax Arxiv, in *ingest.Ingester, t store.Topic, o UpdateOptions) (*UpdateResult, error) {
	now := o.Now
	if now.IsZero() {
		now = time.Now()
	}
	window := o.Window
	if window <= 0 {
		window = DefaultWindow
	}
	max := o.Max
	if max <= 0 {
		max = DefaultMax
	}
	floor := now.Add(-window)
	res := &UpdateResult{Topic: t.Name}
	if !t.Cursor.IsZero() {
		if floor.After(t.Cursor) {
			res.Gap = &Gap{From: t.Cursor, To: floor}
		} else if t.Cursor.Add(-Lag).After(floor) {
			floor = t.Cursor.Add(-Lag)
		}
	}

	var entries []arxiv.Entry
	absent := map[string]bool{} // not in the library when the scan read them: the run brings them
	var seen []string           // held at their version, not newer than the cursor: they only join the topic
	var newest time.Time
	var getErr error
	work := 0 // entries not held at their version: what Max bounds
	_, err := ax.Scan(ctx, t.Query, arxiv.ByLastUpdated, o.PageSize, func(e arxiv.Entry) bool {
		upd := stamp(e)
		if upd.Before(floor) {
			return false
		}
		p, err := lib.Get(ctx, e.ID)
		if err != nil && !errors.Is(err, store.ErrNotFound) {
			getErr = err
			return false
		}
		absent[e.ID] = err != nil
		held := err == nil && p.Version >= e.Version
		if held && !t.Cursor.IsZero() && !upd.After(t.Cursor) {
			// What the last complete run saw and holds: read on past it to
			// the lag margin, for papers announced late.
			seen = append(seen, e.ID)
			return true
		}
		if !held {
			if work == max {
				res.Truncated = true
				return false
			}
			work++
		}
		entries = append(entries, e)
		if upd.After(newest) {
			newest = upd
		}
		return true
	})
	if err == nil {
		err = getErr
	}
	if err != nil {
		return res, fmt.Errorf("update topic %s: %w", t.Name, err)
	}
	res.Fetched = len(entries)

	// Each paper joins the topic in the transaction that stores it: a
	// killed run leaves no paper it brought outside the topic.
	tin := *in
	tin.Topic = &store.Membership{Topic: t.Name, MarkStored: !t.Cursor.IsZero()}
	rep, ingErr := tin.ArxivEntries(ctx, entries)
	res.Report = rep
	if rep != nil {
		// The papers the run did not store (held, unchanged) join too, even
		// when the run was interrupted: what is held belongs to the topic.
		// The write must not see the cancellation.
		ids := append(append(append(append([]string{}, rep.Added...), rep.Updated...), rep.Unchanged...), seen...)
		for _, f := range rep.Failed {
			if f.AbstractKept {
				ids = append(ids, f.Item)
			}
		}
		m := store.TopicMembers{IDs: ids}
		if !t.Cursor.IsZero() {
			// What a later run stores is new to the topic now, whatever
			// its submission date (announced late, revised); a first
			// update's backfill counts by submission date.
			m.Stored = append(append([]string{}, rep.Added...), rep.Updated...)
		}
		for _, id := range ids {
			if absent[id] {
				m.Brought = append(m.Brought, id)
			}
		}
		if err := lib.AddTopicMembers(context.WithoutCancel(ctx), t.Name, m); err != nil {
			return res, err
		}
	}
	if ingErr != nil {
		return res, fmt.Errorf("update topic %s: %w", t.Name, ingErr)
	}
	// The cursor moves past what this run saw unless a paper is missing
	// altogether or the run left a gap behind it; a PDF that failed (its abstract kept, the failure reported)
	// does not hold every later run back.
	cursor := time.Time{} // keep the old one
	lost := false
	for _, f := range rep.Failed {
		lost = lost || !f.AbstractKept
	}
	if !lost && !res.Truncated && res.Gap == nil && !newest.IsZero() {
		cursor = newest
	}
	if err := lib.MarkTopicUpdated(ctx, t.Name, now, cursor); err != nil {
		return res, err
	}
	return res, nil
}

// stamp is when an entry last changed on arXiv.
func stamp(e arxiv.Entry) time.Time {
	if !e.Updated.IsZero() {
		return e.Updated
	}
	return e.Published
}
