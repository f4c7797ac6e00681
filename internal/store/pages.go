package store

import (
	"context"
	"database/sql"
	"strings"

	"github.com/quire-dev/quire/internal/quire"
)

const nodeColumns = `id, workspace_id, object, page_type, parent_type, parent_id, position, title, title_plain,
	properties, description, icon, cover, is_inline, in_trash, trashed_under, version,
	created_ms, created_by, edited_ms, edited_by`

func scanNode(row interface{ Scan(...any) error }) (*quire.Node, error) {
	n := &quire.Node{}
	var parent sql.NullString
	var title, props, desc, icon, cover []byte
	err := row.Scan(&n.ID, &n.WorkspaceID, &n.Object, &n.PageType, &n.ParentType, &parent, &n.Position,
		&title, &n.TitlePlain, &props, &desc, &icon, &cover, &n.IsInline, &n.InTrash, &n.TrashedUnder,
		&n.Version, &n.CreatedMs, &n.CreatedBy, &n.EditedMs, &n.EditedBy)
	if err != nil {
		return nil, err
	}
	n.Title, n.Properties, n.Description = title, props, desc
	return withParentAndFiles(n, parent, icon, cover), nil
}

// withParentAndFiles sets n's parent (NULL: none) and its icon and cover (empty: none) as read.
func withParentAndFiles(n *quire.Node, parent sql.NullString, icon, cover []byte) *quire.Node {
	n.ParentID = parent.String
	if len(icon) > 0 {
		n.Icon = icon
	}
	if len(cover) > 0 {
		n.Cover = cover
	}
	return n
}

// scanNodes reads every row of a query of nodeColumns, in order.
func scanNodes(rows *sql.Rows, err error) ([]*quire.Node, error) {
	return scanAll(rows, err, scanNode)
}

// jsonArg passes canonical JSON as text (the column type on both engines); nil is SQL NULL.
func jsonArg(b []byte) any {
	if b == nil {
		return nil
	}
	return string(b)
}

