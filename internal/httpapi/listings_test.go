package httpapi

import (
	"fmt"
	"net/http"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/quire-dev/quire/internal/quire"
	"github.com/quire-dev/quire/internal/store"
	"github.com/quire-dev/quire/internal/testdb"
)

func sorted(ids []string) []string {
	out := append([]string(nil), ids...)
	sort.Strings(out)
	return out
}

// tick lets the clock move on, so that the next edit has a later last_edited_time.
func tick() { time.Sleep(3 * time.Millisecond) }

// wantNewestFirst checks that a listing is ordered by last_edited_time, newest first.
func wantNewestFirst(t testing.TB, objs []map[string]any) {
	t.Helper()
	if !sort.SliceIsSorted(objs, func(i, j int) bool {
		return objs[i]["last_edited_time"].(string) > objs[j]["last_edited_time"].(string)
	}) {
		var times []any
		for _, o := range objs {
			times = append(times, o["last_edited_time"])
		}
		t.Fatalf("not newest edit first: %v", times)
	}
}

func TestWorkspacePages(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, st *store.Store) {
		e := newEnv(t, st)
		mk := func(parent any, title, pageType string) string {
			tick()
			return e.mkPage(t, e.full, parent, title, map[string]any{"page_type": pageType})
		}
		a := mk(wsParent, "A", "page")
		b := mk(wsParent, "B", "page")
		c := mk(wsParent, "C", "page")
		d := mk(pageParent(a), "D", "page")
		f := mk(wsParent, "F", "folder")
		inF := mk(pageParent(f), "Inner folder", "folder")
		m := mk(wsParent, "M", "mind_map")
		top := func() []string { return e.pageIDs(t, "/v2/workspace/pages", e.full) }

		// Sidebar order is creation order; the section of the same name agrees, in pages of any size.
		if diff := cmp.Diff([]string{a, b, c, f, m}, top()); diff != "" {
			t.Fatalf("top level (-want +got):\n%s", diff)
		}
		for _, n := range []int{1, 2, 100} {
			if diff := cmp.Diff(top(), idsOf(e.walk(t, "/v2/workspace/pages/top_level", e.full, n))); diff != "" {
				t.Fatalf("top_level by %d (-want +got):\n%s", n, diff)
			}
		}
		objs := e.walk(t, "/v2/workspace/pages", e.full, 100)
		if objs[0]["object"] != "page_node" || objs[0]["title"] != "A" || objs[0]["has_children"] != true || objs[0]["url"] != e.getPage(t, a).body["url"] {
			t.Fatalf("a listed node: %v", objs[0])
		}
		// team is the same list, and shared and private are empty whatever the page size.
		for _, n := range []int{1, 100} {
			if diff := cmp.Diff(top(), idsOf(e.walk(t, "/v2/workspace/pages/team", e.full, n))); diff != "" {
				t.Fatalf("team by %d (-want +got):\n%s", n, diff)
			}
			for _, sec := range []string{"shared", "private"} {
				if got := e.walk(t, "/v2/workspace/pages/"+sec, e.full, n); len(got) != 0 {
					t.Fatalf("%s = %v", sec, got)
				}
			}
		}
		// Moves change the sidebar; a page moved out of the top level leaves it.
		wantOK(t, e.do(http.MethodPatch, "/v2/pages/"+c+"/move", e.full, map[string]any{"parent": wsParent, "after": a}), 200)
		wantOK(t, e.do(http.MethodPatch, "/v2/pages/"+d+"/move", e.full, map[string]any{"parent": wsParent}), 200)
		wantOK(t, e.do(http.MethodPatch, "/v2/pages/"+m+"/move", e.full, map[string]any{"parent": pageParent(f)}), 200)
		if diff := cmp.Diff([]string{a, c, b, f, d}, top()); diff != "" {
			t.Fatalf("top level after moves (-want +got):\n%s", diff)
		}
		// Edits do not reorder it; trash removes from it.
		tick()
		wantOK(t, e.do(http.MethodPatch, "/v2/pages/"+b, e.full, map[string]any{"properties": titleOf("B2")}), 200)
		if diff := cmp.Diff([]string{a, c, b, f, d}, top()); diff != "" {
			t.Fatalf("top level after an edit (-want +got):\n%s", diff)
		}

		// recent: every page not hidden, newest edit first.
		recent := e.walk(t, "/v2/workspace/pages/recent", e.full, 3)
		wantNewestFirst(t, recent)
		if len(recent) != 7 || recent[0]["id"] != b {
			t.Fatalf("recent = %v, want 7 with B first", idsOf(recent))
		}
		// folders and mind_maps, at any depth.
		// (F was edited last: M moving under it touched it.)
		if diff := cmp.Diff([]string{f, inF}, e.pageIDs(t, "/v2/workspace/pages/folders", e.full)); diff != "" {
			t.Fatalf("folders (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff([]string{m}, e.pageIDs(t, "/v2/workspace/pages/mind_maps", e.full)); diff != "" {
			t.Fatalf("mind_maps (-want +got):\n%s", diff)
		}
		// trash: what was put there, last first; what is under it is hidden everywhere else.
		tick()
		wantOK(t, e.do(http.MethodDelete, "/v2/pages/"+b, e.full, nil), 200)
		tick()
		wantOK(t, e.do(http.MethodDelete, "/v2/pages/"+f, e.full, nil), 200)
		if diff := cmp.Diff([]string{f, b}, e.pageIDs(t, "/v2/workspace/pages/trash", e.full)); diff != "" {
			t.Fatalf("trash (-want +got):\n%s", diff)
		}
		for section, want := range map[string][]string{
			"top_level": {a, c, d},
			"folders":   nil,
			"mind_maps": nil,
		} {
			if diff := cmp.Diff(want, e.pageIDs(t, "/v2/workspace/pages/"+section, e.full)); diff != "" {
				t.Fatalf("%s with F and B in trash (-want +got):\n%s", section, diff)
			}
		}
		if n := len(e.pageIDs(t, "/v2/workspace/pages/recent", e.full)); n != 3 {
			t.Fatalf("recent holds %d pages, want 3", n)
		}
		// Restoring F brings back what is under it.
		wantOK(t, e.do(http.MethodPatch, "/v2/pages/"+f, e.full, map[string]any{"in_trash": false}), 200)
		if diff := cmp.Diff([]string{m}, e.pageIDs(t, "/v2/workspace/pages/mind_maps", e.full)); diff != "" {
			t.Fatalf("mind_maps after restore (-want +got):\n%s", diff)
		}

		// Refusals.
		granted := e.token(quire.AllScopes, false, a)
		noRead := e.token([]quire.Scope{quire.PagesWrite, quire.BlocksRead}, true)
		topCursor := e.do(http.MethodGet, "/v2/workspace/pages?page_size=1", e.full, nil).body["team"].(map[string]any)["next_cursor"].(string)
		for _, tc := range []struct {
			name, path, token string
			status            int
			code, path2       string
		}{
			{"unknown section", "/v2/workspace/pages/starred", e.full, 400, quire.CodeValidation, "section"},
			{"granted token", "/v2/workspace/pages", granted, 403, quire.CodeForbidden, ""},
			{"granted token, team", "/v2/workspace/pages/team", granted, 403, quire.CodeForbidden, ""},
			{"granted token, shared", "/v2/workspace/pages/shared", granted, 403, quire.CodeForbidden, ""},
			{"cursor of team on private", "/v2/workspace/pages/private?start_cursor=" + topCursor, e.full, 400, quire.CodeValidation, "start_cursor"},
			{"granted token, section", "/v2/workspace/pages/recent", granted, 403, quire.CodeForbidden, ""},
			{"granted token, unknown section", "/v2/workspace/pages/starred", granted, 403, quire.CodeForbidden, ""},
			{"no pages.read", "/v2/workspace/pages/trash", noRead, 403, quire.CodeForbidden, ""},
			{"cursor of another section", "/v2/workspace/pages/recent?start_cursor=" + topCursor, e.full, 400, quire.CodeValidation, "start_cursor"},
			{"page size", "/v2/workspace/pages?page_size=101", e.full, 400, quire.CodeValidation, "page_size"},
			{"no token", "/v2/workspace/pages", "", 401, quire.CodeUnauthorized, ""},
		} {
			t.Run(tc.name, func(t *testing.T) {
				e.do(http.MethodGet, tc.path, tc.token, nil).wantError(t, tc.status, tc.code, tc.path2)
			})
		}
	})
}

