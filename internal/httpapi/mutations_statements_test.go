package httpapi

import (
	"fmt"
	"strings"
	"testing"

	"github.com/quire-dev/quire/internal/quire"
)

// TestMutationsStatements counts what a batch of 100 creates runs, on both engines, as the
// seeding row sends it (docs/performance.md "Seeding, fifth pass"): with a workspace-scoped token
// the early read of the database is the reach check (no reach statement of its own), and the new
// records' nodes rows go in one statement. A token with grants still checks its reach first.
func TestMutationsStatements(t *testing.T) {
	for _, engine := range []string{"sqlite", "postgres"} {
		t.Run(engine, func(t *testing.T) {
			e, rec := observedEnv(t, engine)
			top := e.mkPage(t, e.full, wsParent, "Top")
			db := e.mkDatabase(t, top)
			granted := e.token(quire.AllScopes, false, top)
			batch := func(from int) map[string]any {
				ms := make([]any, 100)
				for i := range ms {
					ms[i] = map[string]any{"op": "create", "properties": map[string]any{"Name": []any{txt(fmt.Sprintf("R%d", from+i))}}}
				}
				return map[string]any{"mutations": ms}
			}
			for i, tc := range []struct {
				name, token string
				reach       int // reach checks: a granted token's before the transaction and in it
			}{
				{"workspace-scoped", e.full, 0},
				{"granted", granted, 2},
			} {
				t.Run(tc.name, func(t *testing.T) {
					var r *response
					seen := rec.during(func() { r = e.do("POST", "/v2/databases/"+db+"/mutations", tc.token, batch(100*i)) })
					if r.status != 200 {
						t.Fatalf("status %d: %s", r.status, r.raw)
					}
					count := func(part string) int {
						n := 0
						for _, s := range seen {
							if strings.Contains(s, part) {
								n++
							}
						}
						return n
					}
					if n := count("INSERT INTO nodes"); n != 1 {
						t.Errorf("%d INSERTs into nodes for 100 records, want 1:\n%s", n, shortList(seen))
					}
					reach := count("SELECT EXISTS (SELECT 1 FROM nodes WHERE id = $1 AND workspace_id = $2)") + count("FROM grants g")
					if reach != tc.reach {
						t.Errorf("%d reach checks, want %d:\n%s", reach, tc.reach, shortList(seen))
					}
				})
			}
		})
	}
}

// shortList numbers statements, each cut to its first 120 characters (a batch's INSERTs run to
// thousands).
func shortList(seen []string) string {
	out := numbered(seen)
	for i, l := range out {
		if len(l) > 120 {
			out[i] = l[:120] + " …"
		}
	}
	return strings.Join(out, "\n")
}

// observedEnv is a server on a fresh store of engine whose statements rec records.
func observedEnv(t *testing.T, engine string) (*env, *statements) {
	rec := &statements{}
	cfg := engineConfig(t, engine)
	cfg.Observe = rec.observe
	return newEnv(t, openStore(t, cfg)), rec
}
