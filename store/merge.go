package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
)

// One paper, one entry: the same paper reaches the library from several
// sources (a local PDF, arXiv, a Zotero item, a corpus record). Ingest
// decides which paper an item is (by the identifiers it shares with one
// held, see FindByIdentifiers) and what the merged paper holds; Put then
// writes that in one transaction, reusing chunks already stored (Item.
// BodyFrom, Item.AbstractFrom, so text is not extracted or embedded twice)
// and folding duplicates into it (Item.Absorb).

// reuses reports whether the item takes chunks the library holds.
func (pr prepared) reuses() bool {
	return pr.item.BodyFrom != "" || pr.item.AbstractFrom != ""
}

// checkReuse refuses an item whose reused chunks would collide with its
// own, or that reuses chunks of a paper it neither is nor absorbs.
func (pr prepared) checkReuse() error {
	it := pr.item
	for _, from := range []string{it.BodyFrom, it.AbstractFrom} {
		if from != "" && from != pr.p.ID && !slices.Contains(it.Absorb, from) {
			return fmt.Errorf("put paper %s: chunks from %s, which it does not absorb", pr.p.ID, from)
		}
	}
	for _, a := range it.Absorb {
		if a == pr.p.ID || a == "" {
			return fmt.Errorf("put paper %s: cannot absorb %q", pr.p.ID, a)
		}
	}
	for _, c := range pr.cs {
		if it.BodyFrom != "" && c.Seq >= 1 || it.AbstractFrom != "" && c.Seq == 0 {
			return fmt.Errorf("put paper %s: chunk %d given and taken from the library", pr.p.ID, c.Seq)
		}
	}
	return nil
}

// reusedChunks returns the chunks the paper will hold once written (the
// item's own and those it reuses, without vectors), in seq order, for its
// fingerprint.
func reusedChunks(ctx context.Context, tx *sql.Tx, pr prepared) ([]Chunk, error) {
	all := slices.Clone(pr.cs)
	read := func(paper, cond string) error {
		rows, err := tx.QueryContext(ctx, "SELECT seq, page_start, page_end, section, role, text FROM chunks WHERE paper_id = ? AND "+cond, paper)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			c := Chunk{PaperID: pr.p.ID}
			if err := rows.Scan(&c.Seq, &c.PageStart, &c.PageEnd, &c.Section, &c.Role, &c.Text); err != nil {
				return err
			}
			all = append(all, c)
		}
		return rows.Err()
	}
	if f := pr.item.BodyFrom; f != "" {
		if err := read(f, "seq >= 1"); err != nil {
			return nil, err
		}
	}
	if f := pr.item.AbstractFrom; f != "" {
		if err := read(f, "seq = 0"); err != nil {
			return nil, err
		}
	}
	slices.SortFunc(all, func(a, b Chunk) int { return a.Seq - b.Seq })
	return all, nil
}

// dropOwnChunks deletes the chunks the paper held that it does not keep.
func dropOwnChunks(ctx context.Context, tx *sql.Tx, pr prepared) error {
	keepBody, keepAbstract := pr.item.BodyFrom == pr.p.ID, pr.item.AbstractFrom == pr.p.ID
	q := "DELETE FROM chunks WHERE paper_id = ?"
	switch {
	case keepBody && keepAbstract:
		return nil
	case keepBody:
		q += " AND seq = 0"
	case keepAbstract:
		q += " AND seq >= 1"
	}
	_, err := tx.ExecContext(ctx, q, pr.p.ID)
	return err
}

// absorb folds paper from into paper into (whose row exists): the chunks
// the item takes from it move, its topic memberships, tags and identifiers
// move, its id becomes an alias of into, and it is deleted.
func (l *Library) absorb(ctx context.Context, tx *sql.Tx, into, from string, it Item) error {
	if it.BodyFrom == from {
		if _, err := tx.ExecContext(ctx, "UPDATE chunks SET paper_id = ? WHERE paper_id = ? AND seq >= 1", into, from); err != nil {
			return err
		}
	}
	if it.AbstractFrom == from {
		if _, err := tx.ExecContext(ctx, "UPDATE chunks SET paper_id = ? WHERE paper_id = ? AND seq = 0", into, from); err != nil {
			return err
		}
	}
	if err := l.moveMemberships(ctx, tx, from, into); err != nil {
		return err
	}
	if err := moveTags(ctx, tx, from, into); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, "UPDATE paper_identifiers SET paper_id = ? WHERE paper_id = ?", into, from); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO paper_identifiers (kind, value, paper_id) VALUES (?, ?, ?)
		ON CONFLICT (kind, value) DO UPDATE SET paper_id = excluded.paper_id`, IDAlias, from, into); err != nil {
		return err
	}
	_, err := tx.ExecContext(ctx, "DELETE FROM papers WHERE id = ?", from) // its other chunks and categories by cascade
	return err
}

// moveMemberships makes the topic memberships of paper from those of into.
// A topic holding both keeps one membership: brought only if both were
// (purge must not delete a paper the user had), stored at the later time.
func (l *Library) moveMemberships(ctx context.Context, tx *sql.Tx, from, into string) error {
	if l.eng == nil { // a library of schema 2, being migrated, may have no topics
		var n int
		if err := tx.QueryRowContext(ctx, "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'topic_papers'").Scan(&n); err != nil || n == 0 {
			return err // no topic was ever made
		}
	}
	// The lesser and greater of two values as CASEs: SQLite's min and max
	// of two arguments are PostgreSQL's least and greatest.
	if _, err := tx.ExecContext(ctx, `UPDATE topic_papers AS t SET
			brought = (SELECT CASE WHEN o.brought < t.brought THEN o.brought ELSE t.brought END
				FROM topic_papers o WHERE o.topic = t.topic AND o.paper_id = ?),
			stored_at = (SELECT CASE WHEN coalesce(o.stored_at, 0) > coalesce(t.stored_at, 0) THEN coalesce(o.stored_at, 0) ELSE coalesce(t.stored_at, 0) END
				FROM topic_papers o WHERE o.topic = t.topic AND o.paper_id = ?),
			added_at = (SELECT CASE WHEN o.added_at < t.added_at THEN o.added_at ELSE t.added_at END
				FROM topic_papers o WHERE o.topic = t.topic AND o.paper_id = ?)
		WHERE t.paper_id = ? AND EXISTS (SELECT 1 FROM topic_papers o WHERE o.topic = t.topic AND o.paper_id = ?)`,
		from, from, from, into, from); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, "UPDATE topic_papers SET stored_at = NULL WHERE paper_id = ? AND stored_at = 0", into); err != nil {
		return err
	}
	// The memberships of topics into is not in yet move; the others go below.
	if _, err := tx.ExecContext(ctx, `UPDATE topic_papers SET paper_id = ? WHERE paper_id = ?
		AND topic NOT IN (SELECT o.topic FROM topic_papers o WHERE o.paper_id = ?)`, into, from, into); err != nil {
		return err
	}
	_, err := tx.ExecContext(ctx, "DELETE FROM topic_papers WHERE paper_id = ?", from)
	return err
}

// ErrIdentifierTaken is returned by Put when an identifier of the paper
// (an arXiv id, DOI or file hash) belongs to another paper of the library
// that the item does not absorb: storing it would make a duplicate.
var ErrIdentifierTaken = errors.New("identifier held by another paper")
