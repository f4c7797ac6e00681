package httpapi

import (
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/quire-dev/quire/internal/service"
	"github.com/quire-dev/quire/internal/store"
	"github.com/quire-dev/quire/internal/testdb"
)

// Helpers of the mind-map tests.

// mmNode is a node as a client writes it.
func mmNode(text string, children ...any) map[string]any {
	n := map[string]any{"text": text}
	if len(children) > 0 {
		n["children"] = children
	}
	return n
}

// mkMindMap creates a mind map through the API and returns its answer.
func (e *env) mkMindMap(t testing.TB, token string, body map[string]any) *response {
	t.Helper()
	r := e.do(http.MethodPost, "/v2/mind-maps", token, body)
	wantOK(t, r, 200)
	return r
}

// outline writes a node tree as text: "Root(A(A1),B)".
func outline(n map[string]any) string {
	var sb strings.Builder
	var write func(n map[string]any)
	write = func(n map[string]any) {
		sb.WriteString(n["text"].(string))
		kids, _ := n["children"].([]any)
		if len(kids) == 0 {
			return
		}
		sb.WriteByte('(')
		for i, k := range kids {
			if i > 0 {
				sb.WriteByte(',')
			}
			write(k.(map[string]any))
		}
		sb.WriteByte(')')
	}
	write(n)
	return sb.String()
}

// nodeIDs maps each node's text to its id (texts are unique in the tests).
func nodeIDs(root map[string]any) map[string]string {
	out := map[string]string{}
	var walk func(n map[string]any)
	walk = func(n map[string]any) {
		out[n["text"].(string)] = n["id"].(string)
		kids, _ := n["children"].([]any)
		for _, k := range kids {
			walk(k.(map[string]any))
		}
	}
	walk(root)
	return out
}

// resolveRefs replaces every string "@text" in v with the id of the node with that text, so that
// a table of edits can name nodes made by earlier steps.
func resolveRefs(v any, ids map[string]string) any {
	switch v := v.(type) {
	case string:
		if name, ok := strings.CutPrefix(v, "@"); ok {
			return ids[name]
		}
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = resolveRefs(x, ids)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, x := range v {
			out[k] = resolveRefs(x, ids)
		}
		return out
	}
	return v
}

// freshGet answers GET path from a new server over e's store, which has kept nothing in memory.
func freshGet(t testing.TB, e *env, path string) map[string]any {
	t.Helper()
	svc := service.New(e.store, service.Options{BaseURL: e.srv.URL})
	srv := newServer(Config{Service: svc, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), BaseURL: e.srv.URL})
	req := httptest.NewRequest(http.MethodGet, path, nil)
	req.Header.Set("Authorization", "Bearer "+e.full)
	w := httptest.NewRecorder()
	srv.ServeHTTP(w, req)
	var body map[string]any
	if w.Code != http.StatusOK || json.Unmarshal(w.Body.Bytes(), &body) != nil {
		t.Fatalf("fresh GET %s: %d %s", path, w.Code, w.Body)
	}
	return body
}

func rootOf(r *response) map[string]any { return r.body["root"].(map[string]any) }

// wantNodes checks that body's `nodes` (the original service's shape) is its root as the single
// top node, every node with its text also as one unstyled rich-text item, and removes it.
func wantNodes(t testing.TB, body map[string]any) {
	t.Helper()
	var rich func(n map[string]any) map[string]any
	rich = func(n map[string]any) map[string]any {
		out := map[string]any{"rich_text": []any{}}
		for k, v := range n {
			out[k] = v
		}
		if s := n["text"].(string); s != "" {
			out["rich_text"] = []any{txtOut(s)}
		}
		kids := []any{}
		for _, c := range n["children"].([]any) {
			kids = append(kids, rich(c.(map[string]any)))
		}
		out["children"] = kids
		return out
	}
	want := []any{rich(body["root"].(map[string]any))}
	if diff := cmp.Diff(want, body["nodes"]); diff != "" {
		t.Errorf("nodes (-want +got):\n%s", diff)
	}
	delete(body, "nodes")
}

