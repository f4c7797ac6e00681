package store

import (
	"context"
	"database/sql"

	"github.com/quire-dev/quire/internal/quire"
)

const userColumns = `id, workspace_id, name, email, avatar_url, created_ms`

func scanUser(row interface{ Scan(...any) error }) (*quire.User, error) {
	u := &quire.User{}
	err := row.Scan(&u.ID, &u.WorkspaceID, &u.Name, &u.Email, &u.AvatarURL, &u.CreatedMs)
	return u, err
}

// CreateUser stores a new user; an email already used in the workspace is a validation_error.
func (s *Store) CreateUser(ctx context.Context, u *quire.User) error {
	return s.InTx(ctx, func(tx *Tx) error {
		_, err := tx.tx.ExecContext(ctx,
			`INSERT INTO users (`+userColumns+`) VALUES ($1, $2, $3, $4, $5, $6)`,
			u.ID, u.WorkspaceID, u.Name, u.Email, u.AvatarURL, u.CreatedMs)
		if isUniqueViolation(err) {
			return quire.Invalid("email", quire.ReasonInvalidValue, "A user with this email already exists in the workspace.")
		}
		return err
	})
}

// User returns user id of workspace ws, or not_found.
func (s *Store) User(ctx context.Context, ws, id string) (*quire.User, error) {
	u, err := scanUser(s.read.QueryRowContext(ctx,
		`SELECT `+userColumns+` FROM users WHERE workspace_id = $1 AND id = $2`, ws, id))
	if err != nil {
		return nil, notFoundIf(err, "user")
	}
	return u, nil
}

// UserKey is the keyset position of a user in GET /v2/users.
type UserKey struct {
	CreatedMs int64  `json:"t"`
	ID        string `json:"i"`
}

// ListUsers returns up to limit users of workspace ws in creation order, after key when set.
func (s *Store) ListUsers(ctx context.Context, ws string, after *UserKey, limit int) ([]*quire.User, error) {
	var rows *sql.Rows
	var err error
	if after == nil {
		rows, err = s.read.QueryContext(ctx, `SELECT `+userColumns+` FROM users
			WHERE workspace_id = $1 ORDER BY created_ms, id LIMIT $2`, ws, limit)
	} else {
		rows, err = s.read.QueryContext(ctx, `SELECT `+userColumns+` FROM users
			WHERE workspace_id = $1 AND (created_ms, id) > ($2, $3) ORDER BY created_ms, id LIMIT $4`,
			ws, after.CreatedMs, after.ID, limit)
	}
	return scanAll(rows, err, scanUser)
}
