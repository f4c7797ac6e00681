package store_test

import (
	"strings"
	"testing"

	"github.com/quire-dev/quire/internal/testdb"
)

// TestBlocksInsert_StatementTriggersOnly pins what a new block costs PostgreSQL beyond its row:
// the statement trigger that writes the search entries, and no trigger per row. The foreign key
// of blocks.workspace_id was one (an RI lookup and a KEY SHARE lock of the workspace's row for
// every block; 00030 dropped it), so a constraint or row trigger added back shows here as a
// "Trigger" line of EXPLAIN ANALYZE with 3 calls for the 3 blocks.
func TestBlocksInsert_StatementTriggersOnly(t *testing.T) {
	tx, w := seededPostgresTx(t)
	rows, err := tx.QueryContext(ctx, `EXPLAIN (ANALYZE, TIMING OFF, COSTS OFF) INSERT INTO blocks (id, workspace_id, page_id,
		parent_id, position, type, content, created_ms, created_by, edited_ms, edited_by) VALUES
		('b0', $1, 'p', 'p', 'a0', 'paragraph', '{"rich_text":[{"plain_text":"alpha"}]}', 1, 'u', 1, 'u'),
		('b1', $1, 'p', 'p', 'a1', 'paragraph', '{"rich_text":[{"plain_text":"beta"}]}', 1, 'u', 1, 'u'),
		('b2', $1, 'p', 'p', 'a2', 'paragraph', '{"rich_text":[{"plain_text":"gamma"}]}', 1, 'u', 1, 'u')`, w.ID)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var triggers []string
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			t.Fatal(err)
		}
		if strings.HasPrefix(strings.TrimSpace(line), "Trigger") {
			triggers = append(triggers, strings.TrimSpace(line))
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if len(triggers) != 1 || !strings.HasPrefix(triggers[0], "Trigger blocks_search_insert:") || !strings.HasSuffix(triggers[0], "calls=1") {
		t.Fatalf("triggers of a 3-block INSERT = %q; want the search entries' statement trigger alone, called once", triggers)
	}
}

// TestBlocksInsert_NoRowTriggerSQLite pins SQLite's side: no trigger runs for each inserted
// block. blocks_search_ai did (a probe of search_docs per row, whose entries the store's insert
// writes itself; 00034 dropped it), and a trigger added back on the INSERT costs every block of
// every append again. TestSearchIndex_EveryWrite checks that the entries are still all written.
func TestBlocksInsert_NoRowTriggerSQLite(t *testing.T) {
	s := testdb.SQLite(t)
	got, err := s.RowsForTest(ctx, `SELECT name FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'blocks'
		AND upper(sql) LIKE '%INSERT ON BLOCKS%'`)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 0 {
		t.Fatalf("insert triggers of blocks = %q; want none", got)
	}
}

// TestBlocksInsert_NoForeignKeyCheckSQLite: SQLite's INSERT of a block checks no foreign key
// (00035, as PostgreSQL's 00030): the check compiled into every row was a seek of workspaces'
// primary key and a constraint counter, a quarter of a 100-block INSERT's CPU. The store's
// connections enforce foreign keys, so a REFERENCES put back on blocks shows here in the
// INSERT's program.
func TestBlocksInsert_NoForeignKeyCheckSQLite(t *testing.T) {
	s := testdb.SQLite(t)
	ops, err := s.RowsForTest(ctx, `EXPLAIN INSERT INTO blocks (id, workspace_id, page_id, parent_id,
		position, type, content, created_ms, created_by, edited_ms, edited_by) VALUES ('b', 'w', 'p', 'p', 'a0', 'paragraph', '{}', 1, 'u', 1, 'u')`)
	if err != nil {
		t.Fatal(err)
	}
	if len(ops) == 0 {
		t.Fatal("EXPLAIN of the INSERT returned no program")
	}
	for _, row := range ops { // addr|opcode|p1|…
		// The check: a lookup of the parent's key and, when it is not found, Halt with
		// SQLITE_CONSTRAINT_FOREIGNKEY (787); FkCounter and FkCheck where it is counted.
		if f := strings.Split(row, "|"); strings.HasPrefix(f[1], "Fk") || f[1] == "Halt" && f[2] == "787" {
			t.Fatalf("the INSERT's program has %s: a foreign key of blocks is checked", row)
		}
	}
}
