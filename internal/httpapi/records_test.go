package httpapi

import (
	"fmt"
	"net/http"
	"slices"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/quire-dev/quire/internal/store"
	"github.com/quire-dev/quire/internal/testdb"
)

// optionID is the id of option name of select-like property prop of database db.
func optionID(t testing.TB, db map[string]any, prop, name string) string {
	t.Helper()
	p := db["properties"].(map[string]any)[prop].(map[string]any)
	for _, o := range p[p["type"].(string)].(map[string]any)["options"].([]any) {
		if o.(map[string]any)["name"] == name {
			return o.(map[string]any)["id"].(string)
		}
	}
	t.Fatalf("no option %s in %s", name, prop)
	return ""
}

func propID(db map[string]any, prop string) string {
	return db["properties"].(map[string]any)[prop].(map[string]any)["id"].(string)
}

func TestRecordValues(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, st *store.Store) {
		e := newEnv(t, st)
		_, db := e.newDatabase(t, taskSchema())
		id := db["id"].(string)
		todo := optionID(t, db, "Status", "Todo")
		tagB := optionID(t, db, "Tags", "b")
		rec := e.record(t, id, map[string]any{
			"Name":   []any{txt("Write tests")},
			"Status": map[string]any{"select": map[string]any{"name": "Todo"}},
			"Tags":   map[string]any{"multi_select": []any{map[string]any{"name": "b"}}},
			"Points": map[string]any{"number": 2.5},
			"Notes":  map[string]any{"rich_text": []any{txt("n")}},
			"Done":   map[string]any{"checkbox": true},
			"Due":    map[string]any{"date": map[string]any{"start": "2024-05-10"}},
			"Link":   map[string]any{"url": "https://example.com"},
			"Owner":  map[string]any{"people": []any{map[string]any{"id": e.owner.ID}}},
		})
		rid := rec["id"].(string)
		made := rec["created_time"]
		want := jsonValue(t, `{
			"Name": {"id":"title","type":"title","title":[%s]},
			"Status": {"id":%q,"type":"select","select":{"id":%q,"name":"Todo","color":"red"}},
			"Tags": {"id":%q,"type":"multi_select","multi_select":[{"id":%q,"name":"b","color":"default"}]},
			"Points": {"id":%q,"type":"number","number":2.5},
			"Notes": {"id":%q,"type":"rich_text","rich_text":[%s]},
			"Done": {"id":%q,"type":"checkbox","checkbox":true},
			"Due": {"id":%q,"type":"date","date":{"start":"2024-05-10","end":null,"time_zone":null}},
			"Link": {"id":%q,"type":"url","url":"https://example.com"},
			"Owner": {"id":%q,"type":"people","people":[{"object":"user","id":%q}]},
			"Key": {"id":%q,"type":"unique_id","unique_id":{"prefix":"TASK","number":1}},
			"Made": {"id":%q,"type":"created_time","created_time":%q}
		}`, mustJSON(t, txtOut("Write tests")), propID(db, "Status"), todo, propID(db, "Tags"), tagB, propID(db, "Points"),
			propID(db, "Notes"), mustJSON(t, txtOut("n")), propID(db, "Done"), propID(db, "Due"), propID(db, "Link"),
			propID(db, "Owner"), e.owner.ID, propID(db, "Key"), propID(db, "Made"), made)
		if diff := cmp.Diff(want, rec["properties"]); diff != "" {
			t.Fatalf("record properties (-want +got):\n%s", diff)
		}
		if rec["parent"].(map[string]any)["database_id"] != id {
			t.Fatalf("parent = %v", rec["parent"])
		}
		// GET reads the same; the second record gets the next number.
		got := e.do("GET", "/v2/pages/"+rid, e.full, nil)
		if diff := cmp.Diff(rec["properties"], got.body["properties"]); diff != "" {
			t.Fatalf("GET differs:\n%s", diff)
		}
		second := e.record(t, id, map[string]any{})
		if n := second["properties"].(map[string]any)["Key"].(map[string]any)["unique_id"].(map[string]any)["number"]; n != 2.0 {
			t.Fatalf("second number = %v", n)
		}
		// PATCH changes some values, clears one, keeps the others.
		r := e.do("PATCH", "/v2/pages/"+rid, e.full, map[string]any{"properties": map[string]any{
			"Points": map[string]any{"number": nil}, "Status": map[string]any{"select": map[string]any{"name": "Done"}}}})
		wantOK(t, r, http.StatusOK)
		props := r.body["properties"].(map[string]any)
		if props["Points"].(map[string]any)["number"] != nil || props["Status"].(map[string]any)["select"].(map[string]any)["name"] != "Done" ||
			props["Done"].(map[string]any)["checkbox"] != true {
			t.Fatalf("after PATCH: %s", r.raw)
		}
		// A property item, and a list for a title.
		item := e.do("GET", "/v2/pages/"+rid+"/properties/"+propID(db, "Status"), e.full, nil)
		wantOK(t, item, http.StatusOK)
		if item.body["object"] != "property_item" || item.body["select"].(map[string]any)["name"] != "Done" {
			t.Fatalf("property item = %s", item.raw)
		}
		titles := e.do("GET", "/v2/pages/"+rid+"/properties/title", e.full, nil)
		res := titles.body["results"].([]any)
		if titles.body["object"] != "list" || len(res) != 1 || res[0].(map[string]any)["title"].(map[string]any)["plain_text"] != "Write tests" {
			t.Fatalf("title items = %s", titles.raw)
		}
		// Removing a property removes it from every record; the filter on it is then unknown.
		wantOK(t, e.do("PATCH", "/v2/databases/"+id, e.full, map[string]any{"properties": map[string]any{"Status": nil}}), http.StatusOK)
		after := e.do("GET", "/v2/pages/"+rid, e.full, nil)
		if _, ok := after.body["properties"].(map[string]any)["Status"]; ok {
			t.Fatalf("removed property still read: %s", after.raw)
		}
		wantDetail(t, e.do("POST", "/v2/databases/"+id+"/query", e.full, map[string]any{"filter": map[string]any{"property": propID(db, "Status"), "select": map[string]any{"equals": "Done"}}}),
			400, "validation_error", "filter.property", "invalid_value")
		wantDetail(t, e.do("PATCH", "/v2/pages/"+rid, e.full, map[string]any{"properties": map[string]any{"Status": map[string]any{"select": map[string]any{"name": "Done"}}}}),
			400, "validation_error", "properties.Status", "invalid_value")
		// A property added back under the same name starts empty.
		wantOK(t, e.do("PATCH", "/v2/databases/"+id, e.full, map[string]any{"properties": map[string]any{"Status": map[string]any{"select": map[string]any{}}}}), http.StatusOK)
		again := e.do("GET", "/v2/pages/"+rid, e.full, nil)
		if v := again.body["properties"].(map[string]any)["Status"].(map[string]any)["select"]; v != nil {
			t.Fatalf("re-added property has a value: %v", v)
		}
	})
}

