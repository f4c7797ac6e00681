package httpapi

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/quire-dev/quire/internal/quire"
	"github.com/quire-dev/quire/internal/store"
	"github.com/quire-dev/quire/internal/testdb"
)

func viewsPath(db string) string      { return "/v2/databases/" + db + "/views" }
func viewPath(db, view string) string { return viewsPath(db) + "/" + view }

// mkView creates a view through the API and returns its answer.
func (e *env) mkView(t testing.TB, db string, body any) *response {
	t.Helper()
	r := e.do(http.MethodPost, viewsPath(db), e.full, body)
	wantOK(t, r, 200)
	return r
}

// getView reads a view's detail with the full token.
func (e *env) getView(t testing.TB, db, id string) *response {
	t.Helper()
	r := e.do(http.MethodGet, viewPath(db, id), e.full, nil)
	wantOK(t, r, 200)
	return r
}

// viewWant is the read shape a test expects, without id and times, from a JSON literal of
// the fields that differ from a new, empty view.
func viewWant(t testing.TB, db, kind, name, config string, detail bool, fields map[string]any) map[string]any {
	t.Helper()
	w := map[string]any{
		"object": "database_view", "database_id": db, "name": name, "type": kind,
		"property_layout": []any{}, "filter": nil, "sorts": []any{}, "group_by": nil,
		"config": jsonValue(t, "%s", config), "in_trash": false,
	}
	if detail {
		w["page_sort"] = []any{}
	}
	for k, v := range fields {
		w[k] = v
	}
	return w
}

// TestViews_Kinds creates a view of each of the seven kinds with nothing but name and type and
// checks the whole read shape of the answer, the detail and the list: each kind's curated
// config with its defaults, page_sort on the detail only, a weak ETag.
func TestViews_Kinds(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, st *store.Store) {
		e := newEnv(t, st)
		db := seedDatabase(t, e, "", viewSchema())
		configs := []struct{ kind, config string }{
			{"table", `{"wrap":false,"freeze_columns":0,"aggregations":{}}`},
			{"board", `{"card_size":"medium","card_preview":"none","cover_property":null,"fit_image":false}`},
			{"gallery", `{"card_size":"medium","card_preview":"cover","cover_property":null,"fit_image":false}`},
			{"list", `{"show_icons":true}`},
			{"calendar", `{"date_property":"` + vpDue + `"}`},
			{"timeline", `{"start_property":"` + vpDue + `","end_property":null,"show_table":true}`},
			{"form", `{"title_visible":true,"submit_text":"Submit","allow_multiple_submissions":true}`},
		}
		var ids []string
		for _, c := range configs {
			r := e.mkView(t, db, map[string]any{"name": "My " + c.kind, "type": c.kind})
			if got := r.header.Get("ETag"); got != `W/"1"` {
				t.Errorf("%s: ETag = %q, want W/\"1\"", c.kind, got)
			}
			want := viewWant(t, db, c.kind, "My "+c.kind, c.config, false, nil)
			if diff := cmp.Diff(want, volatile(t, r.body)); diff != "" {
				t.Fatalf("POST %s (-want +got):\n%s", c.kind, diff)
			}
			id := r.body["id"].(string)
			ids = append(ids, id)
			g := e.getView(t, db, id)
			if diff := cmp.Diff(viewWant(t, db, c.kind, "My "+c.kind, c.config, true, nil), volatile(t, g.body)); diff != "" {
				t.Fatalf("GET %s (-want +got):\n%s", c.kind, diff)
			}
			if g.body["created_time"] != r.body["created_time"] || g.header.Get("ETag") != `W/"1"` {
				t.Fatalf("GET %s differs from POST: %s vs %s", c.kind, g.raw, r.raw)
			}
		}
		list := e.walk(t, viewsPath(db), e.full, 3)
		if diff := cmp.Diff(ids, idsOf(list)); diff != "" {
			t.Fatalf("list order (-created +listed):\n%s", diff)
		}
		for i, v := range list {
			if diff := cmp.Diff(viewWant(t, db, configs[i].kind, "My "+configs[i].kind, configs[i].config, false, nil), volatile(t, v)); diff != "" {
				t.Fatalf("listed %s (-want +got):\n%s", configs[i].kind, diff)
			}
		}
	})
}

