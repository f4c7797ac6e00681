package store

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/quire-dev/quire/internal/quire"
)

// Exists reports whether cfg names a store that has been made already: an SQLite file under
// Dir, or a PostgreSQL database holding Quire's tables. It creates nothing, so that an admin
// command pointed at a mistyped folder or database can say so instead of making an empty store
// there.
func Exists(ctx context.Context, cfg Config) (bool, error) {
	if cfg.DatabaseURL == "" {
		dir := cfg.Dir
		if dir == "" {
			dir = "quire-data"
		}
		_, err := os.Stat(filepath.Join(dir, "quire.db"))
		if errors.Is(err, os.ErrNotExist) {
			return false, nil
		}
		return err == nil, err
	}
	s, err := openPostgres(cfg.DatabaseURL, nil)
	if err != nil {
		return false, err
	}
	defer s.read.Close()
	var found bool
	err = s.read.QueryRowContext(ctx, `SELECT to_regclass('workspaces') IS NOT NULL`).Scan(&found)
	if err != nil {
		return false, fmt.Errorf("look for Quire's tables: %w", err)
	}
	return found, nil
}

// Workspaces returns every workspace in creation order, for `quire workspace list`.
func (s *Store) Workspaces(ctx context.Context) ([]*quire.Workspace, error) {
	rows, err := s.read.QueryContext(ctx, `SELECT id, name, created_ms FROM workspaces ORDER BY created_ms, id`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []*quire.Workspace
	for rows.Next() {
		w := &quire.Workspace{}
		if err := rows.Scan(&w.ID, &w.Name, &w.CreatedMs); err != nil {
			return nil, err
		}
		out = append(out, w)
	}
	return out, rows.Err()
}

// Tokens returns the tokens of workspace ws (every workspace when ws is ""), revoked ones
// included, in creation order and without their grants: a listing shows what exists, `quire
// token show` the rest.
func (s *Store) Tokens(ctx context.Context, ws string) ([]*quire.Token, error) {
	rows, err := s.read.QueryContext(ctx, `SELECT `+tokenColumns+` FROM tokens
		WHERE $1 = '' OR workspace_id = $1 ORDER BY created_ms, id`, ws)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []*quire.Token
	for rows.Next() {
		t, err := scanToken(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, rows.Err()
}

// RotateSecret replaces the secret of live token id by the one hashing to secretHash: the old
// secret stops authenticating with this write. A revoked token is a conflict (it stays dead), an
// unknown one not_found.
func (s *Store) RotateSecret(ctx context.Context, id, secretHash string) error {
	res, err := s.write.ExecContext(ctx,
		`UPDATE tokens SET secret_hash = $1 WHERE id = $2 AND revoked_ms = 0`, secretHash, id)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 1 {
		return nil
	}
	if _, err := s.Token(ctx, id); err != nil {
		return err
	}
	return quire.Conflict("Token " + id + " is revoked; a revoked token cannot be rotated.")
}