func TestRecordSchemaChanges(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, st *store.Store) {
		e := newEnv(t, st)
		_, db := e.newDatabase(t, taskSchema())
		id := db["id"].(string)
		for i := range 3 {
			e.record(t, id, map[string]any{"Name": []any{txt(fmt.Sprintf("r%d", i))}, "Notes": map[string]any{"rich_text": []any{txt(fmt.Sprint(10 * i))}}})
		}
		// Notes becomes a number: values convert and the number filter finds them.
		wantOK(t, e.do("PATCH", "/v2/databases/"+id, e.full, map[string]any{"properties": map[string]any{"Notes": map[string]any{"number": map[string]any{}}}}), http.StatusOK)
		q := e.do("POST", "/v2/databases/"+id+"/query", e.full, map[string]any{"filter": map[string]any{"property": "Notes", "number": map[string]any{"greater_than": 5}},
			"sorts": []any{map[string]any{"property": "Notes", "direction": "descending"}}})
		wantOK(t, q, http.StatusOK)
		if got := titles(q); !cmp.Equal(got, []string{"r2", "r1"}) {
			t.Fatalf("after retype: %v", got)
		}
		// Options reordered: the select sort follows the schema's order.
		_, db2 := e.newDatabase(t, taskSchema())
		id2 := db2["id"].(string)
		e.record(t, id2, map[string]any{"Name": []any{txt("todo")}, "Status": map[string]any{"select": map[string]any{"name": "Todo"}}})
		e.record(t, id2, map[string]any{"Name": []any{txt("done")}, "Status": map[string]any{"select": map[string]any{"name": "Done"}}})
		sortBy := map[string]any{"sorts": []any{map[string]any{"property": "Status", "direction": "ascending"}}}
		if got := titles(e.do("POST", "/v2/databases/"+id2+"/query", e.full, sortBy)); !cmp.Equal(got, []string{"todo", "done"}) {
			t.Fatalf("before reorder: %v", got)
		}
		wantOK(t, e.do("PATCH", "/v2/databases/"+id2, e.full, map[string]any{"properties": map[string]any{"Status": map[string]any{"select": map[string]any{
			"options": []any{map[string]any{"name": "Done"}, map[string]any{"name": "Todo"}}}}}}), http.StatusOK)
		if got := titles(e.do("POST", "/v2/databases/"+id2+"/query", e.full, sortBy)); !cmp.Equal(got, []string{"done", "todo"}) {
			t.Fatalf("after reorder: %v", got)
		}
		// A unique_id added later numbers the existing records.
		wantOK(t, e.do("PATCH", "/v2/databases/"+id2, e.full, map[string]any{"properties": map[string]any{"Key": nil}}), http.StatusOK)
		wantOK(t, e.do("PATCH", "/v2/databases/"+id2, e.full, map[string]any{"properties": map[string]any{"Num": map[string]any{"unique_id": map[string]any{}}}}), http.StatusOK)
		q = e.do("POST", "/v2/databases/"+id2+"/query", e.full, map[string]any{"filter": map[string]any{"property": "Num", "unique_id": map[string]any{"equals": 2}}})
		if got := titles(q); !cmp.Equal(got, []string{"done"}) {
			t.Fatalf("unique_id filter: %v", got)
		}
	})
}

