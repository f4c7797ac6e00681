package store

import (
	"context"
	"database/sql"
	"errors"
	"strconv"

	"github.com/quire-dev/quire/internal/quire"
)

// NodeFields is how much of a token and of a node AuthenticateNode reads.
type NodeFields int

const (
	// AllFields is every column of the token and of the node, and the workspace's name.
	AllFields NodeFields = iota
	// PageFields is what a page GET uses: the token's id, workspace, owner, scopes and
	// workspace_scoped (what the guard and the reach check read; its name, integration, times
	// and workspace name stay empty), and what a page's answer shows of the node (pageColumns:
	// all but position, title_plain, description, is_inline and trashed_under; its id and
	// workspace are the ones asked for and the token's). Left out, the driver's per-execution work
	// on those 12 columns (each column's name and declared type fetched and copied, each value
	// converted twice) and the workspaces join were a share of a page GET's CPU for nothing
	// (issue 15). Workspaces are never deleted, and the node is joined on the token's workspace,
	// so the join checked nothing.
	PageFields
)

// pageColumns are the node's columns a page's answer (and a record's rendering) reads.
const pageColumns = `object, page_type, parent_type, parent_id, title, properties, icon, cover, in_trash, version,
	created_ms, created_by, edited_ms, edited_by`

func scanPageNode(row interface{ Scan(...any) error }) (*quire.Node, error) {
	n := &quire.Node{}
	var parent sql.NullString
	var title, props, icon, cover []byte
	err := row.Scan(&n.Object, &n.PageType, &n.ParentType, &parent, &title, &props, &icon, &cover, &n.InTrash,
		&n.Version, &n.CreatedMs, &n.CreatedBy, &n.EditedMs, &n.EditedBy)
	if err != nil {
		return nil, err
	}
	n.Title, n.Properties = title, props
	return withParentAndFiles(n, parent, icon, cover), nil
}

// joinedRead is one of AuthenticateNode's statements and the scans of its row: the token's
// leading columns into p, then the node's.
type joinedRead struct {
	query string
	token func(row interface{ Scan(...any) error }, p *quire.Principal) (*quire.Token, error)
	node  func(row interface{ Scan(...any) error }) (*quire.Node, error)
}

// authenticateNodeReads are the joined reads by NodeFields.
var authenticateNodeReads = [...]joinedRead{
	AllFields: {
		query: authenticateNodeQuery(`t.id, t.workspace_id, t.owner_id, t.integration_id, t.name, t.scopes,
			t.workspace_scoped, t.created_ms, t.revoked_ms, w.name`, "JOIN workspaces w ON w.id = t.workspace_id", nodeColumns),
		token: func(row interface{ Scan(...any) error }, p *quire.Principal) (*quire.Token, error) {
			return scanToken(scanFunc(func(dest ...any) error { return row.Scan(append(dest, &p.WorkspaceName)...) }))
		},
		node: scanNode,
	},
	PageFields: {
		query: authenticateNodeQuery("t.id, t.workspace_id, t.owner_id, t.scopes, t.workspace_scoped", "", pageColumns),
		token: func(row interface{ Scan(...any) error }, _ *quire.Principal) (*quire.Token, error) {
			t := &quire.Token{}
			var scopes string
			if err := row.Scan(&t.ID, &t.WorkspaceID, &t.OwnerID, &scopes, &t.WorkspaceScoped); err != nil {
				return nil, err
			}
			t.Scopes = parseScopes(scopes)
			return t, nil
		},
		node: scanPageNode,
	},
}

// authenticateNodeQuery is the token's columns (and join) as authenticate reads them, joined
// with node $2 of the token's workspace (columns of it), provided the token reaches it: a workspace-scoped token reaches every node of its
// workspace; any other walks up from the node on the nodes' primary key and probes its grants
// on theirs, as reachesQuery does. The CASE keeps that walk from running for a
// workspace-scoped token: both engines evaluate a CASE branch's subquery only when the branch
// is taken. No row: the token is not live, or the node is absent or out of its reach.
func authenticateNodeQuery(tokenColumns, join, columns string) string {
	return `
		WITH RECURSIVE up (id, parent_id, depth) AS (
			SELECT id, parent_id, 0 FROM nodes WHERE id = $2
			UNION ALL
			SELECT p.id, p.parent_id, up.depth + 1 FROM nodes p JOIN up ON p.id = up.parent_id
			WHERE up.depth < ` + strconv.Itoa(maxDepth) + `
		)
		SELECT ` + tokenColumns + `, ` + qualify("n.", columns) + `
		FROM tokens t ` + join + `
		JOIN nodes n ON n.id = $2 AND n.workspace_id = t.workspace_id
		WHERE t.secret_hash = $1 AND t.revoked_ms = 0 AND CASE WHEN t.workspace_scoped THEN TRUE
			ELSE EXISTS (SELECT 1 FROM up WHERE EXISTS (SELECT 1 FROM grants g WHERE g.token_id = t.id AND g.target_id = up.id))
		END`
}

// AuthenticateNode is Authenticate and, in the same statement, node id (the part of it fields
// names) when the token reaches it: the request that names one node reads its token, its reach
// and its node in one read on two or three primary or unique keys (one read transaction on SQLite, one
// round trip on PostgreSQL) instead of two or three. The node is nil, with a nil error, when
// the token is live but the node is absent, in another workspace or out of the token's reach:
// the joined read found no row, and the token is then read alone to tell that from an unknown
// or revoked token (unauthorized). Nothing is kept between requests: a revoke or a withdrawn
// grant through any server is seen by the next request's read.
func (s *Store) AuthenticateNode(ctx context.Context, secretHash, id string, fields NodeFields) (*quire.Principal, *quire.Node, error) {
	read := authenticateNodeReads[fields]
	p := &quire.Principal{}
	var t *quire.Token
	var n *quire.Node
	scan := func(row interface{ Scan(...any) error }) error {
		var err error
		t, err = read.token(scanFunc(func(tokenDest ...any) error {
			var err error
			n, err = read.node(scanFunc(func(nodeDest ...any) error {
				return row.Scan(append(tokenDest, nodeDest...)...)
			}))
			return err
		}), p)
		return err
	}
	err := s.hotRow(ctx, read.query, []string{secretHash, id}, scan)
	if errors.Is(err, sql.ErrNoRows) {
		p, err := s.Authenticate(ctx, secretHash)
		return p, nil, err
	}
	if err != nil {
		return nil, nil, err
	}
	p.Token = t
	if fields == PageFields {
		n.ID, n.WorkspaceID = id, t.WorkspaceID // the read's own keys: n.id = $2, n.workspace_id = t.workspace_id
	}
	return p, n, nil
}
