// Package store keeps Quire's data in SQLite (embedded, the default) or PostgreSQL, with one SQL
// text for both engines. Public methods open their own transaction; lower-case helpers take a
// *Tx and compose.
package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib" // also registers the "pgx" database/sql driver
	_ "modernc.org/sqlite"           // registers the "sqlite" database/sql driver

	"github.com/quire-dev/quire/internal/search"
)

// Engine names the database behind a Store.
type Engine string

// The two engines.
const (
	SQLite   Engine = "sqlite"
	Postgres Engine = "postgres"
)

// Config says where the data lives: DatabaseURL (PostgreSQL) when set, else an SQLite file in Dir.
type Config struct {
	Dir         string // folder of the SQLite file quire.db
	DatabaseURL string // postgres://…; overrides Dir
	// Observe, when set, is told every statement the store runs, before it runs (tests count
	// the statements of a request with it; observe.go).
	Observe func(query string)
}

// Store is Quire's storage on one engine. SQLite gets a single-connection write pool beside a
// read pool (one writer is what SQLite allows; waiting in Go is cheaper than SQLITE_BUSY).
// PostgreSQL uses one pool for both.
type Store struct {
	engine Engine
	read   *sql.DB
	write  *sql.DB
	kept   *stmtCache // statements kept prepared on the SQLite writer; nil on PostgreSQL
	upkeep *upkeep    // SQLite's background checkpoints and index merges; nil on PostgreSQL
	// pgUpkeep merges PostgreSQL's trigram pending lists after writes (pg_upkeep.go); nil on SQLite.
	pgUpkeep *pgUpkeep
	file     string // SQLite's database file
	secret   []byte // signs cursors and file URLs; shared by every server on the store
	events   bell   // rung when this process commits events (events.go)
	hooks    bell   // rung when this process creates or changes a webhook (webhooks.go)
	// prep runs the per-request reads prepared on SQLite's read pool (reads.go); nil on PostgreSQL.
	prep *preparedReads
	// raw runs the children list below database/sql on SQLite (sqlite_raw.go); nil on
	// PostgreSQL.
	raw *rawReads
	// lookups runs the key lookups every request makes (the token, the token joined with a
	// node, a node) below database/sql on SQLite, on connections that do not map the file
	// (lookupMmapSize); nil on PostgreSQL.
	lookups *rawReads
	// pg runs the same reads on the pgx connections under the pool on PostgreSQL (pg_raw.go);
	// nil on SQLite.
	pg *pgRaw
	// found keeps keyword search's statements prepared on SQLite's read pool (search.go); nil on
	// PostgreSQL.
	found *stmtCache
	// samples are keyword search's trigram samples, kept while the indexes stay as they were
	// (search.Samples); nil on PostgreSQL.
	samples *search.Samples
	pairs   pairs // the record pairs queries want, and their registration (records_pairs.go)

	// entryNodes are the nodes of the FTS5 matches keyword searches have read (search.EntryNodes).
	entryNodes *search.EntryNodes
	// plans are what keyword searches' first statements learned of their plans (search.Plans);
	// nil on SQLite.
	plans *search.Plans
	// writers are the turns of PostgreSQL's write transactions (tx_writers.go); nil on SQLite.
	writers chan struct{}
}

// Open connects to the store, applies pending migrations and loads the signing secret.
func Open(ctx context.Context, cfg Config) (*Store, error) {
	var s *Store
	var err error
	if cfg.DatabaseURL != "" {
		s, err = openPostgres(cfg.DatabaseURL, cfg.Observe)
	} else {
		s, err = openSQLite(cfg.Dir, cfg.Observe)
	}
	if err != nil {
		return nil, err
	}
	if err := s.migrate(ctx); err != nil {
		s.Close()
		return nil, err
	}
	if s.secret, err = s.loadSecret(ctx); err != nil {
		s.Close()
		return nil, err
	}
	if s.upkeep != nil {
		// The loop's first round: search entries a crash left unindexed (search_index_tail.go),
		// merges a closed store left (upkeep.go).
		s.upkeep.wrote()
	}
	return s, nil
}

// Settings every connection to a SQLite store opens with, the database/sql pools' and the raw
// reads' (sqlite_raw.go) alike: openSQLite says why each is what it is.
const (
	sqliteBusyTimeoutMs = 10000
	sqliteMmapSize      = 2147418112 // SQLITE_MAX_MMAP_SIZE of this build
)

