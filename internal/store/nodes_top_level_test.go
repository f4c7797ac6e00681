package store_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/quire-dev/quire/internal/store"
	"github.com/quire-dev/quire/internal/testdb"
)

// topLevelPartial is the migration that made nodes_top_level hold top-level nodes only.
const topLevelPartial = 38

// seedTopLevel lays down a workspace's 40 top-level pages (top100…top139 at positions
// t1000…t1039, edited in that order, every tenth in trash) beside 4,000 records of a database and 400 pages under pages, as a large workspace is
// shaped: nearly every node is not top-level.
func seedTopLevel(t *testing.T, s *store.Store) (ws string) {
	t.Helper()
	w, u := seed(t, s)
	seq := `WITH RECURSIVE seq (i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM seq WHERE i < %d) `
	cols := `INSERT INTO nodes (id, workspace_id, object, page_type, parent_type, parent_id, position,
		title, properties, description, in_trash, created_ms, created_by, edited_ms, edited_by) `
	err := s.InTx(ctx, func(tx *store.Tx) error {
		for _, st := range []string{
			fmt.Sprintf(seq, 39) + cols + `SELECT 'top' || (100 + i), $1, 'page', 'page', 'workspace', NULL, 't' || (1000 + i),
				'[]', '{}', '[]', i % 10 = 9, i, $2, 1000 + i, $2 FROM seq`,
			cols + `VALUES ('db', $1, 'database', 'database', 'page_id', 'top100', 'a', '[]', '{}', '[]', FALSE, 1, $2, 1, $2)`,
			fmt.Sprintf(seq, 3999) + cols + `SELECT 'rec' || (10000 + i), $1, 'page', 'page', 'database_id', 'db', 'a',
				'[]', '{}', '[]', FALSE, i, $2, i, $2 FROM seq`,
			fmt.Sprintf(seq, 399) + cols + `SELECT 'sub' || (1000 + i), $1, 'page', 'page', 'page_id', 'top101', 'a' || (1000 + i),
				'[]', '{}', '[]', FALSE, i, $2, i, $2 FROM seq`,
		} {
			if err := tx.ExecForTest(ctx, st, w.ID, u.ID); err != nil {
				return fmt.Errorf("%w\n%s", err, st)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Analyze(ctx); err != nil {
		t.Fatal(err)
	}
	return w.ID
}

// topLevelAnswers reads every statement on nodes_top_level for workspace ws: the top-level
// listing in both orders (two pages of 16 each), the last position, the positions around t1015,
// and the neighbours of top115.
func topLevelAnswers(t *testing.T, s *store.Store, ws string) []string {
	t.Helper()
	var out []string
	for _, order := range []store.NodeOrder{store.BySidebar, store.ByRecentEdit} {
		q := store.NodeQuery{Workspace: ws, TopLevel: true, Order: order, Limit: 16}
		for range 2 {
			nodes, err := s.ListNodes(ctx, q)
			if err != nil {
				t.Fatal(err)
			}
			for _, n := range nodes {
				out = append(out, n.ID)
			}
			if len(nodes) == 0 {
				break
			}
			k := order.Key(nodes[len(nodes)-1])
			q.After = &k
		}
	}
	err := s.InTx(ctx, func(tx *store.Tx) error {
		last, err := tx.LastTopLevelPosition(ctx, ws)
		if err != nil {
			return err
		}
		next, err := tx.NextTopLevelPosition(ctx, ws, "t1015")
		if err != nil {
			return err
		}
		before, err := tx.TopLevelPositionBefore(ctx, ws, "t1015")
		if err != nil {
			return err
		}
		nb, err := tx.TopLevelNeighbours(ctx, ws, "t1015", "top115")
		if err != nil {
			return err
		}
		out = append(out, last, next, before, nb.Before, nb.After)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// topLevelIndexDef is the definition of nodes_top_level as the engine stores it.
func topLevelIndexDef(t *testing.T, s *store.Store) string {
	t.Helper()
	q := `SELECT sql FROM sqlite_master WHERE name = 'nodes_top_level'`
	if s.Engine() == store.Postgres {
		q = `SELECT indexdef FROM pg_indexes WHERE indexname = 'nodes_top_level'`
	}
	var def string
	if err := s.ScanForTest(ctx, q, nil, &def); err != nil {
		t.Fatal(err)
	}
	return def
}

// TestNodesTopLevelPartial pins what seeding relies on (docs/performance.md, "Seeding, eleventh
// pass"): nodes_top_level holds top-level nodes only, so a new record writes no entry in it, and
// every statement that reads it still walks it (a plan that scans nodes or walks another index
// fails, as does a statement that names parent_type by a parameter, which the partial index
// cannot serve), answering as before.
func TestNodesTopLevelPartial(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, s *store.Store) {
		ws := seedTopLevel(t, s)
		if def := topLevelIndexDef(t, s); !strings.Contains(def, "WHERE") || !strings.Contains(def, "parent_type = 'workspace'") {
			t.Fatalf("nodes_top_level = %s; want it partial, on parent_type = 'workspace'", def)
		}
		sidebar, args := store.ListNodesQueryForTest(store.NodeQuery{Workspace: ws, TopLevel: true, Order: store.BySidebar,
			After: &store.NodeKey{Position: "t1010", ID: "top110"}, Limit: 16})
		cases := []planCase{
			{name: "top-level listing", query: sidebar, args: args},
			{name: "last position", query: store.LastTopLevelQueryForTest, args: []any{ws}},
			{name: "next position", query: store.NextTopLevelQueryForTest, args: []any{ws, "t1015"}},
			{name: "position before", query: store.TopLevelBeforeQueryForTest, args: []any{ws, "t1015"}},
			{name: "neighbour before", query: store.TopLevelNeighbourBeforeQueryForTest, args: []any{ws, "t1015", "top115"}},
			{name: "neighbour after", query: store.TopLevelNeighbourAfterQueryForTest, args: []any{ws, "t1015", "top115"}},
		}
		for _, tc := range cases {
			for _, generic := range []bool{false, true} {
				if generic && s.Engine() == store.SQLite {
					continue
				}
				plan, err := s.PlanForTest(ctx, generic, tc.query, tc.args...)
				if err != nil {
					t.Fatalf("%s: %v", tc.name, err)
				}
				if s.Engine() == store.SQLite {
					checkSQLitePlan(t, tc.name, plan, []string{"INDEX nodes_top_level (workspace_id=? AND parent_type=?"})
					if strings.Contains(plan, "TEMP B-TREE") {
						t.Errorf("%s sorts:\n%s", tc.name, plan)
					}
				} else {
					checkPostgresPlan(t, fmt.Sprintf("%s (generic %v)", tc.name, generic), plan, []string{"nodes_top_level"})
				}
			}
		}
		got := topLevelAnswers(t, s, ws)
		var want []string
		for i := range 40 {
			if i%10 != 9 {
				want = append(want, fmt.Sprintf("top%d", 100+i))
			}
		}
		byEdit := slices.Clone(want)
		slices.Reverse(byEdit)
		want = append(append(want[:32:32], byEdit[:32]...), "t1039", "t1016", "t1014", "top114", "top116")
		if !slices.Equal(got, want) {
			t.Errorf("answers = %v\nwant %v", got, want)
		}
	})
}

// TestNodesTopLevelPartial_Migration moves a store with the whole index forward: the index
// becomes partial and every statement on it answers as it did before the migration.
func TestNodesTopLevelPartial_Migration(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, s *store.Store) {
		if err := s.MigrateForTest(ctx, topLevelPartial-1); err != nil {
			t.Fatal(err)
		}
		ws := seedTopLevel(t, s)
		if def := topLevelIndexDef(t, s); strings.Contains(def, "WHERE") {
			t.Fatalf("before the migration nodes_top_level = %s; want it whole", def)
		}
		before := topLevelAnswers(t, s, ws)
		if err := s.MigrateForTest(ctx, topLevelPartial); err != nil {
			t.Fatal(err)
		}
		if def := topLevelIndexDef(t, s); !strings.Contains(def, "parent_type = 'workspace'") {
			t.Fatalf("after the migration nodes_top_level = %s; want it partial", def)
		}
		// A top-level page written after the migration is in the listing; a record is not.
		err := s.InTx(ctx, func(tx *store.Tx) error {
			return tx.ExecForTest(ctx, `INSERT INTO nodes (id, workspace_id, object, page_type, parent_type, parent_id, position,
				title, properties, description, created_ms, created_by, edited_ms, edited_by)
				SELECT 'top200', workspace_id, 'page', 'page', 'workspace', NULL, 't0000', '[]', '{}', '[]', 1, created_by, 1, created_by
				FROM nodes WHERE id = 'top100'`)
		})
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Analyze(ctx); err != nil {
			t.Fatal(err)
		}
		after := topLevelAnswers(t, s, ws)
		if after[0] != "top200" || !slices.Equal(after[1:16], before[:15]) {
			t.Errorf("the listing after the migration starts %v; want top200, then %v", after[:16], before[:15])
		}
		if !slices.Equal(after[32:], before[32:]) {
			t.Errorf("by edit and the positions after the migration = %v; want %v", after[32:], before[32:])
		}
	})
}
