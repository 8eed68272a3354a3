package pgtest

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// The server the tests get has pgvector: a cosine HNSW index answers a
// nearest-neighbour query, in the test's own schema.
func TestServerHasPgvector(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	base, what := Server(t)
	u := URL(t)
	if u == base {
		t.Fatalf("URL(t) = the server's URL %q: the test has no schema of its own", u)
	}
	conn, err := pgx.Connect(ctx, base)
	if err != nil {
		t.Fatalf("connect to %s (%s): %v", base, what, err)
	}
	defer conn.Close(ctx)
	schema := "t_harness_" + time.Now().Format("150405")
	t.Cleanup(func() { conn.Exec(context.Background(), "DROP SCHEMA IF EXISTS "+schema+" CASCADE") })
	for _, q := range []string{
		"CREATE EXTENSION IF NOT EXISTS vector",
		"CREATE SCHEMA " + schema,
		"CREATE TABLE " + schema + ".v (id int PRIMARY KEY, e vector(3))",
		"INSERT INTO " + schema + ".v VALUES (1, '[1,0,0]'), (2, '[0,1,0]'), (3, '[0.7,0.7,0]')",
		"CREATE INDEX ON " + schema + ".v USING hnsw (e vector_cosine_ops)",
	} {
		if _, err := conn.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	var id int
	if err := conn.QueryRow(ctx, "SELECT id FROM "+schema+".v ORDER BY e <=> '[0.1,1,0]' LIMIT 1").Scan(&id); err != nil {
		t.Fatal(err)
	}
	if id != 2 {
		t.Errorf("nearest to [0.1,1,0] by cosine = %d, want 2", id)
	}
}

// BenchmarkStartPGlite measures what a test binary pays, once, to have a
// PGlite server: node, the WebAssembly module and the two extensions,
// until the server accepts a connection and answers a query.
func BenchmarkStartPGlite(b *testing.B) {
	ctx := context.Background()
	for b.Loop() {
		u, stop, err := startPGlite()
		if err != nil {
			b.Fatal(err)
		}
		conn, err := pgx.Connect(ctx, u)
		if err != nil {
			b.Fatal(err)
		}
		var one int
		if err := conn.QueryRow(ctx, "SELECT 1").Scan(&one); err != nil || one != 1 {
			b.Fatalf("SELECT 1 = %d, %v", one, err)
		}
		conn.Close(ctx)
		b.StopTimer()
		stop()
		b.StartTimer()
	}
}
