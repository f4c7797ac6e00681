package httpapi

import (
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/quire-dev/quire/internal/quire"
	"github.com/quire-dev/quire/internal/store"
	"github.com/quire-dev/quire/internal/testdb"
)

// Helpers of the database tests.

func dbParent(id string) map[string]any {
	return map[string]any{"type": "database_id", "database_id": id}
}

// taskSchema is a schema with a property of most types.
func taskSchema() map[string]any {
	return map[string]any{
		"Name":   map[string]any{"title": map[string]any{}},
		"Status": map[string]any{"select": map[string]any{"options": []any{map[string]any{"name": "Todo", "color": "red"}, map[string]any{"name": "Done"}}}},
		"Tags":   map[string]any{"multi_select": map[string]any{"options": []any{map[string]any{"name": "a"}, map[string]any{"name": "b"}}}},
		"Points": map[string]any{"number": map[string]any{"format": "number"}},
		"Notes":  map[string]any{"rich_text": map[string]any{}},
		"Done":   map[string]any{"checkbox": map[string]any{}},
		"Due":    map[string]any{"date": map[string]any{}},
		"Link":   map[string]any{"url": map[string]any{}},
		"Owner":  map[string]any{"people": map[string]any{}},
		"Key":    map[string]any{"unique_id": map[string]any{"prefix": "TASK"}},
		"Made":   map[string]any{"created_time": map[string]any{}},
	}
}

// newDatabase creates a database under a new page and returns the page id and the database.
func (e *env) newDatabase(t testing.TB, schema map[string]any) (string, map[string]any) {
	t.Helper()
	page := e.do("POST", "/v2/pages", e.full, map[string]any{"parent": wsParent, "properties": titleOf("Home")})
	wantOK(t, page, http.StatusOK)
	pid := page.body["id"].(string)
	r := e.do("POST", "/v2/databases", e.full, map[string]any{"parent": pageParent(pid), "title": []any{txt("Tasks")}, "properties": schema})
	wantOK(t, r, http.StatusOK)
	return pid, r.body
}

// record creates a record of database db with properties props.
func (e *env) record(t testing.TB, db string, props map[string]any) map[string]any {
	t.Helper()
	r := e.do("POST", "/v2/pages", e.full, map[string]any{"parent": dbParent(db), "properties": props})
	wantOK(t, r, http.StatusOK)
	return r.body
}

func TestDatabaseLifecycle(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, st *store.Store) {
		e := newEnv(t, st)
		pid, db := e.newDatabase(t, taskSchema())
		id := db["id"].(string)
		props := db["properties"].(map[string]any)
		if len(props) != 11 || props["Name"].(map[string]any)["id"] != "title" {
			t.Fatalf("properties = %v", props)
		}
		status := props["Status"].(map[string]any)
		opts := status["select"].(map[string]any)["options"].([]any)
		if len(opts) != 2 || opts[0].(map[string]any)["color"] != "red" || opts[1].(map[string]any)["color"] != "default" ||
			opts[0].(map[string]any)["id"] == "" {
			t.Fatalf("options = %v", opts)
		}
		if db["object"] != "database" || db["parent"].(map[string]any)["page_id"] != pid || db["is_inline"] != false {
			t.Fatalf("database = %v", db)
		}
		// It appears as a child_database block in its page.
		kids := e.do("GET", "/v2/blocks/"+pid+"/children", e.full, nil)
		wantOK(t, kids, http.StatusOK)
		res := kids.body["results"].([]any)
		if len(res) != 1 || res[0].(map[string]any)["type"] != "child_database" || res[0].(map[string]any)["id"] != id {
			t.Fatalf("children = %s", kids.raw)
		}
		// GET answers the same, with an ETag.
		got := e.do("GET", "/v2/databases/"+id, e.full, nil)
		wantOK(t, got, http.StatusOK)
		if diff := cmp.Diff(db, got.body); diff != "" {
			t.Fatalf("GET differs (-create +get):\n%s", diff)
		}
		tag := got.header.Get("ETag")
		// Rename, add, remove properties; a stale If-Match changes nothing.
		patch := map[string]any{"title": []any{txt("Work")}, "properties": map[string]any{
			"Points": map[string]any{"name": "Score"}, "Link": nil, "Size": map[string]any{"number": map[string]any{}}}}
		r := e.do("PATCH", "/v2/databases/"+id, e.full, patch, "If-Match", tag)
		wantOK(t, r, http.StatusOK)
		props = r.body["properties"].(map[string]any)
		if _, ok := props["Link"]; ok || props["Score"] == nil || props["Size"] == nil || props["Points"] != nil {
			t.Fatalf("patched properties = %v", props)
		}
		e.do("PATCH", "/v2/databases/"+id, e.full, map[string]any{"is_inline": true}, "If-Match", tag).wantError(t, 409, "conflict", "")
		// Trash and restore.
		wantOK(t, e.do("DELETE", "/v2/databases/"+id, e.full, nil), http.StatusOK)
		g := e.do("GET", "/v2/databases/"+id, e.full, nil)
		if g.body["in_trash"] != true {
			t.Fatalf("after DELETE: %s", g.raw)
		}
		wantDetail(t, e.do("PATCH", "/v2/databases/"+id, e.full, map[string]any{"title": []any{}}), 400, "validation_error", "in_trash", "archived")
		wantOK(t, e.do("PATCH", "/v2/databases/"+id, e.full, map[string]any{"in_trash": false}), http.StatusOK)
	})
}

