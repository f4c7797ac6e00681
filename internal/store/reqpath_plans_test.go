package store_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/quire-dev/quire/internal/store"
	"github.com/quire-dev/quire/internal/testdb"
)

// seedPlanShapes lays down, with statistics, the shapes whose plans the request path relies on:
// 200 workspaces, 2,000 tokens, a chain of 2,000 nodes each granted to its own token, and ten parents of 1,000
// blocks each (pages of a thousand paragraphs, none with children: the shape that turned
// has_children into a sequential scan per block on PostgreSQL).
func seedPlanShapes(t *testing.T, s *store.Store) (ws string) {
	t.Helper()
	w, u := seed(t, s)
	seq := `WITH RECURSIVE seq (i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM seq WHERE i < %d) `
	err := s.InTx(ctx, func(tx *store.Tx) error {
		for _, st := range []string{
			fmt.Sprintf(seq, 199) + `INSERT INTO workspaces (id, name, created_ms) SELECT 'w' || i, 'w', 1 FROM seq`,
			fmt.Sprintf(seq, 1999) + `INSERT INTO tokens (id, workspace_id, owner_id, integration_id, name, secret_hash, scopes,
				workspace_scoped, created_ms) SELECT 't' || i, $1, $2, 'i', 'n', 'h' || i, '', FALSE, 1 FROM seq`,
			fmt.Sprintf(seq, 1999) + `INSERT INTO nodes (id, workspace_id, object, page_type, parent_type, parent_id, position,
				title, properties, description, created_ms, created_by, edited_ms, edited_by)
				SELECT 'n' || i, $1, 'page', 'page', CASE WHEN i = 0 THEN 'workspace' ELSE 'page_id' END,
				CASE WHEN i = 0 THEN NULL ELSE 'n' || (i - 1) END, 'a', '[]', '{}', '[]', 1, $2, 1, $2 FROM seq`,
			fmt.Sprintf(seq, 1999) + `INSERT INTO grants (token_id, target_id, created_ms) SELECT 't' || i, 'n' || i, 1 FROM seq`,
			fmt.Sprintf(seq, 9999) + `INSERT INTO blocks (id, workspace_id, page_id, parent_id, position, type, content,
				created_ms, created_by, edited_ms, edited_by)
				SELECT 'b' || i, $1, 'n' || (i / 1000), 'n' || (i / 1000), 'p' || (100000 + i), 'paragraph', '{}', 1, $2, 1, $2 FROM seq`,
		} {
			args := []any{w.ID, u.ID}
			if !strings.Contains(st, "$1") {
				args = nil
			}
			if err := tx.ExecForTest(ctx, st, args...); err != nil {
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

// TestRequestPathPlans pins the plans of the statements every request makes, on both engines
// (PostgreSQL: the custom plan of the first runs and the generic plan a pooled connection
// settles on): the token check is one read on the unique index of secret hashes, the reach
// check walks the nodes' and grants' primary keys, a node is read on its primary key, and a
// page of children walks the children index (has_children is stored: blocks_children_plan_test.go
// pins the statement that keeps it).
// None reads a table whole; losing an index fails here, without a timed test.
// planCase is a statement of the request path and the indexes its plan must use: PostgreSQL's
// index names, SQLite's plan details.
type planCase struct {
	name       string
	query      string
	args       []any
	pg, sqlite []string
}

func TestRequestPathPlans(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, s *store.Store) {
		ws := seedPlanShapes(t, s)
		cases := []planCase{
			{"token", store.AuthenticateQueryForTest, []any{"h1500"},
				[]string{"tokens_secret_hash_key", "workspaces_pkey"},
				[]string{"SEARCH t USING INDEX sqlite_autoindex_tokens_2 (secret_hash=?)", "SEARCH w USING INDEX sqlite_autoindex_workspaces_1 (id=?)"}},
			{"reach", store.ReachesQueryForTest, []any{"n1999", ws, "t3", 1000},
				[]string{"nodes_pkey", "grants_pkey"},
				[]string{"SEARCH nodes USING INDEX sqlite_autoindex_nodes_1 (id=?)", "SEARCH n USING INDEX sqlite_autoindex_nodes_1 (id=?)",
					"SEARCH g EXISTS USING COVERING INDEX sqlite_autoindex_grants_1 (token_id=? AND target_id=?)"}},
			// On PostgreSQL the reach walk is quire_token_reaches, pinned below.
			{"token, reach and node", store.AuthenticateNodeQueryForTest(s.Engine()), []any{"h3", "n1999"},
				[]string{"tokens_secret_hash_key", "workspaces_pkey", "nodes_pkey"},
				[]string{"SEARCH t USING INDEX sqlite_autoindex_tokens_2 (secret_hash=?)", "SEARCH w USING INDEX sqlite_autoindex_workspaces_1 (id=?)",
					"SEARCH n USING INDEX sqlite_autoindex_nodes_1 (id=?)", "SEARCH nodes USING INDEX sqlite_autoindex_nodes_1 (id=?)",
					"SEARCH p USING INDEX sqlite_autoindex_nodes_1 (id=?)",
					"SEARCH g EXISTS USING COVERING INDEX sqlite_autoindex_grants_1 (token_id=? AND target_id=?)"}},
			{"node", store.NodeQueryForTest, []any{"n1500", ws},
				[]string{"nodes_pkey"},
				[]string{"SEARCH nodes USING INDEX sqlite_autoindex_nodes_1 (id=?)"}},
			{"block", store.BlockQueryForTest, []any{"b1500", ws},
				[]string{"blocks_pkey"},
				[]string{"SEARCH b USING INDEX sqlite_autoindex_blocks_1 (id=?)"}},
			{"children", store.ChildrenFirstQueryForTest, []any{"n3", 101},
				[]string{"blocks_children"},
				[]string{"SEARCH b USING INDEX blocks_children (parent_id=?)"}},
			{"children, literal limit", store.ChildrenFirstLiteralQueryForTest, []any{"n3"},
				[]string{"blocks_children"},
				[]string{"SEARCH b USING INDEX blocks_children (parent_id=?)"}},
			{"children after a cursor", store.ChildrenAfterQueryForTest, []any{"n3", 101, "p103500", "b3500"},
				[]string{"blocks_children"},
				[]string{"SEARCH b USING INDEX blocks_children (parent_id=?"}},
		}
		// The page GET's joined read has fewer columns and no workspaces join, and otherwise the
		// same plan.
		page := cases[slices.IndexFunc(cases, func(c planCase) bool { return c.name == "token, reach and node" })]
		page.name, page.query = "token, reach and page", store.AuthenticatePageQueryForTest(s.Engine())
		notWorkspace := func(s string) bool { return strings.Contains(s, "workspaces") || strings.Contains(s, "SEARCH w ") }
		page.pg = slices.DeleteFunc(slices.Clone(page.pg), notWorkspace)
		page.sqlite = slices.DeleteFunc(slices.Clone(page.sqlite), notWorkspace)
		cases = append(cases, page)
		if s.Engine() == store.Postgres {
			cases = append(cases, planCase{name: "quire_token_reaches", query: tokenReachesBody(t, s), args: []any{"t3", "n1999"},
				pg: []string{"nodes_pkey", "grants_pkey"}})
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
					checkSQLitePlan(t, tc.name, plan, tc.sqlite)
				} else {
					checkPostgresPlan(t, fmt.Sprintf("%s (generic %v)", tc.name, generic), plan, tc.pg)
				}
			}
		}
	})
}

// checkSQLitePlan fails unless every wanted detail is in the plan and no table is scanned (a
// recursive CTE's own rows and a constant row aside).
func checkSQLitePlan(t *testing.T, name, plan string, want []string) {
	t.Helper()
	for _, line := range strings.Split(plan, "\n") {
		if l := strings.TrimSpace(line); strings.HasPrefix(l, "SCAN ") && l != "SCAN up" && l != "SCAN CONSTANT ROW" {
			t.Errorf("%s scans: %q in\n%s", name, line, plan)
		}
	}
	for _, w := range want {
		if !strings.Contains(plan, w) {
			t.Errorf("%s: plan lacks %q:\n%s", name, w, plan)
		}
	}
}

// checkPostgresPlan fails unless every wanted index is used and no node scans a table whole.
func checkPostgresPlan(t *testing.T, name, plan string, want []string) {
	t.Helper()
	var doc []struct{ Plan pgPlan }
	if err := json.Unmarshal([]byte(plan), &doc); err != nil || len(doc) != 1 {
		t.Fatalf("%s: %v\n%s", name, err, plan)
	}
	var indexes []string
	var walk func(p pgPlan)
	walk = func(p pgPlan) {
		if p.NodeType == "Seq Scan" || p.NodeType == "Bitmap Heap Scan" && p.RelationName == "blocks" {
			t.Errorf("%s: %s on %s:\n%s", name, p.NodeType, p.RelationName, plan)
		}
		if p.IndexName != "" {
			indexes = append(indexes, p.IndexName)
		}
		for _, c := range p.Plans {
			walk(c)
		}
	}
	walk(doc[0].Plan)
	for _, w := range want {
		if !slices.Contains(indexes, w) {
			t.Errorf("%s: plan uses %v, not %s:\n%s", name, indexes, w, plan)
		}
	}
}

type pgPlan struct {
	NodeType     string   `json:"Node Type"`
	RelationName string   `json:"Relation Name"`
	IndexName    string   `json:"Index Name"`
	Plans        []pgPlan `json:"Plans"`
}

// tokenReachesBody is the walk of PostgreSQL's quire_token_reaches (migration 00036) as the
// function runs it, its arguments made $1 (the token) and $2 (the node), so that its plan can
// be read as the statement's.
func tokenReachesBody(t *testing.T, s *store.Store) string {
	t.Helper()
	var src string
	if err := s.ScanForTest(ctx, `SELECT prosrc FROM pg_proc WHERE proname = 'quire_token_reaches'`, nil, &src); err != nil {
		t.Fatal(err)
	}
	start, end := strings.Index(src, "RETURN EXISTS ("), strings.LastIndex(src, ");")
	if start < 0 || end < start {
		t.Fatalf("quire_token_reaches is not RETURN EXISTS (…);:\n%s", src)
	}
	body := src[start+len("RETURN EXISTS (") : end]
	return strings.NewReplacer("= token ", "= $1 ", "= node\n", "= $2\n").Replace(body)
}
