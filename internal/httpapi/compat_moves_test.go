package httpapi

import (
	"maps"
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/quire-dev/quire/internal/quire"
	"github.com/quire-dev/quire/internal/store"
	"github.com/quire-dev/quire/internal/testdb"
)

// Moves as the original service's clients send them (issue 14): {parent, after?, before?} with
// a parent of any form, of any node, and the answer read as {object, id, object_type, parent,
// after, before}.

// moveAnswer is what a client of the original service reads of a move answer.
type moveAnswer struct {
	Object, ID, ObjectType string
	Parent                 any
	After, Before          any // an id, or nil for null
}

func readMove(t testing.TB, r *response) moveAnswer {
	t.Helper()
	wantOK(t, r, http.StatusOK)
	for _, k := range []string{"after", "before"} {
		if _, ok := r.body[k]; !ok {
			t.Fatalf("the move answer has no %s (null when none): %s", k, r.raw)
		}
	}
	ot, _ := r.body["object_type"].(string)
	return moveAnswer{Object: r.body["object"].(string), ID: r.body["id"].(string), ObjectType: ot,
		Parent: r.body["parent"], After: r.body["after"], Before: r.body["before"]}
}

func (e *env) move(id string, body map[string]any, headers ...string) *response {
	e.t.Helper()
	return e.do(http.MethodPatch, "/v2/pages/"+id+"/move", e.full, body, headers...)
}

func TestCompatMoves_Placement(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, st *store.Store) {
		e := newEnv(t, st)
		a := e.mkPage(t, e.full, wsParent, "A")
		b := e.mkPage(t, e.full, wsParent, "B")
		a1 := e.mkPage(t, e.full, pageParent(a), "A1")
		text := e.appendKids(t, a, para("between"))[0]["id"].(string)
		a2 := e.mkPage(t, e.full, pageParent(a), "A2")

		// before: right before that sibling; parent without type, as the original's clients send it.
		got := readMove(t, e.move(b, map[string]any{"parent": map[string]any{"page_id": a}, "before": a2}))
		want := moveAnswer{"page", b, "page", pageParent(a), text, a2}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("move answer (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff([]string{a1, text, b, a2}, e.kidIDs(t, a)); diff != "" {
			t.Fatalf("A's children (-want +got):\n%s", diff)
		}
		// before the first child: after is null.
		got = readMove(t, e.move(b, map[string]any{"parent": pageParent(a), "before": a1}))
		if got.After != nil || got.Before != a1 {
			t.Fatalf("before the first child: after %v, before %v", got.After, got.Before)
		}
		// after and before null: the end, as when left out.
		got = readMove(t, e.move(b, map[string]any{"parent": map[string]any{"workspace": true}, "after": nil, "before": nil}))
		if diff := cmp.Diff(moveAnswer{"page", b, "page", wsParent, a, nil}, got); diff != "" {
			t.Fatalf("to the workspace (-want +got):\n%s", diff)
		}
		// before a top-level node.
		got = readMove(t, e.move(b, map[string]any{"parent": wsParent, "before": a}))
		if got.After != nil || got.Before != a {
			t.Fatalf("before A at the top level: after %v, before %v", got.After, got.Before)
		}
		if diff := cmp.Diff([]string{b, a}, e.pageIDs(t, "/v2/workspace/pages", e.full)); diff != "" {
			t.Fatalf("sidebar (-want +got):\n%s", diff)
		}
		// after a top-level node, read back as the answer's after.
		got = readMove(t, e.move(a1, map[string]any{"parent": wsParent, "after": b}))
		if got.After != b || got.Before != a {
			t.Fatalf("after B at the top level: after %v, before %v", got.After, got.Before)
		}
		// A folder and a mind map move and say what they are.
		folder := e.mkPage(t, e.full, wsParent, "F", map[string]any{"page_type": "folder"})
		mindMap := e.mkPage(t, e.full, wsParent, "M", map[string]any{"page_type": "mind_map"})
		if got := readMove(t, e.move(folder, map[string]any{"parent": pageParent(a)})); got.ObjectType != "folder" || got.After != a2 {
			t.Fatalf("folder move = %+v", got)
		}
		if got := readMove(t, e.move(mindMap, map[string]any{"parent": pageParent(folder)})); got.ObjectType != "mind_map" || got.After != nil {
			t.Fatalf("mind map move = %+v", got)
		}

		for _, tc := range []struct {
			name         string
			body         map[string]any
			path, reason string
		}{
			{"after and before", map[string]any{"parent": pageParent(a), "after": a1, "before": a2}, "before", quire.ReasonInvalidValue},
			{"before not a sibling", map[string]any{"parent": pageParent(a), "before": b}, "before", quire.ReasonInvalidValue},
			{"before not a uuid", map[string]any{"parent": pageParent(a), "before": 7}, "before", quire.ReasonInvalidValue},
			{"before not top-level", map[string]any{"parent": wsParent, "before": a2}, "before", quire.ReasonInvalidValue},
		} {
			t.Run(tc.name, func(t *testing.T) {
				was := e.getPage(t, b).body
				wantDetail(t, e.move(b, tc.body), 400, quire.CodeValidation, tc.path, tc.reason)
				if diff := cmp.Diff(was, e.getPage(t, b).body); diff != "" {
					t.Fatalf("a refused move changed the page (-before +after):\n%s", diff)
				}
			})
		}
	})
}

