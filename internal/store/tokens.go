package store

import (
	"context"
	"strings"

	"github.com/quire-dev/quire/internal/quire"
)

const tokenColumns = `id, workspace_id, owner_id, integration_id, name, scopes, workspace_scoped, created_ms, revoked_ms`

func scanToken(row interface{ Scan(...any) error }) (*quire.Token, error) {
	t := &quire.Token{}
	var scopes string
	if err := row.Scan(&t.ID, &t.WorkspaceID, &t.OwnerID, &t.IntegrationID, &t.Name, &scopes,
		&t.WorkspaceScoped, &t.CreatedMs, &t.RevokedMs); err != nil {
		return nil, err
	}
	t.Scopes = parseScopes(scopes)
	return t, nil
}

// parseScopes reads the scopes column (comma-separated).
func parseScopes(scopes string) []quire.Scope {
	var out []quire.Scope
	for _, sc := range strings.Split(scopes, ",") {
		if sc != "" {
			out = append(out, quire.Scope(sc))
		}
	}
	return out
}

// CreateToken stores a token with the hash of its secret and its grants, in one transaction.
// Every grant must name a page or database of the token's workspace.
func (s *Store) CreateToken(ctx context.Context, t *quire.Token, secretHash string) error {
	return s.InTx(ctx, func(tx *Tx) error {
		if _, err := tx.tx.ExecContext(ctx, `INSERT INTO tokens (`+tokenColumns+`, secret_hash)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
			t.ID, t.WorkspaceID, t.OwnerID, t.IntegrationID, t.Name, quire.JoinScopes(t.Scopes),
			t.WorkspaceScoped, t.CreatedMs, t.RevokedMs, secretHash); err != nil {
			return err
		}
		for _, g := range t.Grants {
			if err := tx.grant(ctx, t, g, t.CreatedMs); err != nil {
				return err
			}
		}
		return nil
	})
}

func (tx *Tx) grant(ctx context.Context, t *quire.Token, target string, now int64) error {
	var n int
	if err := tx.tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM nodes WHERE id = $1 AND workspace_id = $2`,
		target, t.WorkspaceID).Scan(&n); err != nil {
		return err
	}
	if n == 0 {
		return quire.NotFound("page or database " + target)
	}
	_, err := tx.tx.ExecContext(ctx, `INSERT INTO grants (token_id, target_id, created_ms) VALUES ($1, $2, $3)
		ON CONFLICT (token_id, target_id) DO NOTHING`, t.ID, target, now)
	return err
}

// Grant lets token id reach target (a page or database of its workspace) and what lies beneath.
func (s *Store) Grant(ctx context.Context, id, target string) error {
	return s.InTx(ctx, func(tx *Tx) error {
		t, err := scanToken(tx.tx.QueryRowContext(ctx, `SELECT `+tokenColumns+` FROM tokens WHERE id = $1`, id))
		if err != nil {
			return notFoundIf(err, "token")
		}
		return tx.grant(ctx, t, target, quire.NowMillis())
	})
}

// Revoke marks token id revoked; a revoked token never authenticates again.
func (s *Store) Revoke(ctx context.Context, id string) error {
	res, err := s.write.ExecContext(ctx,
		`UPDATE tokens SET revoked_ms = $1 WHERE id = $2 AND revoked_ms = 0`, quire.NowMillis(), id)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		if _, err := s.Token(ctx, id); err != nil {
			return err
		}
	}
	return nil
}

// Token returns token id with its grants, or not_found.
func (s *Store) Token(ctx context.Context, id string) (*quire.Token, error) {
	t, err := scanToken(s.read.QueryRowContext(ctx, `SELECT `+tokenColumns+` FROM tokens WHERE id = $1`, id))
	if err != nil {
		return nil, notFoundIf(err, "token")
	}
	rows, err := s.read.QueryContext(ctx, `SELECT target_id FROM grants WHERE token_id = $1 ORDER BY created_ms, target_id`, id)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var g string
		if err := rows.Scan(&g); err != nil {
			return nil, err
		}
		t.Grants = append(t.Grants, g)
	}
	return t, rows.Err()
}

// authenticate reads the live token of secret hash $1 and its workspace's name: on the unique
// index of secret hashes, then the workspace's primary key.
const authenticate = `SELECT t.id, t.workspace_id, t.owner_id, t.integration_id, t.name,
		t.scopes, t.workspace_scoped, t.created_ms, t.revoked_ms, w.name
		FROM tokens t JOIN workspaces w ON w.id = t.workspace_id
		WHERE t.secret_hash = $1 AND t.revoked_ms = 0`

// Authenticate returns the live token whose secret hashes to secretHash, with its workspace's
// name, or unauthorized. Grants are not loaded: reach is checked in SQL.
func (s *Store) Authenticate(ctx context.Context, secretHash string) (*quire.Principal, error) {
	p := &quire.Principal{}
	var t *quire.Token
	err := s.hotRow(ctx, authenticate, []string{secretHash}, func(row interface{ Scan(...any) error }) (err error) {
		t, err = scanToken(scanFunc(func(dest ...any) error { return row.Scan(append(dest, &p.WorkspaceName)...) }))
		return err
	})
	if err != nil {
		return nil, notFoundIf(err, "token")
	}
	p.Token = t
	return p, nil
}

type scanFunc func(dest ...any) error

func (f scanFunc) Scan(dest ...any) error { return f(dest...) }
