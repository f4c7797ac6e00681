package dbquery_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/quire-dev/quire/internal/dbquery"
)

// TestPairGenericPlan: on PostgreSQL a pair's walk has one plan whatever the values: PostgreSQL's
// generic plan (planned once, without the arguments) walks the pair's index in order and looks
// each record up by id, with no hash, sort or scan of a table, on records spread under several
// parents; and the plan cache keeps that generic plan after its first calls on a connection,
// instead of planning at every call (0.2 ms of the backend's CPU a query on issue 15's row).
// It fails with the walk as a plain join: its generic plan then costs more than the custom
// ones, and the plan cache plans every call.
func TestPairGenericPlan(t *testing.T) {
	db := openPostgres(t)
	pgPairRecords(t, db)
	ctx := context.Background()
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	stmts := pairStmts(t, db, dbquery.Postgres)
	if _, err := conn.ExecContext(ctx, `SET plan_cache_mode = force_generic_plan`); err != nil {
		t.Fatal(err)
	}
	for name, st := range stmts {
		if strings.HasPrefix(name, "without a number") {
			continue // not a pair's walk: the condition's own matches (TestPairPlansPostgres)
		}
		nodes := genericPlan(t, conn, st)
		want := "|record_pairs|record_pairs_num|"
		if strings.HasPrefix(name, "title") {
			want = "|record_pairs|record_pairs_text|"
		}
		if !strings.Contains(nodes, "Nested Loop|") || !strings.Contains(nodes, want) || !strings.Contains(nodes, "|nodes|nodes_pkey|") ||
			strings.Contains(nodes, "Hash") || strings.Contains(nodes, "Sort|") || strings.Contains(nodes, "Seq Scan") ||
			strings.Contains(nodes, "Bitmap") {
			t.Errorf("%s: the generic plan does not walk %s in order, each record by id:\n%s", name, want, nodes)
		}
	}
	if _, err := conn.ExecContext(ctx, `RESET plan_cache_mode`); err != nil {
		t.Fatal(err)
	}
	// As the store runs it: prepared once on the connection (pgx's statement cache), then run.
	st := stmts["number ascending, fetching"]
	for range 8 {
		rows, err := conn.QueryContext(ctx, st.SQL, st.Args...)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for rows.Next() {
			n++
		}
		if err := rows.Err(); err != nil || n != 101 {
			t.Fatalf("the walk read %d rows (%v); want 101", n, err)
		}
		rows.Close()
	}
	var generic, custom int64
	if err := conn.QueryRowContext(ctx, `SELECT generic_plans, custom_plans FROM pg_prepared_statements
		WHERE NOT from_sql AND statement = $1`, st.SQL).Scan(&generic, &custom); err != nil {
		t.Fatal(err)
	}
	if generic < 2 {
		t.Errorf("8 calls of the walk: %d generic plans, %d custom; want the generic plan kept after the first calls", generic, custom)
	}
}

// genericPlan is the flattened plan PostgreSQL runs for st under the connection's
// plan_cache_mode: the statement prepared without its arguments' values, then EXPLAIN EXECUTE.
func genericPlan(t *testing.T, conn *sql.Conn, st dbquery.Stmt) string {
	t.Helper()
	ctx := context.Background()
	if _, err := conn.ExecContext(ctx, "PREPARE walk AS "+st.SQL); err != nil {
		t.Fatalf("%v\n%s", err, st.SQL)
	}
	defer conn.ExecContext(ctx, "DEALLOCATE walk")
	lits := make([]string, len(st.Args))
	for i, a := range st.Args {
		switch a := a.(type) {
		case string:
			lits[i] = "'" + strings.ReplaceAll(a, "'", "''") + "'"
		case int64:
			lits[i] = strconv.FormatInt(a, 10)
		case float64:
			lits[i] = strconv.FormatFloat(a, 'g', -1, 64)
		case bool:
			lits[i] = strconv.FormatBool(a)
		default:
			t.Fatalf("argument %d is %T", i+1, a)
		}
	}
	var raw []byte
	q := fmt.Sprintf("EXPLAIN (FORMAT JSON) EXECUTE walk(%s)", strings.Join(lits, ", "))
	if err := conn.QueryRowContext(ctx, q).Scan(&raw); err != nil {
		t.Fatalf("%v\n%s", err, q)
	}
	var plan []struct{ Plan pgNode }
	if err := json.Unmarshal(raw, &plan); err != nil || len(plan) != 1 {
		t.Fatalf("%v %s", err, raw)
	}
	return plan[0].Plan.flatten()
}