func openSQLite(dir string, observe func(string)) (*Store, error) {
	open := sql.Open
	if observe != nil {
		open = func(name, dsn string) (*sql.DB, error) { return openObserved(name, dsn, observe) }
	}
	if dir == "" {
		dir = "quire-data"
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("create data folder: %w", err)
	}
	path, err := filepath.Abs(filepath.Join(dir, "quire.db"))
	if err != nil {
		return nil, err
	}
	// synchronous(FULL): an acknowledged write survives power loss, which is our promise.
	// _txlock=immediate: a write transaction takes the lock at BEGIN, so it never fails with
	// SQLITE_BUSY halfway through (another process, e.g. an admin command, may hold it).
	// mmap_size: reads map the file instead of copying each page through a pread into every
	// connection's own 2 MB page cache; a query walking a large database's index spent a fifth of
	// its CPU in those reads. Writes still go through the WAL, so durability is unchanged. The
	// size is this build's ceiling (SQLITE_MAX_MMAP_SIZE, 0x7fff0000): past the map, each page is
	// read into that small cache again, and issue 15's store (1.3 GB once embedded) had its
	// latest pages, the corpus keyword search reads, past the 1 GiB it was: 30% more CPU a search.
	// Only address space is reserved; the pages are the kernel's page cache, shared.
	pragmas := "_pragma=busy_timeout(" + strconv.Itoa(sqliteBusyTimeoutMs) + ")&_pragma=journal_mode(WAL)&_pragma=synchronous(FULL)&_pragma=foreign_keys(1)" +
		"&_pragma=mmap_size(" + strconv.Itoa(sqliteMmapSize) + ")"
	u := (&url.URL{Scheme: "file", Path: path}).String()
	// temp_store(MEMORY) on the writer: a multi-row insert whose triggers write the search index
	// keeps a statement journal (to undo just that statement), and past 64 KiB SQLite spills it to
	// a temporary file: an open, an unlink and two writes per page it holds (about 300 system calls
	// per 100-block append with random ids, a dozen with time-ordered ones; more for larger
	// writes). In memory it is a copy of each page the statement first touches. The statement
	// journal only undoes a failed statement; durability is the WAL's, unchanged. A
	// mutation batch's multi-row INSERTs spent a tenth of their CPU there.
	// wal_autocheckpoint: the writer checkpoints only as a backstop (upkeep.go).
	// cache_size(-16384), 16 MiB on the writer alone (reads map the file): a transaction's
	// changed pages stay in the page cache until COMMIT, and past the default 2 MB (a mutation
	// batch of 100 new records changes several hundred pages of record_values' indexes) SQLite
	// spilled them to the WAL halfway, writing a page again each time the batch changed it
	// again: about a tenth of the batch's CPU.
	// vfs=quire-walbuf on the connections that write (the writer, the checkpointer): a commit's
	// WAL frames reach the file in one write instead of two each (sqlite_walbuf.go).
	if err := registerWALBuf(); err != nil {
		return nil, err
	}
	write, err := open("sqlite", u+"?"+pragmas+"&_pragma=temp_store(MEMORY)&_pragma=cache_size(-16384)"+
		fmt.Sprintf("&_pragma=wal_autocheckpoint(%d)", walBackstop)+"&_txlock=immediate&vfs="+walbufName)
	if err != nil {
		return nil, err
	}
	write.SetMaxOpenConns(1)
	write.SetMaxIdleConns(1)
	write.SetConnMaxLifetime(0)
	read, err := open("sqlite", u+"?"+pragmas+"&_pragma=query_only(1)")
	if err != nil {
		write.Close()
		return nil, err
	}
	n := max(4, 2*runtime.NumCPU())
	read.SetMaxOpenConns(n)
	read.SetMaxIdleConns(n)
	read.SetConnMaxLifetime(0)
	// The write connection must exist first: it creates the file and switches it to WAL.
	if err := write.Ping(); err != nil {
		write.Close()
		read.Close()
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	ckpt, err := open("sqlite", u+"?"+pragmas+"&vfs="+walbufName)
	if err != nil {
		write.Close()
		read.Close()
		return nil, err
	}
	ckpt.SetMaxOpenConns(1)
	ckpt.SetConnMaxLifetime(0)
	return &Store{engine: SQLite, read: read, write: write, kept: newStmtCache(write), prep: &preparedReads{db: read},
		raw: newRawReads(path, sqliteMmapSize, observe), lookups: newRawReads(path, lookupMmapSize, observe), found: newStmtCache(read), samples: search.NewSamples(), entryNodes: search.NewEntryNodes(), upkeep: startUpkeep(ckpt, write), file: path}, nil
}

func openPostgres(dsn string, observe func(string)) (*Store, error) {
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		return nil, redactDSN(err, dsn)
	}
	// No JIT compilation unless the URL asks for it (…?jit=on). PostgreSQL compiles a statement
	// whose estimated cost passes jit_above_cost, and Quire's statements are short walks of
	// indexes whose estimates skewed data can inflate a hundredfold: semantic search's keyword
	// signal at 1M blocks was estimated at 825,000, ran in 5 ms, and spent 190 ms compiling.
	if _, ok := cfg.RuntimeParams["jit"]; !ok {
		cfg.RuntimeParams["jit"] = "off"
	}
	// No prefetching ahead of a bitmap heap scan unless the URL asks for it
	// (…?effective_io_concurrency=1, PostgreSQL's default). The prefetch looks every page up in
	// the buffer table a second time and reads nothing a cached store needs: 12% of the CPU of
	// the keyword lookup of a word in 0.6% of 100,000 paragraphs, which visits 550 heap pages
	// (docs/performance.md, "PostgreSQL keyword search, ninth pass"). Plans do not change: the
	// planner does not cost it.
	if _, ok := cfg.RuntimeParams["effective_io_concurrency"]; !ok {
		cfg.RuntimeParams["effective_io_concurrency"] = "0"
	}
	db := stdlib.OpenDB(*cfg)
	if observe != nil {
		db = observedDB(stdlib.GetConnector(*cfg), observe)
	}
	db.SetMaxOpenConns(32)
	db.SetMaxIdleConns(32)
	db.SetConnMaxIdleTime(5 * time.Minute)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("connect to PostgreSQL: %w", redactDSN(err, dsn))
	}
	pg := &pgRaw{db: db, observe: observe}
	return &Store{engine: Postgres, read: db, write: db, pg: pg, plans: search.NewPlans(), pgUpkeep: startPGUpkeep(pg), writers: writeSlots()}, nil
}