// titles lists the plain titles of a query answer's records.
func titles(r *response) []string {
	var out []string
	res, _ := r.body["results"].([]any)
	for _, x := range res {
		for _, v := range x.(map[string]any)["properties"].(map[string]any) {
			v := v.(map[string]any)
			if v["type"] == "title" {
				s := ""
				for _, it := range v["title"].([]any) {
					s += it.(map[string]any)["plain_text"].(string)
				}
				out = append(out, s)
			}
		}
	}
	return out
}

func TestRecordRelations(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, st *store.Store) {
		e := newEnv(t, st)
		pid, people := e.newDatabase(t, map[string]any{"Name": map[string]any{"title": map[string]any{}}})
		pdb := people["id"].(string)
		r := e.do("POST", "/v2/databases", e.full, map[string]any{"parent": pageParent(pid), "title": []any{txt("Projects")},
			"properties": map[string]any{"Name": map[string]any{"title": map[string]any{}},
				"Members": map[string]any{"relation": map[string]any{"database_id": pdb, "dual_property": map[string]any{}}},
				"Ref":     map[string]any{"relation": map[string]any{"database_id": pdb, "single_property": map[string]any{}}}}})
		wantOK(t, r, http.StatusOK)
		proj := r.body["id"].(string)
		rel := r.body["properties"].(map[string]any)["Members"].(map[string]any)["relation"].(map[string]any)
		synced := rel["dual_property"].(map[string]any)["synced_property_id"].(string)
		// The other side got the synced property.
		other := e.do("GET", "/v2/databases/"+pdb, e.full, nil)
		back := other.body["properties"].(map[string]any)["Related to Projects (Members)"].(map[string]any)
		if back["id"] != synced || back["relation"].(map[string]any)["database_id"] != proj {
			t.Fatalf("synced property = %s", other.raw)
		}
		ada := e.record(t, pdb, map[string]any{"Name": []any{txt("Ada")}})["id"].(string)
		bob := e.record(t, pdb, map[string]any{"Name": []any{txt("Bob")}})["id"].(string)
		p1 := e.record(t, proj, map[string]any{"Name": []any{txt("P1")}, "Members": map[string]any{"relation": []any{map[string]any{"id": ada}, map[string]any{"id": bob}}}})["id"].(string)
		relOf := func(page, prop string) []string {
			g := e.do("GET", "/v2/pages/"+page, e.full, nil)
			var ids []string
			for _, x := range g.body["properties"].(map[string]any)[prop].(map[string]any)["relation"].([]any) {
				ids = append(ids, x.(map[string]any)["id"].(string))
			}
			return ids
		}
		if got := relOf(ada, "Related to Projects (Members)"); !cmp.Equal(got, []string{p1}) {
			t.Fatalf("Ada's side = %v", got)
		}
		// Removing Bob from P1 removes P1 from Bob; setting it from Ada's side adds it to P1.
		wantOK(t, e.do("PATCH", "/v2/pages/"+p1, e.full, map[string]any{"properties": map[string]any{"Members": map[string]any{"relation": []any{map[string]any{"id": ada}}}}}), http.StatusOK)
		if got := relOf(bob, "Related to Projects (Members)"); got != nil {
			t.Fatalf("Bob's side = %v", got)
		}
		p2 := e.record(t, proj, map[string]any{"Name": []any{txt("P2")}})["id"].(string)
		wantOK(t, e.do("PATCH", "/v2/pages/"+bob, e.full, map[string]any{"properties": map[string]any{"Related to Projects (Members)": map[string]any{"relation": []any{map[string]any{"id": p2}}}}}), http.StatusOK)
		if got := relOf(p2, "Members"); !cmp.Equal(got, []string{bob}) {
			t.Fatalf("P2 members = %v", got)
		}
		// The relation filter works on both sides.
		q := e.do("POST", "/v2/databases/"+proj+"/query", e.full, map[string]any{"filter": map[string]any{"property": "Members", "relation": map[string]any{"contains": ada}}})
		if got := titles(q); !cmp.Equal(got, []string{"P1"}) {
			t.Fatalf("relation contains: %v", got)
		}
		// A related page must be a record of the related database.
		wantDetail(t, e.do("PATCH", "/v2/pages/"+p1, e.full, map[string]any{"properties": map[string]any{"Ref": map[string]any{"relation": []any{map[string]any{"id": p2}}}}}),
			400, "validation_error", "properties.Ref.relation", "invalid_value")
		// Removing the dual property leaves the other side a single relation.
		wantOK(t, e.do("PATCH", "/v2/databases/"+proj, e.full, map[string]any{"properties": map[string]any{"Members": nil}}), http.StatusOK)
		other = e.do("GET", "/v2/databases/"+pdb, e.full, nil)
		cfg := other.body["properties"].(map[string]any)["Related to Projects (Members)"].(map[string]any)["relation"].(map[string]any)
		if cfg["type"] != "single_property" {
			t.Fatalf("other side after removal = %v", cfg)
		}
	})
}

