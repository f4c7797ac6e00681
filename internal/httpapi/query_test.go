package httpapi

import (
	"fmt"
	"net/http"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/quire-dev/quire/internal/quire"
	"github.com/quire-dev/quire/internal/store"
	"github.com/quire-dev/quire/internal/testdb"
)

func TestQueryFilters(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, st *store.Store) {
		e := newEnv(t, st)
		_, db := e.newDatabase(t, taskSchema())
		id := db["id"].(string)
		mk := func(name, status string, points float64, tags []string, done bool, notes string) {
			props := map[string]any{"Name": []any{txt(name)}, "Points": map[string]any{"number": points},
				"Done": map[string]any{"checkbox": done}, "Notes": map[string]any{"rich_text": []any{txt(notes)}}}
			if status != "" {
				props["Status"] = map[string]any{"select": map[string]any{"name": status}}
			}
			var ts []any
			for _, tg := range tags {
				ts = append(ts, map[string]any{"name": tg})
			}
			if ts != nil {
				props["Tags"] = map[string]any{"multi_select": ts}
			}
			e.record(t, id, props)
		}
		mk("alpha", "Todo", 3, []string{"a"}, false, "Apple pie")
		mk("beta", "Done", 1, []string{"a", "b"}, true, "banana")
		mk("gamma", "Todo", 2, nil, true, "cherry apple")
		mk("delta", "", 5, []string{"b"}, false, "")
		cases := []struct {
			name  string
			query string
			want  []string
		}{
			{"default order is newest first", `{}`, []string{"delta", "gamma", "beta", "alpha"}},
			{"select equals, number sort", `{"filter":{"property":"Status","select":{"equals":"Todo"}},"sorts":[{"property":"Points","direction":"ascending"}]}`, []string{"gamma", "alpha"}},
			{"select is_empty", `{"filter":{"property":"Status","select":{"is_empty":true}}}`, []string{"delta"}},
			{"multi_select contains", `{"filter":{"property":"Tags","multi_select":{"contains":"b"}}}`, []string{"delta", "beta"}},
			{"multi_select does_not_contain", `{"filter":{"property":"Tags","multi_select":{"does_not_contain":"a"}}}`, []string{"delta", "gamma"}},
			{"checkbox", `{"filter":{"property":"Done","checkbox":{"equals":true}}}`, []string{"gamma", "beta"}},
			{"rich_text contains ignores case", `{"filter":{"property":"Notes","rich_text":{"contains":"APPLE"}}}`, []string{"gamma", "alpha"}},
			{"title starts_with", `{"filter":{"property":"title","title":{"starts_with":"g"}}}`, []string{"gamma"}},
			{"number range and", `{"filter":{"and":[{"property":"Points","number":{"greater_than":1}},{"property":"Points","number":{"less_than_or_equal_to":3}}]}}`, []string{"gamma", "alpha"}},
			{"or two levels", `{"filter":{"or":[{"property":"Status","select":{"equals":"Done"}},{"and":[{"property":"Done","checkbox":{"equals":false}},{"property":"Points","number":{"greater_than":4}}]}]}}`, []string{"delta", "beta"}},
			{"timestamp created_time", `{"filter":{"timestamp":"created_time","created_time":{"after":"2000-01-01"}}}`, []string{"delta", "gamma", "beta", "alpha"}},
			{"timestamp past_week", `{"filter":{"timestamp":"last_edited_time","last_edited_time":{"past_week":{}}}}`, []string{"delta", "gamma", "beta", "alpha"}},
			{"sort by title descending", `{"sorts":[{"property":"Name","direction":"descending"}]}`, []string{"gamma", "delta", "beta", "alpha"}},
			{"two sorts", `{"sorts":[{"property":"Done","direction":"descending"},{"property":"Points","direction":"ascending"}]}`, []string{"beta", "gamma", "alpha", "delta"}},
			{"sort by created_time ascending", `{"sorts":[{"timestamp":"created_time","direction":"ascending"}]}`, []string{"alpha", "beta", "gamma", "delta"}},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				r := e.do("POST", "/v2/databases/"+id+"/query", e.full, c.query)
				wantOK(t, r, http.StatusOK)
				if got := titles(r); !cmp.Equal(got, c.want) {
					t.Fatalf("got %v, want %v", got, c.want)
				}
			})
		}
		// filter_properties keeps only the named properties.
		r := e.do("POST", "/v2/databases/"+id+"/query", e.full, `{"filter_properties":["title","Points"],"page_size":1}`)
		wantOK(t, r, http.StatusOK)
		props := r.body["results"].([]any)[0].(map[string]any)["properties"].(map[string]any)
		if len(props) != 2 || props["Name"] == nil || props["Points"] == nil {
			t.Fatalf("filter_properties: %v", props)
		}
		// Trashed records leave the query, and come back when restored.
		gamma := e.do("POST", "/v2/databases/"+id+"/query", e.full, `{"filter":{"property":"title","title":{"equals":"gamma"}}}`).body["results"].([]any)[0].(map[string]any)["id"].(string)
		wantOK(t, e.do("DELETE", "/v2/pages/"+gamma, e.full, nil), http.StatusOK)
		if got := titles(e.do("POST", "/v2/databases/"+id+"/query", e.full, `{}`)); !cmp.Equal(got, []string{"delta", "beta", "alpha"}) {
			t.Fatalf("after trash: %v", got)
		}
	})
}

