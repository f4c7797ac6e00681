package store_test

import (
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/quire-dev/quire/internal/quire"
	"github.com/quire-dev/quire/internal/store"
	"github.com/quire-dev/quire/internal/testdb"
)

// TestWriteRecordRows: a batch's rows end as its last operations left them on both engines,
// whichever way each engine writes them (in place on SQLite, deleted and inserted on
// PostgreSQL): a one-row value changed, one cleared, a list of rows changed, one changed back,
// a row that the batch thought was there but is not, and new records' rows.
func TestWriteRecordRows(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, s *store.Store) {
		db, a, b, c := quire.NewID(), quire.NewID(), quire.NewID(), quire.NewID()
		str := func(v string) *string { return &v }
		num := func(v float64) *float64 { return &v }
		row := func(prop string, ord int, text *string, n *float64) store.RecordValue {
			return store.RecordValue{PropertyID: prop, Ord: ord, Text: text, Num: n}
		}
		index(t, s, db, "num", "sel", "tags", "date", "site")
		mustTx(t, s, func(tx *store.Tx) error {
			return tx.InsertRows(ctx, db, []store.RecordRows{
				{RecordID: a, Rows: []store.RecordValue{row("num", 0, nil, num(1)), row("sel", 0, str("x"), nil),
					row("tags", 0, str("t1"), nil), row("tags", 1, str("t2"), nil)}},
				{RecordID: b, Rows: []store.RecordValue{row("num", 0, nil, num(2)), row("date", 0, str("2024-01-01"), num(5))}},
			})
		})
		changes := []store.RowChange{
			{RecordProperty: store.RecordProperty{RecordID: a, PropertyID: "num"},
				Was: []store.RecordValue{row("num", 0, nil, num(1))}, Is: []store.RecordValue{row("num", 0, nil, num(7))}},
			{RecordProperty: store.RecordProperty{RecordID: a, PropertyID: "sel"},
				Was: []store.RecordValue{row("sel", 0, str("x"), nil)}},
			{RecordProperty: store.RecordProperty{RecordID: a, PropertyID: "tags"},
				Was: []store.RecordValue{row("tags", 0, str("t1"), nil), row("tags", 1, str("t2"), nil)},
				Is:  []store.RecordValue{row("tags", 0, str("t3"), nil)}},
			{RecordProperty: store.RecordProperty{RecordID: b, PropertyID: "num"},
				Was: []store.RecordValue{row("num", 0, nil, num(2))}, Is: []store.RecordValue{row("num", 0, nil, num(2))}},
			{RecordProperty: store.RecordProperty{RecordID: b, PropertyID: "date"},
				Was: []store.RecordValue{row("date", 0, str("2024-01-01"), num(5))}, Is: []store.RecordValue{row("date", 0, str("2024-02-02"), num(6))}},
			{RecordProperty: store.RecordProperty{RecordID: b, PropertyID: "site"}, // no row stored, as if it were
				Was: []store.RecordValue{row("site", 0, str("a.example"), nil)}, Is: []store.RecordValue{row("site", 0, str("b.example"), nil)}},
		}
		created := []store.RecordRows{{RecordID: c, Rows: []store.RecordValue{row("#n", 0, nil, num(3)), row("sel", 0, str("y"), nil)}}}
		mustTx(t, s, func(tx *store.Tx) error { return tx.WriteRecordRows(ctx, db, changes, created) })
		got, err := s.RowsForTest(ctx, `SELECT record_id, property_id, ord, COALESCE(v_text, '-'), COALESCE(v_num, -1)
			FROM record_values WHERE database_id = $1`, db)
		if err != nil {
			t.Fatal(err)
		}
		want := []string{a + "|num|0|-|7", a + "|tags|0|t3|-1", b + "|num|0|-|2", b + "|date|0|2024-02-02|6",
			b + "|site|0|b.example|-1", c + "|#n|0|-|3", c + "|sel|0|y|-1"}
		slices.Sort(got)
		slices.Sort(want)
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("record_values after the batch (-want +got):\n%s", diff)
		}
	})
}

