package httpapi

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/quire-dev/quire/internal/quire"
	"github.com/quire-dev/quire/internal/store"
	"github.com/quire-dev/quire/internal/testdb"
)

// TestCompat_SemanticFragments sends POST /v2/search/semantic as the original service's clients
// send it ({query, page_size, start_cursor: null, space_id, score_threshold}) and reads the
// answer as they do: a list of fragments {object, page_id, block_id, score, text}, best first,
// ten to a page by default, paginated by next_cursor.
func TestCompat_SemanticFragments(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, st *store.Store) {
		e := newEnv(t, st)
		guide := e.mkPage(t, e.full, wsParent, "Volcano field guide")
		kids := e.appendKids(t, guide,
			para("Lava flows from the volcano crater."),
			para("Ash clouds drift over the valley."),
			para(strings.Repeat("Magma chambers feed every eruption of the volcano below the crater. ", 25)))
		for i := range 12 {
			p := e.mkPage(t, e.full, wsParent, fmt.Sprintf("Volcano trip %d", i))
			e.appendKids(t, p, para(fmt.Sprintf("Day %d of hiking near the crater.", i)))
		}
		drain(t, e.svc)

		search := func(body map[string]any) *response {
			t.Helper()
			r := e.do(http.MethodPost, "/v2/search/semantic", e.full, body)
			wantOK(t, r, 200)
			return r
		}
		type frag struct {
			Page, Text string
			Block      any
			Score      float64
		}
		read := func(r *response) []frag {
			t.Helper()
			var out []frag
			for _, f := range objects(r.body["results"]) {
				if f["object"] != "semantic_search_result" || f["url"] == "" || f["title"] == "" || f["parent"] == nil {
					t.Fatalf("fragment fields: %v", f)
				}
				score := f["score"].(float64)
				if score < 0 || score > 1 || (len(out) > 0 && score > out[len(out)-1].Score) {
					t.Fatalf("scores not 0–1 and best first: %s", r.raw)
				}
				out = append(out, frag{f["page_id"].(string), f["text"].(string), f["block_id"], score})
			}
			return out
		}

		// The default page is ten fragments, and a cursor follows.
		first := search(map[string]any{"query": "lava ash clouds", "start_cursor": nil, "space_id": e.ws.ID})
		if got := read(first); len(got) != 10 || first.body["has_more"] != true || first.body["next_cursor"] == nil {
			t.Fatalf("default page: %d fragments, has_more %v: %s", len(got), first.body["has_more"], first.raw)
		}
		all := read(search(map[string]any{"query": "lava ash clouds", "page_size": 100}))
		// The guide's fragments: its title (no block), the chunk that starts at the first block
		// (the short blocks and the long one's start packed together), then the long block's.
		var title, lava, magma int
		for _, f := range all {
			switch {
			case f.Page != guide:
			case f.Text == "Volcano field guide" && f.Block == nil:
				title++
			case strings.HasPrefix(f.Text, "Lava flows from the volcano crater. Ash clouds drift over the valley. Magma") && f.Block == kids[0]["id"]:
				lava++
			case strings.HasPrefix(f.Text, "Magma chambers") && f.Block == kids[2]["id"]:
				magma++
			default:
				t.Errorf("guide fragment %q at block %v", f.Text, f.Block)
			}
		}
		if title != 1 || lava != 1 || magma < 2 {
			t.Errorf("guide fragments: %d title, %d first chunk, %d of the long block", title, lava, magma)
		}
		if all[0].Page != guide {
			t.Errorf("best fragment %+v, want the guide's", all[0])
		}

		// Page by page with the cursor: the same fragments in the same order, none twice.
		var walked []frag
		body := map[string]any{"query": "lava ash clouds", "page_size": 4, "start_cursor": nil}
		for range 50 {
			r := search(body)
			walked = append(walked, read(r)...)
			if r.body["has_more"] != true {
				if r.body["next_cursor"] != nil {
					t.Fatalf("last page with a cursor: %s", r.raw)
				}
				break
			}
			body["start_cursor"] = r.body["next_cursor"]
		}
		if diff := cmp.Diff(all, walked); diff != "" {
			t.Fatalf("pages walked differ from one page of all (-all +walked):\n%s", diff)
		}

		// score_threshold keeps the prefix that scores at least it.
		cut := all[2].Score
		kept := read(search(map[string]any{"query": "lava ash clouds", "page_size": 100, "score_threshold": cut}))
		n := 0
		for n < len(all) && all[n].Score >= cut {
			n++
		}
		if n == len(all) || !cmp.Equal(kept, all[:n]) {
			t.Fatalf("threshold %v kept %d of %d fragments, want the %d scoring at least it", cut, len(kept), len(all), n)
		}

		// Another workspace's id is not found; a cursor of another query is refused.
		r := e.do(http.MethodPost, "/v2/search/semantic", e.full, map[string]any{"query": "volcano", "space_id": quire.NewID()})
		r.wantError(t, http.StatusNotFound, quire.CodeNotFound, "")
		r = e.do(http.MethodPost, "/v2/search/semantic", e.full, map[string]any{"query": "hiking", "start_cursor": first.body["next_cursor"]})
		wantDetail(t, r, http.StatusBadRequest, quire.CodeValidation, "start_cursor", quire.ReasonInvalidValue)
		// Quire's own filter still narrows: no databases here.
		r = search(map[string]any{"query": "volcano", "filter": map[string]any{"property": "object", "value": "database"}})
		if got := read(r); len(got) != 0 {
			t.Fatalf("database filter: %v", got)
		}
	})
}

