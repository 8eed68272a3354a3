package store

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"github.com/papers-cli/papers/role"
)

// Table is one table of the library's record as it moves between stores
// (papers library copy): its name and columns, which are the same in the
// SQLite library and in a library in PostgreSQL (package pgstore), with
// the same encodings (times in Unix nanoseconds, lists and maps as JSON
// text), but for the chunks' vector, which moves as a []float32.
type Table struct {
	Name    string
	Columns []string
}

// Tables are the record's tables, each after those its rows refer to.
// Derived data does not move: the search index, the change log, the
// manifest's schema version, library id and generation counters. Every
// column of every table does, so that a copy is the library and not an
// approximation of it (topic memberships keep when and how they came, a
// saved mark when it was set, identifiers their stamps).
var Tables = []Table{
	{"manifest", []string{"key", "value"}},
	{"papers", strings.Fields(strings.ReplaceAll(paperColumns+", fingerprint", ",", " "))},
	{"paper_categories", []string{"paper_id", "category"}},
	{"paper_tags", []string{"paper_id", "tag", "source"}},
	{"paper_identifiers", []string{"kind", "value", "paper_id", "stamp"}},
	{"saved_papers", []string{"paper_id", "saved_at"}},
	{"topics", []string{"name", "query", "description", "created", "last_update", "cursor"}},
	{"topic_papers", []string{"topic", "paper_id", "added_at", "brought", "stored_at"}},
	{"chunks", []string{"paper_id", "seq", "page_start", "page_end", "section", "role", "text", "page_breaks", "vector"}},
}

// PortableManifest are the manifest's keys that move with a library: the
// others describe one SQLite file.
var PortableManifest = []string{keyEmbedder, keyDimensions, keyChunker, keyCreated}

// Dump calls fn with every row of every table of Tables, in that order,
// from one consistent snapshot, streaming. Values are int64, string or nil
// (NULL), and a chunk's vector is a []float32 (nil when it has none). fn
// must not write to the library.
func (l *Library) Dump(ctx context.Context, fn func(t Table, row []any) error) error {
	return l.read(ctx, func(tx *sql.Tx) error {
		for _, t := range Tables {
			q := "SELECT " + strings.Join(t.Columns, ", ") + " FROM " + t.Name
			switch t.Name {
			case "manifest":
				q += " WHERE key IN ('" + strings.Join(PortableManifest, "', '") + "')"
			case "chunks":
				q += " ORDER BY paper_id, seq"
			}
			if err := l.dumpTable(ctx, tx, t, q, fn); err != nil {
				return fmt.Errorf("read table %s: %w", t.Name, err)
			}
		}
		return nil
	})
}

func (l *Library) dumpTable(ctx context.Context, tx *sql.Tx, t Table, q string, fn func(Table, []any) error) error {
	rows, err := tx.QueryContext(ctx, q)
	if err != nil {
		return err
	}
	defer rows.Close()
	vals := make([]any, len(t.Columns))
	ptrs := make([]any, len(vals))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return err
		}
		row := make([]any, len(vals))
		for i, v := range vals {
			if t.Name == "chunks" && t.Columns[i] == "vector" {
				var b []byte
				switch v := v.(type) {
				case []byte:
					b = v
				case string:
					b = []byte(v)
				}
				vec, err := l.decodeVec(b)
				if err != nil {
					return err
				}
				row[i] = vec
				continue
			}
			switch v := v.(type) {
			case []byte:
				row[i] = string(v)
			default:
				row[i] = v
			}
		}
		if err := fn(t, row); err != nil {
			return err
		}
	}
	return rows.Err()
}

