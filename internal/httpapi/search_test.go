package httpapi

import (
	"net/http"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/quire-dev/quire/internal/quire"
	"github.com/quire-dev/quire/internal/store"
	"github.com/quire-dev/quire/internal/testdb"
)

// searchIDs runs one search and returns the ids found, in order, failing unless it answers 200.
func (e *env) searchIDs(t testing.TB, token string, body map[string]any) []string {
	t.Helper()
	r := e.do(http.MethodPost, "/v2/search", token, body)
	wantOK(t, r, 200)
	return idsOf(objects(r.body["results"]))
}

func TestSearch_Keyword(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, st *store.Store) {
		e := newEnv(t, st)
		// Titles and content in three scripts; one page matches by title, others by content.
		roadmap := e.mkPage(t, e.full, wsParent, "Quarterly roadmap")
		notes := e.mkPage(t, e.full, wsParent, "Meeting notes")
		e.appendKids(t, notes, para("We reviewed the ROADMAP for next year."), para("Budget: the roadmap needs money."))
		tokyo := e.mkPage(t, e.full, wsParent, "旅行の計画")
		e.appendKids(t, tokyo, para("東京タワーに行きます。"), para("上海和北京的天气很好。"))
		caption := e.mkPage(t, e.full, pageParent(notes), "Child")
		e.appendKids(t, caption, blk("code", map[string]any{"language": "go", "rich_text": []any{txt("x := 1")},
			"caption": []any{txt("flamingo pipeline")}}),
			blk("equation", map[string]any{"expression": "E = mc^2"}))

		for _, tc := range []struct {
			name  string
			query string
			want  []string
		}{
			// The title match ranks first, then the page with two matching blocks.
			{"title above content", "roadmap", []string{roadmap, notes}},
			{"case-insensitive", "ROADMAP", []string{roadmap, notes}},
			{"every term in one entry", "roadmap money", []string{notes}},
			{"terms in different entries do not match", "meeting money", nil},
			{"quoted phrase", `"next year"`, []string{notes}},
			{"japanese", "東京タワー", []string{tokyo}},
			{"japanese title", "計画", []string{tokyo}},
			{"chinese two characters", "北京", []string{tokyo}},
			{"chinese one character", "京", []string{tokyo}},
			{"caption", "flamingo", []string{caption}},
			{"equation", "mc^2", []string{caption}},
			{"like wildcards are literal", "100%", nil},
			{"no match", "zebra", nil},
		} {
			t.Run(tc.name, func(t *testing.T) {
				got := e.searchIDs(t, e.full, map[string]any{"query": tc.query})
				if diff := cmp.Diff(tc.want, got, cmpNilEmpty); diff != "" {
					t.Fatalf("search %q (-want +got):\n%s", tc.query, diff)
				}
			})
		}

		// Without a query: everything reachable, last edited first; or by creation, ascending.
		r := e.do(http.MethodPost, "/v2/search", e.full, map[string]any{})
		wantOK(t, r, 200)
		wantSorted(t, objects(r.body["results"]), "last_edited_time", false, roadmap, notes, tokyo, caption)
		r = e.do(http.MethodPost, "/v2/search", e.full, map[string]any{"sort": map[string]any{"timestamp": "created_time", "direction": "ascending"}})
		wantOK(t, r, 200)
		wantSorted(t, objects(r.body["results"]), "created_time", true, roadmap, notes, tokyo, caption)

		// Edits are searchable at once: a changed block, a renamed page, a trashed block.
		kids := e.kids(t, notes)
		r = e.do(http.MethodPatch, "/v2/blocks/"+kids[0]["id"].(string), e.full, para("Now about giraffes."))
		wantOK(t, r, 200)
		if got := e.searchIDs(t, e.full, map[string]any{"query": "giraffes"}); !slices.Equal(got, []string{notes}) {
			t.Fatalf("after a block edit: %v", got)
		}
		r = e.do(http.MethodPatch, "/v2/pages/"+roadmap, e.full, map[string]any{"properties": titleOf("Yearly plan")})
		wantOK(t, r, 200)
		if got := e.searchIDs(t, e.full, map[string]any{"query": "yearly"}); !slices.Equal(got, []string{roadmap}) {
			t.Fatalf("after a rename: %v", got)
		}
		if got := e.searchIDs(t, e.full, map[string]any{"query": "quarterly"}); len(got) != 0 {
			t.Fatalf("old title still found: %v", got)
		}
		wantOK(t, e.do(http.MethodDelete, "/v2/blocks/"+kids[1]["id"].(string), e.full, nil), 200)
		if got := e.searchIDs(t, e.full, map[string]any{"query": "money"}); len(got) != 0 {
			t.Fatalf("trashed block still found: %v", got)
		}

		// A page in trash and what is under it disappear; restoring brings them back.
		wantOK(t, e.do(http.MethodDelete, "/v2/pages/"+notes, e.full, nil), 200)
		for _, q := range []string{"giraffes", "flamingo", "meeting"} {
			if got := e.searchIDs(t, e.full, map[string]any{"query": q}); len(got) != 0 {
				t.Fatalf("%q found under trash: %v", q, got)
			}
		}
		wantOK(t, e.do(http.MethodPatch, "/v2/pages/"+notes, e.full, map[string]any{"in_trash": false}), 200)
		if got := e.searchIDs(t, e.full, map[string]any{"query": "flamingo"}); !slices.Equal(got, []string{caption}) {
			t.Fatalf("after restore: %v", got)
		}

		// A replaced page content (Markdown import) is what is found.
		wantOK(t, e.do(http.MethodPut, "/v2/pages/"+tokyo+"/content/markdown", e.full, map[string]any{"markdown": "# 大阪城"}), 200)
		if got := e.searchIDs(t, e.full, map[string]any{"query": "東京"}); len(got) != 0 {
			t.Fatalf("replaced content still found: %v", got)
		}
		if got := e.searchIDs(t, e.full, map[string]any{"query": "大阪"}); !slices.Equal(got, []string{tokyo}) {
			t.Fatalf("imported content: %v", got)
		}
	})
}

