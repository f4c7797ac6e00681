package httpapi

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/quire-dev/quire/internal/quire"
	"github.com/quire-dev/quire/internal/store"
	"github.com/quire-dev/quire/internal/testdb"
)

// validBodies holds, for each route that takes a body and names a resource in its path, a body
// that passes validation: 400 comes before 404 (contract §2), so only a valid body shows that a
// foreign id answers 404. A new route of that kind without an entry fails the test below.
var validBodies = map[string]any{
	"PATCH /v2/blocks/{block_id}/children":              map[string]any{"children": []any{para("x")}},
	"PATCH /v2/blocks/{block_id}":                       map[string]any{"in_trash": false},
	"PATCH /v2/pages/{page_id}":                         map[string]any{"icon": nil},
	"PATCH /v2/pages/{page_id}/move":                    map[string]any{"parent": wsParent},
	"PUT /v2/pages/{page_id}/content/markdown":          map[string]any{"markdown": "x"},
	"POST /v2/databases/{database_id}/views":            map[string]any{"name": "All", "type": "table"},
	"PATCH /v2/databases/{database_id}":                 map[string]any{"is_inline": true},
	"POST /v2/databases/{database_id}/query":            map[string]any{"page_size": 10},
	"POST /v2/databases/{database_id}/mutations":        map[string]any{"mutations": []any{map[string]any{"op": "create", "properties": map[string]any{}}}},
	"PATCH /v2/mind-maps/{mind_map_id}":                 map[string]any{"title": "Renamed"},
	"PATCH /v2/databases/{database_id}/views/{view_id}": map[string]any{"name": "Renamed"},
	"PATCH /v2/webhooks/{webhook_id}":                   map[string]any{"description": "x"},
}

// pathValues fills the path parameters that are not ids.
var pathValues = map[string]string{"section": "top_level"}

// TestRouteSecurity walks the route table, so that no route can be added without these
// checks: no token, a malformed and a revoked token answer 401; a token lacking any one of the
// route's scopes answers 403, as does a granted token on a route for workspace-scoped tokens;
// another workspace's ids answer 404 not_found, the same as ids that do not exist.
func TestRouteSecurity(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, st *store.Store) {
		e := newEnv(t, st)
		routes := e.srv.Config.Handler.(*Server).routes
		if len(routes) < 10 {
			t.Fatalf("route table has %d routes", len(routes))
		}
		// Another workspace, with a page, a block and a user of its own.
		ctx := context.Background()
		ows, err := e.svc.CreateWorkspace(ctx, "Elsewhere")
		if err != nil {
			t.Fatal(err)
		}
		other := *e
		other.ws = ows
		if other.owner, err = e.svc.CreateUser(ctx, ows.ID, "Grace", "grace@example.com"); err != nil {
			t.Fatal(err)
		}
		other.full = other.token(quire.AllScopes, true)
		foreignPage := other.mkPage(t, other.full, wsParent, "Theirs")
		revoked := e.token(quire.AllScopes, true)
		revokeToken(t, e, revoked)
		granted := e.token(quire.AllScopes, false, e.mkPage(t, e.full, wsParent, "Ours"))
		lacking := map[quire.Scope]string{} // a workspace-scoped token with every scope but one
		for _, sc := range quire.AllScopes {
			lacking[sc] = e.token(slices.DeleteFunc(slices.Clone(quire.AllScopes), func(s quire.Scope) bool { return s == sc }), true)
		}

		keys := make([]string, 0, len(routes))
		for k := range routes {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, key := range keys {
			rt := routes[key]
			method, pattern, _ := strings.Cut(key, " ")
			if rt.public {
				continue
			}
			t.Run(key, func(t *testing.T) {
				path := fillPath(pattern, foreignPage, other.owner.ID)
				body := validBodies[key]
				if body == nil && (method == http.MethodPost || method == http.MethodPatch || method == http.MethodPut) {
					body = map[string]any{}
				}
				for name, token := range map[string]string{"no token": "", "malformed": "not-a-token", "revoked": revoked} {
					r := e.do(method, path, token, body)
					if r.status != 401 || r.body["code"] != quire.CodeUnauthorized {
						t.Errorf("%s: %d %s, want 401 unauthorized", name, r.status, r.raw)
					}
					checkErrorShape(t, r)
				}
				for _, missing := range rt.scopes {
					r := e.do(method, path, lacking[missing], body)
					if r.status != 403 || r.body["code"] != quire.CodeForbidden {
						t.Errorf("without %s: %d %s, want 403 forbidden", missing, r.status, r.raw)
					}
				}
				if rt.workspaceScoped {
					r := e.do(method, path, granted, body)
					if r.status != 403 || r.body["code"] != quire.CodeForbidden {
						t.Errorf("granted token: %d %s, want 403 forbidden", r.status, r.raw)
					}
				}
				if fillPath(pattern, "", "") == fillPath(pattern, "x", "x") {
					return // names no resource
				}
				if (method == http.MethodPatch || method == http.MethodPut || method == http.MethodPost) && validBodies[key] == nil {
					t.Fatalf("no entry in validBodies for %s: add a body that passes validation", key)
				}
				r := e.do(method, path, e.full, body)
				if r.status != 404 || r.body["code"] != quire.CodeNotFound {
					t.Errorf("another workspace's id: %d %s, want 404 not_found", r.status, r.raw)
				}
				r = e.do(method, fillPath(pattern, quire.NewID(), quire.NewID()), e.full, body)
				if r.status != 404 || r.body["code"] != quire.CodeNotFound {
					t.Errorf("unknown id: %d %s, want 404 not_found", r.status, r.raw)
				}
			})
		}
		// The foreign page was left alone by every write above.
		g := other.do(http.MethodGet, "/v2/pages/"+foreignPage, other.full, nil)
		if g.status != 200 || g.body["in_trash"] != false || g.header.Get("ETag") != `W/"1"` {
			t.Fatalf("foreign page after the walk: %d %s %s", g.status, g.header.Get("ETag"), g.raw)
		}
	})
}

// fillPath puts id in every id parameter of pattern (user for {user_id}) and a valid value in
// the others.
func fillPath(pattern, id, user string) string {
	var b strings.Builder
	for {
		i := strings.IndexByte(pattern, '{')
		if i < 0 {
			b.WriteString(pattern)
			return b.String()
		}
		j := strings.IndexByte(pattern[i:], '}') + i
		b.WriteString(pattern[:i])
		switch name := pattern[i+1 : j]; {
		case pathValues[name] != "":
			b.WriteString(pathValues[name])
		case name == "user_id":
			b.WriteString(user)
		default:
			b.WriteString(id)
		}
		pattern = pattern[j+1:]
	}
}

// revokeToken revokes the token whose secret is given.
func revokeToken(t testing.TB, e *env, secret string) {
	t.Helper()
	r := e.do(http.MethodGet, "/v2/users/me", secret, nil)
	if r.status != 200 {
		t.Fatalf("users/me: %d %s", r.status, r.raw)
	}
	if _, err := e.svc.RevokeToken(context.Background(), r.body["id"].(string)); err != nil {
		t.Fatal(err)
	}
}
