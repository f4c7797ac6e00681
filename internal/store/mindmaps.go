package store

import (
	"context"
	"database/sql"
	"strings"

	"github.com/quire-dev/quire/internal/quire"
)

// Mind maps: the mind_maps row beside the map's node, and its nodes in mind_map_nodes. Every
// edit reads and writes single rows on the (mind_map_id, id) key or the (mind_map_id, parent_id,
// position) index; only a read of the whole map walks every row.

// The recursive steps below join the queue CROSS JOIN the table: SQLite then keeps the queue's
// row as the outer loop and searches the table on its index. With parameters instead of
// literals, its planner otherwise scans every node of the map for each row of the queue.

// mindMapWalkLimit bounds the walks up and down a mind map's tree: above the depth limit, so a
// walk that reaches it reports "too deep" instead of running on.
const mindMapWalkLimit = 1000

// InsertMindMap stores the row of a new mind map.
func (tx *Tx) InsertMindMap(ctx context.Context, m *quire.MindMap) error {
	_, err := tx.tx.ExecContext(ctx, `INSERT INTO mind_maps (id, root_id, settings, node_count) VALUES ($1, $2, $3, $4)`,
		m.ID, m.RootID, string(m.Settings), m.NodeCount)
	return err
}

// MindMap reads the row of mind map id inside the transaction, or not_found.
func (tx *Tx) MindMap(ctx context.Context, id string) (*quire.MindMap, error) {
	return mindMap(ctx, tx.tx, id)
}

func mindMap(ctx context.Context, q querier, id string) (*quire.MindMap, error) {
	m := &quire.MindMap{}
	var settings []byte
	err := q.QueryRowContext(ctx, `SELECT id, root_id, settings, node_count FROM mind_maps WHERE id = $1`, id).
		Scan(&m.ID, &m.RootID, &settings, &m.NodeCount)
	if err != nil {
		return nil, notFoundIf(err, "mind map "+id)
	}
	m.Settings = settings
	return m, nil
}

// UpdateMindMap writes a mind map's settings and node count.
func (tx *Tx) UpdateMindMap(ctx context.Context, m *quire.MindMap) error {
	_, err := tx.tx.ExecContext(ctx, `UPDATE mind_maps SET settings = $2, node_count = $3 WHERE id = $1`,
		m.ID, string(m.Settings), m.NodeCount)
	return err
}

// InsertMindMapNodes stores new nodes of mind map mapID, with one multi-row statement per 500.
func (tx *Tx) InsertMindMapNodes(ctx context.Context, mapID string, nodes []*quire.MindMapNode) error {
	const cols, batchSize = 7, 500
	for start := 0; start < len(nodes); start += batchSize {
		batch := nodes[start:min(start+batchSize, len(nodes))]
		var sb strings.Builder
		sb.WriteString(`INSERT INTO mind_map_nodes (mind_map_id, id, parent_id, position, text, color, collapsed) VALUES `)
		args := make([]any, 0, len(batch)*cols)
		for i, n := range batch {
			if i > 0 {
				sb.WriteString(", ")
			}
			tx.values(&sb, i*cols, cols)
			args = append(args, mapID, n.ID, nullString(n.ParentID), n.Position, n.Text, n.Color, n.Collapsed)
		}
		if _, err := tx.tx.ExecContext(ctx, sb.String(), args...); err != nil {
			return err
		}
	}
	return nil
}

const mindMapNodeColumns = `id, parent_id, position, text, color, collapsed`

func scanMindMapNode(row interface{ Scan(...any) error }) (*quire.MindMapNode, error) {
	n := &quire.MindMapNode{}
	var parent sql.NullString
	if err := row.Scan(&n.ID, &parent, &n.Position, &n.Text, &n.Color, &n.Collapsed); err != nil {
		return nil, err
	}
	n.ParentID = parent.String
	return n, nil
}

// MindMapNode reads node id of mind map mapID, or not_found.
func (tx *Tx) MindMapNode(ctx context.Context, mapID, id string) (*quire.MindMapNode, error) {
	n, err := scanMindMapNode(tx.tx.QueryRowContext(ctx, `SELECT `+mindMapNodeColumns+`
		FROM mind_map_nodes WHERE mind_map_id = $1 AND id = $2`, mapID, id))
	if err != nil {
		return nil, notFoundIf(err, "mind map node "+id)
	}
	return n, nil
}

// UpdateMindMapNode writes one node's parent, position, text, color and collapsed state.
func (tx *Tx) UpdateMindMapNode(ctx context.Context, mapID string, n *quire.MindMapNode) error {
	_, err := tx.tx.ExecContext(ctx, `UPDATE mind_map_nodes SET parent_id = $3, position = $4, text = $5,
		color = $6, collapsed = $7 WHERE mind_map_id = $1 AND id = $2`,
		mapID, n.ID, nullString(n.ParentID), n.Position, n.Text, n.Color, n.Collapsed)
	return err
}

// MindMapChildBounds returns the positions of the first and last children of parent ("" when
// it has none), read on the children index.
func (tx *Tx) MindMapChildBounds(ctx context.Context, mapID, parent string) (first, last string, err error) {
	err = tx.tx.QueryRowContext(ctx, `SELECT COALESCE(MIN(position), ''), COALESCE(MAX(position), '')
		FROM mind_map_nodes WHERE mind_map_id = $1 AND parent_id = $2`, mapID, parent).Scan(&first, &last)
	return first, last, err
}

