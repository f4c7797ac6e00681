package httpapi

import (
	"net/http"
	"slices"
	"testing"

	"github.com/quire-dev/quire/internal/store"
	"github.com/quire-dev/quire/internal/testdb"
)

// TestSearch_ChildPageTitle follows a page under another page through a rename, a trip to the
// trash and a move: its title stays searchable throughout. Each of these rewrites or removes
// the page's child_page block, whose id is the page's own, and the block triggers once deleted
// the page's title entry with it.
func TestSearch_ChildPageTitle(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, st *store.Store) {
		e := newEnv(t, st)
		parent := e.mkPage(t, e.full, wsParent, "Parent")
		child := e.mkPage(t, e.full, pageParent(parent), "Alpha report")
		found := func(step, query string) {
			t.Helper()
			if got := e.searchIDs(t, e.full, map[string]any{"query": query}); !slices.Equal(got, []string{child}) {
				t.Fatalf("%s: search %q = %v, want the child page %s", step, query, got, child)
			}
		}
		found("created", "Alpha")
		wantOK(t, e.do(http.MethodPatch, "/v2/pages/"+child, e.full, map[string]any{"properties": titleOf("Gamma report")}), 200)
		found("renamed", "Gamma")
		wantOK(t, e.do(http.MethodDelete, "/v2/pages/"+child, e.full, nil), 200)
		wantOK(t, e.do(http.MethodPatch, "/v2/pages/"+child, e.full, map[string]any{"in_trash": false}), 200)
		found("restored", "Gamma")
		wantOK(t, e.do(http.MethodPatch, "/v2/pages/"+child+"/move", e.full, map[string]any{"parent": wsParent}), 200)
		found("moved to the top level", "Gamma")
	})
}
