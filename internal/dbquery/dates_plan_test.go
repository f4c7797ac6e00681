package dbquery_test

import (
	"database/sql"
	"encoding/json"
	"strings"
	"testing"

	"github.com/quire-dev/quire/internal/dbquery"
)

// Date statements of TestDatePlans: a date's rows have only their number since migration 00021
// (the text index holds none of them), so each must find them on record_values_num.
var (
	dateSort    = `[{"property":"date","direction":"ascending"}]`
	dateFilters = []string{`{"property":"date","date":{"on_or_after":"2024-12-20"}}`, `{"property":"date","date":{"equals":"2024-03-01"}}`}
)

// dateStmts are the date sort's walk, each (selective) date filter as the probe that counts it and as the
// statement it then drives, and each as a condition checked per record of a number sort's walk.
func dateStmts(t *testing.T, d dbquery.Dialect) map[string]dbquery.Stmt {
	t.Helper()
	out := map[string]dbquery.Stmt{}
	compile := func(name, filter, sorts string, narrow bool) {
		f, ss, err := dbquery.Decode(benchSchema, []byte(filter), []byte(sorts))
		if err != nil {
			t.Fatal(err)
		}
		q := dbquery.Query{DatabaseID: benchDB, Filter: f, Sorts: ss, Limit: 101, Now: now}
		if narrow {
			c := f.(dbquery.Cond)
			q.Narrow = &c
			ps, err := dbquery.Probes(d, q, 1000)
			if err != nil || len(ps) != 1 {
				t.Fatalf("%s: %d probes, %v", filter, len(ps), err)
			}
			out["probe "+name] = ps[0].Stmt
		}
		if out[name], err = dbquery.Compile(d, q); err != nil {
			t.Fatal(err)
		}
	}
	compile("date sort", ``, dateSort, false)
	for _, f := range dateFilters {
		compile("narrowed by "+f, f, `[{"property":"num","direction":"ascending"}]`, true)
		compile("checked in a walk: "+f, f, `[{"property":"num","direction":"ascending"}]`, false)
	}
	return out
}

// TestDatePlans: on SQLite (seedBench's 20,000 records, before and after ANALYZE) every date
// statement reads record_values_num, the walk of the date sort in order without a sort step, and
// none scans record_values.
func TestDatePlans(t *testing.T) {
	db := openSQLite(t)
	seedBench(t, db, 20_000)
	for _, analyze := range []bool{false, true} {
		if analyze {
			if _, err := db.Exec("ANALYZE"); err != nil {
				t.Fatal(err)
			}
		}
		for name, st := range dateStmts(t, dbquery.SQLite) {
			plan := explain(t, db, st)
			want := "USING COVERING INDEX record_values_num (database_id=? AND property_id=?"
			if strings.HasPrefix(name, "checked") {
				want = "INDEX sqlite_autoindex_record_values_1 (record_id=? AND property_id=?"
			}
			if !strings.Contains(plan, want) || strings.Contains(plan, "SCAN v") || strings.Contains(plan, "SCAN s") ||
				name == "date sort" && strings.Contains(plan, "TEMP B-TREE") {
				t.Errorf("analyzed=%v, %s: plan lacks %q or scans:\n%s", analyze, name, want, plan)
			}
		}
	}
}

// TestDatePlansPostgres: the same on PostgreSQL after VACUUM ANALYZE of 20,000 records whose
// dates have only their number.
func TestDatePlansPostgres(t *testing.T) {
	db := openPostgres(t)
	for _, st := range []string{
		pgWorkspace, pgRecordNodes,
		`INSERT INTO record_values (database_id, record_id, property_id, ord, v_text, v_num)
			SELECT '` + benchDB + `', 'r' || i, p, 0, NULL,
			CASE p WHEN 'num' THEN (i::bigint * 2654435761) % 1000000 ELSE 1704067200000 + (i % 365) * 86400000::bigint END
			FROM generate_series(0, 19999) i CROSS JOIN (VALUES ('num'), ('date')) v (p)`,
		`VACUUM ANALYZE`,
	} {
		if _, err := db.Exec(st); err != nil {
			t.Fatalf("%v\n%s", err, st)
		}
	}
	for name, st := range dateStmts(t, dbquery.Postgres) {
		nodes := pgPlan(t, db, st)
		want := "|record_values_num|" // an Index Scan names its table, a Bitmap Index Scan does not
		if strings.HasPrefix(name, "checked") {
			want = "|record_values_pkey|"
		}
		if !strings.Contains(nodes, want) || strings.Contains(nodes, "Seq Scan|record_values") ||
			name == "date sort" && strings.Contains(nodes, "Sort|") {
			t.Errorf("%s: plan lacks %s or scans:\n%s", name, want, nodes)
		}
	}
}

// pgPlan is PostgreSQL's plan of st, flattened.
func pgPlan(t *testing.T, db *sql.DB, st dbquery.Stmt) string {
	t.Helper()
	var raw []byte
	if err := db.QueryRow("EXPLAIN (FORMAT JSON) "+st.SQL, st.Args...).Scan(&raw); err != nil {
		t.Fatalf("%v\n%s", err, st.SQL)
	}
	var plan []struct{ Plan pgNode }
	if err := json.Unmarshal(raw, &plan); err != nil || len(plan) != 1 {
		t.Fatalf("%v %s", err, raw)
	}
	return plan[0].Plan.flatten()
}
