package httpapi

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/quire-dev/quire/internal/quire"
	"github.com/quire-dev/quire/internal/store"
	"github.com/quire-dev/quire/internal/testdb"
)

// feed reads GET /v2/events after cursor with query (e.g. "types=page.created"), page by page
// of n, and returns the events and the cursor of the last page.
func (e *env) feed(t testing.TB, token, cursor, query string, n int) ([]map[string]any, string) {
	t.Helper()
	var out []map[string]any
	for i := 0; ; i++ {
		if i > 10000 {
			t.Fatal("the feed does not end")
		}
		q := url.Values{"page_size": {fmt.Sprint(n)}}
		if cursor != "" {
			q.Set("start_cursor", cursor)
		}
		path := "/v2/events?" + q.Encode()
		if query != "" {
			path += "&" + query
		}
		r := e.do(http.MethodGet, path, token, nil)
		wantOK(t, r, http.StatusOK)
		out = append(out, objects(r.body["results"])...)
		next, ok := r.body["next_cursor"].(string)
		if !ok || next == "" {
			t.Fatalf("next_cursor is not a cursor: %s", r.raw)
		}
		cursor = next
		if r.body["has_more"] != true {
			return out, cursor
		}
	}
}

// summary is "type entity-id" for each event, the shape most assertions compare.
func summary(evs []map[string]any) []string {
	out := make([]string, len(evs))
	for i, ev := range evs {
		out[i] = ev["type"].(string) + " " + ev["entity"].(map[string]any)["id"].(string)
	}
	return out
}

func TestEvents_EveryWriteOnce(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, st *store.Store) {
		e := newEnv(t, st)
		page := e.mkPage(t, e.full, wsParent, "Home", map[string]any{"children": []any{para("first")}})
		sub := e.mkPage(t, e.full, pageParent(page), "Sub")
		kids := e.appendKids(t, page, para("a"), para("b"))
		wantOK(t, e.do(http.MethodPatch, "/v2/blocks/"+kids[0]["id"].(string), e.full, map[string]any{"paragraph": map[string]any{"rich_text": []any{txt("a2")}}}), 200)
		wantOK(t, e.do(http.MethodPatch, "/v2/pages/"+sub, e.full, map[string]any{"properties": titleOf("Sub 2")}), 200)
		wantOK(t, e.do(http.MethodPatch, "/v2/pages/"+sub+"/move", e.full, map[string]any{"parent": wsParent}), 200)
		wantOK(t, e.do(http.MethodDelete, "/v2/pages/"+sub, e.full, nil), 200)
		wantOK(t, e.do(http.MethodPatch, "/v2/pages/"+sub, e.full, map[string]any{"in_trash": false}), 200)
		wantOK(t, e.do(http.MethodPut, "/v2/pages/"+page+"/content/markdown", e.full, map[string]any{"markdown": "# New\n\ntext"}), 200)
		// A refused write records nothing: appending to a page in trash.
		wantOK(t, e.do(http.MethodDelete, "/v2/pages/"+sub, e.full, nil), 200)
		e.do(http.MethodPatch, "/v2/blocks/"+sub+"/children", e.full, map[string]any{"children": []any{para("x")}}).
			wantError(t, 400, "validation_error", "block_id")

		evs, _ := e.feed(t, e.full, "", "", 3)
		want := []string{
			"page.created " + page, "page.created " + sub,
			"page.content_updated " + page, "page.content_updated " + page,
			"page.properties_updated " + sub, "page.moved " + sub, "page.deleted " + sub, "page.restored " + sub,
			"page.content_updated " + page, "page.deleted " + sub,
		}
		if diff := cmp.Diff(want, summary(evs)); diff != "" {
			t.Fatalf("feed (-want +got):\n%s", diff)
		}
		// What changed, and who: the appended blocks, the moved page's parents, the authors.
		if got := evs[2]["data"].(map[string]any)["block_ids"]; !cmp.Equal(got, []any{kids[0]["id"], kids[1]["id"]}) {
			t.Errorf("append's block_ids = %v", got)
		}
		if got := evs[4]["data"]; !cmp.Equal(got, map[string]any{"fields": []any{"title"}}) {
			t.Errorf("title patch data = %v", got)
		}
		wantMove := map[string]any{"from": pageParent(page), "to": wsParent}
		if diff := cmp.Diff(wantMove, evs[5]["data"]); diff != "" {
			t.Errorf("move data (-want +got):\n%s", diff)
		}
		authors := evs[0]["authors"].([]any)
		if len(authors) != 2 || authors[0].(map[string]any)["object"] != "user" || authors[0].(map[string]any)["id"] != e.owner.ID ||
			authors[1].(map[string]any)["object"] != "bot_user" {
			t.Errorf("authors = %v", authors)
		}
		if evs[0]["object"] != "event" || evs[0]["workspace_id"] != e.ws.ID || evs[1]["parent"].(map[string]any)["page_id"] != page {
			t.Errorf("event object = %v", evs[1])
		}
	})
}

