package store_test

import (
	"context"
	"errors"
	"strconv"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/quire-dev/quire/internal/store"
	"github.com/quire-dev/quire/internal/testdb"
)

// readsOwn makes n raw reads of `SELECT $1::text`, each with its own value, and fails unless
// each is answered with its own value: a connection pooled in the middle of an earlier
// exchange would answer with that exchange's leftovers.
func readsOwn(t *testing.T, s *store.Store, step string, n int) {
	t.Helper()
	for i := range n {
		want := step + " " + strconv.Itoa(i)
		var got string
		if _, err := s.PGRawScanForTest(ctx, `SELECT $1::text`, []string{want}, &got); err != nil || got != want {
			t.Fatalf("%s: read %d = %q, %v; want %q", step, i, got, err, want)
		}
	}
	if st := s.PoolStats()[0]; st.InUse != 0 {
		t.Fatalf("%s: %d connections still in use", step, st.InUse)
	}
}

// TestPGRawExchange_Cancelled: a raw read whose context ends while PostgreSQL still runs its
// statement returns the context's error at once, and the connection it broke off is not
// pooled: every later read gets its own answer, not the broken-off statement's.
func TestPGRawExchange_Cancelled(t *testing.T) {
	s := testdb.Postgres(t)
	readsOwn(t, s, "before", 5)
	short, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
	defer cancel()
	start := time.Now()
	var v string
	_, err := s.PGRawScanForTest(short, `SELECT $1::text FROM pg_sleep(2)`, []string{"slow"}, &v)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("a read past its deadline: %q, %v; want context.DeadlineExceeded", v, err)
	}
	if d := time.Since(start); d > time.Second {
		t.Fatalf("a read past its 100 ms deadline returned after %v", d)
	}
	readsOwn(t, s, "after", 20)
	time.Sleep(2 * time.Second) // the broken-off statement's answer would be there by now
	readsOwn(t, s, "later", 20)
}

// TestPGRawExchange_StatementError: a statement that fails in PostgreSQL returns its error
// (a *pgconn.PgError, as through pgx), and its connection, read up to the end of the failed
// exchange, serves the next reads.
func TestPGRawExchange_StatementError(t *testing.T) {
	s := testdb.Postgres(t)
	const q = `SELECT (10 / $1::int)::text`
	var v string
	_, err := s.PGRawScanForTest(ctx, q, []string{"0"}, &v)
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) || pgErr.Code != "22012" {
		t.Fatalf("division by zero: %q, %v; want a PgError 22012", v, err)
	}
	for i := range 10 {
		if _, err := s.PGRawScanForTest(ctx, q, []string{"2"}, &v); err != nil || v != "5" {
			t.Fatalf("read %d after the error: %q, %v; want 5", i, v, err)
		}
	}
	readsOwn(t, s, "after", 10)
}

// TestPGRawExchange_ColumnTypeChanged: a statement prepared before its column changed type
// (another server's migration) fails at most once on each connection that prepared it
// (PostgreSQL's "cached plan must not change result type"), then is prepared afresh and read
// with the new type, as pgx's statement cache does; it does not fail for ever.
func TestPGRawExchange_ColumnTypeChanged(t *testing.T) {
	s := testdb.Postgres(t)
	mustTx(t, s, func(tx *store.Tx) error {
		if err := tx.Exec(ctx, `CREATE TABLE type_probe (k TEXT PRIMARY KEY, v TEXT NOT NULL)`); err != nil {
			return err
		}
		return tx.Exec(ctx, `INSERT INTO type_probe (k, v) VALUES ('a', '7')`)
	})
	const q = `SELECT v, k FROM type_probe WHERE k = $1`
	var v, k string
	for i := range 5 {
		if _, err := s.PGRawScanForTest(ctx, q, []string{"a"}, &v, &k); err != nil || v != "7" {
			t.Fatalf("read %d: %q, %v", i, v, err)
		}
	}
	mustTx(t, s, func(tx *store.Tx) error {
		return tx.Exec(ctx, `ALTER TABLE type_probe ALTER COLUMN v TYPE BIGINT USING v::bigint`)
	})
	open := s.PoolStats()[0].OpenConnections
	failed, last := 0, -1
	n := 3*open + 5
	for i := range n {
		var num int64
		_, err := s.PGRawScanForTest(ctx, q, []string{"a"}, &num, &k)
		var pgErr *pgconn.PgError
		switch {
		case errors.As(err, &pgErr) && pgErr.Code == "0A000":
			failed, last = failed+1, i
		case err != nil || num != 7:
			t.Fatalf("read %d after the change: %d, %v", i, num, err)
		}
	}
	if open = max(open, s.PoolStats()[0].OpenConnections); failed > open || last >= n-open {
		t.Fatalf("%d of %d reads failed (the last at %d) on %d connections; want at most one a connection", failed, n, last, open)
	}
}

// TestPGRawExchange_BrokenAfterRows: a raw read whose connection breaks after some of its rows
// were given (here the backend ends itself after its rows) returns an error and is not tried again
// on another connection: the retry would give those rows a second time, a list with repeats
// instead of an error. The store's reads then go on, each with its own answer.
func TestPGRawExchange_BrokenAfterRows(t *testing.T) {
	s := testdb.Postgres(t)
	got, err := s.PGRawRowsForTest(ctx, `SELECT g::text FROM generate_series(1, 3) g
		UNION ALL SELECT pg_terminate_backend(pg_backend_pid())::text`, nil)
	if err == nil {
		t.Fatalf("a read whose backend ended = %v, no error", got)
	}
	seen := map[string]bool{}
	for _, v := range got {
		if seen[v] {
			t.Fatalf("a read broken after its rows gave %v: rows again", got)
		}
		seen[v] = true
	}
	if !seen["1"] {
		t.Fatalf("a read broken after its rows gave %v; want its first rows before the error", got)
	}
	readsOwn(t, s, "after", 10)
}