// TestViews_CreateFull: every field written, option names normalized to ids, the title alias
// resolved, the stored view read back exactly.
func TestViews_CreateFull(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, st *store.Store) {
		e := newEnv(t, st)
		db := seedDatabase(t, e, "", viewSchema())
		r := e.mkView(t, db, jsonValue(t, `{"name":"Sprint","type":"board",
			"property_layout":[{"property":"title","visible":true,"width":240},{"property":%q,"visible":false}],
			"filter":{"operator":"and","filters":[
				{"property":%q,"operator":"eq","value":"High"},
				{"property":%q,"operator":"in","value":["blue",%q]},
				{"operator":"or","filters":[{"property":%q,"operator":"gte","value":"2.5"},{"property":%q,"operator":"empty"}]}]},
			"sorts":[{"property":%q,"direction":"descending"}],
			"group_by":{"property":%q},
			"config":{"card_size":"large","card_preview":"property","cover_property":%q}}`,
			vpNum, vpSel, vpTags, voRed, vpNum, vpDue, vpDue, vpStatus, vpFiles))
		want := viewWant(t, db, "board", "Sprint",
			`{"card_size":"large","card_preview":"property","cover_property":"`+vpFiles+`","fit_image":false}`, false, map[string]any{
				"property_layout": jsonValue(t, `[{"property":"title","visible":true,"width":240},{"property":%q,"visible":false}]`, vpNum),
				"filter": jsonValue(t, `{"operator":"and","filters":[
					{"property":%q,"operator":"eq","value":%q},
					{"property":%q,"operator":"in","value":[%q,%q]},
					{"operator":"or","filters":[{"property":%q,"operator":"gte","value":"2.5"},{"property":%q,"operator":"empty"}]}]}`,
					vpSel, voHigh, vpTags, voBlue, voRed, vpNum, vpDue),
				"sorts":    jsonValue(t, `[{"property":%q,"direction":"descending"}]`, vpDue),
				"group_by": map[string]any{"property": vpStatus},
			})
		if diff := cmp.Diff(want, volatile(t, r.body)); diff != "" {
			t.Fatalf("POST (-want +got):\n%s", diff)
		}
		want["page_sort"] = []any{}
		if diff := cmp.Diff(want, volatile(t, e.getView(t, db, r.body["id"].(string)).body)); diff != "" {
			t.Fatalf("GET (-want +got):\n%s", diff)
		}
	})
}

