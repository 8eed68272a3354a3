package pgstore

import (
	"context"
	"database/sql/driver"

	"github.com/jackc/pgx/v5/stdlib"
)

// connector makes the database/sql connections of one library: pgx's,
// with every statement translated (see translate) for the library's
// schema.
type connector struct {
	pgx    driver.Connector
	schema string
}

func (c connector) Connect(ctx context.Context) (driver.Conn, error) {
	cn, err := c.pgx.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &conn{Conn: cn.(*stdlib.Conn), schema: c.schema}, nil
}

func (c connector) Driver() driver.Driver { return c.pgx.Driver() }

// conn is a pgx connection whose statements are translated. Prepared
// statements are kept on this side (a statement is sent whole each time):
// PGlite's server runs every client's statements on one session, where
// two connections' server-side statements of one name would collide.
type conn struct {
	*stdlib.Conn
	schema string
}

func (c *conn) Prepare(q string) (driver.Stmt, error) {
	return &stmt{c: c, q: translate(q, c.schema)}, nil
}

func (c *conn) PrepareContext(_ context.Context, q string) (driver.Stmt, error) {
	return c.Prepare(q)
}

func (c *conn) ExecContext(ctx context.Context, q string, args []driver.NamedValue) (driver.Result, error) {
	return c.Conn.ExecContext(ctx, translate(q, c.schema), args)
}

func (c *conn) QueryContext(ctx context.Context, q string, args []driver.NamedValue) (driver.Rows, error) {
	return c.Conn.QueryContext(ctx, translate(q, c.schema), args)
}

// stmt is a translated statement of conn.
type stmt struct {
	c *conn
	q string
}

func (s *stmt) Close() error  { return nil }
func (s *stmt) NumInput() int { return -1 }

func (s *stmt) Exec(args []driver.Value) (driver.Result, error) {
	return s.ExecContext(context.Background(), named(args))
}

func (s *stmt) Query(args []driver.Value) (driver.Rows, error) {
	return s.QueryContext(context.Background(), named(args))
}

func (s *stmt) ExecContext(ctx context.Context, args []driver.NamedValue) (driver.Result, error) {
	return s.c.Conn.ExecContext(ctx, s.q, args)
}

func (s *stmt) QueryContext(ctx context.Context, args []driver.NamedValue) (driver.Rows, error) {
	return s.c.Conn.QueryContext(ctx, s.q, args)
}

func named(args []driver.Value) []driver.NamedValue {
	out := make([]driver.NamedValue, len(args))
	for i, v := range args {
		out[i] = driver.NamedValue{Ordinal: i + 1, Value: v}
	}
	return out
}
