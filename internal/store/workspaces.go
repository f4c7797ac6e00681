package store

import (
	"context"

	"github.com/quire-dev/quire/internal/quire"
	"github.com/quire-dev/quire/internal/sqlq"
)

// CreateWorkspace stores a new workspace.
func (s *Store) CreateWorkspace(ctx context.Context, w *quire.Workspace) error {
	return s.InTx(ctx, func(tx *Tx) error {
		_, err := tx.tx.ExecContext(ctx,
			`INSERT INTO workspaces (id, name, created_ms) VALUES ($1, $2, $3)`, w.ID, w.Name, w.CreatedMs)
		return err
	})
}

// Workspace returns workspace id, or not_found.
func (s *Store) Workspace(ctx context.Context, id string) (*quire.Workspace, error) {
	w := &quire.Workspace{}
	err := s.read.QueryRowContext(ctx,
		`SELECT id, name, created_ms FROM workspaces WHERE id = $1`, id).Scan(&w.ID, &w.Name, &w.CreatedMs)
	if err != nil {
		return nil, notFoundIf(err, "workspace")
	}
	return w, nil
}

// WorkspaceCounts are the totals of GET /v2/workspace.
type WorkspaceCounts struct {
	Pages, Databases, Members int64
}

// CountWorkspace counts the pages and databases not in trash and the members of workspace ws.
// With grants (a token that is not workspace-scoped) only the granted subtrees are counted.
func (s *Store) CountWorkspace(ctx context.Context, ws string, tokenID string, workspaceScoped bool) (WorkspaceCounts, error) {
	var c WorkspaceCounts
	var err error
	if workspaceScoped {
		err = s.read.QueryRowContext(ctx, `
			SELECT
				(SELECT COUNT(*) FROM nodes WHERE workspace_id = $1 AND object = 'page' AND in_trash = FALSE),
				(SELECT COUNT(*) FROM nodes WHERE workspace_id = $1 AND object = 'database' AND in_trash = FALSE),
				(SELECT COUNT(*) FROM users WHERE workspace_id = $1)`, ws).Scan(&c.Pages, &c.Databases, &c.Members)
	} else {
		// The nodes a grant reaches are the token's workspace's (sqlq.Reach).
		a := sqlq.NewArgs(ws)
		err = s.read.QueryRowContext(ctx, `WITH RECURSIVE `+sqlq.Reach(a, tokenID)+`
			SELECT
				(SELECT COUNT(*) FROM nodes n JOIN reach r ON r.id = n.id WHERE n.object = 'page' AND n.in_trash = FALSE),
				(SELECT COUNT(*) FROM nodes n JOIN reach r ON r.id = n.id WHERE n.object = 'database' AND n.in_trash = FALSE),
				(SELECT COUNT(*) FROM users WHERE workspace_id = $1)`, a.List...).Scan(&c.Pages, &c.Databases, &c.Members)
	}
	return c, err
}

// Empty reports whether the store holds no workspace yet.
func (s *Store) Empty(ctx context.Context) (bool, error) {
	var any bool
	err := s.read.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM workspaces)`).Scan(&any)
	return !any, err
}
