package store

import (
	"context"
	"strings"

	"github.com/quire-dev/quire/internal/quire"
)

// A mutation batch writes its records' rows in a few multi-row statements at its end, rather
// than a handful per operation: on SQLite each statement is compiled or at least stepped
// through its own savepoint, and once a new record has put rows into the FTS5 search indexes,
// every later statement's savepoint flushed them to disk as a new segment.

// RecordRows are rows of record_values of one record.
type RecordRows struct {
	RecordID string
	Rows     []RecordValue
}

// RecordProperty names the rows of one property of one record.
type RecordProperty struct {
	RecordID, PropertyID string
}

// values writes the placeholders of one row of cols values, numbered after n earlier ones.
func (tx *Tx) values(sb *strings.Builder, n, cols int) {
	sb.WriteByte('(')
	for c := range cols {
		if c > 0 {
			sb.WriteString(", ")
		}
		sb.WriteString(tx.placeholder(n + c + 1))
	}
	sb.WriteByte(')')
}

// InsertRows stores the rows of records recs of database db, 500 rows per statement: those of
// the properties the database keeps rows for (records_indexed.go); the others are left out.
func (tx *Tx) InsertRows(ctx context.Context, db string, recs []RecordRows) error {
	const cols, most = 6, 500
	recs, err := tx.keptRows(ctx, db, recs)
	if err != nil {
		return err
	}
	var sb strings.Builder
	var args []any
	flush := func() error {
		if len(args) == 0 {
			return nil
		}
		_, err := tx.tx.ExecContext(ctx, sb.String(), args...)
		sb.Reset()
		args = args[:0]
		return err
	}
	for _, rec := range recs {
		for _, r := range rec.Rows {
			if len(args) == 0 {
				sb.WriteString(`INSERT INTO record_values (database_id, record_id, property_id, ord, v_text, v_num) VALUES `)
			} else {
				sb.WriteString(", ")
			}
			tx.values(&sb, len(args), cols)
			args = append(args, db, rec.RecordID, r.PropertyID, r.Ord, nullText(r.Text), nullNum(r.Num))
			if len(args) == most*cols {
				if err := flush(); err != nil {
					return err
				}
			}
		}
	}
	return flush()
}

// DeleteRows deletes every row of the properties of records keys, 250 pairs per statement, each
// pair found on the primary key.
func (tx *Tx) DeleteRows(ctx context.Context, keys []RecordProperty) error {
	const most = 250
	for start := 0; start < len(keys); start += most {
		batch := keys[start:min(start+most, len(keys))]
		var sb strings.Builder
		sb.WriteString(`DELETE FROM record_values WHERE (record_id, property_id) IN (VALUES `)
		args := make([]any, 0, 2*len(batch))
		for i, k := range batch {
			if i > 0 {
				sb.WriteString(", ")
			}
			tx.values(&sb, len(args), 2)
			args = append(args, k.RecordID, k.PropertyID)
		}
		sb.WriteByte(')')
		if _, err := tx.tx.ExecContext(ctx, sb.String(), args...); err != nil {
			return err
		}
	}
	return nil
}

// RowChange is a property of a record whose rows a batch rewrites: its rows before the batch,
// and after it.
type RowChange struct {
	RecordProperty
	Was, Is []RecordValue
}

// WriteRecordRows writes a batch's rows of database db: those of the properties changes
// rewrite, then those of new records created.
//
// On SQLite a property with one row before and after (a number, a select, a date …) has that
// row updated in place, setting only the columns that change: SQLite rewrites a row's entry in
// every index over a column an UPDATE sets, and a number's row is also in the text index,
// under NULL. Any other change deletes the property's rows, in one statement for the batch,
// and inserts the new ones with the new records'. PostgreSQL rewrites every change that way: an
// UPDATE writes a new version of the row and its index entries as an INSERT does, and a
// statement per row was a round trip per row.
//
// Only the properties the database keeps rows for are written (records_indexed.go): their set is
// read, under the database's shared indexing lock on PostgreSQL, before anything is deleted.
func (tx *Tx) WriteRecordRows(ctx context.Context, db string, changes []RowChange, created []RecordRows) error {
	kept, err := tx.indexedOf(ctx, db)
	if err != nil {
		return err
	}
	var deleted []RecordProperty
	recs := make([]RecordRows, 0, len(changes)+len(created))
	for _, c := range changes {
		if sameRows(c.Was, c.Is) || !kept[c.PropertyID] {
			continue // changed and changed back within the batch, or a property without rows
		}
		if tx.engine == SQLite && len(c.Was) == 1 && len(c.Is) == 1 && c.Was[0].Ord == 0 && c.Is[0].Ord == 0 {
			was, is := c.Was[0], c.Is[0]
			ok, err := tx.updateRecordValue(ctx, c.RecordProperty, is, !sameText(was.Text, is.Text), !sameNum(was.Num, is.Num))
			if err != nil {
				return err
			}
			if ok {
				continue
			}
		}
		deleted = append(deleted, c.RecordProperty)
		recs = append(recs, RecordRows{RecordID: c.RecordID, Rows: c.Is})
	}
	if err := tx.DeleteRows(ctx, deleted); err != nil {
		return err
	}
	return tx.InsertRows(ctx, db, append(recs, created...))
}

func sameRows(a, b []RecordValue) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].PropertyID != b[i].PropertyID || a[i].Ord != b[i].Ord || !sameText(a[i].Text, b[i].Text) || !sameNum(a[i].Num, b[i].Num) {
			return false
		}
	}
	return true
}

func sameText(a, b *string) bool { return (a == nil) == (b == nil) && (a == nil || *a == *b) }

