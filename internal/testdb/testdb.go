// Package testdb gives tests a fresh, migrated store on each engine: an SQLite file in a temp
// folder, and a PostgreSQL database cloned from a migrated template. PostgreSQL comes from
// QUIRE_TEST_DATABASE_URL when set, else from a throwaway cluster that this package starts with
// the machine's initdb and pg_ctl (once per test binary; Main stops it). Without either, the
// PostgreSQL subtests skip, unless CI is set: then they fail.
package testdb

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/quire-dev/quire/internal/pgcluster"
	"github.com/quire-dev/quire/internal/store"
)

var (
	pgOnce     sync.Once
	pgAdminURL string // connection to the maintenance database of the cluster
	pgErr      error
	pgCluster  *pgcluster.Cluster
	cloneMu    sync.Mutex // CREATE DATABASE … TEMPLATE wants the template left alone
	dbSeq      atomic.Int64
)

// templateDB is this binary's migrated template database.
var templateDB string

// Main runs the tests of a package and then stops the cluster it may have started. Use it as
// func TestMain(m *testing.M) { os.Exit(testdb.Main(m)) }.
func Main(m *testing.M) int {
	code := m.Run()
	if pgCluster != nil {
		pgCluster.Stop()
	} else if templateDB != "" {
		// A server we did not start keeps running: leave it as we found it.
		if admin, err := sql.Open("pgx", pgAdminURL); err == nil {
			_, _ = admin.Exec(`DROP DATABASE IF EXISTS ` + templateDB + ` WITH (FORCE)`)
			admin.Close()
		}
	}
	return code
}

// ForEachEngine runs fn as the subtests "sqlite" and "postgres", each with its own fresh store.
func ForEachEngine(t *testing.T, fn func(t *testing.T, s *store.Store)) {
	t.Helper()
	t.Run("sqlite", func(t *testing.T) { fn(t, SQLite(t)) })
	t.Run("postgres", func(t *testing.T) { fn(t, Postgres(t)) })
}

// SQLite opens a fresh store in a temp folder, closed when the test ends.
func SQLite(t testing.TB) *store.Store {
	t.Helper()
	s, err := store.Open(context.Background(), store.Config{Dir: t.TempDir()})
	if err != nil {
		t.Fatalf("open sqlite store: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// Postgres opens a store on a fresh database cloned from the migrated template, dropped when the
// test ends.
func Postgres(t testing.TB) *store.Store {
	t.Helper()
	dsn := PostgresURL(t)
	s, err := store.Open(context.Background(), store.Config{DatabaseURL: dsn})
	if err != nil {
		t.Fatalf("open postgres store: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// PostgresURL creates a fresh migrated database and returns its URL; the database is dropped
// when the test ends. It skips (or, under CI, fails) when no PostgreSQL can be had.
func PostgresURL(t testing.TB) string {
	t.Helper()
	pgOnce.Do(setupPostgres)
	if pgErr != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("PostgreSQL is required under CI: %v", pgErr)
		}
		t.Skipf("no PostgreSQL: %v", pgErr)
	}
	name := fmt.Sprintf("quire_t_%d_%d", os.Getpid(), dbSeq.Add(1))
	admin, err := sql.Open("pgx", pgAdminURL)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	cloneMu.Lock()
	_, err = admin.Exec(`CREATE DATABASE ` + name + ` TEMPLATE ` + templateDB)
	cloneMu.Unlock()
	if err != nil {
		t.Fatalf("create test database: %v", err)
	}
	t.Cleanup(func() {
		admin, err := sql.Open("pgx", pgAdminURL)
		if err != nil {
			return
		}
		defer admin.Close()
		_, _ = admin.Exec(`DROP DATABASE IF EXISTS ` + name + ` WITH (FORCE)`)
	})
	return withDatabase(pgAdminURL, name)
}

func withDatabase(dsn, name string) string {
	u, err := url.Parse(dsn)
	if err != nil {
		return dsn
	}
	u.Path = "/" + name
	return u.String()
}

// setupPostgres finds or starts a server and builds the migrated template database.
func setupPostgres() {
	if u := os.Getenv("QUIRE_TEST_DATABASE_URL"); u != "" {
		pgAdminURL = u
	} else {
		pgCluster, pgErr = pgcluster.Start(pgcluster.Options{})
		if pgErr != nil {
			return
		}
		pgAdminURL = pgCluster.URL()
	}
	pgErr = buildTemplate()
}

func buildTemplate() error {
	admin, err := sql.Open("pgx", pgAdminURL)
	if err != nil {
		return err
	}
	defer admin.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	// Each test binary builds its own template so that packages testing at once never share one.
	tmpl := fmt.Sprintf("quire_tmpl_%d", os.Getpid())
	if _, err := admin.ExecContext(ctx, `DROP DATABASE IF EXISTS `+tmpl+` WITH (FORCE)`); err != nil {
		return fmt.Errorf("reach PostgreSQL at %s: %w", redacted(pgAdminURL), err)
	}
	if _, err := admin.ExecContext(ctx, `CREATE DATABASE `+tmpl); err != nil {
		return err
	}
	s, err := store.Open(ctx, store.Config{DatabaseURL: withDatabase(pgAdminURL, tmpl)})
	if err != nil {
		return fmt.Errorf("migrate template: %w", err)
	}
	s.Close()
	templateDB = tmpl
	return nil
}

func redacted(dsn string) string {
	u, err := url.Parse(dsn)
	if err != nil {
		return "(unparseable URL)"
	}
	return u.Redacted()
}
