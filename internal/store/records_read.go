package store

import (
	"database/sql"

	"github.com/quire-dev/quire/internal/quire"
)

// nodeRead is a column list of nodes and the scan of one row of it.
type nodeRead struct {
	columns string
	scan    func(row interface{ Scan(...any) error }) (*quire.Node, error)
}

// fullNode reads every column of a node (nodeColumns).
var fullNode = nodeRead{nodeColumns, scanNode}

// recordColumns are the columns of a record that a database query answers with: its answer
// has no title (a record's title is among its properties), no description, position, is_inline,
// trashed_under or version. Scanning the seven left out, two of them texts copied twice on
// their way out of the driver, was a share of the query's CPU for nothing (issue 15).
const recordColumns = `id, workspace_id, object, page_type, parent_type, parent_id, properties, icon, cover, in_trash,
	created_ms, created_by, edited_ms, edited_by`

// queryRecord reads a record as a query answers it; the columns it leaves out stay zero.
var queryRecord = nodeRead{recordColumns, scanRecord}

func scanRecord(row interface{ Scan(...any) error }) (*quire.Node, error) {
	n := &quire.Node{}
	var parent sql.NullString
	var props, icon, cover []byte
	err := row.Scan(&n.ID, &n.WorkspaceID, &n.Object, &n.PageType, &n.ParentType, &parent, &props, &icon, &cover,
		&n.InTrash, &n.CreatedMs, &n.CreatedBy, &n.EditedMs, &n.EditedBy)
	if err != nil {
		return nil, err
	}
	n.ParentID, n.Properties = parent.String, props
	if len(icon) > 0 {
		n.Icon = icon
	}
	if len(cover) > 0 {
		n.Cover = cover
	}
	return n, nil
}