func TestMindMap_CreateAndGet(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, st *store.Store) {
		e := newEnv(t, st)
		parent := e.mkPage(t, e.full, wsParent, "Plans")
		chosen := "0f5c7a4e-8d1b-4e2a-9c3f-6b7d8e9f0a1b"
		r := e.mkMindMap(t, e.full, map[string]any{
			"parent": pageParent(parent), "title": []any{txt("Roadmap")},
			"root": map[string]any{"id": chosen, "text": "2026", "color": "blue", "children": []any{
				mmNode("Q1", mmNode("Launch")), map[string]any{"text": "Q2", "collapsed": true}, mmNode("Q3")}},
			"settings": map[string]any{"layout": "both"},
		})
		id := r.body["id"].(string)
		if got := r.header.Get("ETag"); got != `W/"1"` {
			t.Errorf("ETag = %q, want W/\"1\"", got)
		}
		root := rootOf(r)
		ids := nodeIDs(root)
		want := jsonValue(t, `{
			"object": "mind_map", "title": [%s], "parent": {"type": "page_id", "page_id": %q},
			"root": {"id": %q, "text": "2026", "color": "blue", "collapsed": false, "children": [
				{"id": %q, "text": "Q1", "color": "default", "collapsed": false, "children": [
					{"id": %q, "text": "Launch", "color": "default", "collapsed": false, "children": []}]},
				{"id": %q, "text": "Q2", "color": "default", "collapsed": true, "children": []},
				{"id": %q, "text": "Q3", "color": "default", "collapsed": false, "children": []}]},
			"settings": {"layout": "both", "theme": "default"}, "node_count": 5,
			"created_by": {"object": "user", "id": %q}, "last_edited_by": {"object": "user", "id": %q},
			"in_trash": false, "url": %q}`,
			mustJSON(t, txtOut("Roadmap")), parent, chosen, ids["Q1"], ids["Launch"], ids["Q2"], ids["Q3"],
			e.owner.ID, e.owner.ID, e.srv.URL+"/v2/pages/"+id)
		body := volatile(t, r.body)
		wantNodes(t, body)
		if diff := cmp.Diff(want, any(body)); diff != "" {
			t.Errorf("created mind map (-want +got):\n%s", diff)
		}

		got := e.do(http.MethodGet, "/v2/mind-maps/"+id, e.full, nil)
		wantOK(t, got, 200)
		if diff := cmp.Diff(r.body, got.body); diff != "" {
			t.Errorf("GET differs from the POST answer (-post +get):\n%s", diff)
		}
		if got.header.Get("ETag") != `W/"1"` {
			t.Errorf("GET ETag = %q", got.header.Get("ETag"))
		}

		// The same id is a page of type mind_map, and a child of its parent page.
		page := e.getPage(t, id)
		if diff := cmp.Diff(e.pageWant(id, "mind_map", pageParent(parent), []any{txtOut("Roadmap")}, false, nil, nil),
			volatile(t, page.body)); diff != "" {
			t.Errorf("the mind map as a page (-want +got):\n%s", diff)
		}
		if kids := e.kidIDs(t, parent); !cmp.Equal(kids, []string{id}) {
			t.Errorf("children of the parent = %v, want the mind map", kids)
		}

		// Left out: a root that reads like the title, default settings; a string title.
		r = e.mkMindMap(t, e.full, map[string]any{"parent": wsParent, "title": "Ideas"})
		if got, want := outline(rootOf(r)), "Ideas"; got != want {
			t.Errorf("default root = %s, want %s", got, want)
		}
		if diff := cmp.Diff(map[string]any{"layout": "right", "theme": "default"}, r.body["settings"]); diff != "" {
			t.Errorf("default settings (-want +got):\n%s", diff)
		}
	})
}