// TestListPages: GET /v2/pages answers sidebar nodes in sidebar order, the top of what the
// token reaches without parent_id and what is directly under a page or database with it, so
// that a client walks the whole tree by has_children (the original service's exporters do).
func TestListPages(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, st *store.Store) {
		e := newEnv(t, st)
		a := e.mkPage(t, e.full, wsParent, "A")
		a1 := e.mkPage(t, e.full, pageParent(a), "A1")
		a11 := e.mkPage(t, e.full, pageParent(a1), "A11")
		b := e.mkPage(t, e.full, wsParent, "B")
		b1 := e.mkPage(t, e.full, pageParent(b), "B1")
		folder := e.mkPage(t, e.full, wsParent, "F", map[string]any{"page_type": "folder"})
		dbr := e.do("POST", "/v2/databases", e.full, map[string]any{"parent": pageParent(b), "title": []any{txt("Tasks")},
			"properties": map[string]any{"Name": map[string]any{"title": map[string]any{}}}})
		wantOK(t, dbr, http.StatusOK)
		db := dbr.body["id"].(string)
		r1 := e.record(t, db, map[string]any{"Name": []any{txt("One")}})["id"].(string)
		r2 := e.record(t, db, map[string]any{"Name": []any{txt("Two")}})["id"].(string)
		under := func(token, parent string, n int) []map[string]any {
			path := "/v2/pages"
			if parent != "" {
				path += "?parent_id=" + parent
			}
			return e.walk(t, path, token, n)
		}
		// The top level in sidebar order, in pages of any size, each node light and complete.
		for _, n := range []int{1, 2, 100} {
			if diff := cmp.Diff([]string{a, b, folder}, idsOf(under(e.full, "", n))); diff != "" {
				t.Fatalf("top by %d (-want +got):\n%s", n, diff)
			}
		}
		top := under(e.full, "", 100)
		get := e.getPage(t, a).body
		want := map[string]any{"object": "page_node", "id": a, "type": "page", "title": "A", "page_type": "page",
			"has_children": true, "in_trash": false, "parent": get["parent"], "icon": nil, "url": get["url"],
			"created_time": get["created_time"], "last_edited_time": get["last_edited_time"]}
		if diff := cmp.Diff(want, top[0]); diff != "" {
			t.Fatalf("node of A (-want +got):\n%s", diff)
		}
		if top[2]["page_type"] != "folder" || top[2]["has_children"] != false {
			t.Fatalf("node of F = %v", top[2])
		}
		// Under a page: sub-pages and databases; under a database: its records.
		for parent, want := range map[string][]string{a: {a1}, a1: {a11}, a11: nil, b: {b1, db}, db: {r1, r2}} {
			if diff := cmp.Diff(want, idsOf(under(e.full, parent, 1))); diff != "" {
				t.Fatalf("under %s (-want +got):\n%s", parent, diff)
			}
		}
		if recs := under(e.full, db, 100); recs[1]["title"] != "Two" || recs[1]["parent"].(map[string]any)["database_id"] != db {
			t.Fatalf("records = %v", recs)
		}
		if dbNode := under(e.full, b, 100)[1]; dbNode["type"] != "database" || dbNode["page_type"] != "database" || dbNode["title"] != "Tasks" || dbNode["has_children"] != true {
			t.Fatalf("database node = %v", dbNode)
		}
		// The walk a migrating client makes meets every page exactly once.
		if diff := cmp.Diff(sorted([]string{a, a1, a11, b, b1, folder, r1, r2}), sorted(e.treeIDs(t, e.full))); diff != "" {
			t.Fatalf("tree walk (-want +got):\n%s", diff)
		}
		// A granted token starts at what it was granted, and walks no further out.
		granted := e.token([]quire.Scope{quire.PagesRead, quire.PagesWrite}, false, a)
		if diff := cmp.Diff([]string{a, a1, a11}, e.treeIDs(t, granted)); diff != "" {
			t.Fatalf("granted walk (-want +got):\n%s", diff)
		}
		e.do(http.MethodGet, "/v2/pages?parent_id="+b, granted, nil).wantError(t, 404, quire.CodeNotFound, "")
		// Moves reorder the sidebar; trash leaves it.
		wantOK(t, e.do(http.MethodPatch, "/v2/pages/"+folder+"/move", e.full, map[string]any{"parent": wsParent, "after": a}), 200)
		wantOK(t, e.do(http.MethodPatch, "/v2/pages/"+b1+"/move", e.full, map[string]any{"parent": pageParent(a)}), 200)
		wantOK(t, e.do(http.MethodDelete, "/v2/pages/"+a1, e.full, nil), 200)
		if diff := cmp.Diff([]string{a, folder, b}, idsOf(under(e.full, "", 100))); diff != "" {
			t.Fatalf("top after a move (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff([]string{b1}, idsOf(under(granted, a, 100))); diff != "" {
			t.Fatalf("under A after a move and a trash (-want +got):\n%s", diff)
		}
		// Cursors belong to the list they came from.
		cur := e.do(http.MethodGet, "/v2/pages?page_size=1", e.full, nil).body["next_cursor"].(string)
		e.do(http.MethodGet, "/v2/pages?parent_id="+b+"&start_cursor="+cur, e.full, nil).wantError(t, 400, quire.CodeValidation, "start_cursor")
		e.do(http.MethodGet, "/v2/workspace/pages/recent?start_cursor="+cur, e.full, nil).wantError(t, 400, quire.CodeValidation, "start_cursor")
		other := newEnv(t, st)
		other.mkPage(t, other.full, wsParent, "X")
		other.mkPage(t, other.full, wsParent, "Y")
		foreign := other.do(http.MethodGet, "/v2/pages?page_size=1", other.full, nil).body["next_cursor"].(string)
		e.do(http.MethodGet, "/v2/pages?start_cursor="+foreign, e.full, nil).wantError(t, 400, quire.CodeValidation, "start_cursor")
		// Refusals.
		e.do(http.MethodGet, "/v2/pages?parent_id=nope", e.full, nil).wantError(t, 400, quire.CodeValidation, "parent_id")
		e.do(http.MethodGet, "/v2/pages?parent_id="+quire.NewID(), e.full, nil).wantError(t, 404, quire.CodeNotFound, "")
		e.do(http.MethodGet, "/v2/pages?parent_id="+a, other.full, nil).wantError(t, 404, quire.CodeNotFound, "")
		e.do(http.MethodGet, "/v2/pages", e.token([]quire.Scope{quire.BlocksRead}, true), nil).wantError(t, 403, quire.CodeForbidden, "")
	})
}