// Load inserts rows (of Dump's form) into table t of a library that is
// being filled by a copy, in one transaction. The search index takes the
// papers in from the change log as after any write; a server's engine
// derives the chunks' terms from their papers' titles, so papers must be
// loaded before their chunks.
func (l *Library) Load(ctx context.Context, t Table, rows [][]any) error {
	if len(rows) == 0 {
		return nil
	}
	return l.write(ctx, func(tx *sql.Tx) error {
		var err error
		switch t.Name {
		case "chunks":
			err = l.loadChunks(ctx, tx, rows)
		case "manifest":
			for _, r := range rows {
				if err = setManifest(ctx, tx, r[0].(string), r[1].(string)); err != nil {
					break
				}
			}
		default:
			err = l.insertRows(ctx, tx, "INSERT INTO "+t.Name+" ("+strings.Join(t.Columns, ", ")+") VALUES ", rows)
		}
		if err != nil {
			return fmt.Errorf("write table %s: %w", t.Name, err)
		}
		return nil
	})
}

// loadChunks inserts rows of the chunks table, with their papers' titles.
func (l *Library) loadChunks(ctx context.Context, tx *sql.Tx, rows [][]any) error {
	var cs []Chunk
	flush := func() error {
		if len(cs) == 0 {
			return nil
		}
		var title string
		if err := tx.QueryRowContext(ctx, "SELECT title FROM papers WHERE id = ?", cs[0].PaperID).Scan(&title); err != nil {
			return fmt.Errorf("paper %s of chunk %d: %w", cs[0].PaperID, cs[0].Seq, err)
		}
		err := l.insertChunks(ctx, tx, title, cs)
		cs = cs[:0]
		return err
	}
	for _, r := range rows {
		c := Chunk{PaperID: r[0].(string), Seq: int(r[1].(int64)), PageStart: int(r[2].(int64)), PageEnd: int(r[3].(int64)),
			Section: r[4].(string), Role: role.Role(r[5].(string)), Text: r[6].(string), PageBreaks: decodeBreaks(r[7].(string))}
		c.Vector, _ = r[8].([]float32) // as it was stored: normalised
		if len(cs) > 0 && cs[0].PaperID != c.PaperID {
			if err := flush(); err != nil {
				return err
			}
		}
		cs = append(cs, c)
	}
	return flush()
}

// insertRows runs insert ("INSERT INTO t (columns) VALUES ") with rows:
// one statement a row on SQLite, where a statement is a function call, a
// few for all of them on a server, where it is a round trip.
func (l *Library) insertRows(ctx context.Context, tx *sql.Tx, insert string, rows [][]any) error {
	if len(rows) == 0 {
		return nil
	}
	row := "(" + placeholders(len(rows[0])) + ")"
	if l.eng == nil {
		st, err := tx.PrepareContext(ctx, insert+row)
		if err != nil {
			return err
		}
		defer st.Close()
		for _, r := range rows {
			if _, err := st.ExecContext(ctx, r...); err != nil {
				return err
			}
		}
		return nil
	}
	per := max(1, 30000/len(rows[0])) // the wire protocol carries at most 65,535 parameters
	for lo := 0; lo < len(rows); lo += per {
		part := rows[lo:min(lo+per, len(rows))]
		args := make([]any, 0, len(part)*len(rows[0]))
		for _, r := range part {
			args = append(args, r...)
		}
		if _, err := tx.ExecContext(ctx, insert+strings.TrimSuffix(strings.Repeat(row+", ", len(part)), ", "), args...); err != nil {
			return err
		}
	}
	return nil
}

// Counts returns how many rows each table of Tables holds, and under
// "vectors" how many chunks have a vector: what a copy checks.
func (l *Library) Counts(ctx context.Context) (map[string]int64, error) {
	out := map[string]int64{}
	err := l.read(ctx, func(tx *sql.Tx) error {
		for _, t := range Tables {
			q := "SELECT count(*) FROM " + t.Name
			if t.Name == "manifest" {
				q += " WHERE key IN ('" + strings.Join(PortableManifest, "', '") + "')"
			}
			var n int64
			if err := tx.QueryRowContext(ctx, q).Scan(&n); err != nil {
				return fmt.Errorf("count table %s: %w", t.Name, err)
			}
			out[t.Name] = n
		}
		var n int64
		if err := tx.QueryRowContext(ctx, "SELECT count(*) FROM chunks WHERE vector IS NOT NULL").Scan(&n); err != nil {
			return err
		}
		out["vectors"] = n
		return nil
	})
	return out, err
}