func TestEvents_Databases(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, st *store.Store) {
		e := newEnv(t, st)
		_, db := e.newDatabase(t, taskSchema())
		id := db["id"].(string)
		a := e.record(t, id, map[string]any{"Name": []any{txt("a")}})["id"].(string)
		_, start := e.feed(t, e.full, "", "", 100)

		// A batch: one event per record it changed, whatever the number of operations.
		r := e.do("POST", "/v2/databases/"+id+"/mutations", e.full, map[string]any{"mutations": []any{
			map[string]any{"op": "update", "page_id": a, "properties": map[string]any{"Points": map[string]any{"number": 4}}},
			map[string]any{"op": "update", "page_id": a, "properties": map[string]any{"Name": []any{txt("a2")}}},
			map[string]any{"op": "create", "properties": map[string]any{"Name": []any{txt("b")}}},
		}})
		wantOK(t, r, http.StatusOK)
		b := objects(r.body["results"])[2]["id"].(string)
		wantOK(t, e.do(http.MethodPatch, "/v2/databases/"+id, e.full, map[string]any{
			"title": []any{txt("Tasks 2")}, "properties": map[string]any{"Extra": map[string]any{"number": map[string]any{}}}}), 200)
		view := e.mkView(t, id, map[string]any{"name": "All", "type": "table"}).body["id"].(string)
		wantOK(t, e.do(http.MethodPatch, viewPath(id, view), e.full, map[string]any{"name": "Every"}), 200)
		wantOK(t, e.do(http.MethodDelete, viewPath(id, view), e.full, nil), 200)
		wantOK(t, e.do(http.MethodPatch, "/v2/pages/"+id+"/move", e.full, map[string]any{"parent": wsParent}), 200)

		evs, _ := e.feed(t, e.full, start, "", 100)
		want := []string{
			"page.properties_updated " + a, "page.created " + b,
			"database.schema_updated " + id, "database.properties_updated " + id,
			"view.created " + view, "view.updated " + view, "view.deleted " + view,
			"database.moved " + id,
		}
		if diff := cmp.Diff(want, summary(evs)); diff != "" {
			t.Fatalf("feed (-want +got):\n%s", diff)
		}
		got := evs[0]["data"].(map[string]any)["property_ids"].([]any)
		if diff := cmp.Diff([]any{propID(db, "Points"), "title"}, got); diff != "" {
			t.Errorf("record's property_ids (-want +got):\n%s", diff)
		}
		if evs[1]["parent"].(map[string]any)["database_id"] != id || evs[4]["parent"].(map[string]any)["database_id"] != id {
			t.Errorf("parents: record %v, view %v", evs[1]["parent"], evs[4]["parent"])
		}
		if to := evs[7]["data"].(map[string]any)["to"]; to.(map[string]any)["type"] != "workspace" {
			t.Errorf("database.moved to %v, want the workspace", to)
		}
		// A token with databases.read alone sees the database and its views, not the records.
		dbOnly := e.token([]quire.Scope{quire.DatabasesRead}, true)
		evs, _ = e.feed(t, dbOnly, start, "", 100)
		if diff := cmp.Diff(want[2:], summary(evs)); diff != "" {
			t.Errorf("databases.read feed (-want +got):\n%s", diff)
		}
	})
}

func TestEvents_CursorsAndFilters(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, st *store.Store) {
		e := newEnv(t, st)
		var pages []string
		for i := range 7 {
			pages = append(pages, e.mkPage(t, e.full, wsParent, fmt.Sprint("p", i)))
		}
		e.appendKids(t, pages[3], para("x"))
		all, end := e.feed(t, e.full, "", "", 100)
		if len(all) != 8 {
			t.Fatalf("%d events, want 8", len(all))
		}
		// Any page size walks the same events, each once.
		for _, n := range []int{1, 2, 3, 7} {
			got, _ := e.feed(t, e.full, "", "", n)
			if diff := cmp.Diff(summary(all), summary(got)); diff != "" {
				t.Fatalf("page_size %d (-want +got):\n%s", n, diff)
			}
		}
		// The end's cursor resumes with what comes later, and only that.
		if more, _ := e.feed(t, e.full, end, "", 10); len(more) != 0 {
			t.Fatalf("after the end: %v", summary(more))
		}
		later := e.mkPage(t, e.full, wsParent, "later")
		more, _ := e.feed(t, e.full, end, "", 10)
		if diff := cmp.Diff([]string{"page.created " + later}, summary(more)); diff != "" {
			t.Fatalf("after the end (-want +got):\n%s", diff)
		}
		// Filters.
		got, _ := e.feed(t, e.full, "", "types=page.content_updated,view.created", 10)
		if diff := cmp.Diff([]string{"page.content_updated " + pages[3]}, summary(got)); diff != "" {
			t.Errorf("types filter (-want +got):\n%s", diff)
		}
		got, _ = e.feed(t, e.full, "", "entity_id="+pages[3], 10)
		if diff := cmp.Diff([]string{"page.created " + pages[3], "page.content_updated " + pages[3]}, summary(got)); diff != "" {
			t.Errorf("entity filter (-want +got):\n%s", diff)
		}
		// Bad input.
		e.do(http.MethodGet, "/v2/events?types=page.exploded", e.full, nil).wantError(t, 400, "validation_error", "types")
		e.do(http.MethodGet, "/v2/events?entity_id=nope", e.full, nil).wantError(t, 400, "validation_error", "entity_id")
		e.do(http.MethodGet, "/v2/events?start_cursor=abc", e.full, nil).wantError(t, 400, "validation_error", "start_cursor")
		e.do(http.MethodGet, "/v2/events?page_size=101", e.full, nil).wantError(t, 400, "validation_error", "page_size")
		e.do(http.MethodGet, "/v2/events", e.token([]quire.Scope{quire.UsersRead}, true), nil).wantError(t, 403, "forbidden", "")
		e.do(http.MethodGet, "/v2/events", "", nil).wantError(t, 401, "unauthorized", "")
	})
}

