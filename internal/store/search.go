package store

import (
	"context"
	"database/sql"
	"sync"
	"sync/atomic"

	"github.com/jackc/pgx/v5"

	"github.com/quire-dev/quire/internal/search"
	"github.com/quire-dev/quire/internal/sqlq"
)

// searchNodes is how internal/search reads the nodes it answers. On PostgreSQL its read of a
// long list of ids is planned at every call, with the list's values: pgx's cache_describe mode
// sends it as an unnamed statement (Parse, Bind, Execute in the same round trip), which
// PostgreSQL plans at Bind with the values, where the statement cache's prepared statement
// would move to a generic plan blind to the list (search.NodeRows.PlanEach).
func (s *Store) searchNodes() search.NodeRows {
	rows := search.NodeRows{Columns: nodeColumns, Scan: scanNode}
	if s.engine == Postgres {
		rows.PlanEach = pgx.QueryExecModeCacheDescribe
	}
	return rows
}

// Search runs a keyword search (internal/search) inside one read transaction, so that the
// statements of its plan (the index lookups, the walk's steps) see one snapshot. On PostgreSQL a
// first page by relevance is asked first in one statement, which needs no transaction
// (search.KeywordAtOnce); the transaction is begun only when that statement cannot answer. What
// that statement learns of a first page's plan is kept across searches (s.plans, search.Plans:
// plans, never answers).
func (s *Store) Search(ctx context.Context, q search.Query) ([]search.Result, *search.Key, error) {
	if s.engine == Postgres {
		q.Plans = s.plans
		res, hints, ok, err := search.KeywordAtOnce(ctx, s.rowsDB(&s.pg.searchTexts, &maxRawSearchTexts), search.Dialect(s.engine), s.searchNodes(), q)
		if err != nil || ok {
			return res, nil, err
		}
		q.Hints = hints
	}
	if s.found != nil && s.found.pending() {
		// Prepared before the transaction takes its connection: preparing on the pool inside it
		// could wait for a connection that the transactions of other searches hold.
		s.found.prepare(ctx)
	}
	tx, err := s.readTx(ctx)
	if err != nil {
		return nil, nil, err
	}
	defer tx.Rollback()
	var db search.Queryer = tx
	if s.found != nil {
		db = foundTx{tx, s.found}
	}
	q.Samples, q.EntryNodes = s.samples, s.entryNodes
	res, resume, err := search.Keyword(ctx, db, search.Dialect(s.engine), s.searchNodes(), q)
	if err != nil {
		return nil, nil, err
	}
	return res, resume, tx.Commit()
}

// pgRowsDB is the read pool as search.KeywordAtOnce and a database query's walk read it on
// PostgreSQL (sqlq.RowQueryer): their statements' rows come through pgRaw,
// each value read from pgx's buffer straight into the reader's fields, as the page and children
// reads do, instead of through pgx's stdlib driver and database/sql (a driver.Value for each
// column of each row, converted again by Scan, the connection locked for each row). The
// statements are the same, on the same pool, prepared once per connection.
//
// pgRaw's exchange keeps each text it prepares on the connection for the connection's life
// (pgx's Conn.Prepare), where database/sql's path keeps at most 512 in pgx's statement cache.
// The texts vary (a search's with the terms' count, the filters and the page size; a query's
// with the filter, the sorts and the cursor), so only the first *limit texts the server sees
// of each kind (texts) go through pgRaw; any other is read through database/sql by the caller.
type pgRowsDB struct {
	*sql.DB
	pg    *pgRaw
	texts *textSet
	limit *int64
}

// rowsDB is the read pool read through pgRaw for the first *limit texts of texts.
func (s *Store) rowsDB(texts *textSet, limit *int64) pgRowsDB {
	return pgRowsDB{s.read, s.pg, texts, limit}
}

// maxRawSearchTexts bounds the keyword search texts read through pgRaw (pgRowsDB).
var maxRawSearchTexts int64 = 256

func (d pgRowsDB) QueryRows(ctx context.Context, query string, args []any, row func(sc sqlq.Scanner) error) (bool, error) {
	if !d.texts.admit(query, *d.limit) {
		return false, nil
	}
	return true, d.pg.query(ctx, query, args, func(r *pgRow) (bool, error) {
		return true, row(r)
	})
}

// textSet admits the first limit texts it is asked about, and those again.
type textSet struct {
	texts sync.Map // text → struct{}
	n     atomic.Int64
}

func (t *textSet) admit(text string, limit int64) bool {
	if _, ok := t.texts.Load(text); ok {
		return true
	}
	if t.n.Add(1) > limit {
		t.n.Add(-1)
		return false
	}
	if _, had := t.texts.LoadOrStore(text, struct{}{}); had {
		t.n.Add(-1)
	}
	return true
}

// foundTx runs a keyword search's statements in its read transaction, each prepared once on
// the read pool's connections (stmtCache) instead of compiled on every call: modernc.org/sqlite
// prepares a statement text each time it runs unprepared, which was 14% of a search's CPU for
// a word in 0.6% of 100,000 paragraphs (issue 15). A text first seen runs unprepared and is
// noted; the next search prepares it before its transaction begins. The texts vary with the
// number of terms and the filters, so the cache keeps the most recently used (maxKeptStmts).
// A search never runs one text again while that text's rows are still open (each statement's
// rows are read to the end first), which a statement shared on one connection would reset.
type foundTx struct {
	tx   *sql.Tx
	kept *stmtCache
}

func (f foundTx) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	if st := f.kept.get(query); st != nil {
		return f.tx.StmtContext(ctx, st).QueryContext(ctx, args...)
	}
	f.kept.want(query)
	return f.tx.QueryContext(ctx, query, args...)
}

func (f foundTx) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	if st := f.kept.get(query); st != nil {
		return f.tx.StmtContext(ctx, st).QueryRowContext(ctx, args...)
	}
	f.kept.want(query)
	return f.tx.QueryRowContext(ctx, query, args...)
}

// ScanVectors streams the vectors of the visible nodes of q to fn (search.ScanVectors).
func (s *Store) ScanVectors(ctx context.Context, q search.VectorQuery, fn func(nodeID string, vec []float32) error) error {
	return search.ScanVectors(ctx, s.read, q, fn)
}

// WorkspaceVectors streams every vector of model in workspace ws, or of nodes when set
// (search.WorkspaceVectors).
func (s *Store) WorkspaceVectors(ctx context.Context, ws, model string, nodes []string, fn func(nodeID string, vec []float32) error) error {
	return search.WorkspaceVectors(ctx, s.read, ws, model, nodes, fn)
}

// TermHits reports which of terms occur in each of the nodes ids (search.TermHits).
func (s *Store) TermHits(ctx context.Context, ids, terms []string) (map[string][]bool, error) {
	return search.TermHits(ctx, s.read, search.Dialect(s.engine), ids, terms)
}

// ScanFragments hands fn each chunk of model of nodes, with its text, block and vector
// (search.ScanFragments).
func (s *Store) ScanFragments(ctx context.Context, ws, model string, nodes []string, fn func(f search.Fragment, vec []float32) error) error {
	return search.ScanFragments(ctx, s.read, ws, model, nodes, fn)
}