func nullString(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// Node returns node id of workspace ws, or not_found.
func (s *Store) Node(ctx context.Context, ws, id string) (*quire.Node, error) {
	var n *quire.Node
	err := s.hotRow(ctx, nodeQuery, []string{id, ws}, func(row interface{ Scan(...any) error }) (err error) {
		n, err = scanNode(row)
		return err
	})
	if err != nil {
		return nil, notFoundIf(err, "page or database "+id)
	}
	return n, nil
}

// nodeQuery reads node $1 of workspace $2 on the primary key.
const nodeQuery = `SELECT ` + nodeColumns + ` FROM nodes WHERE id = $1 AND workspace_id = $2`

func node(ctx context.Context, q querier, ws, id string) (*quire.Node, error) {
	n, err := scanNode(q.QueryRowContext(ctx, nodeQuery, id, ws))
	if err != nil {
		return nil, notFoundIf(err, "page or database "+id)
	}
	return n, nil
}

// Node reads a node inside the transaction.
func (tx *Tx) Node(ctx context.Context, ws, id string) (*quire.Node, error) {
	return node(ctx, tx.tx, ws, id)
}

// InsertNode stores a new node.
func (tx *Tx) InsertNode(ctx context.Context, n *quire.Node) error {
	_, err := tx.tx.ExecContext(ctx, `INSERT INTO nodes (`+nodeColumns+`)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21)`,
		appendNodeArgs(make([]any, 0, 21), n)...)
	return err
}

// appendNodeArgs appends node n's values for nodeColumns, in their order.
func appendNodeArgs(args []any, n *quire.Node) []any {
	return append(args, n.ID, n.WorkspaceID, n.Object, n.PageType, n.ParentType, nullString(n.ParentID), n.Position,
		jsonArg(n.Title), n.TitlePlain, jsonArg(n.Properties), jsonArg(n.Description), jsonArg(n.Icon), jsonArg(n.Cover),
		n.IsInline, n.InTrash, n.TrashedUnder, n.Version, n.CreatedMs, n.CreatedBy, n.EditedMs, n.EditedBy)
}

// UpdateNode writes n's mutable fields and increments its version, provided the stored version
// is still n.Version: a concurrent change in between answers conflict and writes nothing.
func (tx *Tx) UpdateNode(ctx context.Context, n *quire.Node) error {
	res, err := tx.tx.ExecContext(ctx, `UPDATE nodes SET parent_type = $3, parent_id = $4, position = $5,
		title = $6, title_plain = $7, properties = $8, description = $9, icon = $10, cover = $11,
		is_inline = $12, in_trash = $13, trashed_under = $14, version = version + 1, edited_ms = $15, edited_by = $16
		WHERE id = $1 AND version = $2`,
		n.ID, n.Version, n.ParentType, nullString(n.ParentID), n.Position, jsonArg(n.Title), n.TitlePlain,
		jsonArg(n.Properties), jsonArg(n.Description), jsonArg(n.Icon), jsonArg(n.Cover),
		n.IsInline, n.InTrash, n.TrashedUnder, n.EditedMs, n.EditedBy)
	return nextVersion(n, res, err)
}

// nextVersion is the end of an UPDATE of node n over its version: conflict when no row had that
// version any more (a concurrent change in between), else n moves to its next version.
func nextVersion(n *quire.Node, res sql.Result, err error) error {
	if err != nil {
		return err
	}
	if k, _ := res.RowsAffected(); k == 0 {
		return quire.Conflict("The page changed while this request ran; read it again and retry.")
	}
	n.Version++
	return nil
}

// LockNode holds node id's row until the transaction ends (PostgreSQL; SQLite has one writer
// already), so that what the transaction reads of the node next stays true until it writes:
// concurrent writes to one node wait for each other instead of failing their version check.
// Writers lock the node's row before any block row, so that they never deadlock.
func (tx *Tx) LockNode(ctx context.Context, id string) error {
	if tx.engine != Postgres {
		return nil
	}
	_, err := tx.tx.ExecContext(ctx, `SELECT 1 FROM nodes WHERE id = $1 FOR UPDATE`, id)
	return err
}

// LockTree serializes changes to the shape of a workspace's tree (moves), so that two moves
// racing can never make a cycle. SQLite has one writer already; PostgreSQL takes a transaction
// advisory lock.
func (tx *Tx) LockTree(ctx context.Context, ws string) error {
	if tx.engine != Postgres {
		return nil
	}
	_, err := tx.tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock(hashtextextended($1, 0))`, "tree:"+ws)
	return err
}

// LockTopLevel serializes the placing of new nodes at the top level of workspace ws until the
// transaction ends, so that two concurrent writes never compute the same position key (below a
// page, locking the page's row does that). SQLite has one writer already; PostgreSQL takes a
// transaction advisory lock.
func (tx *Tx) LockTopLevel(ctx context.Context, ws string) error {
	if tx.engine != Postgres {
		return nil
	}
	_, err := tx.tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock(hashtextextended($1, 0))`, "top:"+ws)
	return err
}

// LockedNode is Node and LockNode in one statement: node id of workspace ws, read once its row
// is held.
func (tx *Tx) LockedNode(ctx context.Context, ws, id string) (*quire.Node, error) {
	return tx.nodeLocking(ctx, ws, id, tx.lockRows())
}

// nodeLocking reads node id of workspace ws with lock, a locking clause for its row ("" for
// none, on SQLite).
func (tx *Tx) nodeLocking(ctx context.Context, ws, id, lock string) (*quire.Node, error) {
	n, err := scanNode(tx.tx.QueryRowContext(ctx, `SELECT `+nodeColumns+` FROM nodes WHERE id = $1 AND workspace_id = $2`+lock, id, ws))
	if err != nil {
		return nil, notFoundIf(err, "page or database "+id)
	}
	return n, nil
}