// wantSorted checks that results hold exactly the ids given, ordered by the timestamp field
// (then id) in the direction given.
func wantSorted(t *testing.T, results []map[string]any, field string, ascending bool, ids ...string) {
	t.Helper()
	got := idsOf(results)
	want := slices.Clone(ids)
	slices.Sort(want)
	sorted := slices.Clone(got)
	slices.Sort(sorted)
	if !slices.Equal(want, sorted) {
		t.Fatalf("results %v, want the ids %v", got, ids)
	}
	for i := 1; i < len(results); i++ {
		a, b := results[i-1][field].(string)+results[i-1]["id"].(string), results[i][field].(string)+results[i]["id"].(string)
		if (ascending && a > b) || (!ascending && a < b) {
			t.Fatalf("results not ordered by %s (ascending %v) at %d: %v", field, ascending, i, got)
		}
	}
}

// cmpNilEmpty treats a nil and an empty slice alike.
var cmpNilEmpty = cmp.Comparer(func(a, b []string) bool { return slices.Equal(a, b) })

func TestSearch_ReachFilterAndPages(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, st *store.Store) {
		e := newEnv(t, st)
		a := e.mkPage(t, e.full, wsParent, "alpha one")
		b := e.mkPage(t, e.full, wsParent, "alpha two")
		folder := e.mkPage(t, e.full, pageParent(a), "alpha folder", map[string]any{"page_type": "folder"})
		var many []string
		for range 7 {
			many = append(many, e.mkPage(t, e.full, pageParent(b), "alpha child"))
		}
		// A token granted A reaches A and its folder only.
		granted := e.token([]quire.Scope{quire.SearchRead}, false, a)
		got := e.searchIDs(t, granted, map[string]any{"query": "alpha"})
		slices.Sort(got)
		want := []string{folder, a}
		slices.Sort(want)
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("granted token (-want +got):\n%s", diff)
		}
		// Another workspace never shows.
		other := newEnv(t, st)
		other.mkPage(t, other.full, wsParent, "alpha elsewhere")
		if got := e.searchIDs(t, e.full, map[string]any{"query": "elsewhere"}); len(got) != 0 {
			t.Fatalf("another workspace's page found: %v", got)
		}
		// Filter by kind.
		got = e.searchIDs(t, e.full, map[string]any{"query": "alpha", "filter": map[string]any{"property": "object", "value": "folder"}})
		if diff := cmp.Diff([]string{folder}, got); diff != "" {
			t.Fatalf("folders (-want +got):\n%s", diff)
		}
		if got := e.searchIDs(t, e.full, map[string]any{"filter": map[string]any{"property": "object", "value": "database"}}); len(got) != 0 {
			t.Fatalf("databases: %v", got)
		}
		// Pages of 3 walk all ten matches exactly once, in ranked order, while a new match is
		// added between pages.
		var walked []string
		cursor := ""
		for i := 0; ; i++ {
			body := map[string]any{"query": "alpha", "page_size": 3}
			if cursor != "" {
				body["start_cursor"] = cursor
			}
			r := e.do(http.MethodPost, "/v2/search", e.full, body)
			wantOK(t, r, 200)
			walked = append(walked, idsOf(objects(r.body["results"]))...)
			if i == 0 {
				e.mkPage(t, e.full, wsParent, "alpha late")
			}
			if r.body["has_more"] != true {
				if r.body["next_cursor"] != nil {
					t.Fatalf("last page has a cursor: %s", r.raw)
				}
				break
			}
			cursor = r.body["next_cursor"].(string)
		}
		for _, id := range append([]string{a, b, folder}, many...) {
			if n := count(walked, id); n != 1 {
				t.Fatalf("%s seen %d times in %v", id, n, walked)
			}
		}
		// A cursor belongs to its query.
		r := e.do(http.MethodPost, "/v2/search", e.full, map[string]any{"query": "alpha", "page_size": 3})
		wrong := e.do(http.MethodPost, "/v2/search", e.full, map[string]any{"query": "beta", "start_cursor": r.body["next_cursor"]})
		wantDetail(t, wrong, 400, quire.CodeValidation, "start_cursor", quire.ReasonInvalidValue)
	})
}

