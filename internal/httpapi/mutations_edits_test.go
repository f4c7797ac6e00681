package httpapi

import (
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/quire-dev/quire/internal/quire"
	"github.com/quire-dev/quire/internal/store"
	"github.com/quire-dev/quire/internal/testdb"
)

// TestMutationsEditsThenTrash: a batch writes its updates' node rows together at its end, but a
// trash or restore writes its record's row at once and checks its version: an update of the
// record earlier in the batch must be in the table by then, and one after it start from the
// trash's version. What the batch leaves is what reads, queries and search see.
func TestMutationsEditsThenTrash(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, st *store.Store) {
		e := newEnv(t, st)
		_, db := e.newDatabase(t, taskSchema())
		id := db["id"].(string)
		num := func(f float64) map[string]any { return map[string]any{"number": f} }
		a := e.record(t, id, map[string]any{"Name": []any{txt("alpha")}, "Points": num(1)})["id"].(string)
		b := e.record(t, id, map[string]any{"Name": []any{txt("beta")}, "Points": num(2)})["id"].(string)
		r := e.do("POST", "/v2/databases/"+id+"/mutations", e.full, map[string]any{"mutations": []any{
			map[string]any{"op": "update", "page_id": a, "properties": map[string]any{"Points": num(4), "Name": []any{txt("gamma")}}},
			map[string]any{"op": "update", "page_id": b, "properties": map[string]any{"Name": []any{txt("delta")}}},
			map[string]any{"op": "trash", "page_id": a},
			map[string]any{"op": "restore", "page_id": a},
			map[string]any{"op": "update", "page_id": a, "properties": map[string]any{"Points": num(5)}},
			map[string]any{"op": "update", "page_id": b, "properties": map[string]any{"Points": num(6)}},
		}})
		wantOK(t, r, http.StatusOK)
		type state struct {
			ID            string
			Trash, Points any
		}
		var got []state
		for _, x := range r.body["results"].([]any) {
			rec := x.(map[string]any)
			got = append(got, state{ID: rec["id"].(string), Trash: rec["in_trash"],
				Points: rec["properties"].(map[string]any)["Points"].(map[string]any)["number"]})
		}
		want := []state{{a, false, 4.0}, {b, false, 2.0}, {a, true, 4.0}, {a, false, 4.0}, {a, false, 5.0}, {b, false, 6.0}}
		if !cmp.Equal(got, want) {
			t.Fatalf("results = %+v, want %+v", got, want)
		}
		for _, c := range []struct {
			id, name string
			points   float64
		}{{a, "gamma", 5}, {b, "delta", 6}} {
			page := e.do("GET", "/v2/pages/"+c.id, e.full, nil)
			wantOK(t, page, http.StatusOK)
			if got := titles(&response{body: map[string]any{"results": []any{page.body}}}); !cmp.Equal(got, []string{c.name}) ||
				page.body["in_trash"] != false || page.body["properties"].(map[string]any)["Points"].(map[string]any)["number"] != c.points {
				t.Errorf("record %s after the batch = %s", c.name, page.raw)
			}
		}
		// The renamed titles are searched under their new words only.
		if got := e.searchIDs(t, e.full, map[string]any{"query": "gamma"}); !cmp.Equal(got, []string{a}) {
			t.Errorf("search gamma = %v, want [%s]", got, a)
		}
		if got := e.searchIDs(t, e.full, map[string]any{"query": "alpha"}); len(got) != 0 {
			t.Errorf("search alpha = %v, want none", got)
		}
		if got := titles(e.do("POST", "/v2/databases/"+id+"/query", e.full,
			`{"sorts":[{"property":"Points","direction":"descending"}]}`)); !cmp.Equal(got, []string{"delta", "gamma"}) {
			t.Errorf("records by Points = %v", got)
		}
	})
}

// TestMutationsPeopleChecked: a batch looks up each person it names once, whichever of its
// creates names them first; a person of no workspace user is reported at every create that
// names them, and nothing of the batch is written.
func TestMutationsPeopleChecked(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, st *store.Store) {
		e := newEnv(t, st)
		_, db := e.newDatabase(t, taskSchema())
		id := db["id"].(string)
		people := func(ids ...string) map[string]any {
			var out []any
			for _, p := range ids {
				out = append(out, map[string]any{"object": "user", "id": p})
			}
			return map[string]any{"people": out}
		}
		create := func(name string, owner map[string]any) map[string]any {
			return map[string]any{"op": "create", "properties": map[string]any{"Name": []any{txt(name)}, "Owner": owner}}
		}
		stranger := quire.NewID()
		r := e.do("POST", "/v2/databases/"+id+"/mutations", e.full, map[string]any{"mutations": []any{
			create("a", people(e.owner.ID)),
			create("b", people(e.owner.ID, stranger)),
			create("c", people(stranger)),
		}})
		r.wantError(t, http.StatusBadRequest, quire.CodeValidation, "")
		var paths []string
		for _, d := range r.body["details"].([]any) {
			paths = append(paths, d.(map[string]any)["path"].(string))
		}
		if want := []string{"mutations[1].properties.Owner.people", "mutations[2].properties.Owner.people"}; !cmp.Equal(paths, want) {
			t.Fatalf("detail paths = %v, want %v; body %s", paths, want, r.raw)
		}
		if got := titles(e.do("POST", "/v2/databases/"+id+"/query", e.full, `{}`)); len(got) != 0 {
			t.Fatalf("records after the failed batch = %v, want none", got)
		}
		r = e.do("POST", "/v2/databases/"+id+"/mutations", e.full, map[string]any{"mutations": []any{
			create("a", people(e.owner.ID)), create("b", people(e.owner.ID)),
		}})
		wantOK(t, r, http.StatusOK)
		for i, x := range r.body["results"].([]any) {
			got := x.(map[string]any)["properties"].(map[string]any)["Owner"].(map[string]any)["people"].([]any)
			if len(got) != 1 || got[0].(map[string]any)["id"] != e.owner.ID {
				t.Errorf("results[%d].Owner = %v, want [%s]", i, got, e.owner.ID)
			}
		}
	})
}
