package httpapi

import (
	"encoding/json"
	"net/http"
	"sort"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/quire-dev/quire/internal/quire"
	"github.com/quire-dev/quire/internal/store"
	"github.com/quire-dev/quire/internal/testdb"
)

// TestViews_ListAndTrash: the list walks in creation order with keyset cursors, a deleted
// view leaves it and reads back with in_trash true, a trashed view refuses changes until
// restored, and cursors and page sizes are checked.
func TestViews_ListAndTrash(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, st *store.Store) {
		e := newEnv(t, st)
		db := seedDatabase(t, e, "", viewSchema())
		other := seedDatabase(t, e, "", viewSchema())
		var ids []string
		for i := 0; i < 7; i++ {
			ids = append(ids, e.mkView(t, db, map[string]any{"name": "v" + string(rune('0'+i)), "type": "table"}).body["id"].(string))
		}
		for _, n := range []int{1, 2, 3, 7, 100} {
			if diff := cmp.Diff(ids, idsOf(e.walk(t, viewsPath(db), e.full, n))); diff != "" {
				t.Fatalf("walk with page_size %d (-want +got):\n%s", n, diff)
			}
		}
		for _, v := range e.walk(t, viewsPath(db), e.full, 100) {
			if _, ok := v["page_sort"]; ok {
				t.Fatalf("a listed view has page_sort: %v", v)
			}
		}
		if got := e.walk(t, viewsPath(other), e.full, 10); len(got) != 0 {
			t.Fatalf("another database lists %d views", len(got))
		}

		// A view created in the middle of a walk is not seen twice, nor any view skipped.
		first := e.do(http.MethodGet, viewsPath(db)+"?page_size=3", e.full, nil)
		wantOK(t, first, 200)
		added := e.mkView(t, db, map[string]any{"name": "late", "type": "list"}).body["id"].(string)
		second := e.do(http.MethodGet, viewsPath(db)+"?page_size=100&start_cursor="+first.body["next_cursor"].(string), e.full, nil)
		wantOK(t, second, 200)
		rest := objects(second.body["results"])
		if diff := cmp.Diff(append(append([]string{}, ids...), added), append(idsOf(objects(first.body["results"])), idsOf(rest)...)); diff != "" {
			t.Fatalf("walk across an insert (-want +got):\n%s", diff)
		}

		// DELETE: soft, hidden from the list, readable with in_trash true.
		d := e.do(http.MethodDelete, viewPath(db, ids[2]), e.full, nil)
		wantOK(t, d, 200)
		if d.body["in_trash"] != true || d.header.Get("ETag") != `W/"2"` {
			t.Fatalf("DELETE answer: %s ETag %s", d.raw, d.header.Get("ETag"))
		}
		g := e.getView(t, db, ids[2])
		if g.body["in_trash"] != true || g.body["name"] != "v2" {
			t.Fatalf("deleted view reads %s", g.raw)
		}
		want := append(append(append([]string{}, ids[:2]...), ids[3:]...), added)
		if diff := cmp.Diff(want, idsOf(e.walk(t, viewsPath(db), e.full, 2))); diff != "" {
			t.Fatalf("list after DELETE (-want +got):\n%s", diff)
		}
		// A trashed view takes no change but a restore.
		wantDetail(t, e.do(http.MethodPatch, viewPath(db, ids[2]), e.full, `{"name":"x"}`), 400, quire.CodeValidation, "in_trash", quire.ReasonArchived)
		r := e.do(http.MethodPatch, viewPath(db, ids[2]), e.full, `{"in_trash":false,"name":"back"}`)
		wantOK(t, r, 200)
		if r.body["in_trash"] != false || r.body["name"] != "back" {
			t.Fatalf("restore answer: %s", r.raw)
		}
		if got := idsOf(e.walk(t, viewsPath(db), e.full, 100)); len(got) != 8 || got[2] != ids[2] {
			t.Fatalf("restored view is not back in its place: %v", got)
		}
		// PATCH in_trash true is DELETE.
		wantOK(t, e.do(http.MethodPatch, viewPath(db, ids[0]), e.full, `{"in_trash":true}`), 200)
		if got := idsOf(e.walk(t, viewsPath(db), e.full, 100)); len(got) != 7 || got[0] != ids[1] {
			t.Fatalf("list after PATCH in_trash: %v", got)
		}

		// Pagination parameters.
		for _, tc := range []struct{ query, path string }{
			{"?page_size=0", "page_size"}, {"?page_size=101", "page_size"}, {"?start_cursor=abc", "start_cursor"},
		} {
			e.do(http.MethodGet, viewsPath(db)+tc.query, e.full, nil).wantError(t, 400, quire.CodeValidation, tc.path)
		}
		// A cursor of one database's list is refused by another's.
		c := e.do(http.MethodGet, viewsPath(db)+"?page_size=1", e.full, nil).body["next_cursor"].(string)
		e.do(http.MethodGet, viewsPath(other)+"?start_cursor="+c, e.full, nil).wantError(t, 400, quire.CodeValidation, "start_cursor")
	})
}