// TestQueryPagination walks a query page by page while records are added and changed: every
// record present and unchanged throughout is returned exactly once, in order.
func TestQueryPagination(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, st *store.Store) {
		e := newEnv(t, st)
		_, db := e.newDatabase(t, taskSchema())
		id := db["id"].(string)
		for i := range 25 {
			e.record(t, id, map[string]any{"Name": []any{txt(fmt.Sprintf("r%02d", i))}, "Points": map[string]any{"number": i % 7}})
		}
		for _, sorts := range []string{``, `,"sorts":[{"property":"Points","direction":"ascending"}]`,
			`,"sorts":[{"property":"Points","direction":"descending"},{"property":"Name","direction":"ascending"}]`} {
			t.Run(sorts, func(t *testing.T) {
				var seen []string
				cursor := ""
				for page := 0; ; page++ {
					body := `{"page_size":6` + sorts
					if cursor != "" {
						body += `,"start_cursor":"` + cursor + `"`
					}
					r := e.do("POST", "/v2/databases/"+id+"/query", e.full, body+"}")
					wantOK(t, r, http.StatusOK)
					seen = append(seen, titles(r)...)
					// New records arrive between pages.
					e.record(t, id, map[string]any{"Name": []any{txt(fmt.Sprintf("new%d", page))}, "Points": map[string]any{"number": page % 7}})
					if r.body["has_more"] != true {
						if r.body["next_cursor"] != nil {
							t.Fatalf("last page has a cursor: %s", r.raw)
						}
						break
					}
					cursor = r.body["next_cursor"].(string)
				}
				for i := range 25 {
					name := fmt.Sprintf("r%02d", i)
					if n := count(seen, name); n != 1 {
						t.Fatalf("%s seen %d times in %v", name, n, seen)
					}
				}
			})
		}
		// A cursor of one query does not fit another.
		r := e.do("POST", "/v2/databases/"+id+"/query", e.full, `{"page_size":1}`)
		cur := r.body["next_cursor"].(string)
		wantDetail(t, e.do("POST", "/v2/databases/"+id+"/query", e.full, `{"page_size":1,"start_cursor":"`+cur+`","sorts":[{"property":"Points","direction":"ascending"}]}`),
			400, "validation_error", "start_cursor", "invalid_value")
	})
}

func count(ss []string, s string) int {
	n := 0
	for _, x := range ss {
		if x == s {
			n++
		}
	}
	return n
}