// TestViews_TitleAlias: on a legacy database whose title property has another id, the literal
// title in a layout resolves to that id; on a modern one it stays title.
func TestViews_TitleAlias(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, st *store.Store) {
		e := newEnv(t, st)
		legacyID := "1e9ac700-0000-4000-8000-000000000001"
		legacy := seedDatabase(t, e, "", quire.Schema{{ID: legacyID, Name: "Name", Type: quire.PropTitle}, {ID: vpNum, Name: "N", Type: quire.PropNumber}})
		body := map[string]any{"name": "L", "type": "list", "property_layout": jsonValue(t, `[{"property":"title","visible":true}]`)}
		r := e.mkView(t, legacy, body)
		if diff := cmp.Diff(jsonValue(t, `[{"property":%q,"visible":true}]`, legacyID), r.body["property_layout"]); diff != "" {
			t.Fatalf("legacy layout (-want +got):\n%s", diff)
		}
		// The exact id works too, and a PATCH resolves the alias the same way.
		id := r.body["id"].(string)
		p := e.do(http.MethodPatch, viewPath(legacy, id), e.full, jsonValue(t, `{"property_layout":[{"property":%q,"visible":false},{"property":"title","visible":true}]}`, vpNum))
		wantOK(t, p, 200)
		if diff := cmp.Diff(jsonValue(t, `[{"property":%q,"visible":false},{"property":%q,"visible":true}]`, vpNum, legacyID), p.body["property_layout"]); diff != "" {
			t.Fatalf("patched legacy layout (-want +got):\n%s", diff)
		}
		// Naming the title twice, by alias and by id, is a duplicate.
		wantDetail(t, e.do(http.MethodPatch, viewPath(legacy, id), e.full, jsonValue(t, `{"property_layout":[{"property":%q,"visible":true},{"property":"title","visible":true}]}`, legacyID)),
			400, quire.CodeValidation, "property_layout[1].property", quire.ReasonInvalidValue)
		// Other references take exact ids only: the alias is for layouts.
		wantDetail(t, e.do(http.MethodPatch, viewPath(legacy, id), e.full, `{"sorts":[{"property":"title","direction":"ascending"}]}`),
			400, quire.CodeValidation, "sorts[0].property", quire.ReasonInvalidValue)
		modern := seedDatabase(t, e, "", viewSchema())
		m := e.mkView(t, modern, body)
		if diff := cmp.Diff(jsonValue(t, `[{"property":"title","visible":true}]`), m.body["property_layout"]); diff != "" {
			t.Fatalf("modern layout (-want +got):\n%s", diff)
		}
	})
}

