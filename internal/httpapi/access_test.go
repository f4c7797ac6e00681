package httpapi

import (
	"context"
	"strings"
	"testing"

	"github.com/quire-dev/quire/internal/quire"
	"github.com/quire-dev/quire/internal/store"
	"github.com/quire-dev/quire/internal/testdb"
)

// TestAccessOrder checks contract §2's order of checks: 401 → 403 → 400 → 404.
func TestAccessOrder(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, st *store.Store) {
		e := newEnv(t, st, envOptions{extra: []func(*Server){withProbes}})
		noUsers := e.token([]quire.Scope{quire.PagesRead}, true)
		granted := e.token([]quire.Scope{quire.UsersRead}, false, seedNode(t, e))
		for _, tc := range []struct {
			name, method, path, token string
			body                      any
			status                    int
			code, path2               string
		}{
			{"no token", "GET", "/v2/users/me", "", nil, 401, quire.CodeUnauthorized, ""},
			{"not bearer", "GET", "/v2/users/me", "Basic abc", nil, 401, quire.CodeUnauthorized, ""},
			{"unknown token", "GET", "/v2/users/me", "quire_unknown", nil, 401, quire.CodeUnauthorized, ""},
			{"401 before 400", "GET", "/v2/users?page_size=0", "", nil, 401, quire.CodeUnauthorized, ""},
			{"403 before 400", "GET", "/v2/users?page_size=0", noUsers, nil, 403, quire.CodeForbidden, ""},
			{"403 before 404", "GET", "/v2/users/" + quire.NewID(), noUsers, nil, 403, quire.CodeForbidden, ""},
			{"403 before invalid body", "POST", "/v2/probe/users", noUsers, "{", 403, quire.CodeForbidden, ""},
			{"400 before 404", "GET", "/v2/users/nope", e.full, nil, 400, quire.CodeValidation, "user_id"},
			{"workspace-scoped credential", "GET", "/v2/users", granted, nil, 403, quire.CodeForbidden, ""},
			{"404", "GET", "/v2/users/" + quire.NewID(), e.full, nil, 404, quire.CodeNotFound, ""},
		} {
			t.Run(tc.name, func(t *testing.T) {
				var r *response
				if strings.HasPrefix(tc.token, "Basic") {
					r = e.do(tc.method, tc.path, "", tc.body, "Authorization", tc.token)
				} else {
					r = e.do(tc.method, tc.path, tc.token, tc.body)
				}
				r.wantError(t, tc.status, tc.code, tc.path2)
				if tc.status == 401 && r.header.Get("WWW-Authenticate") == "" {
					t.Errorf("401 without WWW-Authenticate")
				}
			})
		}
		// A granted token still reaches the routes that need no workspace-scoped credential.
		if r := e.do("GET", "/v2/users/"+e.owner.ID, granted, nil); r.status != 200 {
			t.Fatalf("granted token GET user: %d %s", r.status, r.raw)
		}
	})
}

func TestRevokedToken(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, st *store.Store) {
		e := newEnv(t, st)
		secret, tok, err := e.svc.CreateToken(context.Background(), tokenSpec(e, nil, true))
		if err != nil {
			t.Fatal(err)
		}
		if r := e.do("GET", "/v2/users/me", secret, nil); r.status != 200 {
			t.Fatalf("fresh token: %d", r.status)
		}
		// A revoke through another process (the store alone, as an admin command or another
		// server writes it) is refused on the very next request: no server trusts a token from
		// memory.
		if err := st.Revoke(context.Background(), tok.ID); err != nil {
			t.Fatal(err)
		}
		e.do("GET", "/v2/users/me", secret, nil).wantError(t, 401, quire.CodeUnauthorized, "")
		// A revoke through the server's own service takes effect at once.
		secret2, tok2, _ := e.svc.CreateToken(context.Background(), tokenSpec(e, nil, true))
		e.do("GET", "/v2/users/me", secret2, nil)
		if _, err := e.svc.RevokeToken(context.Background(), tok2.ID); err != nil {
			t.Fatal(err)
		}
		e.do("GET", "/v2/users/me", secret2, nil).wantError(t, 401, quire.CodeUnauthorized, "")
	})
}

// seedNode writes a bare top-level page, as the page service of a later issue would, and
// returns its id (tokens can only be granted existing content).
func seedNode(t testing.TB, e *env) string {
	t.Helper()
	id := quire.NewID()
	err := e.store.InTx(context.Background(), func(tx *store.Tx) error {
		return tx.ExecForTest(context.Background(), `INSERT INTO nodes (id, workspace_id, object, page_type, parent_type, position,
			title, properties, description, created_ms, created_by, edited_ms, edited_by)
			VALUES ($1, $2, 'page', 'page', 'workspace', 'a0', '[]', '{}', '[]', 1, $3, 1, $3)`, id, e.ws.ID, e.owner.ID)
	})
	if err != nil {
		t.Fatal(err)
	}
	return id
}