func TestMutations(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, st *store.Store) {
		e := newEnv(t, st)
		_, db := e.newDatabase(t, taskSchema())
		id := db["id"].(string)
		a := e.record(t, id, map[string]any{"Name": []any{txt("a")}})["id"].(string)
		b := e.record(t, id, map[string]any{"Name": []any{txt("b")}})["id"].(string)
		path := "/v2/databases/" + id + "/mutations"
		body := map[string]any{"mutations": []any{
			map[string]any{"op": "create", "properties": map[string]any{"Name": []any{txt("c")}, "Points": map[string]any{"number": 7}},
				"children": []any{para("hello")}},
			map[string]any{"op": "update", "page_id": a, "properties": map[string]any{"Status": map[string]any{"select": map[string]any{"name": "Done"}}}},
			map[string]any{"op": "trash", "page_id": b},
		}}
		r := e.do("POST", path, e.full, body, "Idempotency-Key", "k1")
		wantOK(t, r, http.StatusOK)
		res := r.body["results"].([]any)
		if len(res) != 3 || res[1].(map[string]any)["id"] != a || res[2].(map[string]any)["in_trash"] != true ||
			res[0].(map[string]any)["properties"].(map[string]any)["Points"].(map[string]any)["number"] != 7.0 {
			t.Fatalf("mutations = %s", r.raw)
		}
		c := res[0].(map[string]any)["id"].(string)
		kids := e.do("GET", "/v2/blocks/"+c+"/children", e.full, nil)
		if len(kids.body["results"].([]any)) != 1 {
			t.Fatalf("created record's content = %s", kids.raw)
		}
		// The same key and body replays without a second effect; another body conflicts.
		again := e.do("POST", path, e.full, body, "Idempotency-Key", "k1")
		if again.header.Get("Idempotent-Replayed") != "true" || !slices.Equal(again.raw, r.raw) {
			t.Fatalf("replay = %s", again.raw)
		}
		e.do("POST", path, e.full, map[string]any{"mutations": []any{map[string]any{"op": "trash", "page_id": a}}}, "Idempotency-Key", "k1").
			wantError(t, 409, "idempotency_conflict", "")
		if got := titles(e.do("POST", "/v2/databases/"+id+"/query", e.full, `{}`)); !cmp.Equal(got, []string{"c", "a"}) {
			t.Fatalf("records = %v", got)
		}
		// One bad operation: 400 with every bad path, nothing applied.
		bad := map[string]any{"mutations": []any{
			map[string]any{"op": "create", "properties": map[string]any{"Name": []any{txt("d")}}},
			map[string]any{"op": "update", "page_id": a, "properties": map[string]any{"Status": map[string]any{"select": map[string]any{"name": "Nope"}}}},
			map[string]any{"op": "restore", "page_id": b},
			map[string]any{"op": "update", "page_id": "5b7c3b1e-0000-4000-8000-000000000000", "properties": map[string]any{}},
			map[string]any{"op": "update", "page_id": a, "properties": map[string]any{"Points": map[string]any{"number": "x"}}},
		}}
		br := e.do("POST", path, e.full, bad)
		wantDetail(t, br, 400, "validation_error", "mutations[1].properties.Status.select.name", "invalid_value")
		wantDetail(t, br, 400, "validation_error", "mutations[3].page_id", "invalid_value")
		wantDetail(t, br, 400, "validation_error", "mutations[4].properties.Points.number", "invalid_type")
		if got := titles(e.do("POST", "/v2/databases/"+id+"/query", e.full, `{}`)); !cmp.Equal(got, []string{"c", "a"}) {
			t.Fatalf("records after a failed batch = %v", got)
		}
		// Restore brings b back; a record of another database is refused.
		wantOK(t, e.do("POST", path, e.full, map[string]any{"mutations": []any{map[string]any{"op": "restore", "page_id": b}}}), http.StatusOK)
		if got := titles(e.do("POST", "/v2/databases/"+id+"/query", e.full, `{}`)); !cmp.Equal(got, []string{"c", "b", "a"}) {
			t.Fatalf("after restore = %v", got)
		}
		_, other := e.newDatabase(t, taskSchema())
		stranger := e.record(t, other["id"].(string), map[string]any{})["id"].(string)
		wantDetail(t, e.do("POST", path, e.full, map[string]any{"mutations": []any{map[string]any{"op": "trash", "page_id": stranger}}}),
			400, "validation_error", "mutations[0].page_id", "invalid_value")
		// Two operations on one record: the second starts from the first's result, and each
		// result shows the record as its operation left it.
		twice := e.do("POST", path, e.full, map[string]any{"mutations": []any{
			map[string]any{"op": "update", "page_id": a, "properties": map[string]any{"Points": map[string]any{"number": 3}}},
			map[string]any{"op": "update", "page_id": a, "properties": map[string]any{"Status": map[string]any{"select": map[string]any{"name": "Todo"}}}},
		}})
		wantOK(t, twice, http.StatusOK)
		var got []map[string]any
		for _, x := range twice.body["results"].([]any) {
			props := x.(map[string]any)["properties"].(map[string]any)
			got = append(got, map[string]any{"points": props["Points"].(map[string]any)["number"],
				"status": props["Status"].(map[string]any)["select"].(map[string]any)["name"]})
		}
		if want := []map[string]any{{"points": 3.0, "status": "Done"}, {"points": 3.0, "status": "Todo"}}; !cmp.Equal(got, want) {
			t.Fatalf("two updates of one record = %v, want %v", got, want)
		}
		if again := e.do("GET", "/v2/pages/"+a, e.full, nil); again.body["properties"].(map[string]any)["Points"].(map[string]any)["number"] != 3.0 {
			t.Fatalf("record after two updates = %s", again.raw)
		}
		// Trash, restore and update one record in one batch: each operation sees the previous one's
		// trash state and version.
		tru := e.do("POST", path, e.full, map[string]any{"mutations": []any{
			map[string]any{"op": "trash", "page_id": b},
			map[string]any{"op": "restore", "page_id": b},
			map[string]any{"op": "update", "page_id": b, "properties": map[string]any{"Points": map[string]any{"number": 9}}},
		}})
		wantOK(t, tru, http.StatusOK)
		var trash []any
		for _, x := range tru.body["results"].([]any) {
			trash = append(trash, x.(map[string]any)["in_trash"])
		}
		if !cmp.Equal(trash, []any{true, false, false}) {
			t.Fatalf("trash, restore, update: in_trash = %v", trash)
		}
		if got := e.do("GET", "/v2/pages/"+b, e.full, nil); got.body["in_trash"] != false ||
			got.body["properties"].(map[string]any)["Points"].(map[string]any)["number"] != 9.0 {
			t.Fatalf("record after trash, restore, update = %s", got.raw)
		}
		// Scopes: mutations need databases.write and pages.write.
		noPages := e.token([]quire.Scope{quire.DatabasesWrite, quire.DatabasesRead}, true)
		e.do("POST", path, noPages, map[string]any{"mutations": []any{map[string]any{"op": "trash", "page_id": a}}}).wantError(t, 403, "forbidden", "")
	})
}

