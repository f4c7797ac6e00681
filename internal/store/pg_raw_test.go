package store_test

import (
	"context"
	"database/sql"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/quire-dev/quire/internal/store"
	"github.com/quire-dev/quire/internal/testdb"
)

// TestPGRawScan_AsDatabaseSQL: PostgreSQL's raw reads scan the column types the hot reads and a
// query's walk return (text, bigint, boolean, double precision; a value, an empty text, NULL)
// into the destinations the store's scans use for them (a walk's: a number into a
// *sql.NullFloat64, any column into an *any) exactly as database/sql's Scan does over pgx's driver, the same
// value or an error alike. Into any other destination (a number into a *string, a text into an
// *int64) a raw read either gives database/sql's value or an error, never another value.
func TestPGRawScan_AsDatabaseSQL(t *testing.T) {
	s := testdb.Postgres(t)
	mustTx(t, s, func(tx *store.Tx) error {
		if err := tx.Exec(ctx, `CREATE TABLE scan_probe (k TEXT PRIMARY KEY, t TEXT, i BIGINT, b BOOLEAN, f DOUBLE PRECISION)`); err != nil {
			return err
		}
		return tx.Exec(ctx, `INSERT INTO scan_probe (k, t, i, b, f) VALUES ('text', 'héllo', 0, TRUE, 0.1), ('empty', '', 1, FALSE, 0),
			('big', '42', 1764000000123, TRUE, 1.7976931348623157e308), ('neg', 't', -1, FALSE, -2.5e-7), ('null', NULL, NULL, NULL, NULL)`)
	})
	dests := map[string]func() any{
		"string": func() any { return new(string) }, "nullstring": func() any { return new(sql.NullString) },
		"bytes": func() any { return new([]byte) }, "int64": func() any { return new(int64) }, "bool": func() any { return new(bool) },
		"nullfloat": func() any { return new(sql.NullFloat64) }, "any": func() any { return new(any) },
	}
	natural := map[string][]string{"t": {"string", "nullstring", "bytes", "any"}, "i": {"int64", "nullfloat", "any"},
		"b": {"bool", "any"}, "f": {"nullfloat"}}
	for _, col := range []string{"t", "i", "b", "f"} {
		q := `SELECT ` + col + `, k FROM scan_probe WHERE k = $2 AND $1 = 'x'` // $2 comes first
		for _, k := range []string{"text", "empty", "big", "neg", "null"} {
			for name, dest := range dests {
				raw, sqlv := dest(), dest()
				var rawKey, sqlKey string
				ok, rawErr := s.PGRawScanForTest(ctx, q, []string{"x", k}, raw, &rawKey)
				if !ok {
					t.Fatal("no raw reads on PostgreSQL")
				}
				sqlErr := s.ScanForTest(ctx, q, []any{"x", k}, sqlv, &sqlKey)
				used := false
				for _, n := range natural[col] {
					used = used || n == name
				}
				switch {
				case sqlErr != nil && rawErr == nil:
					t.Errorf("%s of %s into %s: database/sql error %v, raw none (%v)", col, k, name, sqlErr, raw)
				case rawErr != nil && (used || k == "null") && sqlErr == nil:
					t.Errorf("%s of %s into %s: raw error %v, database/sql none", col, k, name, rawErr)
				case rawErr == nil && sqlErr == nil:
					if diff := cmp.Diff(sqlv, raw); diff != "" || rawKey != k {
						t.Errorf("%s of %s into %s (-database/sql +raw):\n%s (key %q)", col, k, name, diff, rawKey)
					}
					if b, ok := raw.(*[]byte); ok && (*b == nil) != (*sqlv.(*[]byte) == nil) {
						t.Errorf("%s of %s into bytes: raw nil %v, database/sql nil %v", col, k, *b == nil, *sqlv.(*[]byte) == nil)
					}
				}
			}
		}
	}
	const q = `SELECT t, k FROM scan_probe WHERE k = $1`
	if _, err := s.PGRawScanForTest(ctx, q, []string{"absent"}, new(string), new(string)); err != sql.ErrNoRows {
		t.Errorf("no row: %v, want sql.ErrNoRows", err)
	}
	if _, err := s.PGRawScanForTest(ctx, `SELECT nope FROM scan_probe`, nil, new(string)); err == nil {
		t.Error("a statement PostgreSQL cannot prepare gave no error")
	}
	if _, err := s.PGRawScanForTest(ctx, q, []string{"text"}, new(string)); err == nil {
		t.Error("one destination for two columns gave no error")
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := s.PGRawScanForTest(cancelled, q, []string{"text"}, new(string), new(string)); err != context.Canceled {
		t.Errorf("cancelled context: %v", err)
	}
}

// TestPGRaw_ConnectionsKilled: the raw reads run on database/sql's pooled connections, which
// keep its handling of a connection PostgreSQL closed under them (a restart, a terminated
// backend): after every backend of the store is terminated, the next reads are answered, on
// fresh connections, and the pool still counts each connection the reads use.
func TestPGRaw_ConnectionsKilled(t *testing.T) {
	cfg := store.Config{DatabaseURL: testdb.PostgresURL(t)}
	s := openStore(t, cfg)
	w, _ := seed(t, s)
	read := func(step string) {
		t.Helper()
		var name string
		if _, err := s.PGRawScanForTest(ctx, `SELECT name FROM workspaces WHERE id = $1`, []string{w.ID}, &name); err != nil || name != w.Name {
			t.Fatalf("%s: %q, %v; want %q", step, name, err, w.Name)
		}
	}
	read("before")
	if st := s.PoolStats()[0]; st.OpenConnections < 1 || st.InUse != 0 {
		t.Fatalf("pool after a raw read: %+v, want a connection open and none in use", st.DBStats)
	}
	db, err := sql.Open("pgx", cfg.DatabaseURL)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var killed int
	if err := db.QueryRowContext(ctx, `SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity
		WHERE datname = current_database() AND pid <> pg_backend_pid()`).Scan(&killed); err != nil || killed < 1 {
		t.Fatalf("terminated %d backends: %v", killed, err)
	}
	// database/sql pings a connection idle for over a second before it hands it out (pgx's
	// ResetSession), and drops one that does not answer.
	time.Sleep(1100 * time.Millisecond)
	read("after the backends were terminated")
	read("again")
}
