package dbquery_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/quire-dev/quire/internal/dbquery"
)

// benchPairs registers the pairs of "bench" the plan tests read: select × number, select ×
// title (a text sort); the rows are written as the store's backfill writes them.
func benchPairs(t testing.TB, db *sql.DB) {
	t.Helper()
	for _, p := range []struct {
		sort   string
		byText bool
	}{{"num", false}, {"title", true}} {
		var id int64
		if err := db.QueryRow(`INSERT INTO record_pair_keys (database_id, filter_prop, sort_prop, by_text, created_ms)
			VALUES ($1, 'sel', $2, $3, 0) RETURNING id`, benchDB, p.sort, p.byText).Scan(&id); err != nil {
			t.Fatal(err)
		}
		if _, err := db.Exec(`INSERT INTO record_pairs (pair_id, record_id, f_value, s_num, s_text)
			SELECT k.id, f.record_id, f.v_text, CASE WHEN k.by_text THEN NULL ELSE s.v_num END, CASE WHEN k.by_text THEN s.v_text END
			FROM record_pair_keys k
			JOIN record_values f ON f.database_id = k.database_id AND f.property_id = k.filter_prop AND f.v_text IS NOT NULL
			JOIN record_values s ON s.record_id = f.record_id AND s.property_id = k.sort_prop AND s.ord = 0
			WHERE k.id = $1`, id); err != nil {
			t.Fatal(err)
		}
	}
}

