package store

import (
	"context"
	"strings"
)

// What shell completion reads: a few rows by prefix, through the primary
// key and the tags' index, so that it costs the same at any library size.

// PaperIDs returns up to limit papers whose id starts with prefix, in id
// order, each as its id and title.
func (l *Library) PaperIDs(ctx context.Context, prefix string, limit int) ([][2]string, error) {
	rows, err := l.db.QueryContext(ctx, "SELECT id, title FROM papers WHERE id >= ? AND id < ? ORDER BY id LIMIT ?", prefix, prefixEnd(prefix), limit)
	if err != nil {
		return nil, wrapBusy(err)
	}
	defer rows.Close()
	var out [][2]string
	for rows.Next() {
		var id, title string
		if err := rows.Scan(&id, &title); err != nil {
			return nil, err
		}
		out = append(out, [2]string{id, title})
	}
	return out, rows.Err()
}

// TagNames returns the distinct tags (of every source) that start with
// prefix, ignoring case, in order, at most limit.
func (l *Library) TagNames(ctx context.Context, prefix string, limit int) ([]string, error) {
	return queryStrings(ctx, l.db, "SELECT DISTINCT tag FROM paper_tags WHERE tag LIKE ? ESCAPE '\\' ORDER BY tag LIMIT ?", likePrefix(prefix), limit)
}

// prefixEnd is the least string greater than every string starting with
// prefix ("" stands for no bound above, for an empty prefix).
func prefixEnd(prefix string) string {
	if prefix == "" {
		return "\U0010FFFF"
	}
	b := []byte(prefix)
	for i := len(b) - 1; i >= 0; i-- {
		if b[i] < 0xff {
			b[i]++
			return string(b[:i+1])
		}
	}
	return "\U0010FFFF"
}

// likePrefix is a LIKE pattern matching strings that start with prefix.
func likePrefix(prefix string) string {
	return strings.NewReplacer(`\`, `\\`, "%", `\%`, "_", `\_`).Replace(prefix) + "%"
}