func TestMindMap_Edits(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, st *store.Store) {
		e := newEnv(t, st)
		r := e.mkMindMap(t, e.full, map[string]any{"parent": wsParent, "title": "Map",
			"root": mmNode("R", mmNode("A", mmNode("A1"), mmNode("A2")), mmNode("B"), mmNode("C"))})
		mapID := r.body["id"].(string)
		ids := nodeIDs(rootOf(r))
		newID := "5d2f8c1a-3b4e-4f6a-8b9c-0d1e2f3a4b5c"
		etagNow := r.header.Get("ETag")

		for _, step := range []struct {
			name  string
			edits []any
			want  string
		}{
			{"add last", []any{map[string]any{"op": "add", "parent_id": "@B", "node": mmNode("B1")}}, "R(A(A1,A2),B(B1),C)"},
			{"add after", []any{map[string]any{"op": "add", "parent_id": "@A", "after": "@A1", "node": mmNode("A1b")}},
				"R(A(A1,A1b,A2),B(B1),C)"},
			{"add first with a subtree and a chosen id", []any{map[string]any{"op": "add", "parent_id": "@R",
				"position": map[string]any{"type": "start"}, "node": map[string]any{"id": newID, "text": "Z", "children": []any{mmNode("Z1")}}}},
				"R(Z(Z1),A(A1,A1b,A2),B(B1),C)"},
			{"add under a node added before in the same request", []any{
				map[string]any{"op": "add", "parent_id": newID, "node": map[string]any{"id": "6e3a9d2b-4c5f-4a7b-9cad-1e2f3a4b5c6d", "text": "Z2"}},
				map[string]any{"op": "add", "parent_id": "6e3a9d2b-4c5f-4a7b-9cad-1e2f3a4b5c6d", "node": mmNode("Z2a")}},
				"R(Z(Z1,Z2(Z2a)),A(A1,A1b,A2),B(B1),C)"},
			{"update", []any{map[string]any{"op": "update", "node_id": "@C", "text": "C!", "color": "red", "collapsed": true}},
				"R(Z(Z1,Z2(Z2a)),A(A1,A1b,A2),B(B1),C!)"},
			{"move under another parent", []any{map[string]any{"op": "move", "node_id": "@A", "parent_id": "@B"}},
				"R(Z(Z1,Z2(Z2a)),B(B1,A(A1,A1b,A2)),C!)"},
			{"move among siblings", []any{map[string]any{"op": "move", "node_id": "@A2", "parent_id": "@A", "position": map[string]any{"type": "start"}}},
				"R(Z(Z1,Z2(Z2a)),B(B1,A(A2,A1,A1b)),C!)"},
			{"move after a sibling", []any{map[string]any{"op": "move", "node_id": "@A2", "parent_id": "@A", "after": "@A1b"}},
				"R(Z(Z1,Z2(Z2a)),B(B1,A(A1,A1b,A2)),C!)"},
			{"delete a subtree", []any{map[string]any{"op": "delete", "node_id": newID}}, "R(B(B1,A(A1,A1b,A2)),C!)"},
			{"several in order", []any{
				map[string]any{"op": "move", "node_id": "@A", "parent_id": "@R", "position": map[string]any{"type": "start"}},
				map[string]any{"op": "delete", "node_id": "@B"},
				map[string]any{"op": "update", "node_id": "@C", "text": "C"}},
				"R(A(A1,A1b,A2),C)"},
		} {
			r := e.do(http.MethodPatch, "/v2/mind-maps/"+mapID, e.full, map[string]any{"edits": resolveRefs(step.edits, ids)}, "If-Match", etagNow)
			wantOK(t, r, 200)
			if got := outline(rootOf(r)); got != step.want {
				t.Fatalf("%s: tree = %s, want %s", step.name, got, step.want)
			}
			if r.header.Get("ETag") == etagNow {
				t.Fatalf("%s: the ETag did not change", step.name)
			}
			etagNow = r.header.Get("ETag")
			// Node ids are stable: every node that is still there keeps its id.
			for text, id := range nodeIDs(rootOf(r)) {
				if old, ok := ids[text]; ok && old != id {
					t.Fatalf("%s: node %s changed id from %s to %s", step.name, text, old, id)
				}
				ids[text] = id
			}
			if got := r.body["node_count"]; got != float64(strings.Count(step.want, ",")+strings.Count(step.want, "(")+1) {
				t.Fatalf("%s: node_count = %v for %s", step.name, got, step.want)
			}
			// The answer, made from the nodes the server kept, is what a server with nothing kept reads.
			if diff := cmp.Diff(freshGet(t, e, "/v2/mind-maps/"+mapID), r.body); diff != "" {
				t.Fatalf("%s: the answer differs from a fresh read (-fresh +answer):\n%s", step.name, diff)
			}
		}

		// The colour and collapsed state of an update stick; title and settings change too.
		r = e.do(http.MethodPatch, "/v2/mind-maps/"+mapID, e.full, map[string]any{"title": "Renamed",
			"settings": map[string]any{"theme": "dark"}})
		wantOK(t, r, 200)
		c := rootOf(r)["children"].([]any)[1].(map[string]any)
		if c["color"] != "red" || c["collapsed"] != true {
			t.Errorf("C after updates = %v", c)
		}
		if diff := cmp.Diff(map[string]any{"layout": "right", "theme": "dark"}, r.body["settings"]); diff != "" {
			t.Errorf("settings (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff([]any{txtOut("Renamed")}, r.body["title"]); diff != "" {
			t.Errorf("title (-want +got):\n%s", diff)
		}
		page := e.getPage(t, mapID)
		if diff := cmp.Diff([]any{txtOut("Renamed")}, page.body["properties"].(map[string]any)["title"].(map[string]any)["title"]); diff != "" {
			t.Errorf("page title (-want +got):\n%s", diff)
		}
		if page.header.Get("ETag") != r.header.Get("ETag") {
			t.Errorf("page ETag %s differs from mind map ETag %s", page.header.Get("ETag"), r.header.Get("ETag"))
		}
	})
}

