package store_test

import (
	"bufio"
	"context"
	"database/sql"
	"encoding/json"
	"math"
	"math/rand/v2"
	"os"
	"strings"
	"testing"
	"unicode"

	"github.com/papers-cli/papers/internal/shareddata"
	"github.com/papers-cli/papers/store"
	"github.com/papers-cli/papers/store/fts"
)

func readJSONL(t *testing.T, path string, fn func([]byte)) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		shareddata.Missing(t, path, err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		fn(sc.Bytes())
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
}

// ftsQuery is how the store queried its FTS5 table in schema 1: the
// distinct lower-cased words, quoted and ORed.
func ftsQuery(s string) string {
	words := strings.FieldsFunc(s, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
	seen := map[string]bool{}
	var terms []string
	for _, w := range words {
		w = strings.ToLower(w)
		if !seen[w] {
			seen[w] = true
			terms = append(terms, `"`+w+`"`)
		}
	}
	return strings.Join(terms, " OR ")
}

// TestSearchTextAgreesWithFTS5 stores the SciFact abstracts (some split in
// two chunks, so that titles repeat over chunks), indexes the same chunks in
// an SQLite FTS5 table (title, text) as schema 1 libraries did, and checks
// that SearchText ranks and scores like that table's bm25() with
// the title weighing fts.HeadWeight, for
// the SciFact claims and awkward queries.
func TestSearchTextAgreesWithFTS5(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	lib := openTest(t, dir)
	r := rand.New(rand.NewPCG(4, 2))
	db, err := sql.Open("sqlite", ":memory:")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	if _, err := db.Exec(`CREATE VIRTUAL TABLE ref USING fts5 (id UNINDEXED, title, text,
		tokenize = 'porter unicode61 remove_diacritics 2')`); err != nil {
		t.Fatal(err)
	}
	var batch []store.Item
	flush := func() {
		if _, err := lib.PutBatch(ctx, batch); err != nil {
			t.Fatal(err)
		}
		tx, err := db.Begin()
		if err != nil {
			t.Fatal(err)
		}
		for _, it := range batch {
			for _, c := range it.Chunks {
				if _, err := tx.Exec(`INSERT INTO ref (id, title, text) VALUES (?, ?, ?)`,
					store.ChunkID(it.Paper.ID, c.Seq), it.Paper.Title, c.Text); err != nil {
					t.Fatal(err)
				}
			}
		}
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
		batch = batch[:0]
	}
	docs, nq := 1<<30, 300
	if store.RaceEnabled {
		docs, nq = 1200, 40
	}
	readJSONL(t, shareddata.Path(t, "scifact", "corpus.jsonl"), func(line []byte) {
		if docs == 0 {
			return
		}
		docs--
		var d struct {
			ID          string `json:"_id"`
			Title, Text string
		}
		if err := json.Unmarshal(line, &d); err != nil {
			t.Fatal(err)
		}
		p := paper(d.ID, "2020-01-01", nil, nil)
		p.Title = d.Title
		texts := []string{d.Text}
		if len(batch)%3 == 0 {
			if i := strings.Index(d.Text, ". "); i > 0 {
				texts = []string{d.Text[:i+1], d.Text[i+2:]}
			}
		}
		batch = append(batch, store.Item{Paper: p, Chunks: chunks(r, texts...)})
		if len(batch) == 500 {
			flush()
		}
	})
	flush()

	var queries []string
	readJSONL(t, shareddata.Path(t, "scifact", "queries.jsonl"), func(line []byte) {
		var q struct{ Text string }
		json.Unmarshal(line, &q)
		if len(queries) < nq {
			queries = append(queries, q.Text)
		}
	})
	queries = append(queries, "the of and in", "Naïve CAFÉ résumé", "IL-6 TNF-α β-catenin", "relational generalization hopping")

	const k = 20
	compared := 0
	type hit struct {
		id    string
		score float64
	}
	for _, q := range queries {
		rows, err := db.Query(`SELECT id, -bm25(ref, 0, ?, 1.0) AS s FROM ref WHERE ref MATCH ?
			ORDER BY s DESC, id LIMIT ?`, float64(fts.HeadWeight), ftsQuery(q), k)
		if err != nil {
			t.Fatal(err)
		}
		var want []hit
		for rows.Next() {
			var h hit
			if err := rows.Scan(&h.id, &h.score); err != nil {
				t.Fatal(err)
			}
			want = append(want, h)
		}
		rows.Close()
		got, err := lib.SearchText(ctx, q, k, store.Filter{}, store.Feedback{})
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(want) {
			t.Fatalf("%q: %d hits, FTS5 %d", q, len(got), len(want))
		}
		compared += len(want)
		for i, w := range want {
			g := got[i]
			if math.Abs(float64(g.Score)-w.score) > 1e-5*math.Max(1, w.score) {
				t.Errorf("%q hit %d: %s score %v, FTS5 %s %v", q, i, g.ChunkID, g.Score, w.id, w.score)
				break
			}
			tied := i+1 < len(want) && math.Abs(want[i+1].score-w.score) < 1e-5 || i > 0 && math.Abs(want[i-1].score-w.score) < 1e-5
			if g.ChunkID != w.id && !tied {
				t.Errorf("%q hit %d: %s, FTS5 %s", q, i, g.ChunkID, w.id)
			}
		}
	}
	if compared < 20*len(queries)/2 {
		t.Errorf("only %d hits compared", compared)
	}
}