// TestTopLevel_ConcurrentCreates: pages created at the top level at once each get their own
// place in the sidebar, so that a move after any of them lands right after it.
func TestTopLevel_ConcurrentCreates(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, st *store.Store) {
		e := newEnv(t, st)
		const n = 10
		var wg sync.WaitGroup
		statuses := make([]int, n)
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				statuses[i], _ = e.rawDo(http.MethodPost, "/v2/pages", map[string]any{"parent": wsParent, "properties": titleOf(fmt.Sprint(i))})
			}()
		}
		wg.Wait()
		for i, s := range statuses {
			if s != 200 {
				t.Fatalf("create %d: %d", i, s)
			}
		}
		x := e.mkPage(t, e.full, wsParent, "X")
		for _, p := range e.pageIDs(t, "/v2/workspace/pages", e.full) {
			if p == x {
				continue
			}
			wantOK(t, e.do(http.MethodPatch, "/v2/pages/"+x+"/move", e.full, map[string]any{"parent": wsParent, "after": p}), 200)
			ids := e.pageIDs(t, "/v2/workspace/pages", e.full)
			for i, id := range ids {
				if id == p && (i+1 >= len(ids) || ids[i+1] != x) {
					t.Fatalf("moved after %s, but the sidebar is %v", p, ids)
				}
			}
		}
	})
}

