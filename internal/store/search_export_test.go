package store

import (
	"context"
	"database/sql"
	"io/fs"
	"strconv"
	"strings"

	"github.com/quire-dev/quire/internal/search"
)

// SearchTraceForTest runs a keyword search on the read pool as Search does, handing seen each
// statement it runs with its arguments (to read their plans), with the store's kept samples and
// entries' nodes.
func (s *Store) SearchTraceForTest(ctx context.Context, q search.Query, seen func(query string, args []any)) ([]search.Result, *search.Key, error) {
	q.Samples, q.EntryNodes = s.samples, s.entryNodes
	return search.Keyword(ctx, tracer{s.read, seen}, search.Dialect(s.engine), s.searchNodes(), q)
}

// SearchAtOnceTraceForTest is Search with each statement reported to seen before it runs, and
// every statement on the read pool: search.KeywordAtOnce, then search.Keyword with its hints
// when that statement did not answer.
func (s *Store) SearchAtOnceTraceForTest(ctx context.Context, q search.Query, seen func(query string, args []any)) ([]search.Result, *search.Key, error) {
	db := tracer{s.read, seen}
	var atOnce search.Queryer = db
	if s.pg != nil {
		atOnce = rawTracer{db, s.rowsDB(&s.pg.searchTexts, &maxRawSearchTexts)}
	}
	res, hints, ok, err := search.KeywordAtOnce(ctx, atOnce, search.Dialect(s.engine), s.searchNodes(), q)
	if err != nil || ok {
		return res, nil, err
	}
	q.Hints = hints
	q.Samples, q.EntryNodes = s.samples, s.entryNodes
	return search.Keyword(ctx, db, search.Dialect(s.engine), s.searchNodes(), q)
}

// tracer is a search.Queryer that reports each statement before running it.
type tracer struct {
	db   *sql.DB
	seen func(query string, args []any)
}

func (t tracer) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	t.seen(query, args)
	return t.db.QueryContext(ctx, query, args...)
}

func (t tracer) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	t.seen(query, args)
	return t.db.QueryRowContext(ctx, query, args...)
}

// RidsKeptVersionForTest is the version of the migration that makes search_docs' rids never
// reused (named *_search_docs_rids_kept.sql, whatever its number).
func RidsKeptVersionForTest() int64 {
	names, _ := fs.Glob(migrations, "migrations/sqlite/*_search_docs_rids_kept.sql")
	if len(names) != 1 {
		return 0
	}
	base := names[0][strings.LastIndex(names[0], "/")+1:]
	v, _ := strconv.ParseInt(base[:strings.Index(base, "_")], 10, 64)
	return v
}

// rawTracer is tracer with Search's read of KeywordAtOnce's rows on PostgreSQL (pgRowsDB).
type rawTracer struct {
	tracer
	raw pgRowsDB
}

// QueryRows reports a statement pgRowsDB reads; one it leaves to database/sql is reported by
// tracer's QueryContext instead.
func (t rawTracer) QueryRows(ctx context.Context, query string, args []any, row func(sc search.Scanner) error) (bool, error) {
	handled, err := t.raw.QueryRows(ctx, query, args, row)
	if handled {
		t.seen(query, args)
	}
	return handled, err
}

// LimitRawSearchTextsForTest sets how many search texts a store reads through pgRaw
// (pgRowsDB) until the test ends; RawSearchTextsForTest counts those admitted.
func LimitRawSearchTextsForTest(t interface{ Cleanup(func()) }, n int64) {
	was := maxRawSearchTexts
	maxRawSearchTexts = n
	t.Cleanup(func() { maxRawSearchTexts = was })
}

func (s *Store) RawSearchTextsForTest() int64 { return s.pg.searchTexts.n.Load() }

// GuessSearchTokenForTest makes AuthenticateSearch build its next statement for secretHash as
// for token id of workspace ws (scoped: workspace-scoped), whatever the token is.
func (s *Store) GuessSearchTokenForTest(secretHash, id, ws string, scoped bool) {
	s.pg.guesses.put(secretHash, guess{id, ws, scoped}.principal())
}