func sameNum(a, b *float64) bool { return (a == nil) == (b == nil) && (a == nil || *a == *b) }

// updateRecordValue sets the row at ord 0 of property k to v, writing only its text when text
// is set and only its number when num is. ok is false, and nothing is written, when the record
// has no such row.
func (tx *Tx) updateRecordValue(ctx context.Context, k RecordProperty, v RecordValue, text, num bool) (ok bool, err error) {
	args := []any{k.RecordID, k.PropertyID}
	var set string
	switch {
	case text && num:
		set, args = `v_text = $3, v_num = $4`, append(args, nullText(v.Text), nullNum(v.Num))
	case text:
		set, args = `v_text = $3`, append(args, nullText(v.Text))
	case num:
		set, args = `v_num = $3`, append(args, nullNum(v.Num))
	default:
		return true, nil
	}
	res, err := tx.tx.ExecContext(ctx, `UPDATE record_values SET `+set+` WHERE record_id = $1 AND property_id = $2 AND ord = 0`, args...)
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n == 1, err
}

// InsertNodes inserts nodes, 100 per statement: a mutation batch's new records in one (on
// PostgreSQL one round trip, where 40 a statement took three). 2,100 parameters, within both
// engines' limits (SQLite's 32,766, PostgreSQL's 65,535).
func (tx *Tx) InsertNodes(ctx context.Context, nodes []*quire.Node) error {
	const cols, most = 21, 100
	for start := 0; start < len(nodes); start += most {
		batch := nodes[start:min(start+most, len(nodes))]
		var sb strings.Builder
		sb.WriteString(`INSERT INTO nodes (` + nodeColumns + `) VALUES `)
		args := make([]any, 0, cols*len(batch))
		for i, n := range batch {
			if i > 0 {
				sb.WriteString(", ")
			}
			tx.values(&sb, len(args), cols)
			args = appendNodeArgs(args, n)
		}
		if _, err := tx.tx.ExecContext(ctx, sb.String(), args...); err != nil {
			return err
		}
	}
	return nil
}

// UpdateRecordNode writes a record's title and properties and its edit, as UpdateNode does but
// setting only those columns: SQLite rewrites a row's entries in every index over a column that
// an UPDATE sets, changed or not, and UpdateNode sets columns of all eight of nodes' indexes.
func (tx *Tx) UpdateRecordNode(ctx context.Context, n *quire.Node) error {
	res, err := tx.tx.ExecContext(ctx, `UPDATE nodes SET title = $3, title_plain = $4, properties = $5,
		version = version + 1, edited_ms = $6, edited_by = $7
		WHERE id = $1 AND version = $2`,
		n.ID, n.Version, jsonArg(n.Title), n.TitlePlain, jsonArg(n.Properties), n.EditedMs, n.EditedBy)
	return nextVersion(n, res, err)
}

// RecordEdit is a record's node as a batch leaves it (UpdateRecordNode's columns), written
// over the stored version From.
type RecordEdit struct {
	Node *quire.Node
	From int64
}

// UpdateRecordNodes writes edits (one per record), UpdateRecordNode's columns of a hundred
// records per statement (a round trip per record on PostgreSQL), or answers conflict when one
// of the records is no longer at its From version.
func (tx *Tx) UpdateRecordNodes(ctx context.Context, edits []RecordEdit) error {
	if tx.engine == SQLite {
		// Measured: on SQLite a statement per record, prepared once, costs less.
		for _, e := range edits {
			n := e.Node
			res, err := tx.tx.ExecContext(ctx, `UPDATE nodes SET title = $3, title_plain = $4, properties = $5,
				version = $6, edited_ms = $7, edited_by = $8 WHERE id = $1 AND version = $2`,
				n.ID, e.From, jsonArg(n.Title), n.TitlePlain, jsonArg(n.Properties), n.Version, n.EditedMs, n.EditedBy)
			if err != nil {
				return err
			}
			if k, _ := res.RowsAffected(); k != 1 {
				return quire.Conflict("The page changed while this request ran; read it again and retry.")
			}
		}
		return nil
	}
	// The first row's parameters are cast: PostgreSQL types a VALUES list's parameters as text
	// otherwise.
	types := [...]string{"TEXT", "BIGINT", "TEXT", "TEXT", "TEXT", "BIGINT", "BIGINT", "TEXT"}
	const most = 100
	for start := 0; start < len(edits); start += most {
		batch := edits[start:min(start+most, len(edits))]
		var sb strings.Builder
		sb.WriteString(`UPDATE nodes SET title = v.column3, title_plain = v.column4, properties = v.column5,
			version = v.column6, edited_ms = v.column7, edited_by = v.column8 FROM (VALUES (`)
		for c, typ := range types {
			if c > 0 {
				sb.WriteString(", ")
			}
			sb.WriteString(`CAST(` + tx.placeholder(c+1) + ` AS ` + typ + `)`)
		}
		sb.WriteByte(')')
		args := make([]any, 0, len(types)*len(batch))
		for i, e := range batch {
			if i > 0 {
				sb.WriteString(", ")
				tx.values(&sb, len(args), len(types))
			}
			n := e.Node
			args = append(args, n.ID, e.From, jsonArg(n.Title), n.TitlePlain, jsonArg(n.Properties), n.Version, n.EditedMs, n.EditedBy)
		}
		sb.WriteString(`) AS v WHERE nodes.id = v.column1 AND nodes.version = v.column2`)
		res, err := tx.tx.ExecContext(ctx, sb.String(), args...)
		if err != nil {
			return err
		}
		if k, _ := res.RowsAffected(); k != int64(len(batch)) {
			return quire.Conflict("The page changed while this request ran; read it again and retry.")
		}
	}
	return nil
}