// redactDSN keeps a password in the database URL out of error messages and logs.
func redactDSN(err error, dsn string) error {
	u, perr := url.Parse(dsn)
	if perr != nil || u.User == nil {
		return err
	}
	if p, ok := u.User.Password(); ok && p != "" {
		return errors.New(strings.ReplaceAll(err.Error(), p, "xxxxx"))
	}
	return err
}

// Engine tells which engine the store runs on.
func (s *Store) Engine() Engine { return s.engine }

// Secret is the store's signing key (32 random bytes made once per store).
func (s *Store) Secret() []byte { return s.secret }

// Ping checks that the store answers.
func (s *Store) Ping(ctx context.Context) error { return s.read.PingContext(ctx) }

// PoolStats is one connection pool's counters, as database/sql keeps them.
type PoolStats struct {
	Name string // "read" and "write" on SQLite, "main" on PostgreSQL (one pool for both)
	sql.DBStats
}

// PoolStats reads the counters of the store's connection pools; it sends no query.
func (s *Store) PoolStats() []PoolStats {
	if s.write == s.read {
		return []PoolStats{{Name: "main", DBStats: s.read.Stats()}}
	}
	return []PoolStats{{Name: "read", DBStats: s.read.Stats()}, {Name: "write", DBStats: s.write.Stats()}}
}

// Close releases every connection.
func (s *Store) Close() error {
	s.pairs.wait()
	if s.kept != nil {
		s.kept.close()
	}
	if s.prep != nil {
		s.prep.close()
	}
	if s.raw != nil {
		s.raw.close()
		s.lookups.close()
	}
	if s.found != nil {
		s.found.close()
	}
	var err error
	if s.upkeep != nil {
		err = s.upkeep.close()
	}
	if s.pgUpkeep != nil {
		s.pgUpkeep.close()
	}
	err = errors.Join(err, s.read.Close())
	if s.write != s.read {
		err = errors.Join(err, s.write.Close())
	}
	return err
}
