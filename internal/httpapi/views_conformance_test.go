package httpapi

import (
	"context"
	"fmt"
	"net/http"
	"testing"

	"github.com/quire-dev/quire/internal/quire"
)

// viewCases are the conformance cases of the database views routes, over a seeded database.
// They run in order: later cases see earlier changes. The database lives in a workspace of its
// own, so that the page listings' cases do not meet it before databases have their own shape
// in those listings.
func viewCases(t testing.TB, main *env, pagesOnly, unknown string) []conformanceCase {
	t.Helper()
	ctx := context.Background()
	e := *main
	var err error
	if e.ws, err = e.svc.CreateWorkspace(ctx, "Views"); err != nil {
		t.Fatal(err)
	}
	if e.owner, err = e.svc.CreateUser(ctx, e.ws.ID, "Edsger Dijkstra", "ewd@example.com"); err != nil {
		t.Fatal(err)
	}
	e.full = e.token(quire.AllScopes, true)
	db := seedDatabase(t, &e, "", viewSchema())
	recs := seedViewRecords(t, &e, db, 2)
	mk := func(body string) string {
		r := e.do(http.MethodPost, viewsPath(db), e.full, body)
		if r.status != 200 {
			t.Fatalf("fixture view: %d %s", r.status, r.raw)
		}
		return r.body["id"].(string)
	}
	board := mk(fmt.Sprintf(`{"name":"Board","type":"board","group_by":{"property":%q},"filter":{"operator":"and","filters":[`+
		`{"property":%q,"operator":"in","value":["High"]},{"operator":"or","filters":[{"property":%q,"operator":"empty"}]}]},`+
		`"sorts":[{"property":%q,"direction":"ascending"}],"config":{"card_preview":"property","cover_property":%q}}`,
		vpStatus, vpSel, vpDue, vpNum, vpFiles))
	timeline := mk(`{"name":"Timeline","type":"timeline"}`)
	for _, kind := range []string{"table", "gallery", "list", "calendar", "form"} {
		mk(`{"name":"` + kind + `","type":"` + kind + `"}`)
	}
	list, one := viewsPath(db), viewPath(db, board)
	return []conformanceCase{
		{name: "list views", op: "list-database-views", path: list, token: e.full, status: 200},
		{name: "list views first page", op: "list-database-views", path: list + "?page_size=2", token: e.full, status: 200},
		{name: "list views without token", op: "list-database-views", path: list, status: 401},
		{name: "list views missing databases.read", op: "list-database-views", path: list, token: pagesOnly, status: 403},
		{name: "list views of an unknown database", op: "list-database-views", path: viewsPath(unknown), token: e.full, status: 404},
		{name: "list views page_size too big", op: "list-database-views", path: list + "?page_size=500", token: e.full, status: 400},

		{name: "view detail", op: "retrieve-database-view", path: one, token: e.full, status: 200},
		{name: "timeline detail", op: "retrieve-database-view", path: viewPath(db, timeline), token: e.full, status: 200},
		{name: "view detail without token", op: "retrieve-database-view", path: one, status: 401},
		{name: "unknown view", op: "retrieve-database-view", path: viewPath(db, unknown), token: e.full, status: 404},
		{name: "view id not a uuid", op: "retrieve-database-view", path: viewPath(db, "nope"), token: e.full, status: 400},

		{name: "create view", op: "create-database-view", method: "POST", path: list, token: e.full, status: 200,
			body: `{"name":"Table","type":"table","property_layout":[{"property":"title","visible":true,"width":200}],` +
				`"config":{"wrap":true,"freeze_columns":1,"aggregations":{"` + vpNum + `":"sum"}}}`},
		{name: "create form", op: "create-database-view", method: "POST", path: list, token: e.full, status: 200,
			body: `{"name":"Form","type":"form","property_layout":[],"config":{"submit_text":"Send"}}`},
		{name: "create view without token", op: "create-database-view", method: "POST", path: list, status: 401, body: `{"name":"x","type":"list"}`},
		{name: "create view unknown type", op: "create-database-view", method: "POST", path: list, token: e.full, status: 400,
			body: `{"name":"x","type":"chart"}`},
		{name: "create view ambiguous option", op: "create-database-view", method: "POST", path: list, token: e.full, status: 400, semantic: true,
			body: `{"name":"x","type":"table","filter":{"operator":"and","filters":[{"property":"` + vpSel + `","operator":"eq","value":"Low"}]}}`},

		{name: "update view", op: "update-database-view", method: "PATCH", path: one, token: e.full, status: 200,
			headers: []string{"If-Match", `W/"1"`},
			body:    `{"name":"Renamed","type":"board","page_sort":["` + recs[1] + `","` + recs[0] + `"],"config":{"card_size":"small"}}`},
		{name: "update view stale If-Match", op: "update-database-view", method: "PATCH", path: one, token: e.full, status: 409,
			headers: []string{"If-Match", `W/"1"`}, body: `{"name":"Late"}`},
		{name: "update view type", op: "update-database-view", method: "PATCH", path: one, token: e.full, status: 400, semantic: true,
			body: `{"type":"table"}`},
		{name: "update view without token", op: "update-database-view", method: "PATCH", path: one, status: 401, body: `{}`},
		{name: "view detail with page_sort", op: "retrieve-database-view", path: one, token: e.full, status: 200},
		{name: "trash view", op: "update-database-view", method: "PATCH", path: viewPath(db, timeline), token: e.full, status: 200,
			body: `{"in_trash":true}`},
		{name: "trashed view detail", op: "retrieve-database-view", path: viewPath(db, timeline), token: e.full, status: 200},
	}
}