// TestRecordNumbersConcurrent creates records from many clients at once: every record gets its
// own number, with none skipped.
func TestRecordNumbersConcurrent(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, st *store.Store) {
		e := newEnv(t, st)
		_, db := e.newDatabase(t, taskSchema())
		id := db["id"].(string)
		const clients, each = 8, 4
		nums := make(chan float64, clients*each)
		var wg sync.WaitGroup
		for range clients {
			wg.Go(func() {
				for range each {
					r := e.do("POST", "/v2/pages", e.full, map[string]any{"parent": dbParent(id), "properties": map[string]any{}})
					if r.status != http.StatusOK {
						t.Errorf("create: %d %s", r.status, r.raw)
						return
					}
					nums <- r.body["properties"].(map[string]any)["Key"].(map[string]any)["unique_id"].(map[string]any)["number"].(float64)
				}
			})
		}
		wg.Wait()
		close(nums)
		var got []float64
		for n := range nums {
			got = append(got, n)
		}
		slices.Sort(got)
		for i, n := range got {
			if n != float64(i+1) {
				t.Fatalf("numbers = %v", got)
			}
		}
		if len(got) != clients*each {
			t.Fatalf("%d records", len(got))
		}
	})
}

// TestRelationSyncConcurrent writes both sides of a dual relation at once, from records of
// either database: every write succeeds (no deadlock between the two databases' locks) and
// both sides agree at the end.
func TestRelationSyncConcurrent(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, st *store.Store) {
		e := newEnv(t, st)
		pid, left := e.newDatabase(t, map[string]any{"Name": map[string]any{"title": map[string]any{}}})
		lid := left["id"].(string)
		r := e.do("POST", "/v2/databases", e.full, map[string]any{"parent": pageParent(pid), "title": []any{txt("Right")},
			"properties": map[string]any{"Name": map[string]any{"title": map[string]any{}},
				"Left": map[string]any{"relation": map[string]any{"database_id": lid}}}})
		wantOK(t, r, http.StatusOK)
		rid := r.body["id"].(string)
		const n = 6
		var ls, rs []string
		for i := range n {
			ls = append(ls, e.record(t, lid, map[string]any{"Name": []any{txt(fmt.Sprint("l", i))}})["id"].(string))
			rs = append(rs, e.record(t, rid, map[string]any{"Name": []any{txt(fmt.Sprint("r", i))}})["id"].(string))
		}
		back := "Related to Right (Left)"
		var wg sync.WaitGroup
		for i := range n {
			wg.Go(func() { // right record i → left record i
				res := e.do("PATCH", "/v2/pages/"+rs[i], e.full, map[string]any{"properties": map[string]any{"Left": map[string]any{"relation": []any{map[string]any{"id": ls[i]}}}}})
				if res.status != http.StatusOK {
					t.Errorf("right %d: %d %s", i, res.status, res.raw)
				}
			})
			wg.Go(func() { // left record i → right record (i+1) mod n
				res := e.do("PATCH", "/v2/pages/"+ls[i], e.full, map[string]any{"properties": map[string]any{back: map[string]any{"relation": []any{map[string]any{"id": rs[(i+1)%n]}}}}})
				if res.status != http.StatusOK {
					t.Errorf("left %d: %d %s", i, res.status, res.raw)
				}
			})
		}
		wg.Wait()
		// Both sides agree: every pair written on one side reads on the other.
		rel := func(page, prop string) []string {
			g := e.do("GET", "/v2/pages/"+page, e.full, nil)
			var ids []string
			for _, x := range g.body["properties"].(map[string]any)[prop].(map[string]any)["relation"].([]any) {
				ids = append(ids, x.(map[string]any)["id"].(string))
			}
			slices.Sort(ids)
			return ids
		}
		for i := range n {
			for _, l := range rel(rs[i], "Left") {
				if !slices.Contains(rel(l, back), rs[i]) {
					t.Fatalf("right %d relates to %s, which does not relate back", i, l)
				}
			}
			for _, r := range rel(ls[i], back) {
				if !slices.Contains(rel(r, "Left"), ls[i]) {
					t.Fatalf("left %d relates to %s, which does not relate back", i, r)
				}
			}
		}
	})
}