// TestViews_Invalid: malformed bodies answer 400 validation_error with the exact path and
// reason, and write nothing.
func TestViews_Invalid(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, st *store.Store) {
		e := newEnv(t, st)
		db := seedDatabase(t, e, "", viewSchema())
		table := e.mkView(t, db, map[string]any{"name": "T", "type": "table"}).body["id"].(string)
		timeline := e.mkView(t, db, map[string]any{"name": "TL", "type": "timeline"}).body["id"].(string)
		gallery := e.mkView(t, db, map[string]any{"name": "G", "type": "gallery"}).body["id"].(string)
		cond := func(prop, op, value string) string {
			return fmt.Sprintf(`{"operator":"and","filters":[{"property":%q,"operator":%q,"value":%s}]}`, prop, op, value)
		}
		for _, tc := range []struct {
			name         string
			method, path string
			body         string
			wantPath     string
			reason       string
		}{
			{"type required", "POST", viewsPath(db), `{"name":"x"}`, "type", quire.ReasonRequired},
			{"name required", "POST", viewsPath(db), `{"type":"table"}`, "name", quire.ReasonRequired},
			{"internal kind", "POST", viewsPath(db), `{"name":"x","type":"chart"}`, "type", quire.ReasonInvalidValue},
			{"unknown field", "POST", viewsPath(db), `{"name":"x","type":"table","page_sort":[]}`, "page_sort", quire.ReasonUnknownField},
			{"name too long", "POST", viewsPath(db), fmt.Sprintf(`{"name":%q,"type":"table"}`, strings.Repeat("é", 201)), "name", quire.ReasonTooLong},
			{"type immutable", "PATCH", viewPath(db, table), `{"type":"board"}`, "type", quire.ReasonImmutable},
			{"ambiguous option name", "PATCH", viewPath(db, table), `{"filter":` + cond(vpSel, "eq", `"Low"`) + `}`, "filter.filters[0].value", quire.ReasonAmbiguous},
			{"unknown option", "PATCH", viewPath(db, table), `{"filter":` + cond(vpSel, "eq", `"Urgent"`) + `}`, "filter.filters[0].value", quire.ReasonInvalidValue},
			{"ambiguous name in a list", "POST", viewsPath(db), `{"name":"x","type":"table","filter":` + cond(vpSel, "in", `["High","Low"]`) + `}`, "filter.filters[0].value[1]", quire.ReasonAmbiguous},
			{"value not a string", "PATCH", viewPath(db, table), `{"filter":` + cond(vpNum, "eq", `3`) + `}`, "filter.filters[0].value", quire.ReasonInvalidType},
			{"list value for eq", "PATCH", viewPath(db, table), `{"filter":` + cond(vpNum, "eq", `["3"]`) + `}`, "filter.filters[0].value", quire.ReasonInvalidType},
			{"number value", "PATCH", viewPath(db, table), `{"filter":` + cond(vpNum, "gt", `"many"`) + `}`, "filter.filters[0].value", quire.ReasonInvalidValue},
			{"operator for type", "PATCH", viewPath(db, table), `{"filter":` + cond(vpDone, "gt", `"true"`) + `}`, "filter.filters[0].operator", quire.ReasonInvalidValue},
			{"unknown property", "PATCH", viewPath(db, table), `{"filter":` + cond(quire.NewID(), "eq", `"x"`) + `}`, "filter.filters[0].property", quire.ReasonInvalidValue},
			{"nested path", "PATCH", viewPath(db, table), `{"filter":{"operator":"or","filters":[{"property":"title","operator":"contains","value":"a"},{"operator":"and","filters":[{"property":"` + vpDue + `","operator":"lt","value":"2024-02-30"}]}]}}`,
				"filter.filters[1].filters[0].value", quire.ReasonInvalidValue},
			{"group operator", "PATCH", viewPath(db, table), `{"filter":{"operator":"xor","filters":[]}}`, "filter.operator", quire.ReasonInvalidValue},
			{"empty takes no value", "PATCH", viewPath(db, table), `{"filter":` + cond(vpNum, "empty", `"1"`) + `}`, "filter.filters[0].value", quire.ReasonInvalidValue},
			{"sort direction", "PATCH", viewPath(db, table), `{"sorts":[{"property":"title","direction":"ascending"},{"property":"` + vpNum + `","direction":"up"}]}`, "sorts[1].direction", quire.ReasonInvalidValue},
			{"group_by on a gallery", "PATCH", viewPath(db, gallery), `{"group_by":{"property":"` + vpSel + `"}}`, "group_by", quire.ReasonInvalidValue},
			{"group_by on a new calendar", "POST", viewsPath(db), `{"name":"c","type":"calendar","group_by":{"property":"` + vpSel + `"}}`, "group_by", quire.ReasonInvalidValue},
			{"group_by a text property", "PATCH", viewPath(db, table), `{"group_by":{"property":"` + vpNotes + `"}}`, "group_by.property", quire.ReasonInvalidValue},
			{"layout on a timeline", "PATCH", viewPath(db, timeline), `{"property_layout":[{"property":"title","visible":true}]}`, "property_layout", quire.ReasonInvalidValue},
			{"layout on a new form", "POST", viewsPath(db), `{"name":"f","type":"form","property_layout":[{"property":"title","visible":true}]}`, "property_layout", quire.ReasonInvalidValue},
			{"layout unknown property", "PATCH", viewPath(db, table), `{"property_layout":[{"property":"title","visible":true},{"property":"nope","visible":true}]}`, "property_layout[1].property", quire.ReasonInvalidValue},
			{"layout width", "PATCH", viewPath(db, table), `{"property_layout":[{"property":"title","visible":true,"width":5}]}`, "property_layout[0].width", quire.ReasonOutOfRange},
			{"layout visible", "PATCH", viewPath(db, table), `{"property_layout":[{"property":"title"}]}`, "property_layout[0].visible", quire.ReasonRequired},
			{"config of another kind", "PATCH", viewPath(db, table), `{"config":{"card_size":"small"}}`, "config.card_size", quire.ReasonUnknownField},
			{"config value", "PATCH", viewPath(db, gallery), `{"config":{"card_size":"huge"}}`, "config.card_size", quire.ReasonInvalidValue},
			{"config aggregation", "PATCH", viewPath(db, table), `{"config":{"aggregations":{"` + vpNotes + `":"sum"}}}`, "config.aggregations." + vpNotes, quire.ReasonInvalidValue},
			{"config date property type", "PATCH", viewPath(db, timeline), `{"config":{"end_property":"` + vpNum + `"}}`, "config.end_property", quire.ReasonInvalidValue},
			{"page_sort not ids", "PATCH", viewPath(db, table), `{"page_sort":["x"]}`, "page_sort[0]", quire.ReasonInvalidValue},
			{"in_trash type", "PATCH", viewPath(db, table), `{"in_trash":"yes"}`, "in_trash", quire.ReasonInvalidType},
			{"in_trash type with other problems", "PATCH", viewPath(db, table), `{"in_trash":1,"type":"list"}`, "type", quire.ReasonImmutable},
			{"other problems with in_trash type", "PATCH", viewPath(db, table), `{"in_trash":1,"type":"list"}`, "in_trash", quire.ReasonInvalidType},
		} {
			t.Run(tc.name, func(t *testing.T) {
				wantDetail(t, e.do(tc.method, tc.path, e.full, tc.body), 400, quire.CodeValidation, tc.wantPath, tc.reason)
			})
		}
		// Not JSON, or not an object.
		e.do("POST", viewsPath(db), e.full, `[1]`).wantError(t, 400, quire.CodeInvalidJSON, "")
		e.do("POST", viewsPath(db), e.full, `{"name":`).wantError(t, 400, quire.CodeInvalidJSON, "")
		// Nothing was written: three views, each still at version 1.
		list := e.walk(t, viewsPath(db), e.full, 100)
		if len(list) != 3 {
			t.Fatalf("views after rejected writes = %d, want 3", len(list))
		}
		for _, id := range []string{table, timeline, gallery} {
			if g := e.getView(t, db, id); g.header.Get("ETag") != `W/"1"` {
				t.Fatalf("view %s changed by a rejected write: ETag %s", id, g.header.Get("ETag"))
			}
		}
	})
}

