package httpapi

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/quire-dev/quire/internal/quire"
	"github.com/quire-dev/quire/internal/service"
	"github.com/quire-dev/quire/internal/store"
	"github.com/quire-dev/quire/internal/testdb"
)

// TestMindMap_AsPage: a mind map is a page of type mind_map on every page route: made by either
// route it has a root, it is listed, trashed, restored and moved like a page.
func TestMindMap_AsPage(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, st *store.Store) {
		e := newEnv(t, st)
		home := e.mkPage(t, e.full, wsParent, "Home")
		viaPages := e.mkPage(t, e.full, pageParent(home), "Board", map[string]any{"page_type": "mind_map"})
		viaMaps := e.mkMindMap(t, e.full, map[string]any{"parent": wsParent, "title": "Ideas"}).body["id"].(string)

		r := e.do(http.MethodGet, "/v2/mind-maps/"+viaPages, e.full, nil)
		wantOK(t, r, 200)
		if got := outline(rootOf(r)); got != "Board" || r.body["node_count"] != float64(1) {
			t.Errorf("a mind map made through /v2/pages: tree %s, node_count %v; want its title as the root", got, r.body["node_count"])
		}
		if diff := cmp.Diff(map[string]any{"layout": "right", "theme": "default"}, r.body["settings"]); diff != "" {
			t.Errorf("settings (-want +got):\n%s", diff)
		}
		if got := e.pageIDs(t, "/v2/workspace/pages/mind_maps", e.full); !cmp.Equal(got, []string{viaMaps, viaPages}) {
			t.Errorf("mind_maps section = %v, want [%s %s]", got, viaMaps, viaPages)
		}
		if got := e.pageIDs(t, "/v2/pages", e.full); !contains(got, viaMaps) || !contains(got, viaPages) {
			t.Errorf("GET /v2/pages = %v, want both mind maps", got)
		}

		// Trash: still readable with in_trash, refused for edits, out of the listing, in trash.
		wantOK(t, e.do(http.MethodDelete, "/v2/pages/"+viaMaps, e.full, nil), 200)
		r = e.do(http.MethodGet, "/v2/mind-maps/"+viaMaps, e.full, nil)
		wantOK(t, r, 200)
		if r.body["in_trash"] != true || outline(rootOf(r)) != "Ideas" {
			t.Errorf("trashed mind map: in_trash %v, tree %s", r.body["in_trash"], outline(rootOf(r)))
		}
		add := map[string]any{"edits": []any{map[string]any{"op": "add", "parent_id": rootOf(r)["id"], "node": mmNode("x")}}}
		wantDetail(t, e.do(http.MethodPatch, "/v2/mind-maps/"+viaMaps, e.full, add), 400, quire.CodeValidation, "mind_map_id", quire.ReasonArchived)
		if got := e.pageIDs(t, "/v2/workspace/pages/mind_maps", e.full); !cmp.Equal(got, []string{viaPages}) {
			t.Errorf("mind_maps section after trash = %v", got)
		}
		if got := e.pageIDs(t, "/v2/workspace/pages/trash", e.full); !cmp.Equal(got, []string{viaMaps}) {
			t.Errorf("trash section = %v", got)
		}
		// Under a trashed page, a mind map is refused too.
		wantOK(t, e.do(http.MethodDelete, "/v2/pages/"+home, e.full, nil), 200)
		wantDetail(t, e.do(http.MethodPatch, "/v2/mind-maps/"+viaPages, e.full, map[string]any{"title": "x"}),
			400, quire.CodeValidation, "mind_map_id", quire.ReasonArchived)
		wantOK(t, e.do(http.MethodPatch, "/v2/pages/"+home, e.full, map[string]any{"in_trash": false}), 200)

		// Restore, then edit.
		wantOK(t, e.do(http.MethodPatch, "/v2/pages/"+viaMaps, e.full, map[string]any{"in_trash": false}), 200)
		r = e.do(http.MethodPatch, "/v2/mind-maps/"+viaMaps, e.full, add)
		wantOK(t, r, 200)
		if got := outline(rootOf(r)); got != "Ideas(x)" || r.body["in_trash"] != false {
			t.Errorf("restored and edited: %s, in_trash %v", got, r.body["in_trash"])
		}

		// Moved like a page; renamed like a page.
		wantOK(t, e.do(http.MethodPatch, "/v2/pages/"+viaMaps+"/move", e.full, map[string]any{"parent": pageParent(home)}), 200)
		wantOK(t, e.do(http.MethodPatch, "/v2/pages/"+viaMaps, e.full, map[string]any{"properties": titleOf("Ideas 2")}), 200)
		r = e.do(http.MethodGet, "/v2/mind-maps/"+viaMaps, e.full, nil)
		if diff := cmp.Diff(pageParent(home), r.body["parent"]); diff != "" {
			t.Errorf("parent after move (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff([]any{txtOut("Ideas 2")}, r.body["title"]); diff != "" {
			t.Errorf("title after a page rename (-want +got):\n%s", diff)
		}
		if got := e.kidIDs(t, home); !cmp.Equal(got, []string{viaPages, viaMaps}) {
			t.Errorf("children of home = %v", got)
		}
		// Its Markdown is its tree as a nested list; PUT Markdown is refused like blocks.
		if got, want := e.exportMD(t, viaMaps), "- Ideas\n  - x\n"; got != want {
			t.Errorf("Markdown = %q, want %q", got, want)
		}
		e.do(http.MethodPut, "/v2/pages/"+viaMaps+"/content/markdown", e.full, map[string]any{"markdown": "# x"}).
			wantError(t, 400, quire.CodeValidation, "markdown")
		// A mind map holds no blocks.
		r = e.do(http.MethodPatch, "/v2/blocks/"+viaMaps+"/children", e.full, map[string]any{"children": []any{para("x")}})
		r.wantError(t, 400, quire.CodeValidation, "children")
	})
}