// TestViews_Versions: weak ETags, If-Match on PATCH (409 conflict, nothing changed), and
// concurrent PATCHes without If-Match all applied.
func TestViews_Versions(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, st *store.Store) {
		e := newEnv(t, st)
		db := seedDatabase(t, e, "", viewSchema())
		id := e.mkView(t, db, map[string]any{"name": "T", "type": "table"}).body["id"].(string)
		p := e.do(http.MethodPatch, viewPath(db, id), e.full, `{"name":"T1"}`, "If-Match", `W/"1"`)
		wantOK(t, p, 200)
		if p.header.Get("ETag") != `W/"2"` {
			t.Fatalf("ETag after PATCH = %s", p.header.Get("ETag"))
		}
		e.do(http.MethodPatch, viewPath(db, id), e.full, `{"name":"stale"}`, "If-Match", `W/"1"`).wantError(t, 409, quire.CodeConflict, "")
		g := e.getView(t, db, id)
		if g.body["name"] != "T1" || g.header.Get("ETag") != `W/"2"` {
			t.Fatalf("a conflicting PATCH changed the view: %s", g.raw)
		}
		// Validation comes before the version check (contract §2: 400 before 409).
		e.do(http.MethodPatch, viewPath(db, id), e.full, `{"type":"list"}`, "If-Match", `W/"1"`).wantError(t, 400, quire.CodeValidation, "type")
		wantOK(t, e.do(http.MethodPatch, viewPath(db, id), e.full, `{"name":"T2"}`, "If-Match", g.header.Get("ETag")), 200)

		var wg sync.WaitGroup
		errs := make(chan string, 8)
		for i := 0; i < 8; i++ {
			wg.Add(1)
			go func(i int) {
				defer wg.Done()
				if r := e.do(http.MethodPatch, viewPath(db, id), e.full, map[string]any{"config": map[string]any{"freeze_columns": i}}); r.status != 200 {
					errs <- string(r.raw)
				}
			}(i)
		}
		wg.Wait()
		close(errs)
		for msg := range errs {
			t.Errorf("concurrent PATCH failed: %s", msg)
		}
		if got := e.getView(t, db, id).header.Get("ETag"); got != `W/"11"` {
			t.Fatalf("ETag after 8 concurrent PATCHes = %s, want W/\"11\"", got)
		}
	})
}

