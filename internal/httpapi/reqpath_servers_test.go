package httpapi

import (
	"context"
	"database/sql"
	"net/http/httptest"
	"path/filepath"
	"testing"

	"github.com/quire-dev/quire/internal/quire"
	"github.com/quire-dev/quire/internal/service"
	"github.com/quire-dev/quire/internal/store"
	"github.com/quire-dev/quire/internal/testdb"
)

// engineConfig is a store configuration of a fresh database of engine ("sqlite" or "postgres")
// that several store handles may open, as several servers would.
func engineConfig(t *testing.T, engine string) store.Config {
	if engine == "sqlite" {
		return store.Config{Dir: t.TempDir()}
	}
	return store.Config{DatabaseURL: testdb.PostgresURL(t)}
}

func openStore(t *testing.T, cfg store.Config) *store.Store {
	t.Helper()
	st, err := store.Open(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// rawDB is a plain database handle on cfg's database, for a change no operation makes.
func rawDB(t *testing.T, cfg store.Config) *sql.DB {
	t.Helper()
	driver, dsn := "pgx", cfg.DatabaseURL
	if cfg.DatabaseURL == "" {
		driver, dsn = "sqlite", "file:"+filepath.Join(cfg.Dir, "quire.db")+"?_pragma=busy_timeout(10000)"
	}
	db, err := sql.Open(driver, dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// mkDatabase makes a database of one title property under page parent.
func (e *env) mkDatabase(t testing.TB, parent string) string {
	t.Helper()
	r := e.do("POST", "/v2/databases", e.full, map[string]any{"parent": pageParent(parent), "title": []any{txt("Tasks")},
		"properties": map[string]any{"Name": map[string]any{"title": map[string]any{}}}})
	if r.status != 200 {
		t.Fatalf("create database: %d %s", r.status, r.raw)
	}
	return r.body["id"].(string)
}

// TestPageGet_TwoServers: a page GET, and a page of a page's children, read the token, its reach
// and the page in one statement (TestRequestPathStatements), and nothing of it outlives the
// request. Two servers on two store
// handles of one database, on both engines: a token revoked through A is refused by B on the
// very next request (401); a page moved out from under a token's grant through A, and a grant
// withdrawn in the database, answer 404 on B's next request; a granted token reads what lies
// beneath its grant, however deep, and nothing beside it.
func TestPageGet_TwoServers(t *testing.T) {
	for _, engine := range []string{"sqlite", "postgres"} {
		t.Run(engine, func(t *testing.T) {
			cfg := engineConfig(t, engine)
			a := newEnv(t, openStore(t, cfg))
			b := *a // the same workspace and tokens, through a server of its own
			b.store = openStore(t, cfg)
			b.svc = service.New(b.store, service.Options{})
			b.srv = httptest.NewServer(newServer(Config{Service: b.svc, BaseURL: "http://example.invalid"}))
			t.Cleanup(b.srv.Close)
			ctx := context.Background()

			top := a.mkPage(t, a.full, wsParent, "Top")
			child := a.mkPage(t, a.full, pageParent(top), "Child")
			deep := a.mkPage(t, a.full, pageParent(child), "Grandchild")
			beside := a.mkPage(t, a.full, wsParent, "Beside")
			db := a.mkDatabase(t, top) // GET /v2/databases/{id} reads the same way (route.node)
			scoped, scopedTok, err := a.svc.CreateToken(ctx, tokenSpec(a, quire.AllScopes, true))
			if err != nil {
				t.Fatal(err)
			}
			granted, grantedTok, err := a.svc.CreateToken(ctx, tokenSpec(a, []quire.Scope{quire.PagesRead, quire.DatabasesRead, quire.BlocksRead}, false, top))
			if err != nil {
				t.Fatal(err)
			}
			get := func(e *env, id, token string, status int) {
				t.Helper()
				path := "/v2/pages/" + id
				if id == db {
					path = "/v2/databases/" + id
				}
				r := e.do("GET", path, token, nil)
				if r.status != status {
					t.Fatalf("GET %s: %d, want %d: %s", path, r.status, status, r.raw)
				}
				if status == 200 && r.body["id"] != id {
					t.Fatalf("GET page %s answered %s", id, r.raw)
				}
				if id != db { // its children read the page with the token the same way
					path = "/v2/blocks/" + id + "/children"
					if r := e.do("GET", path, token, nil); r.status != status || status == 200 && r.body["object"] != "list" {
						t.Fatalf("GET %s: %d, want %d: %s", path, r.status, status, r.raw)
					}
				}
			}
			for _, e := range []*env{a, &b} {
				for _, id := range []string{top, child, deep, beside, db} {
					get(e, id, scoped, 200)
				}
				for _, id := range []string{top, child, deep, db} {
					get(e, id, granted, 200)
				}
				get(e, beside, granted, 404)
				get(e, quire.NewID(), granted, 404)
			}

			if _, err := a.svc.RevokeToken(ctx, scopedTok.ID); err != nil {
				t.Fatal(err)
			}
			get(&b, child, scoped, 401)
			get(a, child, scoped, 401)
			get(&b, db, scoped, 401)

			a.move(child, map[string]any{"parent": pageParent(beside)})
			get(&b, child, granted, 404)
			get(&b, deep, granted, 404)
			get(&b, top, granted, 200)

			if _, err := rawDB(t, cfg).Exec(`DELETE FROM grants WHERE token_id = $1`, grantedTok.ID); err != nil {
				t.Fatal(err)
			}
			get(&b, top, granted, 404)
			get(a, top, granted, 404)
			get(&b, db, granted, 404)
		})
	}
}