func TestMindMap_IfMatchAndIdempotency(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, st *store.Store) {
		e := newEnv(t, st)
		body := map[string]any{"parent": wsParent, "title": "Once", "root": mmNode("R", mmNode("A"))}
		first := e.do(http.MethodPost, "/v2/mind-maps", e.full, body, "Idempotency-Key", "mm-1")
		wantOK(t, first, 200)
		again := e.do(http.MethodPost, "/v2/mind-maps", e.full, body, "Idempotency-Key", "mm-1")
		if string(again.raw) != string(first.raw) || again.header.Get("Idempotent-Replayed") != "true" || again.header.Get("ETag") != first.header.Get("ETag") {
			t.Fatalf("replayed create differs: %s", again.raw)
		}
		if got := e.pageIDs(t, "/v2/workspace/pages/mind_maps", e.full); len(got) != 1 {
			t.Fatalf("mind maps after a replayed create = %v, want one", got)
		}
		body["title"] = "Twice"
		e.do(http.MethodPost, "/v2/mind-maps", e.full, body, "Idempotency-Key", "mm-1").wantError(t, 409, quire.CodeIdempotencyConflict, "")

		id := first.body["id"].(string)
		ids := nodeIDs(rootOf(first))
		add := map[string]any{"edits": []any{map[string]any{"op": "add", "parent_id": ids["A"], "node": mmNode("A1")}}}
		p1 := e.do(http.MethodPatch, "/v2/mind-maps/"+id, e.full, add, "Idempotency-Key", "edit-1", "If-Match", first.header.Get("ETag"))
		wantOK(t, p1, 200)
		p2 := e.do(http.MethodPatch, "/v2/mind-maps/"+id, e.full, add, "Idempotency-Key", "edit-1", "If-Match", first.header.Get("ETag"))
		if p2.status != 200 || string(p2.raw) != string(p1.raw) || p2.header.Get("Idempotent-Replayed") != "true" {
			t.Fatalf("replayed edit: %d %s", p2.status, p2.raw)
		}
		if got := outline(rootOf(e.do(http.MethodGet, "/v2/mind-maps/"+id, e.full, nil))); got != "R(A(A1))" {
			t.Fatalf("after a replayed add: %s, want one A1", got)
		}

		// A stale version: 409, nothing changes; the current one applies.
		before := e.do(http.MethodGet, "/v2/mind-maps/"+id, e.full, nil)
		e.do(http.MethodPatch, "/v2/mind-maps/"+id, e.full, add, "If-Match", first.header.Get("ETag")).wantError(t, 409, quire.CodeConflict, "")
		after := e.do(http.MethodGet, "/v2/mind-maps/"+id, e.full, nil)
		if string(after.raw) != string(before.raw) {
			t.Fatalf("a stale PATCH changed the mind map: %s", after.raw)
		}
		wantOK(t, e.do(http.MethodPatch, "/v2/mind-maps/"+id, e.full, add, "If-Match", before.header.Get("ETag")), 200)

		// Concurrent edits of one map all apply, one at a time.
		var wg sync.WaitGroup
		for i := range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				r := e.do(http.MethodPatch, "/v2/mind-maps/"+id, e.full, map[string]any{"edits": []any{
					map[string]any{"op": "add", "parent_id": ids["R"], "node": mmNode("c" + string(rune('0'+i)))}}})
				if r.status != 200 {
					t.Errorf("concurrent add: %d %s", r.status, r.raw)
				}
			}()
		}
		wg.Wait()
		r := e.do(http.MethodGet, "/v2/mind-maps/"+id, e.full, nil)
		if n := len(rootOf(r)["children"].([]any)); n != 9 || r.body["node_count"] != float64(12) {
			t.Errorf("after 8 concurrent adds: %d children of the root, node_count %v", n, r.body["node_count"])
		}
	})
}

