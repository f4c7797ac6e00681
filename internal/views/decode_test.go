package views

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/quire-dev/quire/internal/quire"
)

// TestDecodeCreate_Problems: every rule of a create body, with the exact path and reason.
func TestDecodeCreate_Problems(t *testing.T) {
	long := strings.Repeat("x", MaxName+1)
	many := "[" + strings.TrimSuffix(strings.Repeat(`{"property":"title","visible":true},`, MaxArray+1), ",") + "]"
	var conds []string
	for i := 0; i < MaxConds+1; i++ {
		conds = append(conds, `{"property":"text","operator":"eq","value":"x"}`)
	}
	tooManyConds := `{"operator":"and","filters":[{"operator":"or","filters":[` + strings.Join(conds[:60], ",") +
		`]},{"operator":"or","filters":[` + strings.Join(conds[60:], ",") + `]}]}`

	for _, tc := range []struct {
		name, body string
		want       []quire.Detail
	}{
		// root
		{"type missing", `{"name":"v"}`, []quire.Detail{d("type", "required")}},
		{"type null", `{"name":"v","type":null}`, []quire.Detail{d("type", "required")}},
		{"type number", `{"name":"v","type":1}`, []quire.Detail{d("type", "invalid_type")}},
		{"type unknown", `{"name":"v","type":"chart"}`, []quire.Detail{d("type", "invalid_value")}},
		{"name missing", `{"type":"table"}`, []quire.Detail{d("name", "required")}},
		{"name not a string", `{"type":"table","name":["a"]}`, []quire.Detail{d("name", "invalid_type")}},
		{"name too long", `{"type":"table","name":"` + long + `"}`, []quire.Detail{quire.Beyond("name", "too_long", 200, 201)}},
		{"unknown field", `{"type":"table","name":"v","foo":1,"":2}`, []quire.Detail{d("foo", "unknown_field"), d(`""`, "unknown_field")}},
		{"page_sort only on patch", `{"type":"table","name":"v","page_sort":[]}`, []quire.Detail{d("page_sort", "unknown_field")}},
		{"in_trash is not a view field", `{"type":"table","name":"v","in_trash":false}`, []quire.Detail{d("in_trash", "unknown_field")}},

		// property_layout
		{"layout not an array", `{"type":"table","name":"v","property_layout":{}}`, []quire.Detail{d("property_layout", "invalid_type")}},
		{"layout too many", `{"type":"table","name":"v","property_layout":` + many + `}`, []quire.Detail{quire.Beyond("property_layout", "too_many", 100, 101)}},
		{"layout entry not an object", `{"type":"table","name":"v","property_layout":["title"]}`, []quire.Detail{d("property_layout[0]", "invalid_type")}},
		{"layout unknown property", `{"type":"table","name":"v","property_layout":[{"property":"title","visible":true},{"property":"nope","visible":true}]}`,
			[]quire.Detail{d("property_layout[1].property", "invalid_value")}},
		{"layout names are not ids", `{"type":"table","name":"v","property_layout":[{"property":"Priority","visible":true}]}`,
			[]quire.Detail{d("property_layout[0].property", "invalid_value")}},
		{"layout duplicate", `{"type":"table","name":"v","property_layout":[{"property":"sel","visible":true},{"property":"num","visible":true},{"property":"sel","visible":false}]}`,
			[]quire.Detail{d("property_layout[2].property", "invalid_value")}},
		{"layout entry fields", `{"type":"table","name":"v","property_layout":[{"visible":"yes","width":10,"color":"red"},{"property":1,"width":1.5}]}`,
			[]quire.Detail{d("property_layout[0].property", "required"), d("property_layout[0].visible", "invalid_type"),
				quire.Beyond("property_layout[0].width", "out_of_range", 32, 10), d("property_layout[0].color", "unknown_field"),
				d("property_layout[1].property", "invalid_type"), d("property_layout[1].visible", "required"),
				d("property_layout[1].width", "invalid_type")}},
		{"layout width too wide", `{"type":"table","name":"v","property_layout":[{"property":"num","visible":true,"width":2001}]}`,
			[]quire.Detail{quire.Beyond("property_layout[0].width", "out_of_range", 2000, 2001)}},
		{"layout on timeline", `{"type":"timeline","name":"v","property_layout":[{"property":"title","visible":true}]}`,
			[]quire.Detail{d("property_layout", "invalid_value")}},
		{"layout on form", `{"type":"form","name":"v","property_layout":[{"property":"title","visible":true}]}`,
			[]quire.Detail{d("property_layout", "invalid_value")}},

		// filter
		{"filter not an object", `{"type":"table","name":"v","filter":[]}`, []quire.Detail{d("filter", "invalid_type")}},
		{"filter group fields", `{"type":"table","name":"v","filter":{"property":"title"}}`,
			[]quire.Detail{d("filter.operator", "required"), d("filter.filters", "required"), d("filter.property", "unknown_field")}},
		{"filter group operator", `{"type":"table","name":"v","filter":{"operator":"xor","filters":[]}}`, []quire.Detail{d("filter.operator", "invalid_value")}},
		{"filter filters not an array", `{"type":"table","name":"v","filter":{"operator":"and","filters":{}}}`, []quire.Detail{d("filter.filters", "invalid_type")}},
		{"filter member not an object", `{"type":"table","name":"v","filter":{"operator":"and","filters":["x"]}}`, []quire.Detail{d("filter.filters[0]", "invalid_type")}},
		{"condition fields", `{"type":"table","name":"v","filter":{"operator":"and","filters":[{"value":"x","extra":true}]}}`,
			[]quire.Detail{d("filter.filters[0].property", "required"), d("filter.filters[0].operator", "required"), d("filter.filters[0].extra", "unknown_field")}},
		{"condition unknown property", `{"type":"table","name":"v","filter":{"operator":"and","filters":[{"property":"Notes","operator":"eq","value":"x"}]}}`,
			[]quire.Detail{d("filter.filters[0].property", "invalid_value")}},
		{"condition unknown operator", `{"type":"table","name":"v","filter":{"operator":"and","filters":[{"property":"text","operator":"starts_with","value":"x"}]}}`,
			[]quire.Detail{d("filter.filters[0].operator", "invalid_value")}},
		{"operator does not fit the type", `{"type":"table","name":"v","filter":{"operator":"and","filters":[{"property":"sel","operator":"gt","value":"o1"},{"property":"chk","operator":"empty"},{"property":"files","operator":"eq","value":"a"}]}}`,
			[]quire.Detail{d("filter.filters[0].operator", "invalid_value"), d("filter.filters[1].operator", "invalid_value"), d("filter.filters[2].operator", "invalid_value")}},
		{"number value", `{"type":"table","name":"v","filter":{"operator":"and","filters":[{"property":"num","operator":"eq","value":3}]}}`,
			[]quire.Detail{d("filter.filters[0].value", "invalid_type")}},
		{"boolean value", `{"type":"table","name":"v","filter":{"operator":"and","filters":[{"property":"chk","operator":"eq","value":true}]}}`,
			[]quire.Detail{d("filter.filters[0].value", "invalid_type")}},
		{"number in a list", `{"type":"table","name":"v","filter":{"operator":"and","filters":[{"property":"num","operator":"in","value":["1",2,null]}]}}`,
			[]quire.Detail{d("filter.filters[0].value[1]", "invalid_type"), d("filter.filters[0].value[2]", "invalid_type")}},
		{"in takes a list", `{"type":"table","name":"v","filter":{"operator":"and","filters":[{"property":"text","operator":"in","value":"x"}]}}`,
			[]quire.Detail{d("filter.filters[0].value", "invalid_type")}},
		{"eq takes a string", `{"type":"table","name":"v","filter":{"operator":"and","filters":[{"property":"text","operator":"eq","value":["x"]}]}}`,
			[]quire.Detail{d("filter.filters[0].value", "invalid_type")}},
		{"empty takes no value", `{"type":"table","name":"v","filter":{"operator":"and","filters":[{"property":"text","operator":"empty","value":"x"},{"property":"text","operator":"not_empty","value":[]}]}}`,
			[]quire.Detail{d("filter.filters[0].value", "invalid_value"), d("filter.filters[1].value", "invalid_value")}},
		{"value required", `{"type":"table","name":"v","filter":{"operator":"and","filters":[{"property":"text","operator":"contains"},{"property":"text","operator":"eq","value":null}]}}`,
			[]quire.Detail{d("filter.filters[0].value", "required"), d("filter.filters[1].value", "required")}},
		{"nested path", `{"type":"table","name":"v","filter":{"operator":"and","filters":[{"property":"text","operator":"eq","value":"a"},{"operator":"or","filters":[{"property":"text","operator":"eq","value":1}]}]}}`,
			[]quire.Detail{d("filter.filters[1].filters[0].value", "invalid_type")}},
		{"depth limit", `{"type":"table","name":"v","filter":{"operator":"and","filters":[{"operator":"or","filters":[{"operator":"and","filters":[{"operator":"or","filters":[{"property":"text","operator":"eq","value":"a"}]}]}]}]}}`,
			[]quire.Detail{d("filter.filters[0].filters[0].filters[0]", "invalid_value")}},
		{"group fields nested", `{"type":"table","name":"v","filter":{"operator":"and","filters":[{"filters":[],"operator":"and","not":true}]}}`,
			[]quire.Detail{d("filter.filters[0].not", "unknown_field")}},
		{"option not found", `{"type":"table","name":"v","filter":{"operator":"and","filters":[{"property":"sel","operator":"eq","value":"Urgent"}]}}`,
			[]quire.Detail{d("filter.filters[0].value", "invalid_value")}},
		{"option names are exact", `{"type":"table","name":"v","filter":{"operator":"and","filters":[{"property":"sel","operator":"eq","value":"high"}]}}`,
			[]quire.Detail{d("filter.filters[0].value", "invalid_value")}},
		{"option name ambiguous", `{"type":"table","name":"v","filter":{"operator":"and","filters":[{"property":"sel","operator":"eq","value":"Low"}]}}`,
			[]quire.Detail{d("filter.filters[0].value", "ambiguous")}},
		{"option name ambiguous in a list", `{"type":"table","name":"v","filter":{"operator":"or","filters":[{"property":"sel","operator":"nin","value":["High","Low","Medium"]}]}}`,
			[]quire.Detail{d("filter.filters[0].value[1]", "ambiguous"), d("filter.filters[0].value[2]", "invalid_value")}},
		{"status and multi_select options", `{"type":"table","name":"v","filter":{"operator":"and","filters":[{"property":"st","operator":"eq","value":"Todo"},{"property":"ms","operator":"contains","value":"green"}]}}`,
			[]quire.Detail{d("filter.filters[0].value", "invalid_value"), d("filter.filters[1].value", "invalid_value")}},
		{"typed values", `{"type":"table","name":"v","filter":{"operator":"and","filters":[{"property":"num","operator":"gt","value":"ten"},{"property":"chk","operator":"eq","value":"yes"},{"property":"due","operator":"lt","value":"tomorrow"},{"property":"ct","operator":"gte","value":"2024-13-01"}]}}`,
			[]quire.Detail{d("filter.filters[0].value", "invalid_value"), d("filter.filters[1].value", "invalid_value"),
				d("filter.filters[2].value", "invalid_value"), d("filter.filters[3].value", "invalid_value")}},
		{"value too long", `{"type":"table","name":"v","filter":{"operator":"and","filters":[{"property":"text","operator":"contains","value":"` + strings.Repeat("é", MaxValueLen+1) + `"}]}}`,
			[]quire.Detail{quire.Beyond("filter.filters[0].value", "too_long", 2000, 2001)}},
		{"too many conditions", `{"type":"table","name":"v","filter":` + tooManyConds + `}`, []quire.Detail{quire.Beyond("filter", "too_many", 100, 101)}},
		{"alias is for layouts only", `{"type":"table","name":"v","filter":{"operator":"and","filters":[{"property":"title","operator":"eq","value":"x"}]}}`, nil},

		// sorts
		{"sorts not an array", `{"type":"table","name":"v","sorts":{"property":"num"}}`, []quire.Detail{d("sorts", "invalid_type")}},
		{"sort fields", `{"type":"table","name":"v","sorts":[{"property":"num"},{"property":"due","direction":"up"},{"property":"x","direction":"ascending","dir":1}]}`,
			[]quire.Detail{d("sorts[0].direction", "required"), d("sorts[1].direction", "invalid_value"),
				d("sorts[2].property", "invalid_value"), d("sorts[2].dir", "unknown_field")}},
		{"sort duplicate", `{"type":"table","name":"v","sorts":[{"property":"num","direction":"ascending"},{"property":"num","direction":"descending"}]}`,
			[]quire.Detail{d("sorts[1].property", "invalid_value")}},

		// group_by
		{"group_by on gallery", `{"type":"gallery","name":"v","group_by":{"property":"sel"}}`, []quire.Detail{d("group_by", "invalid_value")}},
		{"group_by on calendar", `{"type":"calendar","name":"v","group_by":{"property":"sel"}}`, []quire.Detail{d("group_by", "invalid_value")}},
		{"group_by not groupable", `{"type":"table","name":"v","group_by":{"property":"num"}}`, []quire.Detail{d("group_by.property", "invalid_value")}},
		{"group_by unknown property", `{"type":"board","name":"v","group_by":{"property":"Priority"}}`, []quire.Detail{d("group_by.property", "invalid_value")}},
		{"group_by fields", `{"type":"board","name":"v","group_by":{"hide_empty":true}}`,
			[]quire.Detail{d("group_by.property", "required"), d("group_by.hide_empty", "unknown_field")}},
		{"group_by not an object", `{"type":"board","name":"v","group_by":"sel"}`, []quire.Detail{d("group_by", "invalid_type")}},

		// config
		{"config not an object", `{"type":"table","name":"v","config":true}`, []quire.Detail{d("config", "invalid_type")}},
		{"config key of another kind", `{"type":"table","name":"v","config":{"card_size":"small","":1}}`,
			[]quire.Detail{d("config.card_size", "unknown_field"), d(`config.""`, "unknown_field")}},
		{"table config", `{"type":"table","name":"v","config":{"wrap":"yes","freeze_columns":-1}}`,
			[]quire.Detail{d("config.wrap", "invalid_type"), quire.Beyond("config.freeze_columns", "out_of_range", 0, -1)}},
		{"table aggregations", `{"type":"table","name":"v","config":{"aggregations":{"nope":"count","text":"sum","ct":"max","due":"median","num":1,"":"count"}}}`,
			[]quire.Detail{d("config.aggregations.nope", "invalid_value"), d("config.aggregations.text", "invalid_value"),
				d("config.aggregations.due", "invalid_value"), d("config.aggregations.num", "invalid_type"), d(`config.aggregations.""`, "invalid_value")}},
		{"aggregations not an object", `{"type":"table","name":"v","config":{"aggregations":["count"]}}`, []quire.Detail{d("config.aggregations", "invalid_type")}},
		{"board config", `{"type":"board","name":"v","config":{"card_size":"huge","card_preview":"page","fit_image":1,"wrap":true}}`,
			[]quire.Detail{d("config.card_size", "invalid_value"), d("config.card_preview", "invalid_value"),
				d("config.fit_image", "invalid_type"), d("config.wrap", "unknown_field")}},
		{"gallery preview property needs a cover", `{"type":"gallery","name":"v","config":{"card_preview":"property"}}`,
			[]quire.Detail{d("config.cover_property", "required")}},
		{"gallery cover is a files property", `{"type":"gallery","name":"v","config":{"card_preview":"property","cover_property":"text"}}`,
			[]quire.Detail{d("config.cover_property", "invalid_value")}},
		{"calendar date property", `{"type":"calendar","name":"v","config":{"date_property":"num"}}`, []quire.Detail{d("config.date_property", "invalid_value")}},
		{"calendar date property unknown", `{"type":"calendar","name":"v","config":{"date_property":"Due"}}`, []quire.Detail{d("config.date_property", "invalid_value")}},
		{"timeline end differs from start", `{"type":"timeline","name":"v","config":{"start_property":"due","end_property":"due"}}`,
			[]quire.Detail{d("config.end_property", "invalid_value")}},
		{"timeline end type", `{"type":"timeline","name":"v","config":{"end_property":"chk","show_table":"no"}}`,
			[]quire.Detail{d("config.end_property", "invalid_value"), d("config.show_table", "invalid_type")}},
		{"list config", `{"type":"list","name":"v","config":{"show_icons":"no","card_size":"small"}}`,
			[]quire.Detail{d("config.show_icons", "invalid_type"), d("config.card_size", "unknown_field")}},
		{"form config", `{"type":"form","name":"v","config":{"submit_text":"","title_visible":null,"allow_multiple_submissions":"x"}}`,
			[]quire.Detail{d("config.submit_text", "invalid_value"), d("config.allow_multiple_submissions", "invalid_type")}},
		{"form submit text too long", `{"type":"form","name":"v","config":{"submit_text":"` + strings.Repeat("s", MaxSubmit+1) + `"}}`,
			[]quire.Detail{quire.Beyond("config.submit_text", "too_long", 100, 101)}},
		{"config of an invalid type is not checked", `{"type":"chart","name":"v","config":{"anything":1},"group_by":{"property":"sel"}}`,
			[]quire.Detail{d("type", "invalid_value")}},

		// everything at once
		{"all problems collected", `{"type":"table","property_layout":[{"property":"x","visible":true}],"sorts":[{"property":"num","direction":"sideways"}],"config":{"wrap":0}}`,
			[]quire.Detail{d("name", "required"), d("property_layout[0].property", "invalid_value"),
				d("sorts[0].direction", "invalid_value"), d("config.wrap", "invalid_type")}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v, err := DecodeCreate(testSchema(), body(t, tc.body))
			if tc.name == "alias is for layouts only" {
				// The normal schema has a property with id "title": the filter names it exactly.
				if err != nil {
					t.Fatal(err)
				}
				_, err = DecodeCreate(legacySchema(), body(t, tc.body))
				checkErr(t, err, d("filter.filters[0].property", "invalid_value"))
				return
			}
			if err == nil {
				t.Fatalf("decoded %+v; want %v", v, tc.want)
			}
			checkErr(t, err, tc.want...)
		})
	}
}