// TestViews_Idempotency: POST and PATCH replay under the same Idempotency-Key with no second
// effect; another body under the key is idempotency_conflict.
func TestViews_Idempotency(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, st *store.Store) {
		e := newEnv(t, st)
		db := seedDatabase(t, e, "", viewSchema())
		body := `{"name":"Once","type":"board"}`
		a := e.do(http.MethodPost, viewsPath(db), e.full, body, "Idempotency-Key", "k1")
		b := e.do(http.MethodPost, viewsPath(db), e.full, body, "Idempotency-Key", "k1")
		wantOK(t, a, 200)
		wantOK(t, b, 200)
		if b.header.Get("Idempotent-Replayed") != "true" || string(a.raw) != string(b.raw) || a.header.Get("ETag") != b.header.Get("ETag") {
			t.Fatalf("replay differs: %s / %s (replayed %q)", a.raw, b.raw, b.header.Get("Idempotent-Replayed"))
		}
		if n := len(e.walk(t, viewsPath(db), e.full, 100)); n != 1 {
			t.Fatalf("views after a replayed POST = %d, want 1", n)
		}
		e.do(http.MethodPost, viewsPath(db), e.full, `{"name":"Other","type":"board"}`, "Idempotency-Key", "k1").
			wantError(t, 409, quire.CodeIdempotencyConflict, "")
		id := a.body["id"].(string)
		p1 := e.do(http.MethodPatch, viewPath(db, id), e.full, `{"name":"Twice"}`, "Idempotency-Key", "k2")
		p2 := e.do(http.MethodPatch, viewPath(db, id), e.full, `{"name":"Twice"}`, "Idempotency-Key", "k2")
		wantOK(t, p2, 200)
		if p2.header.Get("Idempotent-Replayed") != "true" || string(p1.raw) != string(p2.raw) {
			t.Fatalf("PATCH replay differs: %s / %s", p1.raw, p2.raw)
		}
		if got := e.getView(t, db, id).header.Get("ETag"); got != `W/"2"` {
			t.Fatalf("ETag after a replayed PATCH = %s, want W/\"2\"", got)
		}
	})
}

// TestViews_PageSort: page_sort holds records of the view's database, shows on the detail
// endpoint only, and is checked in batches (more ids than one statement takes).
func TestViews_PageSort(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, st *store.Store) {
		e := newEnv(t, st)
		db := seedDatabase(t, e, "", viewSchema())
		other := seedDatabase(t, e, "", viewSchema())
		recs := seedViewRecords(t, e, db, 1200)
		foreign := seedViewRecords(t, e, other, 1)[0]
		page := e.mkPage(t, e.full, wsParent, "Not a record")
		id := e.mkView(t, db, map[string]any{"name": "T", "type": "table"}).body["id"].(string)

		order := []string{recs[2], recs[0], recs[1]}
		p := e.do(http.MethodPatch, viewPath(db, id), e.full, map[string]any{"page_sort": order})
		wantOK(t, p, 200)
		if _, ok := p.body["page_sort"]; ok {
			t.Fatalf("PATCH answer has page_sort: %s", p.raw)
		}
		got := e.getView(t, db, id).body["page_sort"]
		if diff := cmp.Diff([]any{recs[2], recs[0], recs[1]}, got); diff != "" {
			t.Fatalf("page_sort (-want +got):\n%s", diff)
		}
		if v := e.walk(t, viewsPath(db), e.full, 10)[0]; v["page_sort"] != nil {
			t.Fatalf("listed view has page_sort: %v", v)
		}

		// Ids that are not records of this database, wherever they sit in a long list.
		long := append([]string{}, recs...)
		long[3], long[700], long[1100] = foreign, page, quire.NewID()
		r := e.do(http.MethodPatch, viewPath(db, id), e.full, map[string]any{"page_sort": long})
		r.wantError(t, 400, quire.CodeValidation, "")
		var paths []string
		for _, d := range r.body["details"].([]any) {
			d := d.(map[string]any)
			if d["reason"] != quire.ReasonInvalidValue {
				t.Fatalf("detail %v", d)
			}
			paths = append(paths, d["path"].(string))
		}
		if diff := cmp.Diff([]string{"page_sort[3]", "page_sort[700]", "page_sort[1100]"}, paths); diff != "" {
			t.Fatalf("page_sort problems (-want +got):\n%s", diff)
		}
		// The whole list of real records is taken; null clears it.
		wantOK(t, e.do(http.MethodPatch, viewPath(db, id), e.full, map[string]any{"page_sort": recs}), 200)
		if n := len(e.getView(t, db, id).body["page_sort"].([]any)); n != len(recs) {
			t.Fatalf("page_sort holds %d ids, want %d", n, len(recs))
		}
		wantOK(t, e.do(http.MethodPatch, viewPath(db, id), e.full, `{"page_sort":null}`), 200)
		if diff := cmp.Diff([]any{}, e.getView(t, db, id).body["page_sort"]); diff != "" {
			t.Fatalf("cleared page_sort (-want +got):\n%s", diff)
		}
	})
}