func TestMindMap_Access(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, st *store.Store) {
		e := newEnv(t, st)
		shared := e.mkPage(t, e.full, wsParent, "Shared")
		other := e.mkMindMap(t, e.full, map[string]any{"parent": wsParent, "title": "Private"}).body["id"].(string)
		granted := e.token([]quire.Scope{quire.PagesRead, quire.PagesWrite}, false, shared)
		readOnly := e.token([]quire.Scope{quire.PagesRead}, true)

		// A granted token works beneath its grant, including on what it creates there.
		mine := e.mkMindMap(t, granted, map[string]any{"parent": pageParent(shared), "title": "Mine"}).body["id"].(string)
		wantOK(t, e.do(http.MethodGet, "/v2/mind-maps/"+mine, granted, nil), 200)
		wantOK(t, e.do(http.MethodPatch, "/v2/mind-maps/"+mine, granted, map[string]any{"title": "Mine!"}), 200)
		// Elsewhere: not found, never forbidden.
		e.do(http.MethodGet, "/v2/mind-maps/"+other, granted, nil).wantError(t, 404, quire.CodeNotFound, "")
		e.do(http.MethodPatch, "/v2/mind-maps/"+other, granted, map[string]any{"title": "x"}).wantError(t, 404, quire.CodeNotFound, "")
		e.do(http.MethodPost, "/v2/mind-maps", granted, map[string]any{"parent": wsParent, "title": "x"}).wantError(t, 403, quire.CodeForbidden, "")
		// Scopes.
		wantOK(t, e.do(http.MethodGet, "/v2/mind-maps/"+other, readOnly, nil), 200)
		e.do(http.MethodPatch, "/v2/mind-maps/"+other, readOnly, map[string]any{}).wantError(t, 403, quire.CodeForbidden, "")
		e.do(http.MethodPost, "/v2/mind-maps", readOnly, map[string]any{"parent": wsParent, "title": "x"}).wantError(t, 403, quire.CodeForbidden, "")
		e.do(http.MethodGet, "/v2/mind-maps/"+other, "", nil).wantError(t, 401, quire.CodeUnauthorized, "")
		// The order of checks: a malformed body with a missing scope is 403; malformed then missing is 400.
		e.do(http.MethodPatch, "/v2/mind-maps/"+other, readOnly, `{"edits":5}`).wantError(t, 403, quire.CodeForbidden, "")
		e.do(http.MethodPatch, "/v2/mind-maps/7b0c2a8e-4f1d-4c3b-9a5e-2d6f8e1b3c4a", e.full, `{"edits":5}`).wantError(t, 400, quire.CodeValidation, "edits")
		e.do(http.MethodPatch, "/v2/mind-maps/"+other, e.full, `[1]`).wantError(t, 400, quire.CodeInvalidJSON, "")
	})
}

// TestMindMap_TwoServers: servers sharing one store never answer from a stale tree: what one
// writes, the other reads and edits on.
func TestMindMap_TwoServers(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, st *store.Store) {
		a := newEnv(t, st)
		r := a.mkMindMap(t, a.full, map[string]any{"parent": wsParent, "title": "Shared", "root": mmNode("R", mmNode("A"))})
		id := r.body["id"].(string)
		ids := nodeIDs(rootOf(r))
		wantOK(t, a.do(http.MethodGet, "/v2/mind-maps/"+id, a.full, nil), 200) // a keeps the tree

		b := &env{t: t, store: st, full: a.full, srv: a.srv}
		bsrv := newServer(Config{Service: service.New(st, service.Options{BaseURL: a.srv.URL}),
			Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), BaseURL: a.srv.URL})
		b.srv = httptest.NewServer(bsrv)
		t.Cleanup(b.srv.Close)
		wantOK(t, b.do(http.MethodPatch, "/v2/mind-maps/"+id, a.full, map[string]any{"edits": []any{
			map[string]any{"op": "add", "parent_id": ids["A"], "node": mmNode("from b")}}}), 200)

		if got := outline(rootOf(a.do(http.MethodGet, "/v2/mind-maps/"+id, a.full, nil))); got != "R(A(from b))" {
			t.Fatalf("server a reads %s after server b's edit", got)
		}
		r = a.do(http.MethodPatch, "/v2/mind-maps/"+id, a.full, map[string]any{"edits": []any{
			map[string]any{"op": "update", "node_id": ids["A"], "text": "A from a"}}})
		wantOK(t, r, 200)
		if got := outline(rootOf(r)); got != "R(A from a(from b))" {
			t.Fatalf("server a's edit answers %s", got)
		}
		if got := outline(rootOf(b.do(http.MethodGet, "/v2/mind-maps/"+id, a.full, nil))); got != "R(A from a(from b))" {
			t.Fatalf("server b reads %s", got)
		}
	})
}