func TestCompatMoves_Databases(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, st *store.Store) {
		e := newEnv(t, st)
		home, db := e.newDatabase(t, taskSchema())
		id := db["id"].(string)
		folder := e.mkPage(t, e.full, wsParent, "Folder", map[string]any{"page_type": "folder"})

		// To the workspace: the answer is the database object with the move's fields.
		r := e.move(id, map[string]any{"parent": map[string]any{"type": "workspace", "workspace": true}})
		got := readMove(t, r)
		if diff := cmp.Diff(moveAnswer{"database", id, "database", wsParent, folder, nil}, got); diff != "" {
			t.Fatalf("move answer (-want +got):\n%s", diff)
		}
		if r.body["title"].([]any)[0].(map[string]any)["plain_text"] != "Tasks" || r.body["properties"].(map[string]any)["Status"] == nil {
			t.Fatalf("the answer is not the database object: %s", r.raw)
		}
		if contains(e.kidIDs(t, home), id) {
			t.Fatal("the database still has its child_database block in its old parent")
		}
		if diff := cmp.Diff(wsParent, e.do(http.MethodGet, "/v2/databases/"+id, e.full, nil).body["parent"]); diff != "" {
			t.Fatalf("the database's parent (-want +got):\n%s", diff)
		}
		// Under a folder, with the ETag it has now; its records come along.
		rec := e.record(t, id, map[string]any{"Name": []any{txt("Task one")}})["id"].(string)
		got = readMove(t, e.move(id, map[string]any{"parent": pageParent(folder)}, "If-Match", r.header.Get("ETag")))
		if diff := cmp.Diff(pageParent(folder), got.Parent); diff != "" {
			t.Fatalf("parent (-want +got):\n%s", diff)
		}
		kids := e.kids(t, folder)
		if len(kids) != 1 || kids[0]["id"] != id || kids[0]["type"] != "child_database" {
			t.Fatalf("the folder's children = %v", kids)
		}
		q := e.do(http.MethodPost, "/v2/databases/"+id+"/query", e.full, map[string]any{})
		if diff := cmp.Diff([]string{"Task one"}, titles(q)); diff != "" {
			t.Fatalf("records after the move (-want +got):\n%s", diff)
		}
		// Back under a page, after its content.
		text := e.appendKids(t, home, para("intro"))[0]["id"].(string)
		if got := readMove(t, e.move(id, map[string]any{"parent": pageParent(home)})); got.After != text || got.Before != nil {
			t.Fatalf("under home: %+v", got)
		}

		other := e.do(http.MethodPost, "/v2/databases", e.full, map[string]any{"parent": pageParent(home), "title": []any{txt("Other")},
			"properties": map[string]any{"Name": map[string]any{"title": map[string]any{}}}})
		wantOK(t, other, 200)
		sub := e.mkPage(t, e.full, pageParent(rec), "Under a record")
		for _, tc := range []struct {
			name         string
			body         map[string]any
			headers      []string
			status       int
			path, reason string
		}{
			{"into a database", map[string]any{"parent": dbParent(other.body["id"].(string))}, nil, 400, "parent.database_id", quire.ReasonInvalidValue},
			{"into itself", map[string]any{"parent": map[string]any{"database_id": id}}, nil, 400, "parent.database_id", quire.ReasonInvalidValue},
			{"under its record", map[string]any{"parent": pageParent(rec)}, nil, 400, "parent.page_id", quire.ReasonCycle},
			{"under a page under its record", map[string]any{"parent": pageParent(sub)}, nil, 400, "parent.page_id", quire.ReasonCycle},
			{"stale If-Match", map[string]any{"parent": wsParent}, []string{"If-Match", `W/"1"`}, 409, "", ""},
		} {
			t.Run(tc.name, func(t *testing.T) {
				r := e.move(id, tc.body, tc.headers...)
				if tc.status == 409 {
					r.wantError(t, 409, quire.CodeConflict, "")
					return
				}
				wantDetail(t, r, tc.status, quire.CodeValidation, tc.path, tc.reason)
			})
		}
		// A granted token moves a database within its reach, not to the top level.
		granted := e.token(quire.AllScopes, false, home, folder)
		wantOK(t, e.do(http.MethodPatch, "/v2/pages/"+id+"/move", granted, map[string]any{"parent": pageParent(folder)}), 200)
		e.do(http.MethodPatch, "/v2/pages/"+id+"/move", granted, map[string]any{"parent": wsParent}).wantError(t, 403, quire.CodeForbidden, "")
		// A database in trash does not move.
		wantOK(t, e.do(http.MethodPatch, "/v2/databases/"+id, e.full, map[string]any{"in_trash": true}), 200)
		wantDetail(t, e.move(id, map[string]any{"parent": pageParent(home)}), 400, quire.CodeValidation, "page_id", quire.ReasonArchived)
	})
}

