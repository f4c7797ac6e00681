package store

import (
	"context"
	"database/sql"
	"errors"
	"strconv"

	"github.com/quire-dev/quire/internal/quire"
)

// authenticateNode is authenticate joined with node $2 of the token's workspace, provided the
// token reaches it: a workspace-scoped token reaches every node of its workspace; any other
// walks up from the node on the nodes' primary key and probes its grants on theirs, as
// reachesQuery does. The CASE keeps that walk from running for a workspace-scoped token: both
// engines evaluate a CASE branch's subquery only when the branch is taken. No row: the token is
// not live, or the node is absent or out of its reach.
var authenticateNode = `
		WITH RECURSIVE up (id, parent_id, depth) AS (
			SELECT id, parent_id, 0 FROM nodes WHERE id = $2
			UNION ALL
			SELECT p.id, p.parent_id, up.depth + 1 FROM nodes p JOIN up ON p.id = up.parent_id
			WHERE up.depth < ` + strconv.Itoa(maxDepth) + `
		)
		SELECT t.id, t.workspace_id, t.owner_id, t.integration_id, t.name,
		t.scopes, t.workspace_scoped, t.created_ms, t.revoked_ms, w.name, ` + qualify("n.", nodeColumns) + `
		FROM tokens t JOIN workspaces w ON w.id = t.workspace_id
		JOIN nodes n ON n.id = $2 AND n.workspace_id = t.workspace_id
		WHERE t.secret_hash = $1 AND t.revoked_ms = 0 AND CASE WHEN t.workspace_scoped THEN TRUE
			ELSE EXISTS (SELECT 1 FROM up WHERE EXISTS (SELECT 1 FROM grants g WHERE g.token_id = t.id AND g.target_id = up.id))
		END`

// AuthenticateNode is Authenticate and, in the same statement, node id when the token reaches
// it: the request that names one node reads its token, its reach and its node in one read on
// three primary or unique keys (one read transaction on SQLite, one round trip on PostgreSQL)
// instead of two or three. The node is nil, with a nil error, when the token is live but the
// node is absent, in another workspace or out of the token's reach: the joined read found no
// row, and the token is then read alone to tell that from an unknown or revoked token
// (unauthorized). Nothing is kept between requests: a revoke or a withdrawn grant through any
// server is seen by the next request's read.
func (s *Store) AuthenticateNode(ctx context.Context, secretHash, id string) (*quire.Principal, *quire.Node, error) {
	row := s.hot().QueryRowContext(ctx, authenticateNode, secretHash, id)
	p := &quire.Principal{}
	var n *quire.Node
	t, err := scanToken(scanFunc(func(dest ...any) error {
		var err error
		n, err = scanNode(scanFunc(func(nodeDest ...any) error {
			return row.Scan(append(append(dest, &p.WorkspaceName), nodeDest...)...)
		}))
		return err
	}))
	if errors.Is(err, sql.ErrNoRows) {
		p, err := s.Authenticate(ctx, secretHash)
		return p, nil, err
	}
	if err != nil {
		return nil, nil, err
	}
	p.Token = t
	return p, n, nil
}
