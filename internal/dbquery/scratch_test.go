package dbquery_test

import (
	"context"
	"database/sql"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/quire-dev/quire/internal/dbquery"
)

// TestScratchSeed / TestScratchRun: experiments on a kept file (SCRATCH=path).
func TestScratchSeed(t *testing.T) {
	path := os.Getenv("SCRATCH")
	if path == "" {
		t.Skip()
	}
	db := openSQLite(t)
	db.SetMaxOpenConns(1)
	db.Exec("PRAGMA cache_size=-200000")
	db.Exec("PRAGMA synchronous=OFF")
	start := time.Now()
	seedBench(t, db, 100_000)
	t.Logf("seeded in %v", time.Since(start))
	if _, err := db.Exec("VACUUM INTO '" + path + "'"); err != nil {
		t.Fatal(err)
	}
}

func TestScratchRun(t *testing.T) {
	path := os.Getenv("SCRATCH")
	if path == "" {
		t.Skip()
	}
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=journal_mode(WAL)&"+os.Getenv("PRAGMAS"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	for _, s := range strings.Split(os.Getenv("SETUP"), ";") {
		if strings.TrimSpace(s) != "" {
			if _, err := db.Exec(s); err != nil {
				t.Fatal(err)
			}
		}
	}
	ctx := context.Background()
	for _, bq := range benchQueries {
		f, ss, _ := dbquery.Decode(benchSchema, []byte(bq.filter), []byte(bq.sorts))
		q := dbquery.Query{DatabaseID: benchDB, Filter: f, Sorts: ss, Now: now}
		var times []time.Duration
		n := 0
		budget := time.Now().Add(3 * time.Second)
		for i := 0; i < 30 && time.Now().Before(budget); i++ {
			start := time.Now()
			qctx, cancel := context.WithTimeout(ctx, 5*time.Second)
			ids, _, err := dbquery.Page(qctx, db, dbquery.SQLite, q, 100)
			cancel()
			if err != nil && time.Since(start) > 4*time.Second {
				t.Logf("%s: timed out", bq.name)
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			n = len(ids)
			times = append(times, time.Since(start))
		}
		slices.Sort(times)
		st, _ := dbquery.Compile(dbquery.SQLite, dbquery.Query{DatabaseID: benchDB, Filter: f, Sorts: ss, Now: now, Limit: 101})
		if os.Getenv("PLAN") != "" {
			t.Log(explain(t, db, st))
		}
		t.Logf("%-48s p50 %8.2f ms  (%d)", bq.name, float64(times[len(times)/2].Microseconds())/1000, n)
	}
}