func TestDatabaseErrors(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, st *store.Store) {
		e := newEnv(t, st)
		pid, db := e.newDatabase(t, taskSchema())
		id := db["id"].(string)
		cases := []struct {
			name, method, path string
			body               any
			status             int
			code, at, reason   string
		}{
			{"no title property", "POST", "/v2/databases", map[string]any{"parent": pageParent(pid), "properties": map[string]any{"A": map[string]any{"number": map[string]any{}}}},
				400, "validation_error", "properties", "required"},
			{"two titles", "POST", "/v2/databases", map[string]any{"parent": pageParent(pid), "properties": map[string]any{"A": map[string]any{"title": map[string]any{}}, "B": map[string]any{"title": map[string]any{}}}},
				400, "validation_error", "properties", "invalid_value"},
			{"unknown type", "POST", "/v2/databases", map[string]any{"parent": pageParent(pid), "properties": map[string]any{"A": map[string]any{"title": map[string]any{}}, "B": map[string]any{"type": "bogus"}}},
				400, "validation_error", "properties.B.type", "invalid_value"},
			{"bad option colour", "POST", "/v2/databases", map[string]any{"parent": pageParent(pid), "properties": map[string]any{"A": map[string]any{"title": map[string]any{}}, "S": map[string]any{"select": map[string]any{"options": []any{map[string]any{"name": "x", "color": "mauve"}}}}}},
				400, "validation_error", "properties.S.select.options[0].color", "invalid_value"},
			{"relation to nothing", "POST", "/v2/databases", map[string]any{"parent": pageParent(pid), "properties": map[string]any{"A": map[string]any{"title": map[string]any{}}, "R": map[string]any{"relation": map[string]any{"database_id": "5b7c3b1e-0000-4000-8000-000000000000", "single_property": map[string]any{}}}}},
				400, "validation_error", "properties.R.relation.database_id", "invalid_value"},
			{"unknown field", "POST", "/v2/databases", map[string]any{"parent": pageParent(pid), "properties": taskSchema(), "colour": 1},
				400, "validation_error", "colour", "unknown_field"},
			{"not an object", "POST", "/v2/databases", `[1]`, 400, "invalid_json", "", ""},
			{"missing database", "GET", "/v2/databases/5b7c3b1e-0000-4000-8000-000000000000", nil, 404, "not_found", "", ""},
			{"page is not a database", "GET", "/v2/databases/" + pid, nil, 404, "not_found", "", ""},
			{"remove title", "PATCH", "/v2/databases/" + id, map[string]any{"properties": map[string]any{"Name": nil}},
				400, "validation_error", "properties.Name", "invalid_value"},
			{"rename onto another", "PATCH", "/v2/databases/" + id, map[string]any{"properties": map[string]any{"Notes": map[string]any{"name": "Tags"}}},
				400, "validation_error", "properties.Notes.name", "invalid_value"},
			{"record unknown option", "POST", "/v2/pages", map[string]any{"parent": dbParent(id), "properties": map[string]any{"Status": map[string]any{"select": map[string]any{"name": "Nope"}}}},
				400, "validation_error", "properties.Status.select.name", "invalid_value"},
			{"record wrong type", "POST", "/v2/pages", map[string]any{"parent": dbParent(id), "properties": map[string]any{"Points": map[string]any{"number": "ten"}}},
				400, "validation_error", "properties.Points.number", "invalid_type"},
			{"record unknown property", "POST", "/v2/pages", map[string]any{"parent": dbParent(id), "properties": map[string]any{"Nope": map[string]any{"number": 1}}},
				400, "validation_error", "properties.Nope", "invalid_value"},
			{"record computed", "POST", "/v2/pages", map[string]any{"parent": dbParent(id), "properties": map[string]any{"Made": map[string]any{"created_time": "2024-01-01T00:00:00Z"}}},
				400, "validation_error", "properties.Made", "invalid_value"},
			{"record unknown person", "POST", "/v2/pages", map[string]any{"parent": dbParent(id), "properties": map[string]any{"Owner": map[string]any{"people": []any{map[string]any{"id": "5b7c3b1e-0000-4000-8000-000000000000"}}}}},
				400, "validation_error", "properties.Owner.people", "invalid_value"},
			{"record in missing database", "POST", "/v2/pages", map[string]any{"parent": dbParent("5b7c3b1e-0000-4000-8000-000000000000"), "properties": map[string]any{}},
				404, "not_found", "", ""},
			{"filter unknown property", "POST", "/v2/databases/" + id + "/query", map[string]any{"filter": map[string]any{"property": "Nope", "number": map[string]any{"equals": 1}}},
				400, "validation_error", "filter.property", "invalid_value"},
			{"filter wrong operator", "POST", "/v2/databases/" + id + "/query", map[string]any{"filter": map[string]any{"property": "Points", "number": map[string]any{"contains": 1}}},
				400, "unsupported_filter", "filter.number.contains", ""},
			{"filter three levels", "POST", "/v2/databases/" + id + "/query", map[string]any{"filter": map[string]any{"and": []any{map[string]any{"or": []any{map[string]any{"and": []any{}}}}}}},
				400, "validation_error", "filter.and[0].or[0].and", "invalid_value"},
			{"bad page_size", "POST", "/v2/databases/" + id + "/query", map[string]any{"page_size": 101}, 400, "validation_error", "page_size", "out_of_range"},
			{"foreign cursor", "POST", "/v2/databases/" + id + "/query", map[string]any{"start_cursor": "abc"}, 400, "validation_error", "start_cursor", "invalid_value"},
			{"sort unknown", "POST", "/v2/databases/" + id + "/query", map[string]any{"sorts": []any{map[string]any{"property": "Nope", "direction": "ascending"}}},
				400, "validation_error", "sorts[0].property", "invalid_value"},
			{"filter_properties unknown", "POST", "/v2/databases/" + id + "/query", map[string]any{"filter_properties": []any{"Nope"}},
				400, "validation_error", "filter_properties[0]", "invalid_value"},
			{"too many mutations", "POST", "/v2/databases/" + id + "/mutations", map[string]any{"mutations": make([]any, 101)},
				400, "validation_error", "mutations", "too_many"},
			{"bad op", "POST", "/v2/databases/" + id + "/mutations", map[string]any{"mutations": []any{map[string]any{"op": "explode"}}},
				400, "validation_error", "mutations[0].op", "invalid_value"},
			{"unknown property item", "GET", "/v2/pages/" + pid + "/properties/nope", nil, 404, "not_found", "", ""},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				r := e.do(c.method, c.path, e.full, c.body)
				if c.reason == "" {
					r.wantError(t, c.status, c.code, c.at)
					return
				}
				wantDetail(t, r, c.status, c.code, c.at, c.reason)
			})
		}
	})
}

