package store_test

import (
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/quire-dev/quire/internal/store"
	"github.com/quire-dev/quire/internal/testdb"
)

// TestStmtCache_KeptAcrossTransactions checks that the SQLite writer keeps the statements a
// transaction prepared for the next ones, bounded, and that writes stay correct through kept
// statements when the schema changes under them and when transactions run concurrently (both
// engines; PostgreSQL keeps nothing itself, pgx does).
func TestStmtCache_KeptAcrossTransactions(t *testing.T) {
	testdb.ForEachEngine(t, testKeptStmts)
}

func testKeptStmts(t *testing.T, s *store.Store) {
	sqlite := s.Engine() == store.SQLite
	mustTx(t, s, func(tx *store.Tx) error {
		return tx.Exec(ctx, `CREATE TABLE kv (k TEXT PRIMARY KEY, v INTEGER NOT NULL)`)
	})
	put := func(tx *store.Tx, k string, v int) error {
		return tx.Exec(ctx, `INSERT INTO kv (k, v) VALUES ($1, $2) ON CONFLICT (k) DO UPDATE SET v = excluded.v`, k, v)
	}
	get := func(k string) int {
		rows, err := s.RowsForTest(ctx, `SELECT v FROM kv WHERE k = $1`, k)
		if err != nil || len(rows) != 1 {
			t.Fatalf("kv %s: %v %v", k, rows, err)
		}
		var v int
		fmt.Sscan(rows[0], &v)
		return v
	}

	before := s.KeptStmtsForTest()
	mustTx(t, s, func(tx *store.Tx) error { return put(tx, "a", 1) })
	mustTx(t, s, func(tx *store.Tx) error { return put(tx, "a", 2) }) // prepares what the first noted
	kept := s.KeptStmtsForTest()
	if sqlite && kept <= before {
		t.Fatalf("kept statements: %d before, %d after two transactions; want more", before, kept)
	}
	mustTx(t, s, func(tx *store.Tx) error { return put(tx, "a", 3) })
	if got := s.KeptStmtsForTest(); got != kept {
		t.Errorf("a third run of the same statement changed the kept count: %d, then %d", kept, got)
	}
	if get("a") != 3 {
		t.Fatalf("a = %d through the kept statement, want 3", get("a"))
	}

	// A column added under the kept INSERT: SQLite prepares it again; the write still lands.
	mustTx(t, s, func(tx *store.Tx) error { return tx.Exec(ctx, `ALTER TABLE kv ADD COLUMN note TEXT`) })
	mustTx(t, s, func(tx *store.Tx) error { return put(tx, "a", 4) })
	if get("a") != 4 {
		t.Fatalf("a = %d after the schema change, want 4", get("a"))
	}

	// Many distinct texts: the count stays bounded and every one still runs right.
	for i := range store.MaxKeptStmts + 40 {
		mustTx(t, s, func(tx *store.Tx) error {
			return tx.Exec(ctx, fmt.Sprintf(`INSERT INTO kv (k, v) VALUES ('n%d', %d)`, i, i))
		})
	}
	mustTx(t, s, func(tx *store.Tx) error { return put(tx, "a", 5) })
	if n := s.KeptStmtsForTest(); n > store.MaxKeptStmts {
		t.Errorf("kept %d statements, bound %d", n, store.MaxKeptStmts)
	}
	if get("a") != 5 || get("n7") != 7 || get(fmt.Sprintf("n%d", store.MaxKeptStmts+39)) != store.MaxKeptStmts+39 {
		t.Fatalf("values after eviction: a=%d n7=%d", get("a"), get("n7"))
	}

	// Concurrent writers share the kept statements (one connection; run with -race too).
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 20 {
				err := s.InTx(ctx, func(tx *store.Tx) error {
					if err := put(tx, fmt.Sprintf("g%d", g), i); err != nil {
						return err
					}
					// A fresh text now and then, so that kept statements are prepared and
					// evicted while other transactions use theirs.
					return tx.Exec(ctx, `INSERT INTO kv (k, v) VALUES ($1, $2)`+strings.Repeat(" ", i), fmt.Sprintf("g%d-%d", g, i), i)
				})
				if err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	for g := range 8 {
		if v := get(fmt.Sprintf("g%d", g)); v != 19 {
			t.Errorf("g%d = %d, want 19", g, v)
		}
	}
}
