package search

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib"
)

// TestIDBytes_ScanHoldsNoLock: after a row is scanned into idBytes and the query's context is
// cancelled, database/sql closes the rows by itself (its connection goes back to the pool)
// without the reader calling Next again. A Scan into sql.RawBytes keeps the rows' lock held
// until the next Next, so that close waits: the state in which firstListed's Rows.Err hung a
// search for good (listed.go). Both engines' drivers hand a text column over differently
// (string on both today, []byte allowed), so the test reads through each.
func TestIDBytes_ScanHoldsNoLock(t *testing.T) {
	engines := []struct{ name, driver, dsn, query string }{
		{"sqlite", "sqlite", filepath.Join(t.TempDir(), "ids.db"),
			`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM n WHERE i < 1000) SELECT 'node-' || i FROM n`},
		{"postgres", "pgx", os.Getenv("QUIRE_TEST_DATABASE_URL"), `SELECT 'node-' || i FROM generate_series(1, 1000) i`},
	}
	for _, e := range engines {
		t.Run(e.name, func(t *testing.T) {
			if e.dsn == "" {
				if os.Getenv("CI") != "" {
					t.Fatal("QUIRE_TEST_DATABASE_URL is not set")
				}
				t.Skip("QUIRE_TEST_DATABASE_URL is not set")
			}
			db, err := sql.Open(e.driver, e.dsn)
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			rows, err := db.QueryContext(ctx, e.query)
			if err != nil {
				t.Fatal(err)
			}
			defer rows.Close()
			var id idBytes
			for i := 0; i < 3 && rows.Next(); i++ {
				if err := rows.Scan(&id); err != nil {
					t.Fatal(err)
				}
			}
			if string(id) != "node-3" {
				t.Fatalf("third id = %q, want node-3", id)
			}
			if n := db.Stats().InUse; n != 1 {
				t.Fatalf("connections in use while reading = %d, want 1", n)
			}
			cancel()
			deadline := time.Now().Add(5 * time.Second)
			for db.Stats().InUse != 0 {
				if time.Now().After(deadline) {
					t.Fatal("the rows were not closed 5 s after their context was cancelled: the scan still holds their lock")
				}
				time.Sleep(5 * time.Millisecond)
			}
			done := make(chan error, 1)
			go func() { done <- rows.Err() }()
			select {
			case err := <-done:
				if err == nil {
					t.Fatal("Rows.Err = nil after the context was cancelled mid-read")
				}
			case <-time.After(5 * time.Second):
				t.Fatal("Rows.Err did not return")
			}
		})
	}
}

func TestIDBytes_Scan(t *testing.T) {
	var id idBytes
	for _, tc := range []struct {
		src  any
		want string
		ok   bool
	}{
		{"abc", "abc", true},
		{[]byte("de"), "de", true},
		{"", "", true},
		{int64(7), "", false},
		{nil, "", false},
	} {
		err := id.Scan(tc.src)
		if (err == nil) != tc.ok || (tc.ok && string(id) != tc.want) {
			t.Errorf("Scan(%#v) = %q, %v; want %q, ok %v", tc.src, id, err, tc.want, tc.ok)
		}
	}
}
