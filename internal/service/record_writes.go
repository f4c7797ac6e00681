package service

import (
	"context"

	"github.com/quire-dev/quire/internal/quire"
	"github.com/quire-dev/quire/internal/store"
)

// recordWrites takes the rows that createRecord and updateRecord store for database db: at
// once, or, for a mutation batch (gathered true), gathered and written by flush at the batch's
// end in a few multi-row statements. Gathering is right only where nothing the batch reads later
// depends on them: readTargets keeps the records' state in memory, new records' numbers come
// from a counter, and a database that a dual relation syncs into writes at once.
type recordWrites struct {
	tx       *store.Tx
	db       string
	gathered bool

	next     int64            // the next record number; 0 until read
	numbers  map[string]int64 // the numbers given to new records
	replaced map[store.RecordProperty]*rewrite
	order    []store.RecordProperty // replaced's keys, in the order first written
	created  []store.RecordRows
	nodes    []*quire.Node // new records, inserted last so that FTS5 flushes their search rows once
}

// rewrite is a property of a record that the batch rewrites: its rows before the batch, and
// after its last operation.
type rewrite struct {
	was, is []store.RecordValue
}

func writesAtOnce(tx *store.Tx, db string) *recordWrites { return &recordWrites{tx: tx, db: db} }

func gatheredWrites(tx *store.Tx, db string) *recordWrites {
	return &recordWrites{tx: tx, db: db, gathered: true, replaced: map[store.RecordProperty]*rewrite{},
		numbers: map[string]int64{}}
}

// number returns the number of new record id: one more than the database's highest, read once.
func (w *recordWrites) number(ctx context.Context, id string) (int64, error) {
	if !w.gathered {
		return w.tx.NextRecordNumber(ctx, w.db)
	}
	if w.next == 0 {
		n, err := w.tx.NextRecordNumber(ctx, w.db)
		if err != nil {
			return 0, err
		}
		w.next = n
	}
	w.numbers[id] = w.next
	w.next++
	return w.next - 1, nil
}

// insertNode stores new record n, now or last of the batch; later is false when something
// written next needs its row (content blocks, file uses).
func (w *recordWrites) insertNode(ctx context.Context, n *quire.Node, later bool) error {
	if !w.gathered || !later {
		return w.tx.InsertNode(ctx, n)
	}
	c := *n // the caller renders n, which replaces its properties, after the batch
	w.nodes = append(w.nodes, &c)
	return nil
}

// insert stores the rows of new record id.
func (w *recordWrites) insert(ctx context.Context, id string, rows []store.RecordValue) error {
	if !w.gathered {
		return w.tx.InsertRecordValues(ctx, w.db, id, rows)
	}
	w.created = append(w.created, store.RecordRows{RecordID: id, Rows: rows})
	return nil
}

// replace replaces the rows of property prop of record id, was, with rows is.
func (w *recordWrites) replace(ctx context.Context, id, prop string, was, is []store.RecordValue) error {
	if !w.gathered {
		return w.tx.ReplacePropertyValues(ctx, w.db, id, prop, is)
	}
	k := store.RecordProperty{RecordID: id, PropertyID: prop}
	if r, ok := w.replaced[k]; ok {
		r.is = is
		return nil
	}
	w.order = append(w.order, k)
	w.replaced[k] = &rewrite{was: was, is: is}
	return nil
}

// flush writes what was gathered: the rewritten properties' rows, then the new records' rows,
// then their nodes rows.
//
// A property with one row before and after (a number, a select, a date …) has that row updated
// in place, setting only the columns that change: SQLite rewrites a row's entry in every index
// over a column an UPDATE sets, and a number's row is also in the text index, under NULL. Any
// other rewrite deletes the property's rows, in one statement for the batch, and inserts the new
// ones with the new records'.
func (w *recordWrites) flush(ctx context.Context) error {
	if !w.gathered {
		return nil
	}
	var deleted []store.RecordProperty
	recs := make([]store.RecordRows, 0, len(w.order)+len(w.created))
	for _, k := range w.order {
		r := w.replaced[k]
		if sameRows(r.was, r.is) {
			continue // changed and changed back within the batch
		}
		if len(r.was) == 1 && len(r.is) == 1 && r.was[0].Ord == 0 && r.is[0].Ord == 0 {
			was, is := r.was[0], r.is[0]
			ok, err := w.tx.UpdateRecordValue(ctx, k, is, !sameText(was.Text, is.Text), !sameNum(was.Num, is.Num))
			if err != nil {
				return err
			}
			if ok {
				continue
			}
		}
		deleted = append(deleted, k)
		recs = append(recs, store.RecordRows{RecordID: k.RecordID, Rows: r.is})
	}
	if err := w.tx.DeleteRows(ctx, deleted); err != nil {
		return err
	}
	if err := w.tx.InsertRows(ctx, w.db, append(recs, w.created...)); err != nil {
		return err
	}
	return w.tx.InsertNodes(ctx, w.nodes)
}

func sameRows(a, b []store.RecordValue) bool {
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