// TestViews_Prune: references to a property removed from the schema leave the layout, the
// filter (an emptied group goes, and an emptied filter reads null), sorts, group_by and config
// on read; a PATCH stores the pruned form.
func TestViews_Prune(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, st *store.Store) {
		e := newEnv(t, st)
		db := seedDatabase(t, e, "", viewSchema())
		board := e.mkView(t, db, jsonValue(t, `{"name":"B","type":"board",
			"property_layout":[{"property":"title","visible":true},{"property":%q,"visible":true}],
			"filter":{"operator":"and","filters":[{"property":%q,"operator":"eq","value":"Done"},
				{"operator":"or","filters":[{"property":%q,"operator":"gt","value":"1"}]}]},
			"sorts":[{"property":%q,"direction":"ascending"},{"property":"title","direction":"ascending"}],
			"group_by":{"property":%q},"config":{"card_preview":"property","cover_property":%q}}`,
			vpNum, vpStatus, vpNum, vpNum, vpStatus, vpFiles)).body["id"].(string)
		table := e.mkView(t, db, jsonValue(t, `{"name":"T","type":"table","filter":{"operator":"and","filters":[{"property":%q,"operator":"lt","value":"3"}]},
			"config":{"aggregations":{%q:"sum","title":"count"}}}`, vpNum, vpNum)).body["id"].(string)
		cal := e.mkView(t, db, jsonValue(t, `{"name":"C","type":"calendar","config":{"date_property":%q}}`, vpEnd)).body["id"].(string)

		var kept quire.Schema
		for _, p := range viewSchema() {
			if p.ID != vpNum && p.ID != vpFiles && p.ID != vpEnd {
				kept = append(kept, p)
			}
		}
		setViewSchema(t, e, db, kept)

		want := viewWant(t, db, "board", "B", `{"card_size":"medium","card_preview":"none","cover_property":null,"fit_image":false}`, true, map[string]any{
			"property_layout": jsonValue(t, `[{"property":"title","visible":true}]`),
			"filter":          jsonValue(t, `{"operator":"and","filters":[{"property":%q,"operator":"eq","value":%q}]}`, vpStatus, voDone),
			"sorts":           jsonValue(t, `[{"property":"title","direction":"ascending"}]`),
			"group_by":        map[string]any{"property": vpStatus},
		})
		if diff := cmp.Diff(want, volatile(t, e.getView(t, db, board).body)); diff != "" {
			t.Fatalf("pruned board (-want +got):\n%s", diff)
		}
		wantTable := viewWant(t, db, "table", "T", `{"wrap":false,"freeze_columns":0,"aggregations":{"title":"count"}}`, true, nil)
		if diff := cmp.Diff(wantTable, volatile(t, e.getView(t, db, table).body)); diff != "" {
			t.Fatalf("pruned table (-want +got):\n%s", diff)
		}
		if got := e.getView(t, db, cal).body["config"]; !cmp.Equal(got, map[string]any{"date_property": nil}) {
			t.Fatalf("calendar config after its date property went: %v", got)
		}
		// The list prunes the same way.
		for _, v := range e.walk(t, viewsPath(db), e.full, 100) {
			if v["id"] == table && v["filter"] != nil {
				t.Fatalf("listed table keeps a filter on a deleted property: %v", v)
			}
		}
		// A condition on the deleted property in a new write is refused.
		wantDetail(t, e.do(http.MethodPatch, viewPath(db, table), e.full, jsonValue(t, `{"sorts":[{"property":%q,"direction":"ascending"}]}`, vpNum)),
			400, quire.CodeValidation, "sorts[0].property", quire.ReasonInvalidValue)
		// A PATCH writes the pruned form: the property coming back does not revive the old
		// references of the table it renamed, while the untouched board's come back.
		wantOK(t, e.do(http.MethodPatch, viewPath(db, table), e.full, `{"name":"T2"}`), 200)
		setViewSchema(t, e, db, viewSchema())
		if f := e.getView(t, db, table).body["filter"]; f != nil {
			t.Fatalf("patched view kept a pruned condition: %v", f)
		}
		if f := e.getView(t, db, board).body["filter"].(map[string]any)["filters"].([]any); len(f) != 2 {
			t.Fatalf("untouched board's stored filter lost conditions: %v", f)
		}
	})
}