// databaseCases are the conformance cases of the database routes (openapi_test.go).
func databaseCases(t testing.TB, e *env, unknown string) []conformanceCase {
	t.Helper()
	pid, db := e.newDatabase(t, taskSchema())
	id := db["id"].(string)
	rec := e.record(t, id, map[string]any{"Name": []any{txt("One")}, "Status": map[string]any{"select": map[string]any{"name": "Todo"}},
		"Owner": map[string]any{"people": []any{map[string]any{"id": e.owner.ID}}}})
	e.record(t, id, map[string]any{"Name": []any{txt("Two")}})
	rid := rec["id"].(string)
	loose := e.mkPage(t, e.full, pageParent(pid), "Loose")
	// A top-level database, so that the workspace listings hold one.
	wantOK(t, e.do("POST", "/v2/databases", e.full, map[string]any{"parent": wsParent, "title": []any{txt("Top")},
		"properties": map[string]any{"Name": map[string]any{"title": map[string]any{}}}}), http.StatusOK)
	return []conformanceCase{
		{name: "create database", op: "create-database", method: "POST", path: "/v2/databases", token: e.full, status: 200,
			body: `{"parent":{"page_id":"` + pid + `"},"title":[{"text":{"content":"D"}}],"properties":{"Name":{"title":{}},"S":{"status":{}},"R":{"relation":{"database_id":"` + id + `"}}}}`},
		{name: "create database invalid", op: "create-database", method: "POST", path: "/v2/databases", token: e.full, status: 400,
			body: `{"parent":{"page_id":"` + pid + `"},"properties":{}}`, semantic: true},
		{name: "create database without token", op: "create-database", method: "POST", path: "/v2/databases", status: 401, body: `{"parent":{"page_id":"` + pid + `"},"properties":{}}`},
		{name: "database", op: "retrieve-database", path: "/v2/databases/" + id, token: e.full, status: 200},
		{name: "unknown database", op: "retrieve-database", path: "/v2/databases/" + unknown, token: e.full, status: 404},
		{name: "database without token", op: "retrieve-database", path: "/v2/databases/" + id, status: 401},
		{name: "update database", op: "update-database", method: "PATCH", path: "/v2/databases/" + id, token: e.full, status: 200,
			body: `{"description":[{"text":{"content":"About"}}],"properties":{"Extra":{"email":{}}}}`},
		{name: "update database stale", op: "update-database", method: "PATCH", path: "/v2/databases/" + id, token: e.full, status: 409,
			body: `{"is_inline":true}`, headers: []string{"If-Match", `W/"999"`}},
		{name: "update database without token", op: "update-database", method: "PATCH", path: "/v2/databases/" + id, status: 401, body: `{}`},
		{name: "query", op: "query-database", method: "POST", path: "/v2/databases/" + id + "/query", token: e.full, status: 200,
			body: `{"filter":{"property":"Status","select":{"equals":"Todo"}},"sorts":[{"property":"Name","direction":"ascending"}]}`},
		{name: "query first page", op: "query-database", method: "POST", path: "/v2/databases/" + id + "/query", token: e.full, status: 200,
			body: `{"page_size":1}`},
		{name: "query without body", op: "query-database", method: "POST", path: "/v2/databases/" + id + "/query", token: e.full, status: 200},
		{name: "query invalid", op: "query-database", method: "POST", path: "/v2/databases/" + id + "/query", token: e.full, status: 400,
			body: `{"filter":{"property":"Nope","checkbox":{"equals":true}}}`, semantic: true},
		{name: "query unsupported filter", op: "query-database", method: "POST", path: "/v2/databases/" + id + "/query", token: e.full, status: 400,
			body: `{"filter":{"property":"Points","number":{"frobnicate":1}}}`, semantic: true},
		{name: "query too many sorts", op: "query-database", method: "POST", path: "/v2/databases/" + id + "/query", token: e.full, status: 400,
			body: `{"sorts":[` + strings.Repeat(`{"property":"Name","direction":"ascending"},`, 100) + `{"property":"Name","direction":"ascending"}]}`, semantic: true},
		{name: "query without token", op: "query-database", method: "POST", path: "/v2/databases/" + id + "/query", status: 401, body: `{}`},
		{name: "mutations", op: "mutate-database", method: "POST", path: "/v2/databases/" + id + "/mutations", token: e.full, status: 200,
			body: `{"mutations":[{"op":"create","properties":{"Name":[{"text":{"content":"M"}}]}},{"op":"update","page_id":"` + rid + `","properties":{"Points":{"number":3}}}]}`},
		{name: "mutations invalid", op: "mutate-database", method: "POST", path: "/v2/databases/" + id + "/mutations", token: e.full, status: 400,
			body: `{"mutations":[{"op":"update","page_id":"` + rid + `","properties":{"Points":{"number":"x"}}}]}`, semantic: true},
		{name: "mutations without token", op: "mutate-database", method: "POST", path: "/v2/databases/" + id + "/mutations", status: 401,
			body: `{"mutations":[{"op":"trash","page_id":"` + rid + `"}]}`},
		{name: "property item", op: "retrieve-page-property", path: "/v2/pages/" + rid + "/properties/title", token: e.full, status: 200},
		{name: "property item value", op: "retrieve-page-property", path: "/v2/pages/" + rid + "/properties/Status", token: e.full, status: 200},
		{name: "property item without token", op: "retrieve-page-property", path: "/v2/pages/" + rid + "/properties/title", status: 401},
		// The move answer's two shapes: a page that became a record, a database (last: they move).
		{name: "move page into database", op: "move-page", method: "PATCH", path: "/v2/pages/" + loose + "/move", token: e.full, status: 200,
			body: `{"parent":{"database_id":"` + id + `"},"after":null}`},
		{name: "move database", op: "move-page", method: "PATCH", path: "/v2/pages/" + id + "/move", token: e.full, status: 200,
			body: `{"parent":{"workspace":true},"before":null}`},
	}
}