// TestUpdateRecordNodes: a batch's records are written in one statement from the versions they
// were read at, and a record changed since answers conflict and writes none of them.
func TestUpdateRecordNodes(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, s *store.Store) {
		ws, _ := seed(t, s)
		a, b := newNode(ws.ID, ""), newNode(ws.ID, "")
		a.TitlePlain, b.TitlePlain = "A", "B"
		mustTx(t, s, func(tx *store.Tx) error { return tx.InsertNodes(ctx, []*quire.Node{a, b}) })
		edit := func(n *quire.Node, title string, from int64) store.RecordEdit {
			c := *n
			c.Title, c.TitlePlain, c.Properties = []byte(`[{"plain_text":"`+title+`"}]`), title, []byte(`{"p":"`+title+`"}`)
			c.Version, c.EditedMs, c.EditedBy = from+2, 99, "v"
			return store.RecordEdit{Node: &c, From: from}
		}
		read := func() []string {
			got, err := s.RowsForTest(ctx, `SELECT title_plain, title, properties, version, edited_ms, edited_by FROM nodes
				WHERE id IN ($1, $2) ORDER BY title_plain`, a.ID, b.ID)
			if err != nil {
				t.Fatal(err)
			}
			return got
		}
		err := s.InTx(ctx, func(tx *store.Tx) error {
			return tx.UpdateRecordNodes(ctx, []store.RecordEdit{edit(a, "A2", 1), edit(b, "B2", 2)})
		})
		if !quire.IsCode(err, quire.CodeConflict) {
			t.Fatalf("edit from a stale version: %v, want conflict", err)
		}
		if got, want := read(), []string{"A|[]|{}|1|1|u", "B|[]|{}|1|1|u"}; !cmp.Equal(got, want) {
			t.Errorf("nodes after the conflict = %v, want %v", got, want)
		}
		mustTx(t, s, func(tx *store.Tx) error {
			return tx.UpdateRecordNodes(ctx, []store.RecordEdit{edit(a, "A2", 1), edit(b, "B2", 1)})
		})
		want := []string{`A2|[{"plain_text":"A2"}]|{"p":"A2"}|3|99|v`, `B2|[{"plain_text":"B2"}]|{"p":"B2"}|3|99|v`}
		if got := read(); !cmp.Equal(got, want) {
			t.Errorf("nodes after the edits = %v, want %v", got, want)
		}
	})
}

// TestInsertNodesSearchEntries: the nodes of one INSERT (a batch of record creates) each get
// their title entry, empty titles too, and are each queued for embedding once, in the same
// transaction. On PostgreSQL the entries are written by one statement trigger (migration
// 00029): a row-level INSERT trigger on nodes ran two statements per node inside the batch's
// INSERT, under the database's lock, and is not to come back.
func TestInsertNodesSearchEntries(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, s *store.Store) {
		ws, _ := seed(t, s)
		nodes := []*quire.Node{newNode(ws.ID, ""), newNode(ws.ID, ""), newNode(ws.ID, "")}
		nodes[0].TitlePlain, nodes[1].TitlePlain = "Alpha record", "Beta record"
		mustTx(t, s, func(tx *store.Tx) error { return tx.Exec(ctx, `DELETE FROM embed_queue`) })
		mustTx(t, s, func(tx *store.Tx) error { return tx.InsertNodes(ctx, nodes) })
		got, err := s.RowsForTest(ctx, `SELECT ref, node_id, text FROM search_docs WHERE field = 'title'`)
		if err != nil {
			t.Fatal(err)
		}
		var want []string
		for _, n := range nodes {
			want = append(want, n.ID+"|"+n.ID+"|"+n.TitlePlain)
		}
		slices.Sort(got)
		slices.Sort(want)
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("title entries (-want +got):\n%s", diff)
		}
		queued, err := s.RowsForTest(ctx, `SELECT node_id FROM embed_pending`)
		if err != nil {
			t.Fatal(err)
		}
		wantQueued := []string{nodes[0].ID, nodes[1].ID, nodes[2].ID}
		slices.Sort(queued)
		slices.Sort(wantQueued)
		if diff := cmp.Diff(wantQueued, queued); diff != "" {
			t.Errorf("queued for embedding (-want +got):\n%s", diff)
		}
		if s.Engine() != store.Postgres {
			return
		}
		// tgtype: bit 0 is FOR EACH ROW, bit 2 INSERT.
		rowTriggers, err := s.RowsForTest(ctx, `SELECT tgname FROM pg_trigger
			WHERE tgrelid = 'nodes'::regclass AND NOT tgisinternal AND tgtype & 5 = 5`)
		if err != nil {
			t.Fatal(err)
		}
		if len(rowTriggers) != 0 {
			t.Errorf("row-level INSERT triggers on nodes: %v; want none (one statement trigger writes the title entries)", rowTriggers)
		}
	})
}
