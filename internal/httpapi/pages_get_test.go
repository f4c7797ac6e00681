package httpapi

import (
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/quire-dev/quire/internal/quire"
	"github.com/quire-dev/quire/internal/store"
	"github.com/quire-dev/quire/internal/testdb"
)

// TestGetPage_AsWritten: GET /v2/pages/{id} reads only the page's own fields with its token
// (store.PageFields), where a write reads the whole node; each answer is the one the last write
// gave, header and body, for a page with icon and cover under a page, a record of a database of
// most property types, a folder, a trashed page, and through a token granted an ancestor. A
// database's id on the page route stays not_found.
func TestGetPage_AsWritten(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, st *store.Store) {
		e := newEnv(t, st)
		home, db := e.newDatabase(t, taskSchema())
		rec := e.record(t, db["id"].(string), map[string]any{
			"Name":   []any{txt("Write tests")},
			"Status": map[string]any{"select": map[string]any{"name": "Todo"}},
			"Tags":   map[string]any{"multi_select": []any{map[string]any{"name": "b"}}},
			"Points": map[string]any{"number": 2.5},
			"Due":    map[string]any{"date": map[string]any{"start": "2024-05-10"}},
		})["id"].(string)
		page := e.mkPage(t, e.full, pageParent(home), "Child", map[string]any{
			"icon":  map[string]any{"type": "emoji", "emoji": "📄"},
			"cover": map[string]any{"type": "external", "external": map[string]any{"url": "https://example.com/c.png"}}})
		folder := e.mkPage(t, e.full, pageParent(home), "Folder", map[string]any{"page_type": "folder"})
		trashed := e.mkPage(t, e.full, pageParent(page), "Trashed")
		granted := e.token(quire.AllScopes, false, home)
		for _, tc := range []struct {
			name, id string
			patch    map[string]any
		}{
			{"page with icon and cover", page, map[string]any{"properties": titleOf("Child, renamed")}},
			{"record", rec, map[string]any{"properties": map[string]any{"Points": map[string]any{"number": 3}}}},
			{"folder", folder, map[string]any{"icon": map[string]any{"type": "emoji", "emoji": "📁"}}},
			{"trashed page", trashed, map[string]any{"in_trash": true}},
		} {
			t.Run(tc.name, func(t *testing.T) {
				w := e.do(http.MethodPatch, "/v2/pages/"+tc.id, e.full, tc.patch)
				wantOK(t, w, 200)
				for _, token := range []string{e.full, granted} {
					g := e.do(http.MethodGet, "/v2/pages/"+tc.id, token, nil)
					wantOK(t, g, 200)
					if diff := cmp.Diff(w.body, g.body); diff != "" {
						t.Fatalf("GET differs from the PATCH's answer (-patch +get):\n%s", diff)
					}
					if g.header.Get("ETag") != w.header.Get("ETag") || g.header.Get("ETag") == "" {
						t.Fatalf("ETag %q, the PATCH's %q", g.header.Get("ETag"), w.header.Get("ETag"))
					}
				}
			})
		}
		e.do(http.MethodGet, "/v2/pages/"+db["id"].(string), e.full, nil).wantError(t, 404, quire.CodeNotFound, "")
		wantOK(t, e.do(http.MethodGet, "/v2/databases/"+db["id"].(string), e.full, nil), 200)
	})
}
