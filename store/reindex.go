package store

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"

	"github.com/papers-cli/papers/store/index"
)

// Reindex replaces every chunk's vector with one from a new embedder and
// records that embedder (name, dims) in the manifest, all in one
// transaction: if embed fails, the context is cancelled or the process dies,
// the library keeps its old vectors and embedder. embed is called with
// batches of at most batch chunks (text, no vectors) in (rowid) order and
// must return one vector of dims dimensions per chunk; vectors are stored
// normalised. progress, if not nil, is called after each batch with the
// chunks done and the total.
//
// It first takes the embedder lock exclusively (see HoldEmbedder): it
// waits for the ingests and updates of other processes that hold it to
// finish, calling waiting once if it has to (nil: wait silently), and
// those that start meanwhile wait for it, then embed with the new
// embedder. The write lock is held throughout the re-embedding, so another
// write (rm, topic changes) waits and gives up with ErrBusy after 30 s;
// readers go on reading the old vectors until the commit.
func (l *Library) Reindex(ctx context.Context, name string, dims, batch int,
	embed func(ctx context.Context, chunks []Chunk) ([][]float32, error),
	progress func(done, total int), waiting func()) error {
	if name == "" || dims <= 0 {
		return fmt.Errorf("reindex: invalid embedder %q with %d dimensions", name, dims)
	}
	batch = max(batch, 1)
	release, err := l.lockEmbedder(ctx, true, waiting)
	if err != nil {
		return fmt.Errorf("reindex with %s: %w", name, err)
	}
	defer release()
	err = l.write(ctx, func(tx *sql.Tx) error {
		var total int
		if err := tx.QueryRowContext(ctx, "SELECT count(*) FROM chunks").Scan(&total); err != nil {
			return err
		}
		upd, err := tx.PrepareContext(ctx, "UPDATE chunks SET vector = ? WHERE id = ?")
		if err != nil {
			return err
		}
		defer upd.Close()
		last, done := int64(-1), 0
		for {
			rows, err := tx.QueryContext(ctx, `SELECT id, paper_id, seq, page_start, page_end, section, role, text
				FROM chunks WHERE id > ? ORDER BY id LIMIT ?`, last, batch)
			if err != nil {
				return err
			}
			var ids []int64
			var cs []Chunk
			for rows.Next() {
				var id int64
				var c Chunk
				if err := rows.Scan(&id, &c.PaperID, &c.Seq, &c.PageStart, &c.PageEnd, &c.Section, &c.Role, &c.Text); err != nil {
					rows.Close()
					return err
				}
				ids = append(ids, id)
				cs = append(cs, c)
			}
			rows.Close()
			if err := rows.Err(); err != nil {
				return err
			}
			if len(cs) == 0 {
				break
			}
			vecs, err := embed(ctx, cs)
			if err != nil {
				return err
			}
			if len(vecs) != len(cs) {
				return fmt.Errorf("embedder returned %d vectors for %d chunks", len(vecs), len(cs))
			}
			for i, v := range vecs {
				if len(v) != dims {
					return fmt.Errorf("chunk %s: vector of %d dimensions, want %d", ChunkID(cs[i].PaperID, cs[i].Seq), len(v), dims)
				}
				if _, err := upd.ExecContext(ctx, l.encodeVec(index.Normalized(v)), ids[i]); err != nil {
					return err
				}
			}
			last = ids[len(ids)-1]
			done += len(cs)
			if progress != nil {
				progress(done, total)
			}
		}
		if err := setManifest(ctx, tx, keyEmbedder, name); err != nil {
			return err
		}
		if err := setManifest(ctx, tx, keyDimensions, strconv.Itoa(dims)); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO manifest (key, value) VALUES (?, '1')
			ON CONFLICT (key) DO UPDATE SET value = CAST(CAST(manifest.value AS BIGINT) + 1 AS TEXT)`, keyVectorsEpoch); err != nil {
			return err
		}
		return bumpVectorsGen(ctx, tx)
	})
	if err != nil {
		return fmt.Errorf("reindex with %s: %w", name, err)
	}
	l.agree(name)
	return nil
}
