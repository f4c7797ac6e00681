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

	next     int64                        // the next record number; 0 until read
	numbers  map[string]int64             // the numbers given to new records
	replaced map[store.RecordProperty]int // the index in changes of a property's change
	changes  []store.RowChange            // in the order first written
	created  []store.RecordRows
	edited   map[string]int     // the index in edits of a record's edit
	edits    []store.RecordEdit // records updated, in the order first updated
	nodes    []*quire.Node      // new records, inserted last so that FTS5 flushes their search rows once

	// shared is true when the batch holds its database's row only FOR SHARE (store.SharedNode):
	// its new records are numbered by flush, under store.LockRecordNumbers, after their nodes
	// rows are written; numbered holds their rows until then.
	shared   bool
	numbered []numberedRows
}

// numberedRows is a new record's rows once its number is known.
type numberedRows struct {
	id   string
	rows func(number int64) []store.RecordValue
}

func writesAtOnce(tx *store.Tx, db string) *recordWrites { return &recordWrites{tx: tx, db: db} }

func gatheredWrites(tx *store.Tx, db string) *recordWrites {
	return &recordWrites{tx: tx, db: db, gathered: true, replaced: map[store.RecordProperty]int{},
		numbers: map[string]int64{}, edited: map[string]int{}}
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

// updateNode writes record n's title, properties and edit (store.UpdateRecordNode) and steps
// its version: now, or with the batch's other records.
func (w *recordWrites) updateNode(ctx context.Context, n *quire.Node) error {
	if !w.gathered {
		return w.tx.UpdateRecordNode(ctx, n)
	}
	i, ok := w.edited[n.ID]
	if !ok {
		i = len(w.edits)
		w.edited[n.ID] = i
		w.edits = append(w.edits, store.RecordEdit{From: n.Version})
	}
	n.Version++
	c := *n // the caller renders n after the batch
	w.edits[i].Node = &c
	return nil
}

// writeEdits writes the records' updates gathered so far: before a statement of the batch
// writes one of those records' rows itself (trash, restore).
func (w *recordWrites) writeEdits(ctx context.Context) error {
	if len(w.edits) == 0 {
		return nil
	}
	err := w.tx.UpdateRecordNodes(ctx, w.edits)
	clear(w.edited)
	w.edits = w.edits[:0]
	return err
}

// insertNumbered gives new record id its number and stores its rows, which rows makes from the
// number: now, or under a shared lock at flush.
func (w *recordWrites) insertNumbered(ctx context.Context, id string, rows func(number int64) []store.RecordValue) error {
	if w.shared {
		w.numbered = append(w.numbered, numberedRows{id: id, rows: rows})
		return nil
	}
	number, err := w.number(ctx, id)
	if err != nil {
		return err
	}
	return w.insert(ctx, id, rows(number))
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
	if i, ok := w.replaced[k]; ok {
		w.changes[i].Is = is // rows after the batch's last operation, against those before it
		return nil
	}
	w.replaced[k] = len(w.changes)
	w.changes = append(w.changes, store.RowChange{RecordProperty: k, Was: was, Is: is})
	return nil
}

// flush writes what was gathered: the updated records' nodes rows, the rewritten properties'
// rows and the new records' rows (store.WriteRecordRows), then the new records' nodes rows.
// Under a shared lock the new records' nodes rows come first, and then, under the numbering
// lock, their numbers and rows.
func (w *recordWrites) flush(ctx context.Context) error {
	if !w.gathered {
		return nil
	}
	if w.shared {
		return w.flushShared(ctx)
	}
	if err := w.writeEdits(ctx); err != nil {
		return err
	}
	if err := w.tx.WriteRecordRows(ctx, w.db, w.changes, w.created); err != nil {
		return err
	}
	return w.tx.InsertNodes(ctx, w.nodes)
}

// flushShared is flush for a batch of creates under the database's shared lock: the nodes rows,
// whose indexes, search entries and triggers are most of the batch's work, are written while
// other batches of the database write theirs; then the numbering lock is taken, held to
// COMMIT, and the numbers read and written.
func (w *recordWrites) flushShared(ctx context.Context) error {
	if err := w.tx.InsertNodes(ctx, w.nodes); err != nil {
		return err
	}
	if len(w.numbered) > 0 {
		if err := w.tx.LockRecordNumbers(ctx, w.db); err != nil {
			return err
		}
		for _, r := range w.numbered {
			number, err := w.number(ctx, r.id)
			if err != nil {
				return err
			}
			w.created = append(w.created, store.RecordRows{RecordID: r.id, Rows: r.rows(number)})
		}
	}
	return w.tx.WriteRecordRows(ctx, w.db, w.changes, w.created)
}