// TestViews_Access: scopes, tokens, reach, and what is not a database or not a V2 view.
func TestViews_Access(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, st *store.Store) {
		e := newEnv(t, st)
		granted := e.mkPage(t, e.full, wsParent, "Granted")
		outside := e.mkPage(t, e.full, wsParent, "Outside")
		db := seedDatabase(t, e, granted, viewSchema())
		hidden := seedDatabase(t, e, outside, viewSchema())
		view := e.mkView(t, db, map[string]any{"name": "T", "type": "table"}).body["id"].(string)
		hiddenView := e.mkView(t, hidden, map[string]any{"name": "H", "type": "table"}).body["id"].(string)
		chart := seedRawView(t, e, db, "chart", `{"type":"chart","name":"raw","config":{}}`)

		readOnly := e.token([]quire.Scope{quire.DatabasesRead}, true)
		writeOnly := e.token([]quire.Scope{quire.DatabasesWrite}, true)
		pagesAll := e.token([]quire.Scope{quire.PagesRead, quire.PagesWrite}, true)
		grant := e.token([]quire.Scope{quire.DatabasesRead, quire.DatabasesWrite}, false, granted)
		body := `{"name":"x","type":"list"}`
		for _, tc := range []struct {
			name, method, path, token, body string
			status                          int
			code                            string
		}{
			{"list without token", "GET", viewsPath(db), "", "", 401, quire.CodeUnauthorized},
			{"list with databases.write only", "GET", viewsPath(db), writeOnly, "", 403, quire.CodeForbidden},
			{"detail with pages scopes", "GET", viewPath(db, view), pagesAll, "", 403, quire.CodeForbidden},
			{"create with databases.read only", "POST", viewsPath(db), readOnly, body, 403, quire.CodeForbidden},
			{"patch with databases.read only", "PATCH", viewPath(db, view), readOnly, `{"name":"y"}`, 403, quire.CodeForbidden},
			{"delete with databases.read only", "DELETE", viewPath(db, view), readOnly, "", 403, quire.CodeForbidden},
			{"forbidden before malformed", "POST", viewsPath(db), readOnly, `{"type":1}`, 403, quire.CodeForbidden},
			{"list with databases.read", "GET", viewsPath(db), readOnly, "", 200, ""},
			{"create with databases.write", "POST", viewsPath(db), writeOnly, body, 200, ""},
			{"granted token reads", "GET", viewPath(db, view), grant, "", 200, ""},
			{"granted token writes", "PATCH", viewPath(db, view), grant, `{"name":"by grant"}`, 200, ""},
			{"out of reach list", "GET", viewsPath(hidden), grant, "", 404, quire.CodeNotFound},
			{"out of reach detail", "GET", viewPath(hidden, hiddenView), grant, "", 404, quire.CodeNotFound},
			{"out of reach create", "POST", viewsPath(hidden), grant, body, 404, quire.CodeNotFound},
			{"out of reach create, schema not revealed", "POST", viewsPath(hidden), grant, `{"name":"x","type":"table","sorts":[{"property":"nope","direction":"up"}]}`, 404, quire.CodeNotFound},
			{"out of reach patch", "PATCH", viewPath(hidden, hiddenView), grant, `{"name":"y"}`, 404, quire.CodeNotFound},
			{"out of reach delete", "DELETE", viewPath(hidden, hiddenView), grant, "", 404, quire.CodeNotFound},
			{"a page is not a database", "GET", viewsPath(granted), e.full, "", 404, quire.CodeNotFound},
			{"create under a page", "POST", viewsPath(granted), e.full, body, 404, quire.CodeNotFound},
			{"unknown database", "GET", viewsPath(quire.NewID()), e.full, "", 404, quire.CodeNotFound},
			{"unknown view", "GET", viewPath(db, quire.NewID()), e.full, "", 404, quire.CodeNotFound},
			{"view of another database", "GET", viewPath(db, hiddenView), e.full, "", 404, quire.CodeNotFound},
			{"patch view of another database", "PATCH", viewPath(db, hiddenView), e.full, `{"name":"y"}`, 404, quire.CodeNotFound},
			{"internal kind detail", "GET", viewPath(db, chart), e.full, "", 404, quire.CodeNotFound},
			{"internal kind patch", "PATCH", viewPath(db, chart), e.full, `{"name":"y"}`, 404, quire.CodeNotFound},
			{"internal kind delete", "DELETE", viewPath(db, chart), e.full, "", 404, quire.CodeNotFound},
			{"database id not a uuid", "GET", viewsPath("nope"), e.full, "", 400, quire.CodeValidation},
			{"view id not a uuid", "GET", viewPath(db, "nope"), e.full, "", 400, quire.CodeValidation},
		} {
			t.Run(tc.name, func(t *testing.T) {
				var b any
				if tc.body != "" {
					b = tc.body
				}
				r := e.do(tc.method, tc.path, tc.token, b)
				if tc.code == "" {
					wantOK(t, r, tc.status)
					return
				}
				r.wantError(t, tc.status, tc.code, "")
			})
		}
		// The internal view is left out of the list; the rest are there.
		for _, v := range e.walk(t, viewsPath(db), e.full, 100) {
			if v["id"] == chart {
				t.Fatal("a view of an internal kind is listed")
			}
		}
		if n := len(e.walk(t, viewsPath(db), e.full, 100)); n != 2 {
			t.Fatalf("views listed = %d, want 2", n)
		}
		if g := e.getView(t, db, view); g.body["name"] != "by grant" {
			t.Fatalf("granted PATCH not applied: %s", g.raw)
		}
	})
}