func TestWorkspaceListsDatabases(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, st *store.Store) {
		e := newEnv(t, st)
		r := e.do("POST", "/v2/databases", e.full, map[string]any{"parent": wsParent, "title": []any{txt("Top")},
			"properties": map[string]any{"Name": map[string]any{"title": map[string]any{}}}})
		wantOK(t, r, http.StatusOK)
		e.record(t, r.body["id"].(string), map[string]any{"Name": []any{txt("rec")}})
		top := e.do("GET", "/v2/workspace/pages", e.full, nil)
		wantOK(t, top, http.StatusOK)
		res := top.body["team"].(map[string]any)["results"].([]any)
		if len(res) != 1 || res[0].(map[string]any)["type"] != "database" || res[0].(map[string]any)["page_type"] != "database" ||
			res[0].(map[string]any)["title"] != "Top" || res[0].(map[string]any)["has_children"] != true {
			t.Fatalf("top level = %s", top.raw)
		}
		recent := e.do("GET", "/v2/workspace/pages/recent", e.full, nil)
		var kinds []string
		for _, x := range recent.body["results"].([]any) {
			x := x.(map[string]any)
			kinds = append(kinds, x["object"].(string))
			if x["object"] == "page" && x["properties"].(map[string]any)["Name"] == nil {
				t.Fatalf("record read without its properties: %s", recent.raw)
			}
		}
		if !cmp.Equal(kinds, []string{"page", "database"}) {
			t.Fatalf("recent = %v", kinds)
		}
	})
}

