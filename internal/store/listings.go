package store

import (
	"context"

	"github.com/quire-dev/quire/internal/quire"
	"github.com/quire-dev/quire/internal/sqlq"
)

// NodeOrder is the order of a node listing.
type NodeOrder int

// The two orders listings use.
const (
	ByRecentEdit NodeOrder = iota // last edited first
	BySidebar                     // position among siblings, as the sidebar shows them
)

// NodeKey is the keyset position of a node in a listing.
type NodeKey struct {
	EditedMs int64  `json:"e,omitempty"`
	Position string `json:"p,omitempty"`
	ID       string `json:"i"`
}

// NodeQuery selects the nodes of one listing. Every listing runs in the engine on an index:
// (workspace_id, edited_ms, id), (workspace_id, page_type, edited_ms, id), the top-level index
// or the trash index.
type NodeQuery struct {
	Workspace string
	// ReachOf, when set, restricts the listing to what that (not workspace-scoped) token reaches.
	ReachOf  string
	Objects  []string // quire.ObjectPage and/or quire.ObjectDatabase; empty means both
	PageType string   // only nodes of this page type, when set
	TopLevel bool     // only nodes directly under the workspace
	Trash    bool     // the nodes in trash themselves; otherwise only nodes that are not hidden
	Order    NodeOrder
	After    *NodeKey
	Limit    int
}

// ListNodes runs a listing.
func (s *Store) ListNodes(ctx context.Context, q NodeQuery) ([]*quire.Node, error) {
	sql, args := listNodesQuery(q)
	return scanNodes(s.read.QueryContext(ctx, sql, args...))
}

// listNodesQuery is the statement of listing q and its values. A top-level listing names
// parent_type = 'workspace' as a literal: nodes_top_level holds those nodes only.
func listNodesQuery(q NodeQuery) (string, []any) {
	a := sqlq.NewArgs(q.Workspace)
	arg := a.Arg
	sql := ""
	if q.ReachOf != "" {
		sql = `WITH RECURSIVE ` + sqlq.Reach(a, q.ReachOf) + ` `
	}
	sql += `SELECT ` + nodeColumns + ` FROM nodes WHERE workspace_id = $1`
	if q.ReachOf != "" {
		sql += ` AND id IN (SELECT id FROM reach)`
	}
	switch len(q.Objects) {
	case 1:
		sql += ` AND object = ` + arg(q.Objects[0])
	}
	if q.PageType != "" {
		sql += ` AND page_type = ` + arg(q.PageType)
	}
	if q.TopLevel {
		sql += ` AND parent_type = 'workspace'`
	}
	if q.Trash {
		sql += ` AND in_trash = TRUE`
	} else {
		sql += ` AND in_trash = FALSE AND trashed_under = FALSE`
	}
	switch q.Order {
	case BySidebar:
		if q.After != nil {
			sql += ` AND (position, id) > (` + arg(q.After.Position) + `, ` + arg(q.After.ID) + `)`
		}
		sql += ` ORDER BY position, id`
	default:
		if q.After != nil {
			sql += ` AND (edited_ms, id) < (` + arg(q.After.EditedMs) + `, ` + arg(q.After.ID) + `)`
		}
		sql += ` ORDER BY edited_ms DESC, id DESC`
	}
	sql += ` LIMIT ` + arg(q.Limit)
	return sql, a.List
}

// Key is n's position in a listing of order o.
func (o NodeOrder) Key(n *quire.Node) NodeKey {
	if o == BySidebar {
		return NodeKey{Position: n.Position, ID: n.ID}
	}
	return NodeKey{EditedMs: n.EditedMs, ID: n.ID}
}
