package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/papers-cli/papers/internal/safetext"
)

// Tags live in paper_tags (schema 3), one row per (paper, source, tag).
// They are not in the papers row, so they outlive Put's rewrite of it and
// may one day be changed on their own (user tags). The table has no foreign
// key to papers, like topic_papers; deletePaper removes a paper's tags.
//
// Put replaces a paper's tags of every source but TagUser with Paper.Tags
// (user tags given in Paper.Tags are added, none removed); Get and List
// return them, sorted by source then name.

// loadTags fills the Tags of ps from paper_tags.
func loadTags(ctx context.Context, q querier, ps []Paper) error {
	if len(ps) == 0 {
		return nil
	}
	var n int
	if err := q.QueryRowContext(ctx, "SELECT CASE WHEN EXISTS (SELECT 1 FROM paper_tags) THEN 1 ELSE 0 END").Scan(&n); err != nil || n == 0 {
		return wrapBusy(err) // the common case: no tags at all, one cheap query
	}
	at := make(map[string][]int, len(ps))
	for i, p := range ps {
		at[p.ID] = append(at[p.ID], i)
	}
	ids := make([]string, 0, len(at))
	for id := range at {
		ids = append(ids, id)
	}
	const batch = 500
	for len(ids) > 0 {
		part := ids[:min(batch, len(ids))]
		ids = ids[len(part):]
		args := make([]any, len(part))
		for i, id := range part {
			args[i] = id
		}
		rows, err := q.QueryContext(ctx, "SELECT paper_id, tag, source FROM paper_tags WHERE paper_id IN ("+placeholders(len(part))+") ORDER BY paper_id, source, tag", args...)
		if err != nil {
			return wrapBusy(err)
		}
		for rows.Next() {
			var id string
			var t Tag
			if err := rows.Scan(&id, &t.Name, &t.Source); err != nil {
				rows.Close()
				return err
			}
			for _, i := range at[id] {
				ps[i].Tags = append(ps[i].Tags, t)
			}
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
	}
	return nil
}

// putTags replaces the paper's tags of sources other than TagUser by
// p.Tags, and adds the user tags p.Tags holds.
func putTags(ctx context.Context, tx *sql.Tx, p Paper) error {
	if _, err := tx.ExecContext(ctx, "DELETE FROM paper_tags WHERE paper_id = ? AND source != ?", p.ID, TagUser); err != nil {
		return err
	}
	for _, t := range p.Tags {
		if _, err := tx.ExecContext(ctx, "INSERT INTO paper_tags (paper_id, tag, source) VALUES (?, ?, ?) ON CONFLICT DO NOTHING", p.ID, t.Name, t.Source); err != nil {
			return err
		}
	}
	return nil
}

// moveTags gives paper into the tags and the save of paper from (merging
// duplicates: the earlier save wins).
func moveTags(ctx context.Context, tx *sql.Tx, from, into string) error {
	if _, err := tx.ExecContext(ctx, "INSERT INTO paper_tags (paper_id, tag, source) SELECT ?, tag, source FROM paper_tags WHERE paper_id = ? ON CONFLICT DO NOTHING", into, from); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO saved_papers (paper_id, saved_at) SELECT ?, saved_at FROM saved_papers WHERE paper_id = ?
		ON CONFLICT (paper_id) DO UPDATE SET saved_at = CASE WHEN excluded.saved_at < saved_papers.saved_at THEN excluded.saved_at ELSE saved_papers.saved_at END`, into, from); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, "DELETE FROM saved_papers WHERE paper_id = ?", from); err != nil {
		return err
	}
	_, err := tx.ExecContext(ctx, "DELETE FROM paper_tags WHERE paper_id = ?", from)
	return err
}

// cleanTags trims and cleans tag names, drops empty ones and repeats
// (case-insensitive within a source) and sorts them by source and name.
func cleanTags(ts []Tag) []Tag {
	if len(ts) == 0 {
		return nil
	}
	out := make([]Tag, 0, len(ts))
	seen := map[Tag]bool{}
	for _, t := range ts {
		t.Name = strings.Join(strings.Fields(safetext.Clean(t.Name)), " ")
		t.Source = strings.TrimSpace(t.Source)
		k := Tag{Name: strings.ToLower(t.Name), Source: t.Source}
		if t.Name == "" || t.Source == "" || seen[k] {
			continue
		}
		seen[k] = true
		out = append(out, t)
	}
	slices.SortFunc(out, compareTags)
	return out
}

func compareTags(a, b Tag) int {
	if c := strings.Compare(a.Source, b.Source); c != 0 {
		return c
	}
	return strings.Compare(a.Name, b.Name)
}

// sourcedTags returns the tags of ts that Put owns (all but user tags).
func sourcedTags(ts []Tag) []Tag {
	var out []Tag
	for _, t := range ts {
		if t.Source != TagUser {
			out = append(out, t)
		}
	}
	return out
}

// ErrEmptyTag is the error of AddTags and RemoveTags for a tag name that is
// empty once cleaned (spaces, control characters).
var ErrEmptyTag = errors.New("empty tag name")

// AddTags gives paper id the user tags names (TagUser), in one
// transaction. Names are cleaned as Put cleans tags; a name the paper has
// as a user tag already (in any case) is left as it is. It returns the
// names newly added. A paper not in the library is an error wrapping
// ErrNotFound; an empty name, ErrEmptyTag (nothing is written).
func (l *Library) AddTags(ctx context.Context, id string, names []string) ([]string, error) {
	ts, err := userTags(names)
	if err != nil {
		return nil, fmt.Errorf("tag paper %s: %w", id, err)
	}
	var added []string
	err = l.write(ctx, func(tx *sql.Tx) error {
		added = nil
		if err := paperExists(ctx, tx, id); err != nil {
			return err
		}
		for _, t := range ts {
			res, err := tx.ExecContext(ctx, "INSERT INTO paper_tags (paper_id, tag, source) VALUES (?, ?, ?) ON CONFLICT DO NOTHING", id, t.Name, TagUser)
			if err != nil {
				return err
			}
			if n, _ := res.RowsAffected(); n > 0 {
				added = append(added, t.Name)
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("tag paper %s: %w", id, err)
	}
	return added, nil
}

// RemoveTags takes the user tags names (case-insensitive) off paper id and
// returns those it had. Tags of other sources are not the user's to remove
// (the next ingest would bring them back): they stay, and are not counted.
// Errors as for AddTags.
func (l *Library) RemoveTags(ctx context.Context, id string, names []string) ([]string, error) {
	ts, err := userTags(names)
	if err != nil {
		return nil, fmt.Errorf("untag paper %s: %w", id, err)
	}
	var removed []string
	err = l.write(ctx, func(tx *sql.Tx) error {
		removed = nil
		if err := paperExists(ctx, tx, id); err != nil {
			return err
		}
		for _, t := range ts {
			var name string
			err := tx.QueryRowContext(ctx, "DELETE FROM paper_tags WHERE paper_id = ? AND source = ? AND tag = ? RETURNING tag", id, TagUser, t.Name).Scan(&name)
			if errors.Is(err, sql.ErrNoRows) {
				continue
			}
			if err != nil {
				return err
			}
			removed = append(removed, name)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("untag paper %s: %w", id, err)
	}
	return removed, nil
}

// userTags cleans names into user tags; an empty one is ErrEmptyTag.
func userTags(names []string) ([]Tag, error) {
	ts := make([]Tag, 0, len(names))
	for _, n := range names {
		if strings.Join(strings.Fields(safetext.Clean(n)), " ") == "" {
			return nil, fmt.Errorf("%w %q: give a word or phrase", ErrEmptyTag, n)
		}
		ts = append(ts, Tag{Name: n, Source: TagUser})
	}
	return cleanTags(ts), nil
}
