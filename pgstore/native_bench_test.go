package pgstore

import (
	"context"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/papers-cli/papers/internal/pgtest"
	"github.com/papers-cli/papers/retrieve"
	"github.com/papers-cli/papers/store"
)

// BenchmarkTextNativeVsPGlite measures the text half of a library, which
// needs no pgvector, on PGlite and on the native server
// PAPERS_BENCH_NATIVE_URL names (a PostgreSQL without pgvector will do,
// such as Debian 12's): loading 20,000 SciFact chunks (the corpus four
// times) in batches of 1,000, and the median exact BM25 search (feedback,
// 300 hits, every chunk holding a query term scored). Once, whatever
// -benchtime says:
//
//	PAPERS_BENCH_NATIVE_URL=postgres://me@localhost/lab go test ./pgstore -run '^$' -bench TextNativeVsPGlite -benchtime 1x
func BenchmarkTextNativeVsPGlite(b *testing.B) {
	t := b
	base, _ := pgtest.Server(t)
	urls := []string{base}
	if nat := os.Getenv("PAPERS_BENCH_NATIVE_URL"); nat != "" {
		urls = append(urls, nat)
	}
	c := sciFact(t)
	ctx := context.Background()
	for range b.N {
		for _, u := range urls {
			pool, err := pgxpool.New(ctx, u)
			if err != nil {
				t.Fatal(err)
			}
			s := &Store{pool: pool, schema: "natexp", ident: "natexp"}
			pool.Exec(ctx, "DROP SCHEMA IF EXISTS natexp CASCADE")
			pool.Exec(ctx, "CREATE SCHEMA natexp")
			ddl := strings.Replace(migrations[0], "\tembedding  vector,\n", "", 1)
			if _, err := pool.Exec(ctx, s.sql(ddl)); err != nil {
				t.Fatal(err)
			}
			n := 20000
			start := time.Now()
			for lo := 0; lo < n; lo += 1000 {
				var r chunkRows
				var ids, titles []string
				for i := lo; i < lo+1000; i++ {
					d := c.Docs[i%len(c.Docs)]
					id := d.ID + "~" + string(rune('a'+i/len(c.Docs)))
					ids, titles = append(ids, id), append(titles, d.Title)
					r.add(d.Title, store.Chunk{PaperID: id, Text: d.Title + "\n\n" + d.Text})
				}
				err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
					if _, err := tx.Exec(ctx, s.sql("INSERT INTO {s}.papers (id, title) SELECT * FROM unnest($1::text[], $2::text[])"), ids, titles); err != nil {
						return err
					}
					_, err := tx.Exec(ctx, s.sql(`INSERT INTO {s}.chunks (paper_id, seq, page_start, page_end, section, text, tsv, len, stems)
SELECT paper_id, seq, ps, pe, sec, txt, tsv::tsvector, len, stems
FROM unnest($1::text[], $2::int[], $3::int[], $4::int[], $5::text[], $6::text[], $7::text[], $8::int[], $9::text[])
	AS c(paper_id, seq, ps, pe, sec, txt, tsv, len, stems)`), r.paper, r.seq, r.start, r.end, r.section, r.text, r.tsv, r.length, r.stems)
					return err
				})
				if err != nil {
					t.Fatal(err)
				}
			}
			load := time.Since(start)
			var lat []time.Duration
			for _, q := range c.Queries[:40] {
				start := time.Now()
				if _, err := s.SearchText(ctx, q.Text, 300, store.Filter{}, retrieve.DefaultFeedback); err != nil {
					t.Fatal(err)
				}
				lat = append(lat, time.Since(start))
			}
			slices.Sort(lat)
			t.Logf("%s: %d chunks loaded in %v (%v a chunk); exact BM25 with feedback, 300 hits: p50 %v", Redact(u), n, load.Round(time.Millisecond), load/time.Duration(n), lat[len(lat)/2].Round(100*time.Microsecond))
			pool.Exec(ctx, "DROP SCHEMA natexp CASCADE")
			pool.Close()
		}
	}
}
