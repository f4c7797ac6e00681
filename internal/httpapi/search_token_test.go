package httpapi

import (
	"bytes"
	"context"
	"slices"
	"testing"

	"github.com/quire-dev/quire/internal/quire"
	"github.com/quire-dev/quire/internal/store"
	"github.com/quire-dev/quire/internal/testdb"
)

// TestSearchWithToken (issue 15): a search answers the same whether its first page was read
// with the token (PostgreSQL, from a secret's second search on: service.AuthenticateSearch) or
// after it, for a workspace-scoped token and a token granted one page; a token without the
// search scope is refused (403) and a body that is no JSON is 400, each time; a token revoked
// through the store alone (another server, an admin command) is refused (401) on the very
// next search, with a good body or a bad one.
func TestSearchWithToken(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, st *store.Store) {
		e := newEnv(t, st)
		a, b := e.newPage("Quokkafen notes"), e.newPage("Quokkafen plans")
		e.newPage("Other notes")
		secret, tok, err := e.svc.CreateToken(context.Background(), tokenSpec(e, []quire.Scope{quire.SearchRead}, true))
		if err != nil {
			t.Fatal(err)
		}
		granted := e.token([]quire.Scope{quire.SearchRead}, false, a)
		noScope := e.token([]quire.Scope{quire.PagesRead}, true)
		body := map[string]any{"query": "quokkafen", "page_size": 20}
		for _, c := range []struct {
			name, token string
			want        []string
		}{{"scoped", secret, []string{b, a}}, {"granted", granted, []string{a}}} {
			first := e.do("POST", "/v2/search", c.token, body)
			if first.status != 200 || !slices.Equal(resultIDs(first), c.want) {
				t.Fatalf("%s: %d %s; want %v", c.name, first.status, first.raw, c.want)
			}
			for i := range 3 {
				if r := e.do("POST", "/v2/search", c.token, body); r.status != 200 || !bytes.Equal(r.raw, first.raw) {
					t.Errorf("%s, search %d: %d %s\nwant %s", c.name, i+2, r.status, r.raw, first.raw)
				}
			}
		}
		for range 2 {
			e.do("POST", "/v2/search", noScope, body).wantError(t, 403, quire.CodeForbidden, "")
			e.do("POST", "/v2/search", secret, "{").wantError(t, 400, quire.CodeInvalidJSON, "")
		}
		if err := st.Revoke(context.Background(), tok.ID); err != nil {
			t.Fatal(err)
		}
		e.do("POST", "/v2/search", secret, body).wantError(t, 401, quire.CodeUnauthorized, "")
		e.do("POST", "/v2/search", secret, "{").wantError(t, 401, quire.CodeUnauthorized, "")
	})
}

func resultIDs(r *response) []string {
	var ids []string
	results, _ := r.body["results"].([]any)
	for _, v := range results {
		ids = append(ids, v.(map[string]any)["id"].(string))
	}
	return ids
}