// TouchNode records an edit of a node's content (its blocks): last edited time and user, and
// a new version, since the node's representation changed.
func (tx *Tx) TouchNode(ctx context.Context, id string, ms int64, by string) error {
	_, err := tx.tx.ExecContext(ctx, `UPDATE nodes SET version = version + 1, edited_ms = $2, edited_by = $3 WHERE id = $1`, id, ms, by)
	return err
}

// RefreshTrashedUnder recomputes trashed_under for every descendant of node root, after root was
// trashed, restored or moved. One recursive statement walks the subtree on the children index.
func (tx *Tx) RefreshTrashedUnder(ctx context.Context, root string) error {
	_, err := tx.tx.ExecContext(ctx, `
		WITH RECURSIVE sub (id, under, depth) AS (
			SELECT c.id, (p.in_trash OR p.trashed_under), 1
			FROM nodes c JOIN nodes p ON p.id = c.parent_id WHERE c.parent_id = $1
			UNION ALL
			SELECT c.id, (sub.under OR p.in_trash), sub.depth + 1
			FROM sub JOIN nodes p ON p.id = sub.id JOIN nodes c ON c.parent_id = p.id
			WHERE sub.depth < $2
		)
		UPDATE nodes SET trashed_under = sub.under FROM sub WHERE nodes.id = sub.id AND nodes.trashed_under <> sub.under`,
		root, maxDepth)
	return err
}

// IsDescendant reports whether node id lies strictly beneath node ancestor (walking up from id).
func (tx *Tx) IsDescendant(ctx context.Context, id, ancestor string) (bool, error) {
	var ok bool
	err := tx.tx.QueryRowContext(ctx, `
		WITH RECURSIVE up (id, parent_id, depth) AS (
			SELECT id, parent_id, 0 FROM nodes WHERE id = $1
			UNION ALL
			SELECT n.id, n.parent_id, up.depth + 1 FROM nodes n JOIN up ON n.id = up.parent_id WHERE up.depth < $3
		)
		SELECT EXISTS (SELECT 1 FROM up WHERE id = $2 AND depth > 0)`, id, ancestor, maxDepth).Scan(&ok)
	return ok, err
}

// The reads of top-level positions, on nodes_top_level. It holds top-level nodes only
// (migration 00038): every statement that reads it names parent_type = 'workspace' as a literal.
const (
	lastTopLevel = `SELECT COALESCE(MAX(position), '') FROM nodes
		WHERE workspace_id = $1 AND parent_type = 'workspace'`
	nextTopLevel = `SELECT COALESCE(MIN(position), '') FROM nodes
		WHERE workspace_id = $1 AND parent_type = 'workspace' AND position > $2`
	topLevelBefore = `SELECT COALESCE(MAX(position), '') FROM nodes
		WHERE workspace_id = $1 AND parent_type = 'workspace' AND position < $2`
	topLevelSibling = `SELECT id FROM nodes WHERE workspace_id = $1 AND parent_type = 'workspace' AND in_trash = FALSE AND `
)

// LastTopLevelPosition is the position of the workspace's last top-level node ("" when none).
func (tx *Tx) LastTopLevelPosition(ctx context.Context, ws string) (string, error) {
	var pos string
	err := tx.tx.QueryRowContext(ctx, lastTopLevel, ws).Scan(&pos)
	return pos, err
}

// NextTopLevelPosition is the position of the first top-level node after pos ("" when none).
func (tx *Tx) NextTopLevelPosition(ctx context.Context, ws, pos string) (string, error) {
	var next string
	err := tx.tx.QueryRowContext(ctx, nextTopLevel, ws, pos).Scan(&next)
	return next, err
}

// qualify prefixes every column of a comma-separated list with prefix ("n.").
func qualify(prefix, columns string) string {
	cols := strings.Split(columns, ",")
	for i, c := range cols {
		cols[i] = prefix + strings.TrimSpace(c)
	}
	return strings.Join(cols, ", ")
}