// pairStmts are the statements of the anchor query (select equals, number sort) and of a text
// sort, walked with their pair: from the start and from a cursor, both directions, with a
// second condition, and the records without a sort value at the end of the walk; each also
// with Fetch's columns.
func pairStmts(t testing.TB, db *sql.DB, d dbquery.Dialect) map[string]dbquery.Stmt {
	t.Helper()
	num, text := 500000.0, "Record 5"
	out := map[string]dbquery.Stmt{}
	for _, tc := range []struct {
		name, filter, sorts string
		after               *dbquery.Position
	}{
		{"number ascending", `{"property":"sel","select":{"equals":"opt7"}}`, `[{"property":"num","direction":"ascending"}]`, nil},
		{"number descending after", `{"property":"sel","select":{"equals":"opt7"}}`, `[{"property":"num","direction":"descending"}]`,
			&dbquery.Position{Keys: []dbquery.Key{{Num: &num}}, ID: "m"}},
		{"and checkbox", `{"and":[{"property":"done","checkbox":{"equals":true}},{"property":"sel","select":{"equals":"opt7"}}]}`,
			`[{"property":"num","direction":"ascending"}]`, nil},
		{"title descending after", `{"property":"sel","select":{"equals":"opt7"}}`, `[{"property":"title","direction":"descending"}]`,
			&dbquery.Position{Keys: []dbquery.Key{{Text: &text}}, ID: "m"}},
		{"without a number", `{"property":"sel","select":{"equals":"opt7"}}`, `[{"property":"num","direction":"ascending"}]`,
			&dbquery.Position{Keys: []dbquery.Key{{}}, ID: "m"}},
	} {
		f, ss, err := dbquery.Decode(benchSchema, []byte(tc.filter), []byte(tc.sorts))
		if err != nil {
			t.Fatal(err)
		}
		q := dbquery.Query{DatabaseID: benchDB, Filter: f, Sorts: ss, After: tc.after, Limit: 101, Now: now}
		if q.Pair, err = dbquery.FindPair(context.Background(), db, q); err != nil || q.Pair == nil {
			t.Fatalf("%s: no pair (%v)", tc.name, err)
		}
		if out[tc.name], err = dbquery.Compile(d, q); err != nil {
			t.Fatal(err)
		}
		// The same walk reading each record's nodes row as it passes (Fetch) keeps its plan.
		q.Fetch = &dbquery.Fetch{Columns: "n.title, n.properties, n.created_ms"}
		if out[tc.name+", fetching"], err = dbquery.Compile(d, q); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// pairPlansSQLite: each pair statement reads record_pairs' index in the query's order, with no
// sort step, and looks each record up by id; the records without a sort value are read from
// the select's index.
func pairPlansSQLite(t *testing.T, db *sql.DB) {
	for name, st := range pairStmts(t, db, dbquery.SQLite) {
		plan := explain(t, db, st)
		want := []string{"SEARCH p USING COVERING INDEX record_pairs_num (pair_id=? AND f_value=?", "SEARCH n USING INDEX sqlite_autoindex_nodes_1 (id=?)"}
		switch {
		case strings.HasPrefix(name, "title"):
			want[0] = "SEARCH p USING COVERING INDEX record_pairs_text (pair_id=? AND f_value=?"
		case strings.HasPrefix(name, "without a number"):
			want[0] = "SEARCH v USING COVERING INDEX record_values_text (database_id=? AND property_id=? AND v_text=?"
		}
		for _, w := range want {
			if !strings.Contains(plan, w) {
				t.Errorf("%s: plan lacks %q:\n%s", name, w, plan)
			}
		}
		if strings.Contains(plan, "TEMP B-TREE") && !strings.HasPrefix(name, "without a number") || strings.Contains(plan, "SCAN") {
			t.Errorf("%s: plan sorts or scans:\n%s", name, plan)
		}
	}
}

// TestPairPlansPostgres: on 20,000 records after VACUUM ANALYZE, PostgreSQL walks the pair's
// index in order (no Sort node, no scan of a table), as SQLite does (TestPlans).
func TestPairPlansPostgres(t *testing.T) {
	db := openPostgres(t)
	pgPairRecords(t, db)
	// The triggers' insert (quire_record_pairs_write) reads a written record's rows by its id.
	var body string
	if err := db.QueryRow(`SELECT prosrc FROM pg_proc WHERE proname = 'quire_record_pairs_write'`).Scan(&body); err != nil {
		t.Fatal(err)
	}
	var raw []byte
	if err := db.QueryRow("EXPLAIN (FORMAT JSON) " + strings.ReplaceAll(body, "ANY (ids)", "ANY (ARRAY['r7', 'r8'])")).Scan(&raw); err != nil {
		t.Fatalf("%v\n%s", err, body)
	}
	var trig []struct{ Plan pgNode }
	if err := json.Unmarshal(raw, &trig); err != nil || len(trig) != 1 {
		t.Fatalf("%v %s", err, raw)
	}
	if nodes := trig[0].Plan.flatten(); strings.Contains(nodes, "Seq Scan|record_values") || !strings.Contains(nodes, "|record_values|record_values_pkey|") {
		t.Errorf("the triggers' insert does not read records by id:\n%s", nodes)
	}
	for name, st := range pairStmts(t, db, dbquery.Postgres) {
		var raw []byte
		if err := db.QueryRow("EXPLAIN (FORMAT JSON) "+st.SQL, st.Args...).Scan(&raw); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var plan []struct{ Plan pgNode }
		if err := json.Unmarshal(raw, &plan); err != nil || len(plan) != 1 {
			t.Fatalf("%s: %v %s", name, err, raw)
		}
		nodes := plan[0].Plan.flatten()
		want := "record_pairs_num"
		switch {
		case strings.HasPrefix(name, "title"):
			want = "record_pairs_text"
		case strings.HasPrefix(name, "without a number"):
			want = "record_values_text"
		}
		if want == "record_values_text" {
			// The end of a walk: the condition's matches are read from its index, and joined to
			// their records as the planner sees fit (by a hash of nodes, once they are many).
			if !strings.Contains(nodes, "|record_values|record_values_text|") || strings.Contains(nodes, "Seq Scan|record_values") {
				t.Errorf("%s: plan does not read the condition's index:\n%s", name, nodes)
			}
			continue
		}
		if !strings.Contains(nodes, "|record_pairs|"+want+"|") || strings.Contains(nodes, "Seq Scan") || strings.Contains(nodes, "Sort|") {
			t.Errorf("%s: plan does not walk %s in order:\n%s", name, want, nodes)
		}
	}
}

// pgPairRecords writes TestPairPlansPostgres's 20,000 records of benchDB with their values and
// pairs, and 300 pages under three other parents (the spread on which the eighth pass's generic
// plan joined by hashing), then runs VACUUM ANALYZE.
func pgPairRecords(t *testing.T, db *sql.DB) {
	t.Helper()
	for _, st := range []string{
		pgWorkspace, pgRecordNodes, pgOtherPages,
		`INSERT INTO record_values (database_id, record_id, property_id, ord, v_text, v_num)
			SELECT '` + benchDB + `', 'r' || i, p, 0, CASE p WHEN 'sel' THEN 'o' || (i % 20) WHEN 'title' THEN 'Record ' || i END,
			CASE p WHEN 'sel' THEN i % 20 WHEN 'num' THEN (i::bigint * 2654435761) % 1000000 WHEN 'done' THEN i % 2 END
			FROM generate_series(0, 19999) i CROSS JOIN (VALUES ('sel'), ('num'), ('title'), ('done')) v (p)`,
	} {
		if _, err := db.Exec(st); err != nil {
			t.Fatalf("%v\n%s", err, st)
		}
	}
	benchPairs(t, db)
	if _, err := db.Exec(`VACUUM ANALYZE`); err != nil {
		t.Fatal(err)
	}
}

// pgWorkspace and pgRecordNodes make the workspace and 20,000 records r0…r19999 of benchDB on
// PostgreSQL, without their values.
const (
	pgWorkspace   = `INSERT INTO workspaces (id, name, created_ms) VALUES ('` + workspace + `', 'test', 0)`
	pgRecordNodes = `INSERT INTO nodes (id, workspace_id, object, page_type, parent_type, parent_id, position, title, title_plain,
			properties, description, in_trash, created_ms, created_by, edited_ms, edited_by)
			SELECT 'r' || i, '` + workspace + `', 'page', 'page', 'database_id', '` + benchDB + `', 'a', '[]'::jsonb, '',
			'{}'::jsonb, '[]'::jsonb, FALSE, i, '` + u1 + `', i, '` + u1 + `' FROM generate_series(0, 19999) i`
	// pgOtherPages are 300 pages o0…o299 under three other parents.
	pgOtherPages = `INSERT INTO nodes (id, workspace_id, object, page_type, parent_type, parent_id, position, title, title_plain,
			properties, description, in_trash, created_ms, created_by, edited_ms, edited_by)
			SELECT 'o' || i, '` + workspace + `', 'page', 'page', 'page_id', 'parent' || (i % 3), 'a', '[]'::jsonb, '',
			'{}'::jsonb, '[]'::jsonb, FALSE, i, '` + u1 + `', i, '` + u1 + `' FROM generate_series(0, 299) i`
)

// pgNode is a node of PostgreSQL's JSON plan.
type pgNode struct {
	Type     string   `json:"Node Type"`
	Relation string   `json:"Relation Name"`
	Index    string   `json:"Index Name"`
	Plans    []pgNode `json:"Plans"`
}

// flatten lists the plan's nodes as "type|relation|index|", one after another.
func (n pgNode) flatten() string {
	s := fmt.Sprintf("%s|%s|%s|\n", n.Type, n.Relation, n.Index)
	for _, c := range n.Plans {
		s += c.flatten()
	}
	return s
}
