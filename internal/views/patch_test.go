package views

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/quire-dev/quire/internal/quire"
)

const (
	rec1 = "11111111-1111-4111-8111-111111111111"
	rec2 = "22222222-2222-4222-8222-222222222222"
)

// tableView is a stored table view that uses most fields.
func tableView() *View {
	return &View{
		Type: KindTable, Name: "Tasks",
		PropertyLayout: []LayoutEntry{{Property: "title", Visible: true}, {Property: "num", Visible: true, Width: intp(90)}},
		Filter:         group(And, cond("num", OpGt, one("1")), cond("sel", OpEq, one("o1"))),
		Sorts:          []Sort{{"num", Ascending}},
		GroupBy:        &GroupBy{Property: "sel"},
		Config:         Config{Wrap: true, FreezeColumns: 2, Aggregations: map[string]string{"num": "sum"}},
		PageSort:       []string{rec1},
	}
}

// TestDecodePatch_Problems: rules of a patch body, with the exact path and reason.
func TestDecodePatch_Problems(t *testing.T) {
	board := &View{Type: KindBoard, Name: "b", Config: Config{CardSize: "small", CardPreview: "none"}}
	timeline := &View{Type: KindTimeline, Name: "t", Config: Config{StartProperty: "due", ShowTable: true}}
	for _, tc := range []struct {
		name    string
		current *View
		body    string
		want    []quire.Detail
	}{
		{"type changed", tableView(), `{"type":"board"}`, []quire.Detail{d("type", "immutable")}},
		{"type changed to a non-kind", tableView(), `{"type":"chart"}`, []quire.Detail{d("type", "immutable")}},
		{"type not a string", tableView(), `{"type":["table"]}`, []quire.Detail{d("type", "invalid_type")}},
		{"unknown fields", tableView(), `{"object":"database_view","id":"x","":1}`,
			[]quire.Detail{d("object", "unknown_field"), d("id", "unknown_field"), d(`""`, "unknown_field")}},
		{"name", tableView(), `{"name":1}`, []quire.Detail{d("name", "invalid_type")}},
		{"page_sort not an array", tableView(), `{"page_sort":"` + rec1 + `"}`, []quire.Detail{d("page_sort", "invalid_type")}},
		{"page_sort items", tableView(), `{"page_sort":["` + rec1 + `","not-an-id",3,"` + rec1 + `"]}`,
			[]quire.Detail{d("page_sort[1]", "invalid_value"), d("page_sort[2]", "invalid_type"), d("page_sort[3]", "invalid_value")}},
		{"page_sort too many", tableView(), `{"page_sort":[` + strings.Repeat(`"`+rec1+`",`, MaxPageSort) + `"` + rec2 + `"]}`,
			[]quire.Detail{quire.Beyond("page_sort", "too_many", 10000, 10001)}},
		{"group_by on a gallery", &View{Type: KindGallery}, `{"group_by":{"property":"sel"}}`, []quire.Detail{d("group_by", "invalid_value")}},
		{"group_by null on a gallery is fine, unknown key is not", &View{Type: KindGallery}, `{"group_by":null,"config":{"aggregations":{}}}`,
			[]quire.Detail{d("config.aggregations", "unknown_field")}},
		{"layout on a timeline", timeline, `{"property_layout":[{"property":"num","visible":true}]}`, []quire.Detail{d("property_layout", "invalid_value")}},
		{"config checked against the current kind", board, `{"config":{"card_preview":"property","date_property":"due"}}`,
			[]quire.Detail{d("config.cover_property", "required"), d("config.date_property", "unknown_field")}},
		{"merged timeline end equals start", timeline, `{"config":{"end_property":"due"}}`, []quire.Detail{d("config.end_property", "invalid_value")}},
		{"filter", tableView(), `{"filter":{"operator":"and","filters":[{"property":"sel","operator":"eq","value":"Low"}]}}`,
			[]quire.Detail{d("filter.filters[0].value", "ambiguous")}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := tc.current.clone()
			v, err := DecodePatch(testSchema(), tc.current, body(t, tc.body))
			if err == nil {
				t.Fatalf("decoded %+v; want %v", v, tc.want)
			}
			checkErr(t, err, tc.want...)
			if diff := cmp.Diff(before, tc.current); diff != "" {
				t.Fatalf("current changed:\n%s", diff)
			}
		})
	}
}

