package httpapi

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/quire-dev/quire/internal/store"
)

// TestQueryStatements counts the statements of issue 15's query on a warm server, both engines:
// the token, its reach and the database in one statement (as GET /v2/databases/:id), the
// registered properties and the pair in one, and the pair's walk, which reads each record as it
// passes it. On PostgreSQL each is one round trip and there is no BEGIN or COMMIT around them:
// seven round trips were three fifths of the query's wall time there (docs/performance.md,
// "Database query, fifth pass").
func TestQueryStatements(t *testing.T) {
	for _, engine := range []string{"sqlite", "postgres"} {
		t.Run(engine, func(t *testing.T) {
			rec := &statements{}
			e := newEnv(t, openStore(t, rec.config(engineConfig(t, engine))))
			top := e.mkPage(t, e.full, wsParent, "Top")
			r := e.do("POST", "/v2/databases", e.full, map[string]any{"parent": pageParent(top), "title": []any{txt("Tasks")},
				"properties": map[string]any{"Name": map[string]any{"title": map[string]any{}}, "Num": map[string]any{"number": map[string]any{}},
					"Sel": map[string]any{"select": map[string]any{"options": []any{map[string]any{"name": "a"}, map[string]any{"name": "b"}}}}}})
			if r.status != 200 {
				t.Fatalf("create database: %d %s", r.status, r.raw)
			}
			db, props := r.body["id"].(string), r.body["properties"].(map[string]any)
			var made []string
			for i, n := range []float64{5, 3, 9, 1, 7, 2} { // Sel a on the even ones: Num 5, 9, 7
				r := e.do("POST", "/v2/pages", e.full, map[string]any{"parent": map[string]any{"database_id": db},
					"properties": map[string]any{"Num": map[string]any{"number": n}, "Sel": map[string]any{"select": map[string]any{"name": []string{"a", "b"}[i%2]}}}})
				if r.status != 200 {
					t.Fatalf("create record: %d %s", r.status, r.raw)
				}
				made = append(made, r.body["id"].(string))
			}
			want := []string{made[0], made[4]} // the first page of two: Num 5, then 7
			// A page of two of three matches: the walk does not run out, so no read of the
			// records without a Num follows it.
			body := map[string]any{"filter": map[string]any{"property": "Sel", "select": map[string]any{"equals": "a"}},
				"sorts": []any{map[string]any{"property": "Num", "direction": "ascending"}}, "page_size": 2}
			path := "/v2/databases/" + db + "/query"
			e.do("POST", path, e.full, body) // builds Sel's and Num's rows
			id := func(name string) string { return props[name].(map[string]any)["id"].(string) }
			if err := e.store.RegisterPair(context.Background(), db, id("Sel"), id("Num"), false); err != nil {
				t.Fatal(err)
			}
			e.do("POST", path, e.full, body) // warm: statements prepared, pools filled
			// Background work (SQLite's checkpoints) may add a statement to one try; the fewest of
			// three is the request's own.
			var got []string
			for try := 0; try < 3; try++ {
				var r *response
				seen := rec.during(func() { r = e.do("POST", path, e.full, body) })
				if r.status != 200 {
					t.Fatalf("query: %d %s", r.status, r.raw)
				}
				var ids []string
				for _, x := range r.body["results"].([]any) {
					ids = append(ids, x.(map[string]any)["id"].(string))
				}
				if !slices.Equal(ids, want) {
					t.Fatalf("query answered %v; want %v (Sel a by Num)", ids, want)
				}
				if try == 0 || len(seen) < len(got) {
					got = seen
				}
			}
			wantStmts := []string{joined, "FROM record_pair_keys", "FROM record_pairs p CROSS JOIN"}
			ok := len(got) == len(wantStmts)
			for i := 0; ok && i < len(got); i++ {
				ok = strings.Contains(got[i], wantStmts[i])
			}
			if !ok {
				t.Errorf("%d statements, want %d (%s):\n%s", len(got), len(wantStmts), strings.Join(wantStmts, ", "),
					strings.Join(numbered(got), "\n"))
			}
		})
	}
}

// config is cfg with its statements reported to s.
func (s *statements) config(cfg store.Config) store.Config {
	cfg.Observe = s.observe
	return cfg
}