func TestSearch_BadRequests(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, st *store.Store) {
		e := newEnv(t, st)
		long := make([]byte, 1001)
		for i := range long {
			long[i] = 'a'
		}
		for _, tc := range []struct {
			name         string
			body         any
			path, reason string
		}{
			{"query not a string", map[string]any{"query": 5}, "query", quire.ReasonInvalidType},
			{"query too long", map[string]any{"query": string(long)}, "query", quire.ReasonTooLong},
			{"query with NUL", map[string]any{"query": "a\x00b"}, "query", quire.ReasonInvalidValue},
			{"too many terms", map[string]any{"query": "a b c d e f g h i j k l m n o p q r s t u"}, "query", quire.ReasonTooMany},
			{"unknown field", map[string]any{"q": "x"}, "q", quire.ReasonUnknownField},
			{"filter not an object", map[string]any{"filter": "page"}, "filter", quire.ReasonInvalidType},
			{"filter value", map[string]any{"filter": map[string]any{"property": "object", "value": "block"}}, "filter.value", quire.ReasonInvalidValue},
			{"filter property", map[string]any{"filter": map[string]any{"property": "type", "value": "page"}}, "filter.property", quire.ReasonInvalidValue},
			{"filter without value", map[string]any{"filter": map[string]any{"property": "object"}}, "filter.value", quire.ReasonRequired},
			{"sort timestamp", map[string]any{"sort": map[string]any{"timestamp": "title"}}, "sort.timestamp", quire.ReasonInvalidValue},
			{"sort direction", map[string]any{"sort": map[string]any{"direction": "up"}}, "sort.direction", quire.ReasonInvalidValue},
			{"page size", map[string]any{"page_size": 101}, "page_size", quire.ReasonOutOfRange},
			{"page size fraction", map[string]any{"page_size": 1.5}, "page_size", quire.ReasonOutOfRange},
			{"cursor", map[string]any{"start_cursor": "nope"}, "start_cursor", quire.ReasonInvalidValue},
		} {
			t.Run(tc.name, func(t *testing.T) {
				wantDetail(t, e.do(http.MethodPost, "/v2/search", e.full, tc.body), 400, quire.CodeValidation, tc.path, tc.reason)
			})
		}
		// Queries that look like FTS5 syntax, LIKE wildcards or odd bytes are plain text: a list.
		e.mkPage(t, e.full, wsParent, `Odd "quoted" 100% a_b \\ NEAR(x) *star*`)
		for _, q := range []string{`"`, `""`, `"a""b"`, `*`, `NEAR(`, `a AND`, `OR NOT`, `\`, `%_%`, "😀😀😀", `^col:x`, `"quoted"`} {
			r := e.do(http.MethodPost, "/v2/search", e.full, map[string]any{"query": q})
			if r.status != 200 || r.body["object"] != "list" {
				t.Fatalf("query %q: %d %s", q, r.status, r.raw)
			}
			if r := e.do(http.MethodPost, "/v2/search/semantic", e.full, map[string]any{"query": q + " x"}); r.status != 200 {
				t.Fatalf("semantic query %q: %d %s", q, r.status, r.raw)
			}
		}
		if got := e.searchIDs(t, e.full, map[string]any{"query": `"quoted" 100% a_b NEAR(x)`}); len(got) != 1 {
			t.Fatalf("literal odd query: %v", got)
		}
		e.do(http.MethodPost, "/v2/search", e.full, "[1]").wantError(t, 400, quire.CodeInvalidJSON, "")
		e.do(http.MethodPost, "/v2/search", e.token([]quire.Scope{quire.PagesRead}, true), map[string]any{}).
			wantError(t, 403, quire.CodeForbidden, "")
	})
}

// searchCases are the conformance cases of POST /v2/search.
func searchCases(t testing.TB, e *env) []conformanceCase {
	t.Helper()
	e.mkPage(t, e.full, wsParent, "Searchable page")
	return []conformanceCase{
		{name: "search", op: "search", method: "POST", path: "/v2/search", token: e.full, status: 200,
			body: `{"query":"searchable","filter":{"property":"object","value":"page"},"page_size":5}`},
		{name: "search everything", op: "search", method: "POST", path: "/v2/search", token: e.full, status: 200,
			body: `{"sort":{"timestamp":"created_time","direction":"ascending"},"page_size":1}`},
		{name: "search bad filter", op: "search", method: "POST", path: "/v2/search", token: e.full, status: 400,
			body: `{"filter":{"property":"object","value":"block"}}`},
		{name: "search without token", op: "search", method: "POST", path: "/v2/search", status: 401, body: `{}`},
		{name: "semantic search", op: "search-semantic", method: "POST", path: "/v2/search/semantic", token: e.full, status: 200,
			body: `{"query":"searchable","filter":{"property":"object","value":"page"},"page_size":5}`},
		{name: "semantic search without query", op: "search-semantic", method: "POST", path: "/v2/search/semantic", token: e.full, status: 400, body: `{}`},
		{name: "semantic search without token", op: "search-semantic", method: "POST", path: "/v2/search/semantic", status: 401, body: `{"query":"x"}`},
	}
}

// TestSearch_MindMaps: a mind map's title and node texts are its searchable content, kept in
// step by edits.
func TestSearch_MindMaps(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, st *store.Store) {
		e := newEnv(t, st)
		r := e.mkMindMap(t, e.full, map[string]any{"parent": wsParent, "title": "Launch plan",
			"root": mmNode("Launch", mmNode("Marketing", mmNode("Press kit")), mmNode("出荷準備"))})
		mapID := r.body["id"].(string)
		e.mkPage(t, e.full, wsParent, "Unrelated page")
		for q, want := range map[string][]string{"press kit": {mapID}, "出荷": {mapID}, "launch plan": {mapID}} {
			if got := e.searchIDs(t, e.full, map[string]any{"query": q}); !slices.Equal(got, want) {
				t.Fatalf("%q: %v, want %v", q, got, want)
			}
		}
		got := e.searchIDs(t, e.full, map[string]any{"query": "press", "filter": map[string]any{"property": "object", "value": "mind_map"}})
		if !slices.Equal(got, []string{mapID}) {
			t.Fatalf("mind_map filter: %v", got)
		}
		// Edits: a renamed node is found by its new text only; a deleted subtree is gone.
		root := rootOf(r)
		var marketing string
		for _, k := range root["children"].([]any) {
			if k.(map[string]any)["text"] == "Marketing" {
				marketing = k.(map[string]any)["id"].(string)
			}
		}
		p := e.do(http.MethodPatch, "/v2/mind-maps/"+mapID, e.full, map[string]any{"edits": []any{
			map[string]any{"op": "update", "node_id": marketing, "text": "Advertising"}}})
		wantOK(t, p, 200)
		if got := e.searchIDs(t, e.full, map[string]any{"query": "advertising"}); !slices.Equal(got, []string{mapID}) {
			t.Fatalf("renamed node: %v", got)
		}
		if got := e.searchIDs(t, e.full, map[string]any{"query": "marketing"}); len(got) != 0 {
			t.Fatalf("old node text: %v", got)
		}
		p = e.do(http.MethodPatch, "/v2/mind-maps/"+mapID, e.full, map[string]any{"edits": []any{
			map[string]any{"op": "delete", "node_id": marketing}}})
		wantOK(t, p, 200)
		if got := e.searchIDs(t, e.full, map[string]any{"query": "press kit"}); len(got) != 0 {
			t.Fatalf("deleted subtree: %v", got)
		}
		// Trashed through the page routes: gone from search.
		wantOK(t, e.do(http.MethodDelete, "/v2/pages/"+mapID, e.full, nil), 200)
		if got := e.searchIDs(t, e.full, map[string]any{"query": "出荷"}); len(got) != 0 {
			t.Fatalf("trashed mind map: %v", got)
		}
	})
}

// TestSearch_Databases: databases are found by title and answered as database objects;
// records are pages found by their title, with their properties; a trashed database hides
// its records.
func TestSearch_Databases(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, st *store.Store) {
		e := newEnv(t, st)
		_, db := e.newDatabase(t, map[string]any{"Name": map[string]any{"title": map[string]any{}}})
		dbID := db["id"].(string)
		rec := e.record(t, dbID, map[string]any{"Name": map[string]any{"title": []any{txt("Quarterly invoice")}}})
		r := e.do(http.MethodPost, "/v2/search", e.full, map[string]any{"query": "tasks", "filter": map[string]any{"property": "object", "value": "database"}})
		wantOK(t, r, 200)
		res := objects(r.body["results"])
		if len(res) != 1 || res[0]["id"] != dbID || res[0]["object"] != "database" || res[0]["properties"] == nil {
			t.Fatalf("database search: %s", r.raw)
		}
		r = e.do(http.MethodPost, "/v2/search", e.full, map[string]any{"query": "invoice"})
		wantOK(t, r, 200)
		res = objects(r.body["results"])
		if len(res) != 1 || res[0]["id"] != rec["id"] || res[0]["object"] != "page" {
			t.Fatalf("record search: %s", r.raw)
		}
		if diff := cmp.Diff(rec["properties"], res[0]["properties"]); diff != "" {
			t.Fatalf("record properties in search differ from its own answer (-record +search):\n%s", diff)
		}
		wantOK(t, e.do(http.MethodDelete, "/v2/databases/"+dbID, e.full, nil), 200)
		if got := e.searchIDs(t, e.full, map[string]any{"query": "invoice"}); len(got) != 0 {
			t.Fatalf("record of a trashed database found: %v", got)
		}
	})
}