// TestDecodePatch_Views: what a patch makes of the current view.
func TestDecodePatch_Views(t *testing.T) {
	for _, tc := range []struct {
		name    string
		schema  quire.Schema
		current *View
		body    string
		want    func(v *View)
	}{
		{"empty patch", nil, tableView(), `{}`, func(v *View) {}},
		{"same type and name", nil, tableView(), `{"type":"table","name":"Renamed"}`, func(v *View) { v.Name = "Renamed" }},
		{"nulls are absent for name and type", nil, tableView(), `{"type":null,"name":null}`, func(v *View) {}},
		{"page_sort replaced", nil, tableView(), `{"page_sort":["` + rec2 + `","` + rec1 + `"]}`,
			func(v *View) { v.PageSort = []string{rec2, rec1} }},
		{"page_sort cleared", nil, tableView(), `{"page_sort":null}`, func(v *View) { v.PageSort = nil }},
		{"filter and sorts cleared", nil, tableView(), `{"filter":null,"sorts":[]}`,
			func(v *View) { v.Filter, v.Sorts = nil, []Sort{} }},
		{"filter replaced, names normalized", nil, tableView(), `{"filter":{"operator":"or","filters":[{"property":"st","operator":"eq","value":"Doing"}]}}`,
			func(v *View) { v.Filter = group(Or, cond("st", OpEq, one("s2"))) }},
		{"group_by cleared", nil, tableView(), `{"group_by":null}`, func(v *View) { v.GroupBy = nil }},
		{"layout alias", legacySchema(), &View{Type: KindList, Config: Config{ShowIcons: true}}, `{"property_layout":[{"property":"title","visible":false}]}`,
			func(v *View) { v.PropertyLayout = []LayoutEntry{{Property: "abc"}} }},
		{"config keys merge", nil, tableView(), `{"config":{"wrap":false}}`, func(v *View) { v.Config.Wrap = false }},
		{"aggregations replaced whole", nil, tableView(), `{"config":{"aggregations":{"due":"max"}}}`,
			func(v *View) { v.Config.Aggregations = map[string]string{"due": "max"} }},
		{"config key reset", nil, tableView(), `{"config":{"freeze_columns":null,"aggregations":null}}`,
			func(v *View) { v.Config.FreezeColumns, v.Config.Aggregations = 0, map[string]string{} }},
		{"config reset", nil, tableView(), `{"config":null}`,
			func(v *View) { v.Config = Config{Aggregations: map[string]string{}} }},
		{"calendar reset takes the default date", nil, &View{Type: KindCalendar, Config: Config{DateProperty: "ct"}}, `{"config":null}`,
			func(v *View) { v.Config.DateProperty = "due" }},
		{"calendar key null is none", nil, &View{Type: KindCalendar, Config: Config{DateProperty: "ct"}}, `{"config":{"date_property":null}}`,
			func(v *View) { v.Config.DateProperty = "" }},
		{"stale references are pruned", without(testSchema(), "num"), tableView(), `{"name":"x"}`,
			func(v *View) {
				v.Name = "x"
				v.PropertyLayout = v.PropertyLayout[:1]
				v.Filter = group(And, cond("sel", OpEq, one("o1")))
				v.Sorts = []Sort{}
				v.Config.Aggregations = map[string]string{}
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := tc.schema
			if s == nil {
				s = testSchema()
			}
			before := tc.current.clone()
			got, err := DecodePatch(s, tc.current, body(t, tc.body))
			if err != nil {
				t.Fatal(err)
			}
			want := tc.current.clone()
			tc.want(want)
			if diff := cmp.Diff(want, got, cmp.Comparer(sameStrings), cmp.Comparer(sameSorts)); diff != "" {
				t.Fatalf("view (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(before, tc.current); diff != "" {
				t.Fatalf("current changed:\n%s", diff)
			}
		})
	}
}

// sameStrings and sameSorts treat nil and empty slices alike: both read as [].
func sameStrings(a, b []string) bool {
	return cmp.Equal(append([]string{}, a...), append([]string{}, b...))
}
func sameSorts(a, b []Sort) bool { return cmp.Equal(append([]Sort{}, a...), append([]Sort{}, b...)) }
