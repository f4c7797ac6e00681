package store

import (
	"context"
)

// maxDepth bounds every walk up the tree of pages and databases: a guard against a cycle that a
// bug might leave, far above any real nesting.
const maxDepth = 1000

// Reaches reports whether token tokenID, which is not workspace-scoped, reaches node id of
// workspace ws: whether the node or one of its ancestors is granted to the token. One recursive
// query walks up the parent chain on the primary key.
func (s *Store) Reaches(ctx context.Context, ws, tokenID, id string) (bool, error) {
	return reaches(ctx, s.hot(), ws, tokenID, id)
}

// reachesQuery walks up from node $1 of workspace $2 (at most $4 steps) on the nodes' primary key
// and looks each ancestor up in token $3's grants on theirs: a probe per ancestor, whatever the
// number of grants. (As a join, SQLite read every grant of the token and built a temporary
// index over the ancestors on every request.)
const reachesQuery = `
		WITH RECURSIVE up (id, parent_id, depth) AS (
			SELECT id, parent_id, 0 FROM nodes WHERE id = $1 AND workspace_id = $2
			UNION ALL
			SELECT n.id, n.parent_id, up.depth + 1 FROM nodes n JOIN up ON n.id = up.parent_id
			WHERE up.depth < $4
		)
		SELECT EXISTS (SELECT 1 FROM up WHERE EXISTS (SELECT 1 FROM grants g WHERE g.token_id = $3 AND g.target_id = up.id))`

func reaches(ctx context.Context, q querier, ws, tokenID, id string) (bool, error) {
	var ok bool
	err := q.QueryRowContext(ctx, reachesQuery, id, ws, tokenID, maxDepth).Scan(&ok)
	return ok, err
}

// Reaches is Store.Reaches inside the transaction.
func (tx *Tx) Reaches(ctx context.Context, ws, tokenID, id string) (bool, error) {
	return reaches(ctx, tx.tx, ws, tokenID, id)
}

// NodeInWorkspace reports whether node id exists in workspace ws.
func (s *Store) NodeInWorkspace(ctx context.Context, ws, id string) (bool, error) {
	return nodeInWorkspace(ctx, s.hot(), ws, id)
}

func nodeInWorkspace(ctx context.Context, q querier, ws, id string) (bool, error) {
	var ok bool
	err := q.QueryRowContext(ctx,
		`SELECT EXISTS (SELECT 1 FROM nodes WHERE id = $1 AND workspace_id = $2)`, id, ws).Scan(&ok)
	return ok, err
}

// NodeInWorkspace is Store.NodeInWorkspace inside the transaction.
func (tx *Tx) NodeInWorkspace(ctx context.Context, ws, id string) (bool, error) {
	return nodeInWorkspace(ctx, tx.tx, ws, id)
}