// TestViews_TrashedDatabase: a database in trash (or under a page in trash) keeps its views
// readable and refuses writes to them with reason archived.
func TestViews_TrashedDatabase(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, st *store.Store) {
		e := newEnv(t, st)
		parent := e.mkPage(t, e.full, wsParent, "Parent")
		db := seedDatabase(t, e, parent, viewSchema())
		id := e.mkView(t, db, map[string]any{"name": "T", "type": "table"}).body["id"].(string)
		wantOK(t, e.do(http.MethodDelete, "/v2/pages/"+parent, e.full, nil), 200)

		if got := e.walk(t, viewsPath(db), e.full, 10); len(got) != 1 {
			t.Fatalf("views of a database under a trashed page: %d, want 1", len(got))
		}
		wantOK(t, e.do(http.MethodGet, viewPath(db, id), e.full, nil), 200)
		wantDetail(t, e.do(http.MethodPost, viewsPath(db), e.full, `{"name":"x","type":"list"}`), 400, quire.CodeValidation, "database_id", quire.ReasonArchived)
		wantDetail(t, e.do(http.MethodPatch, viewPath(db, id), e.full, `{"name":"x"}`), 400, quire.CodeValidation, "database_id", quire.ReasonArchived)
		wantDetail(t, e.do(http.MethodDelete, viewPath(db, id), e.full, nil), 400, quire.CodeValidation, "database_id", quire.ReasonArchived)
		// The trashed database also refuses a malformed body the same way it would a good one:
		// the body's own problems come first.
		wantDetail(t, e.do(http.MethodPost, viewsPath(db), e.full, `{"name":"x"}`), 400, quire.CodeValidation, "type", quire.ReasonRequired)

		wantOK(t, e.do(http.MethodPatch, "/v2/pages/"+parent, e.full, `{"in_trash":false}`), 200)
		wantOK(t, e.do(http.MethodPatch, viewPath(db, id), e.full, `{"name":"x"}`), 200)
	})
}

// TestViews_OpenAPIHidesDelete: the soft delete works but is not in the document.
func TestViews_OpenAPIHidesDelete(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, st *store.Store) {
		e := newEnv(t, st)
		doc := e.do(http.MethodGet, "/v2/openapi.json", "", nil)
		var d struct {
			Paths map[string]map[string]any `json:"paths"`
		}
		if err := json.Unmarshal(doc.raw, &d); err != nil {
			t.Fatal(err)
		}
		item := d.Paths["/v2/databases/{database_id}/views/{view_id}"]
		if item["get"] == nil || item["patch"] == nil || item["delete"] != nil {
			t.Fatalf("view path documents %v; want get and patch, no delete", viewDocKeys(item))
		}
		if l := d.Paths["/v2/databases/{database_id}/views"]; l["get"] == nil || l["post"] == nil {
			t.Fatalf("views path documents %v; want get and post", viewDocKeys(l))
		}
	})
}

// keys are a map's keys, sorted.
func viewDocKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
