package store

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/papers-cli/papers/role"
)

// migrateRoles is the migration of schema 6 to 7: each chunk records the
// role of its text (role.Body, role.Table, ...). Chunks stored before read
// as body text, which is what the chunker made of everything then.
func migrateRoles(ctx context.Context, tx *sql.Tx) error {
	var n int
	if err := tx.QueryRowContext(ctx, "SELECT count(*) FROM pragma_table_info('chunks') WHERE name = 'role'").Scan(&n); err != nil {
		return err
	}
	if n > 0 {
		return nil
	}
	if _, err := tx.ExecContext(ctx, "ALTER TABLE chunks ADD COLUMN role TEXT NOT NULL DEFAULT 'body'"); err != nil {
		return fmt.Errorf("add column chunks.role: %w", err)
	}
	return nil
}

// chunkRole is the role stored for a chunk: its Role, body text when it
// has none.
func chunkRole(c Chunk) string {
	if c.Role == "" {
		return string(role.Body)
	}
	return string(c.Role)
}