// TestDecodeCreate_NotObject: a body that is not an object is invalid_json at "body".
func TestDecodeCreate_NotObject(t *testing.T) {
	for _, b := range []any{nil, "x", []any{}, 1.0} {
		_, err := DecodeCreate(testSchema(), b)
		if !quire.IsCode(err, quire.CodeInvalidJSON) {
			t.Fatalf("DecodeCreate(%v) = %v; want invalid_json", b, err)
		}
		if diff := cmp.Diff([]quire.Detail{d("body", "invalid_type")}, details(t, err)); diff != "" {
			t.Fatal(diff)
		}
	}
}

// TestDecodeCreate_Views: accepted bodies and the views they make, defaults included.
func TestDecodeCreate_Views(t *testing.T) {
	tableDefaults := Config{Aggregations: map[string]string{}}
	for _, tc := range []struct {
		name, body string
		schema     quire.Schema
		want       *View
	}{
		{"minimal table", `{"type":"table","name":"All"}`, nil,
			&View{Type: "table", Name: "All", Config: tableDefaults}},
		{"nulls are absent", `{"type":"table","name":"","property_layout":null,"filter":null,"sorts":null,"group_by":null}`, nil,
			&View{Type: "table", Config: tableDefaults}},
		{"full table", `{"type":"table","name":"Tasks",
			"property_layout":[{"property":"title","visible":true,"width":320},{"property":"num","visible":false,"width":100.0}],
			"filter":{"operator":"and","filters":[{"property":"num","operator":"gte","value":"1.5"},{"operator":"or","filters":[{"property":"due","operator":"empty"},{"property":"ct","operator":"lt","value":"2024-05-01T10:00:00.000Z"}]}]},
			"sorts":[{"property":"due","direction":"descending"},{"property":"title","direction":"ascending"}],
			"group_by":{"property":"st"},
			"config":{"wrap":true,"freeze_columns":1,"aggregations":{"num":"sum","due":"min","title":"count","ct":null}}}`, nil,
			&View{Type: "table", Name: "Tasks",
				PropertyLayout: []LayoutEntry{{Property: "title", Visible: true, Width: intp(320)}, {Property: "num", Width: intp(100)}},
				Filter: group(And, cond("num", OpGte, one("1.5")),
					Filter{Group: group(Or, cond("due", OpEmpty, nil), cond("ct", OpLt, one("2024-05-01T10:00:00.000Z")))}),
				Sorts:   []Sort{{"due", Descending}, {"title", Ascending}},
				GroupBy: &GroupBy{Property: "st"},
				Config:  Config{Wrap: true, FreezeColumns: 1, Aggregations: map[string]string{"num": "sum", "due": "min", "title": "count"}}}},
		{"option names become ids", `{"type":"board","name":"b","group_by":{"property":"sel"},"filter":{"operator":"or","filters":[
			{"property":"sel","operator":"eq","value":"High"},
			{"property":"sel","operator":"eq","value":"o1"},
			{"property":"sel","operator":"in","value":["o2","o3","o4"]},
			{"property":"ms","operator":"contains","value":"blue"},
			{"property":"st","operator":"nin","value":["Done","s2"]},
			{"property":"text","operator":"eq","value":"High"}]}}`, nil,
			&View{Type: "board", Name: "b", GroupBy: &GroupBy{Property: "sel"},
				Filter: group(Or, cond("sel", OpEq, one("o1")), cond("sel", OpEq, one("o1")), cond("sel", OpIn, many("o2", "o3", "o4")),
					cond("ms", OpContains, one("t2")), cond("st", OpNin, many("s1", "s2")), cond("text", OpEq, one("High"))),
				Config: Config{CardSize: "medium", CardPreview: "none"}}},
		{"empty groups are dropped", `{"type":"list","name":"l","filter":{"operator":"and","filters":[{"operator":"or","filters":[]},{"property":"chk","operator":"eq","value":"true"}]}}`, nil,
			&View{Type: "list", Name: "l", Filter: group(And, cond("chk", OpEq, one("true"))), Config: Config{ShowIcons: true}}},
		{"an empty filter is none", `{"type":"list","name":"l","filter":{"operator":"and","filters":[{"operator":"or","filters":[{"operator":"and","filters":[]}]}]}}`, nil,
			&View{Type: "list", Name: "l", Config: Config{ShowIcons: true}}},
		{"empty and not_empty as the web client saves them", `{"type":"list","name":"l","filter":{"operator":"or","filters":[{"property":"due","operator":"empty","value":""},{"property":"text","operator":"not_empty","value":""}]}}`, nil,
			&View{Type: "list", Name: "l", Filter: group(Or, cond("due", OpEmpty, nil), cond("text", OpNotEmpty, nil)), Config: Config{ShowIcons: true}}},
		{"empty list value", `{"type":"list","name":"l","filter":{"operator":"and","filters":[{"property":"ppl","operator":"in","value":[]}]}}`, nil,
			&View{Type: "list", Name: "l", Filter: group(And, cond("ppl", OpIn, many())), Config: Config{ShowIcons: true}}},
		{"calendar defaults to the first date property", `{"type":"calendar","name":"c"}`, nil,
			&View{Type: "calendar", Name: "c", Config: Config{DateProperty: "due"}}},
		{"calendar without a date property", `{"type":"calendar","name":"c"}`, legacySchema(),
			&View{Type: "calendar", Name: "c"}},
		{"calendar on created_time", `{"type":"calendar","name":"c","config":{"date_property":"ct"}}`, nil,
			&View{Type: "calendar", Name: "c", Config: Config{DateProperty: "ct"}}},
		{"timeline", `{"type":"timeline","name":"t","property_layout":[],"config":{"end_property":"end","show_table":false}}`, nil,
			&View{Type: "timeline", Name: "t", PropertyLayout: []LayoutEntry{}, Config: Config{StartProperty: "due", EndProperty: "end"}}},
		{"timeline start cleared", `{"type":"timeline","name":"t","config":{"start_property":null}}`, nil,
			&View{Type: "timeline", Name: "t", Config: Config{ShowTable: true}}},
		{"gallery defaults", `{"type":"gallery","name":"g"}`, nil,
			&View{Type: "gallery", Name: "g", Config: Config{CardSize: "medium", CardPreview: "cover"}}},
		{"gallery cover property", `{"type":"gallery","name":"g","config":{"card_size":"large","card_preview":"property","cover_property":"files","fit_image":true}}`, nil,
			&View{Type: "gallery", Name: "g", Config: Config{CardSize: "large", CardPreview: "property", CoverProperty: "files", FitImage: true}}},
		{"form", `{"type":"form","name":"f","config":{"submit_text":"Send","allow_multiple_submissions":false}}`, nil,
			&View{Type: "form", Name: "f", Config: Config{TitleVisible: true, SubmitText: "Send"}}},
		{"list", `{"type":"list","name":"l","config":{"show_icons":false}}`, nil,
			&View{Type: "list", Name: "l"}},
		{"title alias on a legacy schema", `{"type":"table","name":"t","property_layout":[{"property":"title","visible":true},{"property":"sel","visible":true}]}`, legacySchema(),
			&View{Type: "table", Name: "t", PropertyLayout: []LayoutEntry{{Property: "abc", Visible: true}, {Property: "sel", Visible: true}}, Config: tableDefaults}},
		{"an exact title id wins over the alias", `{"type":"table","name":"t","property_layout":[{"property":"title","visible":true}]}`,
			quire.Schema{{ID: "abc", Name: "Name", Type: quire.PropTitle}, {ID: "title", Name: "Heading", Type: quire.PropRichText}},
			&View{Type: "table", Name: "t", PropertyLayout: []LayoutEntry{{Property: "title", Visible: true}}, Config: tableDefaults}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := tc.schema
			if s == nil {
				s = testSchema()
			}
			got, err := DecodeCreate(s, body(t, tc.body))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Fatalf("view (-want +got):\n%s", diff)
			}
		})
	}
}

// TestDecodeCreate_AliasDuplicate: "title" and the title property's real id are one column.
func TestDecodeCreate_AliasDuplicate(t *testing.T) {
	_, err := DecodeCreate(legacySchema(), body(t, `{"type":"table","name":"t","property_layout":[{"property":"abc","visible":true},{"property":"title","visible":true}]}`))
	checkErr(t, err, d("property_layout[1].property", "invalid_value"))
}

// TestDecodeCreate_EveryKind: each kind decodes from its name alone and reads back its own
// config keys only.
func TestDecodeCreate_EveryKind(t *testing.T) {
	for _, k := range Kinds {
		v, err := DecodeCreate(testSchema(), body(t, fmt.Sprintf(`{"type":%q,"name":"v"}`, k)))
		if err != nil {
			t.Fatalf("%s: %v", k, err)
		}
		if v.Type != k || !IsKind(k) {
			t.Fatalf("%s: type %q", k, v.Type)
		}
	}
	if IsKind("chart") {
		t.Fatal("IsKind(chart)")
	}
}