// TestCompatMoves_Records: a page moved into a database becomes a record; a record moved out
// becomes a page; what is not a page does not go into a database.
func TestCompatMoves_Records(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, st *store.Store) {
		e := newEnv(t, st)
		home, db := e.newDatabase(t, taskSchema())
		id := db["id"].(string)
		e.record(t, id, map[string]any{"Name": []any{txt("First")}})
		page := e.mkPage(t, e.full, pageParent(home), "Flamingo plan")
		body := e.appendKids(t, page, para("pink birds"))[0]["id"].(string)
		child := e.mkPage(t, e.full, pageParent(page), "Sub")

		r := e.move(page, map[string]any{"parent": map[string]any{"database_id": id}, "after": nil})
		if diff := cmp.Diff(moveAnswer{"page", page, "page", dbParent(id), nil, nil}, readMove(t, r)); diff != "" {
			t.Fatalf("move answer (-want +got):\n%s", diff)
		}
		// The record reads with every property of the schema: the title carried over, the
		// others empty, the next number.
		props := r.body["properties"].(map[string]any)
		if len(props) != len(taskSchema()) {
			t.Fatalf("the record has %d properties, want %d: %s", len(props), len(taskSchema()), r.raw)
		}
		if diff := cmp.Diff([]any{txtOut("Flamingo plan")}, props["Name"].(map[string]any)["title"]); diff != "" {
			t.Fatalf("title (-want +got):\n%s", diff)
		}
		if props["Status"].(map[string]any)["select"] != nil || len(props["Tags"].(map[string]any)["multi_select"].([]any)) != 0 {
			t.Fatalf("other properties are not empty: %s", r.raw)
		}
		if n := props["Key"].(map[string]any)["unique_id"].(map[string]any)["number"]; n != 2.0 {
			t.Fatalf("number = %v, want 2", n)
		}
		asPage := maps.Clone(r.body)
		for _, k := range []string{"object_type", "after", "before"} {
			delete(asPage, k)
		}
		if diff := cmp.Diff(asPage, e.getPage(t, page).body); diff != "" {
			t.Fatalf("GET differs from the move answer (-answer +get):\n%s", diff)
		}
		// Its content and sub-page stay; it left its old parent; queries and search find it.
		if diff := cmp.Diff([]string{body, child}, e.kidIDs(t, page)); diff != "" {
			t.Fatalf("content (-want +got):\n%s", diff)
		}
		if contains(e.kidIDs(t, home), page) {
			t.Fatal("the record still has a child_page block in its old parent")
		}
		q := e.do(http.MethodPost, "/v2/databases/"+id+"/query", e.full, map[string]any{
			"filter": map[string]any{"property": "Name", "title": map[string]any{"contains": "flamingo"}}})
		if diff := cmp.Diff([]string{"Flamingo plan"}, titles(q)); diff != "" {
			t.Fatalf("query by title (-want +got):\n%s", diff)
		}
		q = e.do(http.MethodPost, "/v2/databases/"+id+"/query", e.full, map[string]any{
			"filter": map[string]any{"property": "Key", "unique_id": map[string]any{"equals": 2}}})
		if diff := cmp.Diff([]string{"Flamingo plan"}, titles(q)); diff != "" {
			t.Fatalf("query by number (-want +got):\n%s", diff)
		}
		if ids := e.searchIDs(t, e.full, map[string]any{"query": "pink birds"}); !contains(ids, page) {
			t.Fatalf("search for its content = %v", ids)
		}

		// Out again, under a page: a page with only its title; its values and number are gone.
		wantOK(t, e.do(http.MethodPatch, "/v2/pages/"+page, e.full, map[string]any{"properties": map[string]any{"Points": map[string]any{"number": 5}}}), 200)
		r = e.move(page, map[string]any{"parent": map[string]any{"page_id": home}})
		if diff := cmp.Diff(moveAnswer{"page", page, "page", pageParent(home), db["id"], nil}, readMove(t, r)); diff != "" {
			t.Fatalf("move answer (-want +got):\n%s", diff)
		}
		want := map[string]any{"title": map[string]any{"id": "title", "type": "title", "title": []any{txtOut("Flamingo plan")}}}
		if diff := cmp.Diff(want, e.getPage(t, page).body["properties"]); diff != "" {
			t.Fatalf("properties out of the database (-want +got):\n%s", diff)
		}
		q = e.do(http.MethodPost, "/v2/databases/"+id+"/query", e.full, map[string]any{
			"filter": map[string]any{"property": "Points", "number": map[string]any{"equals": 5}}})
		if got := titles(q); len(got) != 0 {
			t.Fatalf("the database still finds the page by its old value: %v", got)
		}
		if diff := cmp.Diff([]string{db["id"].(string), page}, e.kidIDs(t, home)); diff != "" {
			t.Fatalf("home's children (-want +got):\n%s", diff)
		}
		// Back in, it is a new record with a new number; a record of one database moves to another.
		r = e.move(page, map[string]any{"parent": dbParent(id)})
		readMove(t, r)
		if r.body["properties"].(map[string]any)["Points"].(map[string]any)["number"] != nil {
			t.Fatalf("the record came back with its old value: %s", r.raw)
		}
		other := e.do(http.MethodPost, "/v2/databases", e.full, map[string]any{"parent": pageParent(home), "title": []any{txt("Other")},
			"properties": map[string]any{"Title": map[string]any{"title": map[string]any{}}}})
		wantOK(t, other, 200)
		r = e.move(page, map[string]any{"parent": dbParent(other.body["id"].(string))})
		readMove(t, r)
		if diff := cmp.Diff([]any{txtOut("Flamingo plan")}, r.body["properties"].(map[string]any)["Title"].(map[string]any)["title"]); diff != "" {
			t.Fatalf("title in the other database (-want +got):\n%s", diff)
		}
		if got := titles(e.do(http.MethodPost, "/v2/databases/"+id+"/query", e.full, map[string]any{})); !cmp.Equal(got, []string{"First"}) {
			t.Fatalf("the first database still lists %v", got)
		}

		folder := e.mkPage(t, e.full, pageParent(home), "F", map[string]any{"page_type": "folder"})
		mindMap := e.mkPage(t, e.full, pageParent(home), "M", map[string]any{"page_type": "mind_map"})
		for _, tc := range []struct {
			name, id     string
			body         map[string]any
			path, reason string
		}{
			{"a folder", folder, map[string]any{"parent": dbParent(id)}, "parent.database_id", quire.ReasonInvalidValue},
			{"a mind map", mindMap, map[string]any{"parent": dbParent(id)}, "parent.database_id", quire.ReasonInvalidValue},
			{"after in a database", child, map[string]any{"parent": dbParent(id), "after": page}, "after", quire.ReasonInvalidValue},
			{"before in a database", child, map[string]any{"parent": dbParent(id), "before": page}, "before", quire.ReasonInvalidValue},
			{"under a record's own sub-page", page, map[string]any{"parent": pageParent(child)}, "parent.page_id", quire.ReasonCycle},
		} {
			t.Run(tc.name, func(t *testing.T) {
				wantDetail(t, e.move(tc.id, tc.body), 400, quire.CodeValidation, tc.path, tc.reason)
			})
		}
		e.move(child, map[string]any{"parent": dbParent(quire.NewID())}).wantError(t, 404, quire.CodeNotFound, "")
		if diff := cmp.Diff(pageParent(page), e.getPage(t, child).body["parent"]); diff != "" {
			t.Fatalf("a refused move changed the page (-want +got):\n%s", diff)
		}
	})
}
