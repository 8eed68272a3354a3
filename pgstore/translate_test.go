package pgstore

import "testing"

// translate turns the record's SQL into PostgreSQL's and leaves what it
// does not own alone: literals, quoted names, comments, dollar quotes,
// columns named like tables, functions.
func TestTranslate(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"SELECT count(*), coalesce(sum(chunks), 0) FROM papers WHERE id = ?",
			`SELECT count(*), coalesce(sum(chunks), 0) FROM "lab".papers WHERE id = $1`},
		{"SELECT p.id FROM papers p JOIN chunks c ON c.paper_id = p.id WHERE c.seq = ? AND p.title LIKE ? ESCAPE '\\'",
			`SELECT p.id FROM "lab".papers p JOIN "lab".chunks c ON c.paper_id = p.id WHERE c.seq = $1 AND p.title ILIKE $2 ESCAPE '\'`},
		{"INSERT INTO paper_tags (paper_id, tag) VALUES (?, ?) ON CONFLICT DO NOTHING",
			`INSERT INTO "lab".paper_tags (paper_id, tag) VALUES ($1, $2) ON CONFLICT DO NOTHING`},
		{"UPDATE topic_papers AS t SET x = (SELECT 1 FROM topic_papers o WHERE o.a = ?) WHERE t.b = ?",
			`UPDATE "lab".topic_papers AS t SET x = (SELECT 1 FROM "lab".topic_papers o WHERE o.a = $1) WHERE t.b = $2`},
		{"SELECT a FROM papers ORDER BY published DESC, id LIMIT -1 OFFSET 5",
			`SELECT a FROM "lab".papers ORDER BY published DESC NULLS LAST, id LIMIT ALL OFFSET 5`},
		{"CREATE INDEX x ON s.papers (published DESC NULLS LAST)", "CREATE INDEX x ON s.papers (published DESC NULLS LAST)"},
		// $n parameters first, ? ones after them
		{"SELECT $1::text[] FROM chunks c WHERE c.tsv @@ $2 AND c.paper_id IN (SELECT p.id FROM papers p WHERE p.id = ?)",
			`SELECT $1::text[] FROM "lab".chunks c WHERE c.tsv @@ $2 AND c.paper_id IN (SELECT p.id FROM "lab".papers p WHERE p.id = $3)`},
		// not ours: literals, quoted names, comments, dollar quotes, functions, qualified names
		{"SELECT '?', \"papers\" FROM unnest(?) -- FROM papers ?\n", `SELECT '?', "papers" FROM unnest($1) -- FROM papers ?` + "\n"},
		{"SELECT 'it''s ?' FROM x.papers /* FROM chunks */", "SELECT 'it''s ?' FROM x.papers /* FROM chunks */"},
		{"CREATE FUNCTION f() AS $$ SELECT 1 FROM papers WHERE a LIKE 'x' $$", "CREATE FUNCTION f() AS $$ SELECT 1 FROM papers WHERE a LIKE 'x' $$"},
		{"SELECT * FROM jsonb_array_elements_text(CAST(authors AS jsonb)) AS a(value)", "SELECT * FROM jsonb_array_elements_text(CAST(authors AS jsonb)) AS a(value)"},
	} {
		if got := translate(tc.in, "lab"); got != tc.want {
			t.Errorf("translate(%q)\n got %q\nwant %q", tc.in, got, tc.want)
		}
	}
}
