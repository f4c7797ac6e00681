package httpapi

import (
	"net/http"
	"testing"

	"github.com/quire-dev/quire/internal/quire"
	"github.com/quire-dev/quire/internal/store"
	"github.com/quire-dev/quire/internal/testdb"
)

// TestUncleanPaths: a path with an empty, "." or ".." segment answers 404 not_found in the error
// body, never the ServeMux's 307 to the cleaned path (a client following it would re-send a
// PATCH to a route it never named), and the write it carried changes nothing.
func TestUncleanPaths(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, st *store.Store) {
		e := newEnv(t, st)
		page := e.do(http.MethodPost, "/v2/pages", e.full, map[string]any{
			"properties": map[string]any{"title": []any{map[string]any{"text": map[string]any{"content": "Root"}}}},
		})
		wantOK(t, page, 200)
		id := page.body["id"].(string)
		appendBody := `{"children":[{"paragraph":{"rich_text":[{"text":{"content":"x"}}]}}]}`
		for _, c := range []struct{ method, path, body string }{
			{http.MethodGet, "/v2/pages//content/markdown", ""},
			{http.MethodPatch, "/v2/blocks//children", appendBody},
			{http.MethodPatch, "/v2/blocks/" + id + "//children", appendBody},
			{http.MethodPatch, "/v2/blocks/./" + id + "/children", appendBody},
			{http.MethodGet, "/v2/pages/../users/me", ""},
			{http.MethodGet, "/v2//users/me", ""},
		} {
			var body any
			if c.body != "" {
				body = c.body
			}
			r := e.do(c.method, c.path, e.full, body)
			r.wantError(t, 404, quire.CodeNotFound, "")
			if loc := r.header.Get("Location"); loc != "" {
				t.Errorf("%s %s: Location %q, want none", c.method, c.path, loc)
			}
		}
		kids := e.do(http.MethodGet, "/v2/blocks/"+id+"/children", e.full, nil)
		wantOK(t, kids, 200)
		if n := len(kids.body["results"].([]any)); n != 0 {
			t.Fatalf("the refused appends wrote %d blocks", n)
		}
		// A trailing slash is not a route either, but still the same 404.
		e.do(http.MethodGet, "/v2/users/me/", e.full, nil).wantError(t, 404, quire.CodeNotFound, "")
	})
}
