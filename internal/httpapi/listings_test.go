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
		if diff := cmp.Diff(e.getPage(t, a).body, objs[0]); diff != "" {
			t.Fatalf("a listed page differs from GET (-get +list):\n%s", diff)
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
		topCursor := e.do(http.MethodGet, "/v2/workspace/pages?page_size=1", e.full, nil).body["next_cursor"].(string)
		for _, tc := range []struct {
			name, path, token string
			status            int
			code, path2       string
		}{
			{"unknown section", "/v2/workspace/pages/starred", e.full, 400, quire.CodeValidation, "section"},
			{"granted token", "/v2/workspace/pages", granted, 403, quire.CodeForbidden, ""},
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

func TestListPages(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, st *store.Store) {
		e := newEnv(t, st)
		mk := func(parent any, title string) string {
			tick()
			return e.mkPage(t, e.full, parent, title)
		}
		a := mk(wsParent, "A")
		a1 := mk(pageParent(a), "A1")
		a11 := mk(pageParent(a1), "A11")
		b := mk(wsParent, "B")
		b1 := mk(pageParent(b), "B1")
		folder := mk(wsParent, "F")
		list := func(token string, n int) []string {
			objs := e.walk(t, "/v2/pages", token, n)
			wantNewestFirst(t, objs)
			return idsOf(objs)
		}
		// (A child page's creation touches its parent: B and B1 share an edit time, as do A1 and
		// A11, so only F's place is certain.)
		all := list(e.full, 4)
		if diff := cmp.Diff(sorted([]string{folder, b1, b, a11, a1, a}), sorted(all)); diff != "" || all[0] != folder {
			t.Fatalf("pages (-want +got):\n%s\n%v", diff, all)
		}
		// An edit, of the page or of its content, puts it first.
		tick()
		wantOK(t, e.do(http.MethodPatch, "/v2/pages/"+a1, e.full, map[string]any{"icon": map[string]any{"emoji": "🌱"}}), 200)
		tick()
		e.appendKids(t, b, para("news"))
		if diff := cmp.Diff([]string{b, a1, folder, b1, a11, a}, list(e.full, 2)); diff != "" {
			t.Fatalf("pages after edits (-want +got):\n%s", diff)
		}
		// A granted token lists what it reaches: the page and everything beneath it.
		granted := e.token([]quire.Scope{quire.PagesRead, quire.PagesWrite}, false, a)
		if diff := cmp.Diff([]string{a1, a11, a}, list(granted, 1)); diff != "" {
			t.Fatalf("granted pages (-want +got):\n%s", diff)
		}
		// What it creates there, and what is moved there, it reaches too; what leaves, it loses.
		mine := e.mkPage(t, granted, pageParent(a11), "Mine")
		tick()
		wantOK(t, e.do(http.MethodPatch, "/v2/pages/"+b1+"/move", e.full, map[string]any{"parent": pageParent(a)}), 200)
		tick()
		wantOK(t, e.do(http.MethodPatch, "/v2/pages/"+a11+"/move", e.full, map[string]any{"parent": pageParent(b)}), 200)
		// (B1's move touched A: the two share an edit time, so only the set is certain.)
		if diff := cmp.Diff(sorted([]string{a, a1, b1}), sorted(list(granted, 100))); diff != "" {
			t.Fatalf("granted pages after moves (-want +got):\n%s", diff)
		}
		e.do(http.MethodGet, "/v2/pages/"+mine, granted, nil).wantError(t, 404, quire.CodeNotFound, "")
		if r := e.do(http.MethodGet, "/v2/pages/"+b1, granted, nil); r.status != 200 {
			t.Fatalf("a page moved into reach: %d", r.status)
		}
		// Trash hides a page and what is under it.
		wantOK(t, e.do(http.MethodDelete, "/v2/pages/"+a1, e.full, nil), 200)
		if diff := cmp.Diff(sorted([]string{b1, a}), sorted(list(granted, 100))); diff != "" {
			t.Fatalf("granted pages with A1 in trash (-want +got):\n%s", diff)
		}
		// Cursors belong to the list they came from.
		cur := e.do(http.MethodGet, "/v2/pages?page_size=1", e.full, nil).body["next_cursor"].(string)
		e.do(http.MethodGet, "/v2/workspace/pages/recent?start_cursor="+cur, e.full, nil).wantError(t, 400, quire.CodeValidation, "start_cursor")
		other := newEnv(t, st)
		other.mkPage(t, other.full, wsParent, "X")
		other.mkPage(t, other.full, wsParent, "Y")
		foreign := other.do(http.MethodGet, "/v2/pages?page_size=1", other.full, nil).body["next_cursor"].(string)
		e.do(http.MethodGet, "/v2/pages?start_cursor="+foreign, e.full, nil).wantError(t, 400, quire.CodeValidation, "start_cursor")
		// Another workspace's pages are never listed.
		for _, id := range list(e.full, 100) {
			if contains(other.pageIDs(t, "/v2/pages", other.full), id) {
				t.Fatalf("page %s listed in two workspaces", id)
			}
		}
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
