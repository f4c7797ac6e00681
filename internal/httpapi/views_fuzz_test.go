package httpapi

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/quire-dev/quire/internal/testdb"
	"github.com/quire-dev/quire/internal/views"
)

// FuzzViewRequest sends generated bodies to the views routes of the real handler over a real
// store: a POST on the list or a PATCH of a board view, with any If-Match. The answer is never
// a 5xx; an error is the specification's body; a success is a view of a V2 kind, without
// page_sort (write answers leave it to the detail endpoint).
func FuzzViewRequest(f *testing.F) {
	e := newEnv(f, testdb.SQLite(f), envOptions{rateLimit: 1e6})
	db := seedDatabase(f, e, "", viewSchema())
	board := e.mkView(f, db, map[string]any{"name": "B", "type": "board"}).body["id"].(string)
	h := e.srv.Config.Handler
	for _, seed := range []struct {
		patch         bool
		body, ifMatch string
	}{
		{false, `{"name":"t","type":"table","property_layout":[{"property":"title","visible":true}],"config":{"aggregations":{"` + vpNum + `":"sum"}}}`, ""},
		{false, `{"name":"c","type":"calendar","filter":{"operator":"or","filters":[{"property":"` + vpSel + `","operator":"in","value":["High","Low"]}]}}`, ""},
		{false, `{"name":"f","type":"form","property_layout":[]}`, ""},
		{true, `{"type":"board","group_by":{"property":"` + vpStatus + `"},"config":{"card_preview":"property"}}`, ""},
		{true, `{"page_sort":["11111111-1111-4111-8111-111111111111"],"in_trash":false}`, `W/"1"`},
		{true, `{"in_trash":true}`, ""},
		{true, `{"filter":{"operator":"and","filters":[{"operator":"and","filters":[{"operator":"and","filters":[{"operator":"and","filters":[]}]}]}]}}`, `W/"x"`},
		{true, `[]`, ""},
		{false, `{"name":"x","type":"timeline","config":{"start_property":"` + vpDue + `","end_property":"` + vpDue + `"}}`, ""},
	} {
		f.Add(seed.patch, seed.body, seed.ifMatch)
	}
	f.Fuzz(func(t *testing.T, patch bool, body, ifMatch string) {
		method, path := http.MethodPost, viewsPath(db)
		if patch {
			method, path = http.MethodPatch, viewPath(db, board)
		}
		req := httptest.NewRequest(method, "http://quire.test"+path, strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+e.full)
		req.Header.Set("Content-Type", "application/json")
		if ifMatch != "" && validHeader(ifMatch) {
			req.Header.Set("If-Match", ifMatch)
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		if w.Code >= 500 {
			t.Fatalf("%s %s → %d: %s", method, body, w.Code, w.Body.Bytes())
		}
		r := &response{status: w.Code, header: w.Header(), raw: w.Body.Bytes()}
		if err := json.Unmarshal(r.raw, &r.body); err != nil {
			t.Fatalf("%s %q → %d with a body that is not JSON: %q", method, body, w.Code, r.raw)
		}
		if w.Code >= 400 {
			checkErrorShape(t, r)
			return
		}
		typ, _ := r.body["type"].(string)
		if r.body["object"] != "database_view" || !views.IsKind(typ) {
			t.Fatalf("answer is not a V2 view: %s", r.raw)
		}
		if _, ok := r.body["page_sort"]; ok {
			t.Fatalf("a write answer has page_sort: %s", r.raw)
		}
	})
}