func TestDatabaseAccess(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, st *store.Store) {
		e := newEnv(t, st)
		pid, db := e.newDatabase(t, taskSchema())
		id := db["id"].(string)
		rid := e.record(t, id, map[string]any{"Name": []any{txt("r")}})["id"].(string)
		_, other := e.newDatabase(t, taskSchema())
		oid := other["id"].(string)
		granted := e.token(quire.AllScopes, false, pid)
		wantOK(t, e.do("GET", "/v2/databases/"+id, granted, nil), http.StatusOK)
		wantOK(t, e.do("POST", "/v2/databases/"+id+"/query", granted, `{}`), http.StatusOK)
		wantOK(t, e.do("GET", "/v2/pages/"+rid, granted, nil), http.StatusOK)
		e.do("GET", "/v2/databases/"+oid, granted, nil).wantError(t, 404, "not_found", "")
		e.do("POST", "/v2/databases/"+oid+"/query", granted, `{}`).wantError(t, 404, "not_found", "")
		// A relation to a database out of reach is refused as if it did not exist.
		wantDetail(t, e.do("PATCH", "/v2/databases/"+id, granted, map[string]any{"properties": map[string]any{
			"R": map[string]any{"relation": map[string]any{"database_id": oid}}}}), 400, "validation_error", "properties.R.relation.database_id", "invalid_value")
		readOnly := e.token([]quire.Scope{quire.PagesRead}, true)
		e.do("POST", "/v2/databases/"+id+"/query", readOnly, `{}`).wantError(t, 403, "forbidden", "")
		e.do("PATCH", "/v2/databases/"+id, e.token([]quire.Scope{quire.DatabasesRead}, true), `{}`).wantError(t, 403, "forbidden", "")
		// Records of a database in trash cannot be created.
		wantOK(t, e.do("DELETE", "/v2/databases/"+id, e.full, nil), http.StatusOK)
		wantDetail(t, e.do("POST", "/v2/pages", e.full, map[string]any{"parent": dbParent(id), "properties": map[string]any{}}),
			400, "validation_error", "parent.database_id", "archived")
	})
}
