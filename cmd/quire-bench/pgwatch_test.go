package main

import (
	"context"
	"database/sql"
	"os"
	"strings"
	"testing"

	"github.com/quire-dev/quire/internal/testdb"
)

// TestPGWatch: a watched run on a real PostgreSQL database reports the rows it wrote by table,
// the commits, WAL and samples taken while it ran, the active backend's wait seen by the
// samples (a pg_sleep), quire's CPU (this process here) and, the cluster being local, its
// backends' CPU; a table nothing wrote is left out.
func TestPGWatch(t *testing.T) {
	ctx := context.Background()
	url := testdb.PostgresURL(t)
	db, err := sql.Open("pgx", url)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, q := range []string{`CREATE TABLE watched (n int)`, `CREATE TABLE untouched (n int)`} {
		if _, err := db.ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	var log strings.Builder
	w, err := newPGWatch(ctx, url, os.Getpid(), &log)
	if err != nil {
		t.Fatal(err)
	}
	defer w.close()
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	r, err := w.watched(ctx, "insert c=1 round 1", func() (int64, error) {
		for i := range 20 {
			if _, err := conn.ExecContext(ctx, `INSERT INTO watched VALUES ($1)`, i); err != nil {
				return 0, err
			}
		}
		// A busy backend reports its counts at most once a second; this one reports them as
		// it goes idle after the sleep.
		_, err := conn.ExecContext(ctx, `SELECT pg_sleep(0.6), pg_stat_force_next_flush()`)
		return 20, err
	})
	if err != nil || r == nil {
		t.Fatalf("watched = %+v, %v (log %q)", r, err, log.String())
	}
	if len(r.Tables) != 1 || r.Tables[0].Table != "watched" || r.Tables[0].Inserted != 20 {
		t.Errorf("tables = %+v; want watched with 20 inserted alone", r.Tables)
	}
	if r.Commits < 20 || r.WALBytes <= 0 || r.Requests != 20 || r.Seconds < 0.6 {
		t.Errorf("commits %d, WAL %d bytes, requests %d, %.2f s; want ≥ 20 commits, some WAL, 20 requests, ≥ 0.6 s", r.Commits, r.WALBytes, r.Requests, r.Seconds)
	}
	if r.Samples < 2 || r.Waits["Timeout:PgSleep"] < 1 {
		t.Errorf("%d samples, waits %v; want the sleep seen", r.Samples, r.Waits)
	}
	if r.QuireCPU < 0 {
		t.Errorf("quire's CPU %v; want it read from /proc", r.QuireCPU)
	}
	if w.master != 0 && (r.ClientCPU < 0 || r.ClusterCPU < r.ClientCPU) {
		t.Errorf("backends' CPU %v, cluster's %v; want both read, the cluster's at least the backends'", r.ClientCPU, r.ClusterCPU)
	}
	var line strings.Builder
	printRound(&line, r, "p50 1.00 ms, ")
	if !strings.HasPrefix(line.String(), "  pg insert c=1 round 1 (load ") || !strings.Contains(line.String(), "Timeout:PgSleep") {
		t.Errorf("printRound wrote %q", line.String())
	}
}

// TestClientDelta: a backend alive at both snapshots counts its difference, a new one all of
// its CPU; an unread snapshot gives -1.
func TestClientDelta(t *testing.T) {
	if got := clientDelta(map[int]float64{1: 10, 2: 50}, map[int]float64{1: 30, 3: 5}); got != 25 {
		t.Errorf("clientDelta = %v; want 25 (20 of pid 1, 5 of the new pid 3; pid 2 ended)", got)
	}
	if got := clientDelta(nil, map[int]float64{1: 3}); got != -1 {
		t.Errorf("clientDelta without a first snapshot = %v; want -1", got)
	}
}

// TestPrintUpkeepNotes: a round with an autovacuum seen beside it, or a table analyzed during
// it, is listed with its p50 and the other processes' CPU; a quiet round is not.
func TestPrintUpkeepNotes(t *testing.T) {
	quiet := &dbRound{Requests: 100, Samples: 15, ClientCPU: 300, ClusterCPU: 300}
	vacuum := &dbRound{Requests: 100, Samples: 15, ClientCPU: 300, ClusterCPU: 887,
		Upkeep: map[string]int{"autovacuum: ANALYZE public.blocks": 13}}
	analyzed := &dbRound{Requests: 100, Samples: 16, ClientCPU: 300, ClusterCPU: 300,
		Tables: []tableDelta{{Table: "search_docs", Autoanalyzes: 1}}}
	s := speedSet{
		Steady:      []row{{Endpoint: "search", Conns: 1, Quire: []fig{{P50: 3e6}, {P50: 22e6}}, DB: []*dbRound{quiet, vacuum}}},
		WhileSteady: []row{{Endpoint: "search", Conns: 1, Quire: []fig{{P50: 31e6}}, DB: []*dbRound{analyzed}}},
	}
	var b strings.Builder
	printUpkeepNotes(&b, s)
	want := "- search c=1, steady, round 2: p50 22.000 ms beside `autovacuum: ANALYZE public.blocks` in 13 (of 15 samples); the cluster's other processes 5.87 ms of CPU a request\n" +
		"- search c=1, steady just before a burst, round 1: p50 31.000 ms beside search_docs analyzed (of 16 samples); the cluster's other processes 0.00 ms of CPU a request\n"
	if b.String() != want {
		t.Errorf("printUpkeepNotes wrote\n%s\nwant\n%s", b.String(), want)
	}
}