// TestViews_StoredForms: the read rules hold for stored views the API would not write (an
// older client, a hand-made row): a timeline or form shows an empty layout, group_by shows only
// on table and board views, config shows only the kind's keys with defaults filled in.
func TestViews_StoredForms(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, st *store.Store) {
		e := newEnv(t, st)
		db := seedDatabase(t, e, "", viewSchema())
		layout := `"property_layout":[{"property":"title","visible":true}]`
		group := `"group_by":{"property":"` + vpSel + `"}`
		timeline := seedRawView(t, e, db, "timeline", `{"type":"timeline","name":"raw",`+layout+`,`+group+`,"config":{"start_property":"`+vpDue+`","wrap":true}}`)
		form := seedRawView(t, e, db, "form", `{"type":"form","name":"raw",`+layout+`,"config":{}}`)
		gallery := seedRawView(t, e, db, "gallery", `{"type":"gallery","name":"raw",`+layout+`,`+group+`,"config":{"card_preview":"property"}}`)
		for _, tc := range []struct {
			id, kind, config string
			layout           any
		}{
			{timeline, "timeline", `{"start_property":"` + vpDue + `","end_property":null,"show_table":false}`, []any{}},
			{form, "form", `{"title_visible":false,"submit_text":"Submit","allow_multiple_submissions":false}`, []any{}},
			{gallery, "gallery", `{"card_size":"medium","card_preview":"none","cover_property":null,"fit_image":false}`,
				jsonValue(t, `[{"property":"title","visible":true}]`)},
		} {
			want := viewWant(t, db, tc.kind, "raw", tc.config, true, map[string]any{"property_layout": tc.layout})
			if diff := cmp.Diff(want, volatile(t, e.getView(t, db, tc.id).body)); diff != "" {
				t.Errorf("stored %s reads (-want +got):\n%s", tc.kind, diff)
			}
		}
	})
}
