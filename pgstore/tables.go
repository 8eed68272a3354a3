package pgstore

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/papers-cli/papers/store"
)

// column returns the name table t's column has here: the chunks' vector is
// embedding (a pgvector value, not a blob).
func column(t store.Table, c string) string {
	if t.Name == "chunks" && c == "vector" {
		return "embedding::text"
	}
	return c
}

// Dump calls fn with every row of every table of store.Tables, in that
// order, from one consistent snapshot (a repeatable-read transaction), as
// store.Library.Dump does: values int64, string or nil, a chunk's vector
// a []float32.
func (s *Store) Dump(ctx context.Context, fn func(t store.Table, row []any) error) error {
	return pgx.BeginTxFunc(ctx, s.pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
		for _, t := range store.Tables {
			cols := make([]string, len(t.Columns))
			for i, c := range t.Columns {
				cols[i] = column(t, c)
			}
			q := "SELECT " + strings.Join(cols, ", ") + " FROM {s}." + t.Name
			switch t.Name {
			case "manifest":
				q += " WHERE key IN ('" + strings.Join(store.PortableManifest, "', '") + "')"
			case "chunks":
				q += " ORDER BY paper_id, seq"
			}
			rows, err := tx.Query(ctx, s.sql(q))
			if err != nil {
				return fmt.Errorf("read table %s: %w", t.Name, err)
			}
			for rows.Next() {
				vals, err := rows.Values()
				if err != nil {
					rows.Close()
					return fmt.Errorf("read table %s: %w", t.Name, err)
				}
				row := make([]any, len(vals))
				for i, v := range vals {
					switch v := v.(type) {
					case int32:
						row[i] = int64(v)
					case int64, string, nil:
						row[i] = v
					default:
						row[i] = fmt.Sprint(v)
					}
					if t.Name == "chunks" && t.Columns[i] == "vector" {
						var vec []float32
						if v != nil {
							if vec, err = parseVector(v.(string)); err != nil {
								rows.Close()
								return fmt.Errorf("read table %s: %w", t.Name, err)
							}
						}
						row[i] = vec
					}
				}
				if err := fn(t, row); err != nil {
					rows.Close()
					return err
				}
			}
			if err := rows.Err(); err != nil {
				return fmt.Errorf("read table %s: %w", t.Name, err)
			}
		}
		return nil
	})
}

// Load inserts rows (of Dump's form) into table t of a library being filled
// by a copy, in one transaction. The manifest's dimensions set the vector
// column's type (and its index, unless DeferVectorIndex dropped it); a
// chunk's terms are computed here from its text and its paper's title, so
// papers must be loaded before their chunks.
func (s *Store) Load(ctx context.Context, t store.Table, rows [][]any) error {
	if len(rows) == 0 {
		return nil
	}
	return s.tx(ctx, func(tx pgx.Tx) error {
		switch t.Name {
		case "manifest":
			for _, r := range rows {
				key, value := r[0].(string), r[1].(string)
				if key == "dimensions" {
					dims, err := strconv.Atoi(value)
					if err != nil {
						return fmt.Errorf("the manifest's dimensions %q: %w", value, err)
					}
					if err := setVectorType(ctx, tx, s, dims); err != nil {
						return err
					}
				}
				if err := setManifest(ctx, tx, s, key, value); err != nil {
					return err
				}
			}
			return nil
		case "chunks":
			return s.loadChunks(ctx, tx, rows)
		}
		// The wire protocol carries at most 65,535 parameters a statement.
		per := max(1, 60000/len(t.Columns))
		for lo := 0; lo < len(rows); lo += per {
			if err := s.insertRows(ctx, tx, t, rows[lo:min(lo+per, len(rows))]); err != nil {
				return fmt.Errorf("write table %s: %w", t.Name, err)
			}
		}
		return nil
	})
}

// insertRows inserts rows into table t in one statement.
func (s *Store) insertRows(ctx context.Context, tx pgx.Tx, t store.Table, rows [][]any) error {
	args := make([]any, 0, len(rows)*len(t.Columns))
	var b strings.Builder
	b.WriteString("INSERT INTO {s}." + t.Name + " (" + strings.Join(t.Columns, ", ") + ") VALUES ")
	for i, r := range rows {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteByte('(')
		for j, v := range r {
			if j > 0 {
				b.WriteString(", ")
			}
			args = append(args, v)
			b.WriteString("$" + strconv.Itoa(len(args)))
		}
		b.WriteByte(')')
	}
	_, err := tx.Exec(ctx, s.sql(b.String()), args...)
	return err
}

// loadChunks inserts chunk rows (paper_id, seq, page_start, page_end,
// section, text, vector) with their terms, as Put does.
func (s *Store) loadChunks(ctx context.Context, tx pgx.Tx, rows [][]any) error {
	ids := make([]string, 0, len(rows))
	for _, r := range rows {
		ids = append(ids, r[0].(string))
	}
	titles := map[string]string{}
	trows, err := tx.Query(ctx, s.sql("SELECT id, title FROM {s}.papers WHERE id = ANY($1::text[])"), ids)
	if err != nil {
		return err
	}
	var id, title string
	if _, err := pgx.ForEachRow(trows, []any{&id, &title}, func() error { titles[id] = title; return nil }); err != nil {
		return err
	}
	var chunks chunkRows
	for _, r := range rows {
		v, _ := r[6].([]float32)
		chunks.add(titles[r[0].(string)], store.Chunk{PaperID: r[0].(string), Seq: int(r[1].(int64)), PageStart: int(r[2].(int64)),
			PageEnd: int(r[3].(int64)), Section: r[4].(string), Text: r[5].(string), Vector: v})
	}
	return chunks.insert(ctx, tx, s)
}

// Counts returns how many rows each table of store.Tables holds, and under
// "vectors" how many chunks have a vector, as store.Library.Counts does.
func (s *Store) Counts(ctx context.Context) (map[string]int64, error) {
	var parts []string
	for _, t := range store.Tables {
		q := "(SELECT count(*) FROM {s}." + t.Name
		if t.Name == "manifest" {
			q += " WHERE key IN ('" + strings.Join(store.PortableManifest, "', '") + "')"
		}
		parts = append(parts, q+")")
	}
	parts = append(parts, "(SELECT count(*) FROM {s}.chunks WHERE embedding IS NOT NULL)")
	vals := make([]int64, len(parts))
	ptrs := make([]any, len(parts))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	if err := s.pool.QueryRow(ctx, s.sql("SELECT "+strings.Join(parts, ", "))).Scan(ptrs...); err != nil {
		return nil, fmt.Errorf("count the library's rows: %w", err)
	}
	out := map[string]int64{}
	for i, t := range store.Tables {
		out[t.Name] = vals[i]
	}
	out["vectors"] = vals[len(vals)-1]
	return out, nil
}
