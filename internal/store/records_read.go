package store

import (
	"fmt"

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

// recordScan reads rows of recordColumns into `any`s, as childScan reads a listing's: the
// driver's values are taken as it gave them, so a record's properties (2 KB in the speed
// scenario) are not copied a second time into a []byte by database/sql, nor its integers
// converted through reflection: 150 KB of a query's 800 KB of garbage on SQLite (issue 15).
// One serves every row of a statement.
type recordScan struct {
	vals   [14]any
	dest   [14]any // &vals[i]
	parent string  // a record's parent when its parent_id reads NULL: the walk's database (fetchColumns)
}

func newRecordScan() *recordScan {
	sc := &recordScan{}
	for i := range sc.vals {
		sc.dest[i] = &sc.vals[i]
	}
	return sc
}

// scanRecord reads one row of recordColumns.
func scanRecord(row interface{ Scan(...any) error }) (*quire.Node, error) {
	return newRecordScan().scan(row)
}

func (sc *recordScan) scan(row interface{ Scan(...any) error }) (*quire.Node, error) {
	if err := row.Scan(sc.dest[:]...); err != nil {
		return nil, err
	}
	n := &quire.Node{}
	var ok bool
	if n.ID, ok = childText(sc.vals[0]); !ok {
		return nil, fmt.Errorf("store: record: column 0 is %T", sc.vals[0])
	}
	return sc.node(n)
}

// fetched reads a walk's row of fetchColumns (recordColumns less the id, which the walk's scan
// returns: it read it for the record's position already).
func (sc *recordScan) fetched(scan func(dest ...any) (string, error)) (*quire.Node, error) {
	id, err := scan(sc.dest[1:]...)
	if err != nil {
		return nil, err
	}
	return sc.node(&quire.Node{ID: id})
}

// node fills n, its id set, from the scanned columns after the id.
func (sc *recordScan) node(n *quire.Node) (*quire.Node, error) {
	v := &sc.vals
	var ok [14]bool
	ok[0] = true
	n.WorkspaceID, ok[1] = childText(v[1])
	// object, page_type and parent_type are NOT NULL: a NULL is fetchColumns' NULLIF.
	n.Object, ok[2] = textOr(v[2], quire.ObjectPage)
	n.PageType, ok[3] = textOr(v[3], quire.PageTypePage)
	n.ParentType, ok[4] = textOr(v[4], quire.ParentDatabase)
	n.ParentID, ok[5] = textOr(v[5], sc.parent)
	n.Properties, ok[6] = keep(v[6])
	n.Icon, ok[7] = nullBytes(v[7])
	n.Cover, ok[8] = nullBytes(v[8])
	n.InTrash, ok[9] = childBool(v[9])
	n.CreatedMs, ok[10] = v[10].(int64)
	n.CreatedBy, ok[11] = childText(v[11])
	n.EditedMs, ok[12] = v[12].(int64)
	n.EditedBy, ok[13] = childText(v[13])
	for i, good := range ok {
		if !good {
			return nil, fmt.Errorf("store: record: column %d is %T", i, v[i])
		}
	}
	return n, nil
}

// textOr is a text column as the driver gave it, or null when it is NULL.
func textOr(v any, null string) (string, bool) {
	if v == nil {
		return null, true
	}
	return childText(v)
}

// nullBytes is keep for a column that may be NULL or empty (nil for either, as scanNode reads
// an icon or a cover).
func nullBytes(v any) ([]byte, bool) {
	if v == nil {
		return nil, true
	}
	b, ok := keep(v)
	if len(b) == 0 {
		b = nil
	}
	return b, ok
}
