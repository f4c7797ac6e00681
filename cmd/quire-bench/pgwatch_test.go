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