func TestMindMap_EditErrors(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, st *store.Store) {
		e := newEnv(t, st)
		r := e.mkMindMap(t, e.full, map[string]any{"parent": wsParent, "title": "Map",
			"root": mmNode("R", mmNode("A", mmNode("A1", mmNode("A1x"))), mmNode("B"))})
		mapID := r.body["id"].(string)
		ids := nodeIDs(rootOf(r))
		unknown := "7b0c2a8e-4f1d-4c3b-9a5e-2d6f8e1b3c4a"
		before := e.do(http.MethodGet, "/v2/mind-maps/"+mapID, e.full, nil)
		okAdd := map[string]any{"op": "add", "parent_id": ids["B"], "node": mmNode("new")}
		many := make([]any, 101)
		for i := range many {
			many[i] = okAdd
		}

		for _, tc := range []struct {
			name         string
			body         map[string]any
			path, reason string
		}{
			{"update of an unknown node after a valid add", map[string]any{"edits": []any{okAdd, okAdd, okAdd,
				map[string]any{"op": "update", "node_id": unknown, "text": "x"}}}, "edits[3].node_id", "invalid_value"},
			{"move under its own subtree", map[string]any{"edits": []any{okAdd,
				map[string]any{"op": "move", "node_id": ids["A"], "parent_id": ids["A1x"]}}}, "edits[1].parent_id", "cycle"},
			{"move under itself", map[string]any{"edits": []any{
				map[string]any{"op": "move", "node_id": ids["A"], "parent_id": ids["A"]}}}, "edits[0].parent_id", "cycle"},
			{"delete the root", map[string]any{"edits": []any{okAdd, map[string]any{"op": "delete", "node_id": ids["R"]}}},
				"edits[1].node_id", "invalid_value"},
			{"move the root", map[string]any{"edits": []any{map[string]any{"op": "move", "node_id": ids["R"], "parent_id": ids["B"]}}},
				"edits[0].node_id", "invalid_value"},
			{"delete an unknown node", map[string]any{"edits": []any{map[string]any{"op": "delete", "node_id": unknown}}},
				"edits[0].node_id", "invalid_value"},
			{"add under an unknown parent", map[string]any{"edits": []any{map[string]any{"op": "add", "parent_id": unknown, "node": mmNode("x")}}},
				"edits[0].parent_id", "invalid_value"},
			{"add under a node deleted earlier", map[string]any{"edits": []any{
				map[string]any{"op": "delete", "node_id": ids["A"]},
				map[string]any{"op": "add", "parent_id": ids["A1"], "node": mmNode("x")}}}, "edits[1].parent_id", "invalid_value"},
			{"after not a child of the parent", map[string]any{"edits": []any{
				map[string]any{"op": "add", "parent_id": ids["B"], "after": ids["A"], "node": mmNode("x")}}}, "edits[0].after", "invalid_value"},
			{"chosen id already in the map", map[string]any{"edits": []any{
				map[string]any{"op": "add", "parent_id": ids["B"], "node": map[string]any{"id": ids["A1"], "text": "x"}}}},
				"edits[0].node.id", "invalid_value"},
			{"chosen id used twice", map[string]any{"edits": []any{
				map[string]any{"op": "add", "parent_id": ids["B"], "node": map[string]any{"id": unknown}},
				map[string]any{"op": "add", "parent_id": ids["B"], "node": map[string]any{"id": unknown}}}},
				"edits[1].node.id", "invalid_value"},
			{"unknown op", map[string]any{"edits": []any{map[string]any{"op": "copy"}}}, "edits[0].op", "invalid_value"},
			{"missing op", map[string]any{"edits": []any{map[string]any{"node_id": ids["A"]}}}, "edits[0].op", "required"},
			{"missing node_id", map[string]any{"edits": []any{okAdd, map[string]any{"op": "delete"}}}, "edits[1].node_id", "required"},
			{"node_id not a UUID", map[string]any{"edits": []any{map[string]any{"op": "delete", "node_id": "A"}}}, "edits[0].node_id", "invalid_value"},
			{"field of another op", map[string]any{"edits": []any{map[string]any{"op": "delete", "node_id": ids["A"], "text": "x"}}},
				"edits[0].text", "unknown_field"},
			{"text too long", map[string]any{"edits": []any{map[string]any{"op": "update", "node_id": ids["A"], "text": strings.Repeat("é", 2001)}}},
				"edits[0].text", "too_long"},
			{"unknown colour in a new subtree", map[string]any{"edits": []any{map[string]any{"op": "add", "parent_id": ids["B"],
				"node": mmNode("x", map[string]any{"text": "y", "color": "teal"})}}}, "edits[0].node.children[0].color", "invalid_value"},
			{"after and position", map[string]any{"edits": []any{map[string]any{"op": "move", "node_id": ids["B"], "parent_id": ids["R"],
				"after": ids["A"], "position": map[string]any{"type": "start"}}}}, "edits[0].position", "invalid_value"},
			{"too many edits", map[string]any{"edits": many}, "edits", "too_many"},
			{"edits not an array", map[string]any{"edits": map[string]any{}}, "edits", "invalid_type"},
			{"unknown layout", map[string]any{"settings": map[string]any{"layout": "radial"}}, "settings.layout", "invalid_value"},
			{"unknown field", map[string]any{"root": map[string]any{}}, "root", "unknown_field"},
			{"title not rich text", map[string]any{"title": 5}, "title", "invalid_type"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				r := e.do(http.MethodPatch, "/v2/mind-maps/"+mapID, e.full, tc.body)
				wantDetail(t, r, 400, "validation_error", tc.path, tc.reason)
				after := e.do(http.MethodGet, "/v2/mind-maps/"+mapID, e.full, nil)
				if diff := cmp.Diff(before.body, after.body); diff != "" {
					t.Fatalf("a refused PATCH changed the mind map (-before +after):\n%s", diff)
				}
				if after.header.Get("ETag") != before.header.Get("ETag") {
					t.Fatalf("a refused PATCH changed the ETag")
				}
			})
		}

		// Not a mind map, or nothing at all: 404 on both routes.
		page := e.mkPage(t, e.full, wsParent, "Plain")
		for _, id := range []string{page, unknown} {
			e.do(http.MethodGet, "/v2/mind-maps/"+id, e.full, nil).wantError(t, 404, "not_found", "")
			e.do(http.MethodPatch, "/v2/mind-maps/"+id, e.full, map[string]any{}).wantError(t, 404, "not_found", "")
		}
	})
}