func TestEvents_Retention(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, st *store.Store) {
		e := newEnv(t, st)
		e.mkPage(t, e.full, wsParent, "old")
		_, first := e.feed(t, e.full, "", "", 100)
		e.mkPage(t, e.full, wsParent, "old too")
		_, second := e.feed(t, e.full, "", "", 100)
		n, err := e.svc.SweepEvents(t.Context(), -time.Second) // everything is older than a second from now
		if err != nil || n != 2 {
			t.Fatalf("sweep = %d, %v; want 2", n, err)
		}
		r := e.do(http.MethodGet, "/v2/events?start_cursor="+first, e.full, nil)
		r.wantError(t, 400, "validation_error", "start_cursor")
		if d := r.body["details"].([]any)[0].(map[string]any); d["reason"] != quire.ReasonOutOfRange ||
			!strings.Contains(r.body["message"].(string), "older than the feed keeps") {
			t.Errorf("stale cursor answer = %s", r.raw)
		}
		// The cursor at the swept position has lost nothing: it still reads on.
		fresh := e.mkPage(t, e.full, wsParent, "new")
		got, _ := e.feed(t, e.full, second, "", 10)
		if diff := cmp.Diff([]string{"page.created " + fresh}, summary(got)); diff != "" {
			t.Errorf("after the sweep (-want +got):\n%s", diff)
		}
	})
}

func TestEvents_Reach(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, st *store.Store) {
		e := newEnv(t, st)
		granted := e.mkPage(t, e.full, wsParent, "granted")
		other := e.mkPage(t, e.full, wsParent, "other")
		child := e.mkPage(t, e.full, pageParent(granted), "child")
		e.appendKids(t, child, para("x"))
		e.appendKids(t, other, para("y"))
		moved := e.mkPage(t, e.full, pageParent(granted), "leaves")
		wantOK(t, e.do(http.MethodPatch, "/v2/pages/"+moved+"/move", e.full, map[string]any{"parent": pageParent(other)}), 200)
		wantOK(t, e.do(http.MethodDelete, "/v2/pages/"+child, e.full, nil), 200)

		bot := e.token([]quire.Scope{quire.PagesRead}, false, granted)
		got, _ := e.feed(t, bot, "", "", 2)
		// What it reaches now: the page that moved away is out of its reach, every event of it;
		// the trashed child is still its to read.
		want := []string{"page.created " + granted, "page.created " + child, "page.content_updated " + child, "page.deleted " + child}
		if diff := cmp.Diff(want, summary(got)); diff != "" {
			t.Fatalf("granted token's feed (-want +got):\n%s", diff)
		}
	})
}

func TestEvents_Uploads(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, st *store.Store) {
		e := newEnv(t, st)
		page := e.mkPage(t, e.full, wsParent, "with files")
		other := e.mkPage(t, e.full, wsParent, "elsewhere")
		_, start := e.feed(t, e.full, "", "", 100)
		onPage := e.uploaded(e.full, "a.txt", "text/plain", []byte("hello"), page)
		bot := e.token([]quire.Scope{quire.PagesRead, quire.PagesWrite}, false, other)
		loose := e.uploaded(bot, "b.txt", "text/plain", []byte("bye"), "")
		e.announce(e.full, map[string]any{"filename": "c.txt", "content_type": "text/plain", "size": 3}) // never sent: no event

		evs, _ := e.feed(t, e.full, start, "", 100)
		if diff := cmp.Diff([]string{"file_upload.completed " + onPage, "file_upload.completed " + loose}, summary(evs)); diff != "" {
			t.Fatalf("feed (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff(pageParent(page), evs[0]["parent"]); diff != "" {
			t.Errorf("upload's parent (-want +got):\n%s", diff)
		}
		// The upload's own token authored it; a token that reaches neither the page nor the
		// upload sees only its own.
		if authors := evs[1]["authors"].([]any); len(authors) != 1 || authors[0].(map[string]any)["object"] != "bot_user" {
			t.Errorf("authors of an upload = %v", authors)
		}
		got, _ := e.feed(t, bot, start, "", 100)
		if diff := cmp.Diff([]string{"file_upload.completed " + loose}, summary(got)); diff != "" {
			t.Errorf("granted token's feed (-want +got):\n%s", diff)
		}
	})
}
