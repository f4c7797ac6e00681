package main

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"

	"github.com/quire-dev/quire/internal/pgcluster"
	"github.com/quire-dev/quire/internal/store"
)

// engines quire-bench can run quire on.
const (
	engineSQLite   = "sqlite"
	enginePostgres = "postgres"
)

// freshStore is an empty store for one size: where it lives, and how to remove it.
type freshStore struct {
	cfg    store.Config
	args   []string // quire serve's flags for it
	remove func()
}

// postgresServer hands out fresh databases on a PostgreSQL server: the one --database-url
// names, or a throwaway cluster started with the machine's initdb and pg_ctl.
type postgresServer struct {
	adminURL string
	cluster  *pgcluster.Cluster
	seq      int
}

// startPostgres connects to adminURL, or starts a cluster when it is empty. The cluster keeps
// PostgreSQL's durable defaults (fsync and synchronous commit on), as SQLite keeps
// synchronous=FULL: both engines promise an acknowledged write survives a crash.
func startPostgres(adminURL string, stderr io.Writer) (*postgresServer, error) {
	if adminURL != "" {
		return &postgresServer{adminURL: adminURL}, nil
	}
	fmt.Fprintln(stderr, "starting a throwaway PostgreSQL cluster (initdb, pg_ctl) …")
	c, err := pgcluster.Start(pgcluster.Options{Durable: true, Settings: []string{"shared_buffers=512MB"}})
	if err != nil {
		return nil, fmt.Errorf("PostgreSQL: %w (or pass --database-url)", err)
	}
	return &postgresServer{adminURL: c.URL(), cluster: c}, nil
}

// stop stops the cluster if this process started it.
func (p *postgresServer) stop() {
	if p.cluster != nil {
		p.cluster.Stop()
	}
}

// fresh creates an empty database for a run, dropped by remove.
func (p *postgresServer) fresh(ctx context.Context) (*freshStore, error) {
	p.seq++
	name := fmt.Sprintf("quire_bench_%d_%d", os.Getpid(), p.seq)
	admin, err := sql.Open("pgx", p.adminURL)
	if err != nil {
		return nil, err
	}
	if _, err := admin.ExecContext(ctx, `CREATE DATABASE `+name); err != nil {
		admin.Close()
		return nil, fmt.Errorf("create database %s (the --database-url role needs CREATEDB): %w", name, err)
	}
	u, err := url.Parse(p.adminURL)
	if err != nil {
		admin.Close()
		return nil, err
	}
	u.Path = "/" + name
	dsn := u.String()
	return &freshStore{
		cfg:  store.Config{DatabaseURL: dsn},
		args: []string{"--database-url", dsn},
		remove: func() {
			_, _ = admin.Exec(`DROP DATABASE IF EXISTS ` + name + ` WITH (FORCE)`)
			admin.Close()
		},
	}, nil
}

// freshSQLite is an empty folder under dir for an SQLite store.
func freshSQLite(dir string, seq int) (*freshStore, error) {
	data := filepath.Join(dir, fmt.Sprintf("data-%d", seq))
	if err := os.MkdirAll(data, 0o700); err != nil {
		return nil, err
	}
	return &freshStore{
		cfg:    store.Config{Dir: data},
		args:   []string{"--data", data},
		remove: func() { _ = os.RemoveAll(data) },
	}, nil
}

// serveArgs are quire serve's store flags. Both --data and --database-url are always given so
// that QUIRE_DATA or QUIRE_DATABASE_URL in the environment cannot redirect the run.
func (f *freshStore) serveArgs(dir string) []string {
	if f.cfg.DatabaseURL != "" {
		return append([]string{"--data", filepath.Join(dir, "pg-files")}, f.args...)
	}
	return append(f.args, "--database-url", "")
}

// analyze brings PostgreSQL to where autovacuum leaves it within minutes of a bulk load: the
// planner's statistics gathered, and the trigram GIN indexes' pending lists merged (a VACUUM
// merges them, a bare ANALYZE does not), so that "steady" does not depend on how many entries
// the last writes left pending (docs/performance.md, "PostgreSQL plans: search at full scale
// and the page GET, sixth pass"). SQLite's planner in quire works without statistics.
func analyze(ctx context.Context, cfg store.Config) error {
	if cfg.DatabaseURL == "" {
		return nil
	}
	db, err := sql.Open("pgx", cfg.DatabaseURL)
	if err != nil {
		return err
	}
	defer db.Close()
	_, err = db.ExecContext(ctx, `VACUUM (ANALYZE)`)
	return err
}