func TestMindMap_CreateErrors(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, st *store.Store) {
		e := newEnv(t, st)
		page := e.mkPage(t, e.full, wsParent, "Home")
		mm := e.mkMindMap(t, e.full, map[string]any{"parent": wsParent, "title": "M"}).body["id"].(string)
		dup := "7b0c2a8e-4f1d-4c3b-9a5e-2d6f8e1b3c4a"
		for _, tc := range []struct {
			name         string
			body         map[string]any
			status       int
			path, reason string
		}{
			{"missing parent", map[string]any{"title": "x"}, 400, "parent", "required"},
			{"missing title", map[string]any{"parent": wsParent}, 400, "title", "required"},
			{"unknown field", map[string]any{"parent": wsParent, "title": "x", "nodes": []any{}}, 400, "nodes", "unknown_field"},
			{"node text not a string", map[string]any{"parent": wsParent, "title": "x", "root": mmNode("r", map[string]any{"text": 1})},
				400, "root.children[0].text", "invalid_type"},
			{"duplicate ids", map[string]any{"parent": wsParent, "title": "x", "root": map[string]any{"id": dup,
				"children": []any{map[string]any{"id": dup}}}}, 400, "root.children[0].id", "invalid_value"},
			{"unknown theme", map[string]any{"parent": wsParent, "title": "x", "settings": map[string]any{"theme": "neon"}},
				400, "settings.theme", "invalid_value"},
			{"unknown settings field", map[string]any{"parent": wsParent, "title": "x", "settings": map[string]any{"zoom": 2}},
				400, "settings.zoom", "unknown_field"},
			{"under a mind map", map[string]any{"parent": pageParent(mm), "title": "x"}, 400, "parent.page_id", "invalid_value"},
			{"under an unknown page", map[string]any{"parent": pageParent(dup), "title": "x"}, 404, "", ""},
		} {
			t.Run(tc.name, func(t *testing.T) {
				r := e.do(http.MethodPost, "/v2/mind-maps", e.full, tc.body)
				if tc.status == 400 {
					wantDetail(t, r, 400, "validation_error", tc.path, tc.reason)
				} else {
					r.wantError(t, tc.status, "not_found", "")
				}
			})
		}
		if kids := e.kidIDs(t, page); len(kids) != 0 {
			t.Errorf("refused creations left children: %v", kids)
		}
		// A mind-map page holds nodes, not blocks.
		for _, field := range []string{"children", "markdown"} {
			body := map[string]any{"parent": wsParent, "page_type": "mind_map", "properties": titleOf("x")}
			body[field] = []any{para("x")}
			if field == "markdown" {
				body[field] = "# x"
			}
			r := e.do(http.MethodPost, "/v2/pages", e.full, body)
			wantDetail(t, r, 400, "validation_error", field, "invalid_value")
		}
	})
}

// mustJSON encodes v as JSON text for an expected answer.
func mustJSON(t testing.TB, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