// TestAccess_Content: a token granted page A reaches A's subtree and its blocks, answers 404
// for everything of page B, and 403 for missing scopes before anything else.
func TestAccess_Content(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, st *store.Store) {
		e := newEnv(t, st)
		a := e.mkPage(t, e.full, wsParent, "A", map[string]any{"children": []any{toggle("a-block", para("a-inner"))}})
		a1 := e.mkPage(t, e.full, pageParent(a), "A1", map[string]any{"children": []any{para("a1-block")}})
		b := e.mkPage(t, e.full, wsParent, "B", map[string]any{"children": []any{toggle("b-block", para("b-inner"))}})
		b1 := e.mkPage(t, e.full, pageParent(b), "B1")
		aBlock, bBlock := e.kidIDs(t, a)[0], e.kidIDs(t, b)[0]
		aInner, bInner := e.kidIDs(t, aBlock)[0], e.kidIDs(t, bBlock)[0]
		a1Block := e.kidIDs(t, a1)[0]
		g := e.token(quire.AllScopes, false, a)
		other := newEnv(t, st)
		stranger := other.full

		type call struct {
			name, method, path string
			body               any
		}
		paraBody := map[string]any{"paragraph": map[string]any{"rich_text": []any{txt("edited")}}}
		appendBody := map[string]any{"children": []any{para("added")}}
		calls := func(page, sub, block, inner string) []call {
			return []call{
				{"get page", http.MethodGet, "/v2/pages/" + page, nil},
				{"get sub page", http.MethodGet, "/v2/pages/" + sub, nil},
				{"page's children", http.MethodGet, "/v2/blocks/" + page + "/children", nil},
				{"get block", http.MethodGet, "/v2/blocks/" + block, nil},
				{"get nested block", http.MethodGet, "/v2/blocks/" + inner, nil},
				{"block's children", http.MethodGet, "/v2/blocks/" + block + "/children", nil},
				{"child page block", http.MethodGet, "/v2/blocks/" + sub, nil},
				{"markdown", http.MethodGet, "/v2/pages/" + page + "/content/markdown", nil},
				{"patch page", http.MethodPatch, "/v2/pages/" + sub, map[string]any{"properties": titleOf("renamed")}},
				{"patch block", http.MethodPatch, "/v2/blocks/" + inner, paraBody},
				{"append to page", http.MethodPatch, "/v2/blocks/" + page + "/children", appendBody},
				{"append to block", http.MethodPatch, "/v2/blocks/" + block + "/children", appendBody},
				{"create under page", http.MethodPost, "/v2/pages", map[string]any{"parent": pageParent(page)}},
				{"replace markdown", http.MethodPut, "/v2/pages/" + sub + "/content/markdown", map[string]any{"markdown": "new"}},
				{"move sub page to its parent's top", http.MethodPatch, "/v2/pages/" + sub + "/move", map[string]any{"parent": pageParent(page)}},
				{"delete block", http.MethodDelete, "/v2/blocks/" + inner, nil},
				{"delete sub page", http.MethodDelete, "/v2/pages/" + sub, nil},
			}
		}
		// The granted token reaches all of A.
		for _, c := range calls(a, a1, aBlock, aInner) {
			t.Run("reach/"+c.name, func(t *testing.T) {
				r := e.do(c.method, c.path, g, c.body)
				if r.status != 200 {
					t.Fatalf("%d %s", r.status, r.raw)
				}
			})
		}
		// Nothing of B, and the stranger nothing of either: 404, and nothing changes.
		beforeB := e.exportMD(t, b)
		for _, tc := range []struct {
			who, token            string
			page, sub, blk, inner string
		}{
			{"granted token on B", g, b, b1, bBlock, bInner},
			{"other workspace on A", stranger, a, a1, a1Block, aInner},
		} {
			for _, c := range calls(tc.page, tc.sub, tc.blk, tc.inner) {
				t.Run(tc.who+"/"+c.name, func(t *testing.T) {
					e.do(c.method, c.path, tc.token, c.body).wantError(t, 404, quire.CodeNotFound, "")
				})
			}
		}
		if after := e.exportMD(t, b); after != beforeB {
			t.Fatalf("B changed:\n%s", after)
		}
		if e.getPage(t, b1).body["in_trash"] != false {
			t.Fatal("B1 changed")
		}
		wantOK(t, e.do(http.MethodPatch, "/v2/pages/"+a1, e.full, map[string]any{"in_trash": false}), 200)
		// Crossing the edge of the reach is 404 too: moving A's page under B, or B's under A.
		e.do(http.MethodPatch, "/v2/pages/"+a1+"/move", g, map[string]any{"parent": pageParent(b)}).wantError(t, 404, quire.CodeNotFound, "")
		e.do(http.MethodPatch, "/v2/pages/"+b1+"/move", g, map[string]any{"parent": pageParent(a)}).wantError(t, 404, quire.CodeNotFound, "")
		// after naming a block of B is refused like any block that is not a sibling.
		wantDetail(t, e.do(http.MethodPatch, "/v2/blocks/"+a+"/children", g, map[string]any{"children": []any{para("x")}, "after": bBlock}),
			400, quire.CodeValidation, "after", quire.ReasonInvalidValue)

		// Scopes come first: 403 even for what the token does not reach or what does not exist.
		unknown := quire.NewID()
		for _, tc := range []struct {
			name   string
			scopes []quire.Scope
			method string
			path   string
			body   any
		}{
			{"page without pages.read", []quire.Scope{quire.BlocksRead}, http.MethodGet, "/v2/pages/" + a, nil},
			{"unknown page without pages.read", []quire.Scope{quire.BlocksRead}, http.MethodGet, "/v2/pages/" + unknown, nil},
			{"B without pages.read", []quire.Scope{quire.BlocksRead}, http.MethodGet, "/v2/pages/" + b, nil},
			{"block without blocks.read", []quire.Scope{quire.PagesRead}, http.MethodGet, "/v2/blocks/" + aBlock, nil},
			{"children without blocks.read", []quire.Scope{quire.PagesRead}, http.MethodGet, "/v2/blocks/" + a + "/children", nil},
			{"append without blocks.write", []quire.Scope{quire.BlocksRead, quire.PagesWrite}, http.MethodPatch, "/v2/blocks/" + a + "/children", appendBody},
			{"patch block without blocks.write", []quire.Scope{quire.BlocksRead}, http.MethodPatch, "/v2/blocks/" + aInner, paraBody},
			{"delete block without blocks.write", []quire.Scope{quire.BlocksRead}, http.MethodDelete, "/v2/blocks/" + aInner, nil},
			{"create without pages.write", []quire.Scope{quire.PagesRead, quire.BlocksWrite}, http.MethodPost, "/v2/pages", map[string]any{"parent": pageParent(a)}},
			{"patch page without pages.write", []quire.Scope{quire.PagesRead}, http.MethodPatch, "/v2/pages/" + a1, map[string]any{}},
			{"move without pages.write", []quire.Scope{quire.PagesRead}, http.MethodPatch, "/v2/pages/" + a1 + "/move", map[string]any{"parent": pageParent(a)}},
			{"delete page without pages.write", []quire.Scope{quire.PagesRead}, http.MethodDelete, "/v2/pages/" + a1, nil},
			{"markdown without blocks.read", []quire.Scope{quire.PagesRead}, http.MethodGet, "/v2/pages/" + a + "/content/markdown", nil},
			{"list without pages.read", []quire.Scope{quire.BlocksRead}, http.MethodGet, "/v2/pages", nil},
			{"bad body without the scope", []quire.Scope{quire.PagesRead}, http.MethodPost, "/v2/pages", "{"},
		} {
			t.Run("scope/"+tc.name, func(t *testing.T) {
				e.do(tc.method, tc.path, e.token(tc.scopes, false, a), tc.body).wantError(t, 403, quire.CodeForbidden, "")
			})
		}
		// 400 comes before 404: a malformed id is refused whatever it would name.
		wantDetail(t, e.do(http.MethodGet, "/v2/blocks/nope", g, nil), 400, quire.CodeValidation, "block_id", quire.ReasonInvalidValue)
	})
}