// NextMindMapSibling is the position of the first child of parent after pos ("" when none).
func (tx *Tx) NextMindMapSibling(ctx context.Context, mapID, parent, pos string) (string, error) {
	var next string
	err := tx.tx.QueryRowContext(ctx, `SELECT COALESCE(MIN(position), '') FROM mind_map_nodes
		WHERE mind_map_id = $1 AND parent_id = $2 AND position > $3`, mapID, parent, pos).Scan(&next)
	return next, err
}

// MindMapAncestry walks up from node id to the root: depth is the number of nodes on the way,
// id and the root included (0 when id does not exist), and through reports whether node probe
// is one of them.
func (tx *Tx) MindMapAncestry(ctx context.Context, mapID, id, probe string) (depth int, through bool, err error) {
	err = tx.tx.QueryRowContext(ctx, `
		WITH RECURSIVE up (id, parent_id, depth) AS (
			SELECT id, parent_id, 1 FROM mind_map_nodes WHERE mind_map_id = $1 AND id = $2
			UNION ALL
			SELECT n.id, n.parent_id, up.depth + 1
			FROM up CROSS JOIN mind_map_nodes n
			WHERE n.mind_map_id = $1 AND n.id = up.parent_id AND up.depth < $4
		)
		SELECT COALESCE(MAX(depth), 0), COALESCE(MAX(CASE WHEN id = $3 THEN 1 ELSE 0 END), 0) = 1 FROM up`,
		mapID, id, probe, mindMapWalkLimit).Scan(&depth, &through)
	return depth, through, err
}

// MindMapSubtreeHeight is the number of levels of node id's subtree (1 for a leaf), or a number
// above limit when it has more than limit: the walk stops there.
func (tx *Tx) MindMapSubtreeHeight(ctx context.Context, mapID, id string, limit int) (int, error) {
	var h int
	err := tx.tx.QueryRowContext(ctx, `
		WITH RECURSIVE down (id, depth) AS (
			SELECT id, 1 FROM mind_map_nodes WHERE mind_map_id = $1 AND id = $2
			UNION ALL
			SELECT c.id, down.depth + 1
			FROM down CROSS JOIN mind_map_nodes c
			WHERE c.mind_map_id = $1 AND c.parent_id = down.id AND down.depth <= $3
		)
		SELECT COALESCE(MAX(depth), 0) FROM down`, mapID, id, min(limit, mindMapWalkLimit)).Scan(&h)
	return h, err
}

// DeleteMindMapSubtree removes node id and every node beneath it, and returns how many.
func (tx *Tx) DeleteMindMapSubtree(ctx context.Context, mapID, id string) (int, error) {
	res, err := tx.tx.ExecContext(ctx, `
		WITH RECURSIVE sub (id, depth) AS (
			SELECT id, 1 FROM mind_map_nodes WHERE mind_map_id = $1 AND id = $2
			UNION ALL
			SELECT c.id, sub.depth + 1
			FROM sub CROSS JOIN mind_map_nodes c
			WHERE c.mind_map_id = $1 AND c.parent_id = sub.id AND sub.depth < $3
		)
		DELETE FROM mind_map_nodes WHERE mind_map_id = $1 AND id IN (SELECT id FROM sub)`,
		mapID, id, mindMapWalkLimit)
	if err != nil {
		return 0, err
	}
	k, err := res.RowsAffected()
	return int(k), err
}

// MindMapSnapshot reads mind map id of workspace ws whole, from one snapshot, so that the node
// (and its version), the settings and the tree agree: the node, the map's row, and its nodes
// with siblings in order. A node that is not a mind map answers not_found.
func (s *Store) MindMapSnapshot(ctx context.Context, ws, id string) (*quire.Node, *quire.MindMap, []*quire.MindMapNode, error) {
	return s.readMindMap(ctx, ws, id, true)
}

// MindMapHead is MindMapSnapshot without the nodes.
func (s *Store) MindMapHead(ctx context.Context, ws, id string) (*quire.Node, *quire.MindMap, error) {
	n, m, _, err := s.readMindMap(ctx, ws, id, false)
	return n, m, err
}

func (s *Store) readMindMap(ctx context.Context, ws, id string, withNodes bool) (*quire.Node, *quire.MindMap, []*quire.MindMapNode, error) {
	var opts *sql.TxOptions
	if s.engine == Postgres {
		opts = &sql.TxOptions{Isolation: sql.LevelRepeatableRead, ReadOnly: true}
	}
	rtx, err := s.read.BeginTx(ctx, opts)
	if err != nil {
		return nil, nil, nil, err
	}
	defer func() { _ = rtx.Rollback() }()
	n, err := node(ctx, rtx, ws, id)
	if err != nil {
		return nil, nil, nil, err
	}
	if n.PageType != quire.PageTypeMindMap {
		return nil, nil, nil, quire.NotFound("mind map " + id)
	}
	m, err := mindMap(ctx, rtx, id)
	if err != nil || !withNodes {
		return n, m, nil, err
	}
	rows, err := rtx.QueryContext(ctx, `SELECT `+mindMapNodeColumns+` FROM mind_map_nodes
		WHERE mind_map_id = $1 ORDER BY parent_id, position`, id)
	if err != nil {
		return nil, nil, nil, err
	}
	defer rows.Close()
	nodes := make([]*quire.MindMapNode, 0, m.NodeCount)
	for rows.Next() {
		mn, err := scanMindMapNode(rows)
		if err != nil {
			return nil, nil, nil, err
		}
		nodes = append(nodes, mn)
	}
	if err := rows.Err(); err != nil {
		return nil, nil, nil, err
	}
	return n, m, nodes, nil
}
