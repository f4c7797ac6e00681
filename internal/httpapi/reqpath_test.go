package httpapi

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/quire-dev/quire/internal/quire"
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
// on a warm server, on both engines: a page GET reads its token, its reach and its page in one
// statement, whatever the token (no server trusts a token from memory, so a revoke anywhere is
// refused at once); when that read finds no row, the token alone tells 401 from 404. A page of a
// page's children reads the token, its reach and the page in one statement too, then the
// children; a block's children that read's miss and the token, then the block, its page's reach
// and the page, then the children (as many as before the joined read). On PostgreSQL the
// children route sends the listing with the joined read, in one round trip
// (AuthenticateNodeChildren): a page's children are then one round trip, and where the joined
// read finds no page (a block's children, a page out of reach) the listing sent with it is
// dropped and read again as before, one statement more in the same number of round trips.
// TestRequestPathPlans (internal/store) pins that each is read on an index.
func TestRequestPathStatements(t *testing.T) {
	for _, engine := range []string{"sqlite", "postgres"} {
		t.Run(engine, func(t *testing.T) {
			rec := &statements{}
			cfg := engineConfig(t, engine)
			cfg.Observe = rec.observe
			e := newEnv(t, openStore(t, cfg))
			top := e.mkPage(t, e.full, wsParent, "Top", map[string]any{"children": []any{para("one"), para("two")}})
			child := e.mkPage(t, e.full, pageParent(top), "Child")
			db := e.mkDatabase(t, top)
			kids := e.do("GET", "/v2/blocks/"+top+"/children", e.full, nil)
			block := kids.body["results"].([]any)[0].(map[string]any)["id"].(string)
			granted := e.token(quire.AllScopes, false, top)
			other := e.token(quire.AllScopes, false, e.mkPage(t, e.full, wsParent, "Elsewhere"))
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
				pgWant            []string // on PostgreSQL, when not want
			}{
				{"page, workspace-scoped", "/v2/pages/" + child, e.full, 200, []string{joined}, nil},
				{"page, granted", "/v2/pages/" + child, granted, 200, []string{joined}, nil},
				{"children", "/v2/blocks/" + top + "/children?page_size=100", e.full, 200, []string{joined, "FROM blocks"}, nil},
				{"children, granted", "/v2/blocks/" + child + "/children?page_size=100", granted, 200, []string{joined, "FROM blocks"}, nil},
				{"children of a block", "/v2/blocks/" + block + "/children", e.full, 200, []string{joined, "FROM tokens", "FROM blocks", "FROM nodes", "FROM nodes", "FROM blocks"},
					[]string{joined, "FROM blocks", "FROM tokens", "FROM blocks", "FROM nodes", "FROM nodes", "FROM blocks"}},
				{"children out of reach", "/v2/blocks/" + child + "/children", other, 404, []string{joined, "FROM tokens", "FROM blocks"},
					[]string{joined, "FROM blocks", "FROM tokens", "FROM blocks"}},
				{"users/me", "/v2/users/me", e.full, 200, []string{"FROM tokens"}, nil},
				{"revoked token", "/v2/pages/" + child, revoked, 401, []string{joined, "FROM tokens"}, nil},
				{"absent page", "/v2/pages/" + quire.NewID(), e.full, 404, []string{joined, "FROM tokens"}, nil},
				{"page out of reach", "/v2/pages/" + child, other, 404, []string{joined, "FROM tokens"}, nil},
				{"not an id", "/v2/pages/nope", e.full, 400, []string{"FROM tokens"}, nil},
				{"database, workspace-scoped", "/v2/databases/" + db, e.full, 200, []string{joined}, nil},
				{"database, granted", "/v2/databases/" + db, granted, 200, []string{joined}, nil},
				{"database out of reach", "/v2/databases/" + db, other, 404, []string{joined, "FROM tokens"}, nil},
				{"a page on the database route", "/v2/databases/" + child, e.full, 404, []string{joined}, nil},
				{"a database on the page route", "/v2/pages/" + db, e.full, 404, []string{joined}, nil},
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
					want := tc.want
					if engine == "postgres" && tc.pgWant != nil {
						want = tc.pgWant
					}
					ok := len(got) == len(want)
					for i := 0; ok && i < len(got); i++ {
						ok = strings.Contains(got[i], want[i])
					}
					if !ok {
						t.Errorf("%d statements, want %d (%s):\n%s", len(got), len(want), strings.Join(want, ", "),
							strings.Join(numbered(got), "\n"))
					}
				})
			}
		})
	}
}

// joined is a word of the statement that reads a token, its reach and a node together.
const joined = "JOIN nodes n ON n.id = $2 AND n.workspace_id = t.workspace_id"

func numbered(lines []string) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = fmt.Sprintf("%d. %s", i+1, l)
	}
	return out
}
