package dbquery_test

import (
	"database/sql"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/quire-dev/quire/internal/dbquery"
)

func TestScratchPlanWithin(t *testing.T) {
	path := os.Getenv("SCRATCH")
	if path == "" {
		t.Skip()
	}
	db, _ := sql.Open("sqlite", "file:"+path)
	defer db.Close()
	f, ss, _ := dbquery.Decode(benchSchema, []byte(`{"property":"num","number":{"greater_than":999000}}`), nil)
	q := dbquery.Query{DatabaseID: benchDB, Filter: f, Sorts: ss, Now: now, Limit: 101}
	ps, _ := dbquery.Probes(dbquery.SQLite, q)
	t.Log(ps[0].SQL, "\n", explain(t, db, ps[0].Stmt))
	rows, _ := db.Query(ps[0].SQL, ps[0].Args...)
	for rows.Next() {
		var id string
		rows.Scan(&id)
		q.Within = append(q.Within, id)
	}
	rows.Close()
	st, _ := dbquery.Compile(dbquery.SQLite, q)
	t.Log(len(q.Within), "\n", explain(t, db, st))
}

func TestScratchSplit(t *testing.T) {
	path := os.Getenv("SCRATCH")
	if path == "" {
		t.Skip()
	}
	db, _ := sql.Open("sqlite", "file:"+path)
	defer db.Close()
	db.SetMaxOpenConns(1)
	f, ss, _ := dbquery.Decode(benchSchema, []byte(`{"property":"sel","select":{"equals":"opt7"}}`), []byte(`[{"property":"num","direction":"ascending"}]`))
	q := dbquery.Query{DatabaseID: benchDB, Filter: f, Sorts: ss, Now: now, Limit: 101}
	ps, _ := dbquery.Probes(dbquery.SQLite, q)
	st, _ := dbquery.Compile(dbquery.SQLite, q)
	for name, s := range map[string]dbquery.Stmt{"probe": ps[0].Stmt, "walk": st} {
		var times []time.Duration
		for i := 0; i < 200; i++ {
			start := time.Now()
			rows, _ := db.Query(s.SQL, s.Args...)
			n := 0
			for rows.Next() {
				n++
			}
			rows.Close()
			times = append(times, time.Since(start))
		}
		slices.Sort(times)
		t.Logf("%s p50 %v", name, times[100])
	}
}

func TestScratchJoinVariant(t *testing.T) {
	path := os.Getenv("SCRATCH")
	if path == "" {
		t.Skip()
	}
	db, _ := sql.Open("sqlite", "file:"+path)
	defer db.Close()
	db.SetMaxOpenConns(1)
	variants := map[string]string{
		"exists": `SELECT n.id, s.v_num FROM record_values s CROSS JOIN nodes n
WHERE s.database_id = $1 AND s.property_id = $2 AND s.v_num IS NOT NULL
  AND n.id = s.record_id AND n.parent_id = $1 AND n.in_trash = FALSE
  AND EXISTS (SELECT 1 FROM record_values v WHERE v.database_id = $1 AND v.property_id = $3 AND v.v_text = $4 AND v.record_id = s.record_id)
ORDER BY s.v_num, s.record_id LIMIT 101`,
		"join": `SELECT n.id, s.v_num FROM record_values s CROSS JOIN record_values v CROSS JOIN nodes n
WHERE s.database_id = $1 AND s.property_id = $2 AND s.v_num IS NOT NULL
  AND v.database_id = $1 AND v.property_id = $3 AND v.v_text = $4 AND v.record_id = s.record_id
  AND n.id = s.record_id AND n.parent_id = $1 AND n.in_trash = FALSE
ORDER BY s.v_num, s.record_id LIMIT 101`,
		"bare walk": `SELECT s.record_id, s.v_num FROM record_values s
WHERE s.database_id = $1 AND s.property_id = $2 AND s.v_num IS NOT NULL AND $3 = $3 AND $4 = $4
ORDER BY s.v_num, s.record_id LIMIT 2000`,
	}
	for name, q := range variants {
		var times []time.Duration
		t.Log(name, explain(t, db, dbquery.Stmt{SQL: q, Args: []any{"bench", "num", "sel", "o7"}}))
		for i := 0; i < 200; i++ {
			start := time.Now()
			rows, err := db.Query(q, "bench", "num", "sel", "o7")
			if err != nil {
				t.Fatal(err)
			}
			n := 0
			for rows.Next() {
				n++
			}
			rows.Close()
			times = append(times, time.Since(start))
		}
		slices.Sort(times)
		t.Logf("%s p50 %v", name, times[100])
	}
}