// TestCompat_QueryThroughView sends POST /v2/databases/:id/query with view_id as the original
// service's exporter does: the records come filtered and ordered as the view shows them; a
// request filter narrows further and request sorts come first, the view's after them.
func TestCompat_QueryThroughView(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, st *store.Store) {
		e := newEnv(t, st)
		_, db := e.newDatabase(t, taskSchema())
		id := db["id"].(string)
		props := db["properties"].(map[string]any)
		propID := func(name string) string { return props[name].(map[string]any)["id"].(string) }
		for i, r := range []struct {
			status string
			points int
		}{{"Todo", 3}, {"Done", 9}, {"Todo", 7}, {"Todo", 1}, {"Done", 2}, {"Todo", 7}} {
			e.record(t, id, map[string]any{"Name": []any{txt(fmt.Sprintf("r%d", i))}, "Points": map[string]any{"number": r.points},
				"Status": map[string]any{"select": map[string]any{"name": r.status}}})
		}
		// The web client's format: conditions by property id, groups nested, values as strings.
		view := e.mkView(t, id, map[string]any{"name": "Open by points", "type": "table",
			"filter": map[string]any{"operator": "and", "filters": []any{
				map[string]any{"property": propID("Status"), "operator": "in", "value": []any{"Todo"}},
				map[string]any{"operator": "or", "filters": []any{
					map[string]any{"property": propID("Points"), "operator": "gte", "value": "2"},
					map[string]any{"property": propID("Name"), "operator": "eq", "value": "r3"},
				}},
			}},
			"sorts": []any{
				map[string]any{"property": propID("Points"), "direction": "descending"},
				map[string]any{"property": propID("Name"), "direction": "ascending"},
			}}).body["id"].(string)

		names := func(body map[string]any) []string {
			t.Helper()
			r := e.do(http.MethodPost, "/v2/databases/"+id+"/query", e.full, body)
			wantOK(t, r, 200)
			var out []string
			for _, rec := range objects(r.body["results"]) {
				title := rec["properties"].(map[string]any)["Name"].(map[string]any)["title"].([]any)
				out = append(out, title[0].(map[string]any)["plain_text"].(string))
			}
			return out
		}
		for _, tc := range []struct {
			name string
			body map[string]any
			want []string
		}{
			{"the view's filter and order", map[string]any{"view_id": view}, []string{"r2", "r5", "r0", "r3"}},
			{"a request filter narrows", map[string]any{"view_id": view,
				"filter": map[string]any{"property": "Points", "number": map[string]any{"less_than": 5}}}, []string{"r0", "r3"}},
			{"request sorts first, the view's after", map[string]any{"view_id": view,
				"sorts": []any{map[string]any{"property": "Name", "direction": "descending"}}}, []string{"r5", "r3", "r2", "r0"}},
			{"a null view_id is no view", map[string]any{"view_id": nil, "sorts": []any{map[string]any{"property": "Name", "direction": "ascending"}}},
				[]string{"r0", "r1", "r2", "r3", "r4", "r5"}},
		} {
			t.Run(tc.name, func(t *testing.T) {
				if got := names(tc.body); !cmp.Equal(got, tc.want) {
					t.Fatalf("records %v, want %v", got, tc.want)
				}
			})
		}

		// Page by page through the view: the same order, and a cursor of another view is refused.
		var walked []string
		body := map[string]any{"view_id": view, "page_size": 1}
		var cursor any
		for range 10 {
			r := e.do(http.MethodPost, "/v2/databases/"+id+"/query", e.full, body)
			wantOK(t, r, 200)
			walked = append(walked, objects(r.body["results"])[0]["properties"].(map[string]any)["Name"].(map[string]any)["title"].([]any)[0].(map[string]any)["plain_text"].(string))
			if r.body["has_more"] != true {
				break
			}
			cursor = r.body["next_cursor"]
			body["start_cursor"] = cursor
		}
		if !cmp.Equal(walked, []string{"r2", "r5", "r0", "r3"}) {
			t.Fatalf("walked %v", walked)
		}
		plain := e.mkView(t, id, map[string]any{"name": "All", "type": "board"}).body["id"].(string)
		r := e.do(http.MethodPost, "/v2/databases/"+id+"/query", e.full, map[string]any{"view_id": plain, "start_cursor": cursor})
		wantDetail(t, r, http.StatusBadRequest, quire.CodeValidation, "start_cursor", quire.ReasonInvalidValue)
		// Nor is a cursor made before the view's order changed: it would read its place wrongly.
		wantOK(t, e.do(http.MethodPatch, viewPath(id, view), e.full, map[string]any{
			"sorts": []any{map[string]any{"property": propID("Name"), "direction": "descending"}}}), 200)
		r = e.do(http.MethodPost, "/v2/databases/"+id+"/query", e.full, map[string]any{"view_id": view, "start_cursor": cursor})
		wantDetail(t, r, http.StatusBadRequest, quire.CodeValidation, "start_cursor", quire.ReasonInvalidValue)
		if got := names(map[string]any{"view_id": view}); !cmp.Equal(got, []string{"r5", "r3", "r2", "r0"}) {
			t.Fatalf("after the view's sorts changed: %v", got)
		}

		// Not a view of this database: 400 at view_id.
		_, other := e.newDatabase(t, taskSchema())
		foreign := e.mkView(t, other["id"].(string), map[string]any{"name": "Elsewhere", "type": "table"}).body["id"].(string)
		gone := e.mkView(t, id, map[string]any{"name": "Gone", "type": "table"}).body["id"].(string)
		wantOK(t, e.do(http.MethodDelete, viewPath(id, gone), e.full, nil), 200)
		for _, tc := range []struct {
			name   string
			viewID any
			reason string
		}{
			{"another database's view", foreign, quire.ReasonInvalidValue},
			{"unknown", quire.NewID(), quire.ReasonInvalidValue},
			{"in trash", gone, quire.ReasonInvalidValue},
			{"not a string", 7, quire.ReasonInvalidType},
		} {
			t.Run(tc.name, func(t *testing.T) {
				r := e.do(http.MethodPost, "/v2/databases/"+id+"/query", e.full, map[string]any{"view_id": tc.viewID})
				wantDetail(t, r, http.StatusBadRequest, quire.CodeValidation, "view_id", tc.reason)
			})
		}
	})
}
