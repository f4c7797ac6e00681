package store

import (
	"context"

	"github.com/quire-dev/quire/internal/quire"
	"github.com/quire-dev/quire/internal/sqlq"
)

// ChildNodes lists the nodes directly under parent (pages, folders, mind maps and databases
// under a page; the records of a database), in sidebar order, leaving out what is in trash or
// under trash. It runs on nodes_children (parent_id, position, id); the caller has checked that
// parent is in reach, and so is everything under it.
func (s *Store) ChildNodes(ctx context.Context, ws, parent string, after *NodeKey, limit int) ([]*quire.Node, error) {
	args := []any{parent, ws, limit}
	sql := `SELECT ` + nodeColumns + ` FROM nodes
		WHERE parent_id = $1 AND workspace_id = $2 AND in_trash = FALSE AND trashed_under = FALSE`
	if after != nil {
		args = append(args, after.Position, after.ID)
		sql += ` AND (position, id) > ($4, $5)`
	}
	return s.queryNodes(ctx, sql+` ORDER BY position, id LIMIT $3`, args...)
}

// GrantedNodes lists the nodes granted to a token that are not in trash or under trash, in
// (position, id) order: the top of what a token that is not workspace-scoped reaches.
func (s *Store) GrantedNodes(ctx context.Context, ws, tokenID string, after *NodeKey, limit int) ([]*quire.Node, error) {
	args := []any{tokenID, ws, limit}
	sql := `SELECT ` + nodeColumns + ` FROM nodes
		WHERE id IN (SELECT target_id FROM grants WHERE token_id = $1) AND workspace_id = $2
		AND in_trash = FALSE AND trashed_under = FALSE`
	if after != nil {
		args = append(args, after.Position, after.ID)
		sql += ` AND (position, id) > ($4, $5)`
	}
	return s.queryNodes(ctx, sql+` ORDER BY position, id LIMIT $3`, args...)
}

// WithChildren reports which of ids have at least one node under them that is not in trash
// (a sub-page, a database, a record): the sidebar's has_children. One statement per hundred
// ids (queryIn); each id stops at its first such child on nodes_children.
func (s *Store) WithChildren(ctx context.Context, ids []string) (map[string]bool, error) {
	return idSetIn(ctx, s.read, ids, false, func(a *sqlq.Args, batch []string) string {
		return `SELECT n.id FROM nodes n WHERE n.id IN (` + sqlq.In(a, batch) + `)
			AND EXISTS (SELECT 1 FROM nodes c WHERE c.parent_id = n.id AND c.in_trash = FALSE AND c.trashed_under = FALSE)`
	})
}

func (s *Store) queryNodes(ctx context.Context, sql string, args ...any) ([]*quire.Node, error) {
	return scanNodes(s.read.QueryContext(ctx, sql, args...))
}
