package httpapi

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/quire-dev/quire/internal/quire"
	"github.com/quire-dev/quire/internal/store"
	"github.com/quire-dev/quire/internal/testdb"
)

// statements records the statements a store runs while it is switched on.
type statements struct {
	mu   sync.Mutex
	on   bool
	seen []string
}

func (s *statements) observe(query string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.on {
		s.seen = append(s.seen, strings.Join(strings.Fields(query), " "))
	}
}

// during returns the statements the store ran while fn ran.
func (s *statements) during(fn func()) []string {
	s.mu.Lock()
	s.on, s.seen = true, nil
	s.mu.Unlock()
	fn()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.on = false
	return s.seen
}

// TestRequestPathStatements counts the SQL statements of the requests every client makes most,
// on a warm server, on both engines: the token check is one statement (no server trusts a token
// from memory, so a revoke anywhere is refused at once), the reach check one more for a token
// that holds grants and none of its own for a workspace-scoped token (the node's read, on
// workspace and id, is the check), and a page of children one statement beside those.
// TestRequestPathPlans (internal/store) pins that each is read on an index.
func TestRequestPathStatements(t *testing.T) {
	for _, engine := range []string{"sqlite", "postgres"} {
		t.Run(engine, func(t *testing.T) {
			rec := &statements{}
			cfg := store.Config{Observe: rec.observe}
			if engine == "sqlite" {
				cfg.Dir = t.TempDir()
			} else {
				cfg.DatabaseURL = testdb.PostgresURL(t)
			}
			st, err := store.Open(context.Background(), cfg)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { st.Close() })
			e := newEnv(t, st)
			top := e.mkPage(t, e.full, wsParent, "Top", map[string]any{"children": []any{para("one"), para("two")}})
			child := e.mkPage(t, e.full, pageParent(top), "Child")
			granted := e.token(quire.AllScopes, false, top)
			revoked, tok, err := e.svc.CreateToken(context.Background(), tokenSpec(e, quire.AllScopes, true))
			if err != nil {
				t.Fatal(err)
			}
			if _, err := e.svc.RevokeToken(context.Background(), tok.ID); err != nil {
				t.Fatal(err)
			}
			for _, tc := range []struct {
				name, path, token string
				status            int
				want              []string // a word of each statement, in order
			}{
				{"page, workspace-scoped", "/v2/pages/" + child, e.full, 200, []string{"FROM tokens", "FROM nodes"}},
				{"page, granted", "/v2/pages/" + child, granted, 200, []string{"FROM tokens", "WITH RECURSIVE up", "FROM nodes"}},
				{"children", "/v2/blocks/" + top + "/children?page_size=100", e.full, 200, []string{"FROM tokens", "FROM nodes", "FROM blocks"}},
				{"revoked token", "/v2/pages/" + child, revoked, 401, []string{"FROM tokens"}},
				{"page out of reach", "/v2/pages/" + quire.NewID(), e.full, 404, []string{"FROM tokens", "FROM nodes"}},
			} {
				t.Run(tc.name, func(t *testing.T) {
					e.do("GET", tc.path, tc.token, nil) // warm: statements prepared, pools filled
					// Background work (SQLite's checkpoints) may add a statement to one try;
					// the fewest of three is the request's own.
					var got []string
					for try := 0; try < 3; try++ {
						var r *response
						seen := rec.during(func() { r = e.do("GET", tc.path, tc.token, nil) })
						if r.status != tc.status {
							t.Fatalf("status %d, want %d: %s", r.status, tc.status, r.raw)
						}
						if try == 0 || len(seen) < len(got) {
							got = seen
						}
					}
					ok := len(got) == len(tc.want)
					for i := 0; ok && i < len(got); i++ {
						ok = strings.Contains(got[i], tc.want[i])
					}
					if !ok {
						t.Errorf("%d statements, want %d (%s):\n%s", len(got), len(tc.want), strings.Join(tc.want, ", "),
							strings.Join(numbered(got), "\n"))
					}
				})
			}
		})
	}
}

func numbered(lines []string) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = fmt.Sprintf("%d. %s", i+1, l)
	}
	return out
}
