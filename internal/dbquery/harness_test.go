package dbquery_test

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	_ "github.com/jackc/pgx/v5/stdlib"
	_ "modernc.org/sqlite"

	"github.com/quire-dev/quire/internal/dbquery"
	"github.com/quire-dev/quire/internal/testdb"
)

func TestMain(m *testing.M) {
	code := testdb.Main(m)
	if bench100k != nil {
		bench100k.Close()
		os.RemoveAll(bench100kDir)
	}
	os.Exit(code)
}

// openSQLite opens a fresh SQLite file in a temp folder with the store's migrations applied
// (their Up sections, read from the migration files), with the store's pragmas.
func openSQLite(t testing.TB) *sql.DB {
	t.Helper()
	db := openSQLiteIn(t, t.TempDir())
	t.Cleanup(func() { db.Close() })
	return db
}

// openSQLiteIn is openSQLite in folder dir, left open.
func openSQLiteIn(t testing.TB, dir string) *sql.DB {
	t.Helper()
	path := filepath.Join(dir, "q.db")
	// Escaped: a test name may put '#' or '?' into the folder's name.
	u := (&url.URL{Path: path}).EscapedPath()
	db, err := sql.Open("sqlite", "file:"+u+"?_pragma=foreign_keys(1)&_pragma=journal_mode(WAL)&_pragma=busy_timeout(10000)")
	if err != nil {
		t.Fatal(err)
	}
	files, err := filepath.Glob("../store/migrations/sqlite/*.sql")
	if err != nil || len(files) == 0 {
		t.Fatalf("migrations: %v (%d files)", err, len(files))
	}
	sort.Strings(files)
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		up := string(b)
		if i := strings.Index(up, "-- +goose Up"); i >= 0 {
			up = up[i:]
		}
		if i := strings.Index(up, "-- +goose Down"); i >= 0 {
			up = up[:i]
		}
		if _, err := db.Exec(up); err != nil {
			t.Fatalf("apply %s: %v", f, err)
		}
	}
	return db
}

// openPostgres opens a fresh migrated PostgreSQL database (testdb), or skips without one.
func openPostgres(t testing.TB) *sql.DB {
	t.Helper()
	db, err := sql.Open("pgx", testdb.PostgresURL(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// forEachEngine runs fn as subtests "sqlite" and "postgres", each on a fresh seeded database.
func forEachEngine(t *testing.T, seed func(t testing.TB, db *sql.DB), fn func(t *testing.T, db *sql.DB, d dbquery.Dialect)) {
	t.Run("sqlite", func(t *testing.T) {
		db := openSQLite(t)
		seed(t, db)
		fn(t, db, dbquery.SQLite)
	})
	t.Run("postgres", func(t *testing.T) {
		db := openPostgres(t)
		seed(t, db)
		fn(t, db, dbquery.Postgres)
	})
}

// value is one record_values row of a test record.
type value struct {
	prop string
	text *string
	num  *float64
}

func tv(prop, s string) value         { return value{prop: prop, text: &s} }
func nv(prop string, f float64) value { return value{prop: prop, num: &f} }
func tn(prop, s string, f float64) value {
	return value{prop: prop, text: &s, num: &f}
}

// record is a test record: a nodes row and its record_values rows.
type record struct {
	id, db              string
	trash               bool
	created, edited     int64
	createdBy, editedBy string
	values              []value
}

const workspace = "00000000-0000-4000-8000-0000000000aa"

// insert writes records with one SQL text per table on either engine, many rows per statement.
func insert(t testing.TB, db *sql.DB, recs []record) {
	t.Helper()
	ctx := context.Background()
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	if _, err := tx.Exec(`INSERT INTO workspaces (id, name, created_ms) VALUES ($1, 'test', 0) ON CONFLICT DO NOTHING`, workspace); err != nil {
		t.Fatal(err)
	}
	nodes := batcher{tx: tx, t: t, head: `INSERT INTO nodes (id, workspace_id, object, page_type, parent_type, parent_id, position,
		title, title_plain, properties, description, in_trash, created_ms, created_by, edited_ms, edited_by) VALUES `,
		row: `($%d, $%d, 'page', 'page', 'database_id', $%d, 'a', '[]', '', '{}', '[]', $%d, $%d, $%d, $%d, $%d)`, cols: 8}
	values := batcher{tx: tx, t: t, head: `INSERT INTO record_values (database_id, record_id, property_id, ord, v_text, v_num) VALUES `,
		row: `($%d, $%d, $%d, $%d, $%d, $%d)`, cols: 6}
	for _, r := range recs {
		nodes.add(r.id, workspace, r.db, r.trash, r.created, r.createdBy, r.edited, r.editedBy)
		ord := map[string]int{}
		for _, v := range r.values {
			values.add(r.db, r.id, v.prop, ord[v.prop], v.text, v.num)
			ord[v.prop]++
		}
	}
	nodes.flush()
	values.flush()
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
}

// batcher gathers rows into multi-row INSERT statements.
type batcher struct {
	tx        *sql.Tx
	t         testing.TB
	head, row string
	cols      int
	args      []any
}

func (b *batcher) add(args ...any) {
	b.args = append(b.args, args...)
	if len(b.args) >= 100*b.cols {
		b.flush()
	}
}

func (b *batcher) flush() {
	if len(b.args) == 0 {
		return
	}
	var sb strings.Builder
	sb.WriteString(b.head)
	idx := make([]any, b.cols)
	for r := 0; r < len(b.args)/b.cols; r++ {
		if r > 0 {
			sb.WriteString(", ")
		}
		for c := range idx {
			idx[c] = r*b.cols + c + 1
		}
		fmt.Fprintf(&sb, b.row, idx...)
	}
	if _, err := b.tx.Exec(sb.String(), b.args...); err != nil {
		b.t.Fatalf("insert: %v", err)
	}
	b.args = b.args[:0]
}