// TestMutationsIndexValues: the rows a batch writes for its records, gathered and written at its
// end, are what filters and sorts read afterwards, the same as single writes leave: a record
// changed twice keeps its last values, a cleared value leaves no row, new records get the next
// numbers in the batch's order.
func TestMutationsIndexValues(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, st *store.Store) {
		e := newEnv(t, st)
		_, db := e.newDatabase(t, taskSchema())
		id := db["id"].(string)
		num := func(f float64) map[string]any { return map[string]any{"number": f} }
		status := func(s string) map[string]any { return map[string]any{"select": map[string]any{"name": s}} }
		a := e.record(t, id, map[string]any{"Name": []any{txt("a")}, "Points": num(1), "Status": status("Todo")})["id"].(string)
		b := e.record(t, id, map[string]any{"Name": []any{txt("b")}, "Points": num(2)})["id"].(string)
		r := e.do("POST", "/v2/databases/"+id+"/mutations", e.full, map[string]any{"mutations": []any{
			map[string]any{"op": "update", "page_id": a, "properties": map[string]any{"Points": num(8), "Status": status("Done")}},
			map[string]any{"op": "create", "properties": map[string]any{"Name": []any{txt("c")}, "Points": num(5), "Tags": map[string]any{"multi_select": []any{map[string]any{"name": "a"}, map[string]any{"name": "b"}}}}},
			map[string]any{"op": "update", "page_id": b, "properties": map[string]any{"Points": map[string]any{"number": nil}, "Status": status("Todo")}},
			map[string]any{"op": "update", "page_id": a, "properties": map[string]any{"Points": num(3), "Name": []any{txt("a2")}}},
			map[string]any{"op": "create", "properties": map[string]any{"Name": []any{txt("d")}, "Status": status("Done")}},
		}})
		wantOK(t, r, http.StatusOK)
		var keys []any
		for _, x := range r.body["results"].([]any) {
			keys = append(keys, x.(map[string]any)["properties"].(map[string]any)["Key"].(map[string]any)["unique_id"].(map[string]any)["number"])
		}
		if want := []any{1.0, 3.0, 2.0, 1.0, 4.0}; !cmp.Equal(keys, want) {
			t.Errorf("unique_id numbers = %v, want %v", keys, want)
		}
		for _, c := range []struct {
			query string
			want  []string
		}{
			{`{"filter":{"property":"Points","number":{"is_not_empty":true}},"sorts":[{"property":"Points","direction":"ascending"}]}`, []string{"a2", "c"}},
			{`{"filter":{"property":"Points","number":{"greater_than":2}},"sorts":[{"property":"Points","direction":"descending"}]}`, []string{"c", "a2"}},
			{`{"filter":{"property":"Points","number":{"is_empty":true}}}`, []string{"d", "b"}},
			{`{"filter":{"property":"Status","select":{"equals":"Done"}}}`, []string{"d", "a2"}},
			{`{"filter":{"property":"Status","select":{"equals":"Todo"}}}`, []string{"b"}},
			{`{"filter":{"property":"Tags","multi_select":{"contains":"b"}}}`, []string{"c"}},
			{`{"filter":{"property":"title","title":{"starts_with":"a"}}}`, []string{"a2"}},
			{`{"sorts":[{"property":"Key","direction":"descending"}]}`, []string{"d", "c", "b", "a2"}},
		} {
			if got := titles(e.do("POST", "/v2/databases/"+id+"/query", e.full, c.query)); !cmp.Equal(got, c.want) {
				t.Errorf("%s: %v, want %v", c.query, got, c.want)
			}
		}
		// The numbers go on after the batch's: a single create takes the next one.
		next := e.record(t, id, map[string]any{"Name": []any{txt("e")}})
		if n := next["properties"].(map[string]any)["Key"].(map[string]any)["unique_id"].(map[string]any)["number"]; n != 5.0 {
			t.Errorf("number after the batch = %v, want 5", n)
		}
	})
}
