package views

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var meta = Meta{ID: "v1", DatabaseID: "db1", CreatedTime: 1700000000000, LastEditedTime: 1700000000123, InTrash: false}

// TestEncode_Table: the read shape's exact bytes, in its fixed key order.
func TestEncode_Table(t *testing.T) {
	v := tableView()
	v.Config.Aggregations["title"] = "count" // written in schema order: title before num
	const head = `{"object":"database_view","id":"v1","database_id":"db1","name":"Tasks","type":"table",` +
		`"property_layout":[{"property":"title","visible":true},{"property":"num","visible":true,"width":90}],` +
		`"filter":{"operator":"and","filters":[{"property":"num","operator":"gt","value":"1"},{"property":"sel","operator":"eq","value":"o1"}]},` +
		`"sorts":[{"property":"num","direction":"ascending"}],"group_by":{"property":"sel"},` +
		`"config":{"wrap":true,"freeze_columns":2,"aggregations":{"title":"count","num":"sum"}}`
	const tail = `"created_time":"2023-11-14T22:13:20.000Z","last_edited_time":"2023-11-14T22:13:20.123Z","in_trash":false}`
	if got, want := string(Encode(testSchema(), meta, v, false)), head+","+tail; got != want {
		t.Fatalf("list shape\n got %s\nwant %s", got, want)
	}
	if got, want := string(Encode(testSchema(), meta, v, true)), head+`,"page_sort":["`+rec1+`"],`+tail; got != want {
		t.Fatalf("detail shape\n got %s\nwant %s", got, want)
	}
}

// TestEncode_Empty: nothing set reads as empty arrays and nulls; removed properties are gone.
func TestEncode_Empty(t *testing.T) {
	m := meta
	m.InTrash = true
	got := string(Encode(without(testSchema(), "num", "sel"), m, tableView(), true))
	want := `{"object":"database_view","id":"v1","database_id":"db1","name":"Tasks","type":"table",` +
		`"property_layout":[{"property":"title","visible":true}],"filter":null,"sorts":[],"group_by":null,` +
		`"config":{"wrap":true,"freeze_columns":2,"aggregations":{}},"page_sort":["` + rec1 + `"],` +
		`"created_time":"2023-11-14T22:13:20.000Z","last_edited_time":"2023-11-14T22:13:20.123Z","in_trash":true}`
	if got != want {
		t.Fatalf("\n got %s\nwant %s", got, want)
	}
}

// TestEncode_Config: each kind's config keys, in order, with defaults and nulls.
func TestEncode_Config(t *testing.T) {
	for kind, want := range map[string]string{
		KindTable:    `{"wrap":false,"freeze_columns":0,"aggregations":{}}`,
		KindBoard:    `{"card_size":"medium","card_preview":"none","cover_property":null,"fit_image":false}`,
		KindGallery:  `{"card_size":"medium","card_preview":"cover","cover_property":null,"fit_image":false}`,
		KindCalendar: `{"date_property":"due"}`,
		KindTimeline: `{"start_property":"due","end_property":null,"show_table":true}`,
		KindList:     `{"show_icons":true}`,
		KindForm:     `{"title_visible":true,"submit_text":"Submit","allow_multiple_submissions":true}`,
	} {
		v, err := DecodeCreate(testSchema(), body(t, fmt.Sprintf(`{"type":%q,"name":"n"}`, kind)))
		if err != nil {
			t.Fatal(err)
		}
		var shape struct{ Config json.RawMessage }
		if err := json.Unmarshal(Encode(testSchema(), meta, v, false), &shape); err != nil {
			t.Fatal(err)
		}
		if string(shape.Config) != want {
			t.Errorf("%s config %s; want %s", kind, shape.Config, want)
		}
	}
	// A view of an internal kind shows an empty config.
	if got := string(Encode(nil, meta, &View{Type: "chart"}, false)); !json.Valid([]byte(got)) {
		t.Fatalf("invalid JSON %s", got)
	}
}

// TestStoredForm: Marshal and Unmarshal round-trip a view, and keep only the kind's config.
func TestStoredForm(t *testing.T) {
	v := tableView()
	v.Filter = group(Or, cond("ppl", OpIn, many()), Filter{Group: group(And, cond("ms", OpContains, one("t1")), cond("text", OpEmpty, nil))})
	v.Config.CardSize = "large" // not a table key: dropped
	raw, err := Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	back, err := Unmarshal(raw)
	if err != nil {
		t.Fatal(err)
	}
	v.Config.CardSize = ""
	if diff := cmp.Diff(v, back); diff != "" {
		t.Fatalf("round trip (-want +got):\n%s\n%s", diff, raw)
	}
}

// TestReadShapeWritesBack: the read shape, less its envelope, is a valid create body that
// makes the same view, for every kind.
func TestReadShapeWritesBack(t *testing.T) {
	bodies := []string{
		`{"type":"table","name":"t","property_layout":[{"property":"title","visible":true,"width":200}],
			"filter":{"operator":"and","filters":[{"property":"sel","operator":"in","value":["High"]},{"operator":"or","filters":[{"property":"chk","operator":"eq","value":"false"}]}]},
			"sorts":[{"property":"due","direction":"ascending"}],"group_by":{"property":"chk"},"config":{"aggregations":{"num":"average"}}}`,
		`{"type":"board","name":"b","group_by":{"property":"st"},"config":{"card_preview":"property","cover_property":"files"}}`,
		`{"type":"gallery","name":"g","config":{"card_size":"small","fit_image":true}}`,
		`{"type":"list","name":"l"}`,
		`{"type":"calendar","name":"c","config":{"date_property":"end"}}`,
		`{"type":"timeline","name":"tl","config":{"end_property":"end"}}`,
		`{"type":"form","name":"f","config":{"title_visible":false}}`,
	}
	for _, b := range bodies {
		v, err := DecodeCreate(testSchema(), body(t, b))
		if err != nil {
			t.Fatalf("%s: %v", b, err)
		}
		again, err := DecodeCreate(testSchema(), writeBody(t, Encode(testSchema(), meta, v, false)))
		if err != nil {
			t.Fatalf("read shape of %s does not write back: %v", b, err)
		}
		if diff := cmp.Diff(Read(testSchema(), v, false), Read(testSchema(), again, false)); diff != "" {
			t.Fatalf("%s (-first +again):\n%s", b, diff)
		}
	}
}

// writeBody turns a read shape into a create body: the envelope keys are dropped.
func writeBody(t testing.TB, shape []byte) any {
	t.Helper()
	m, ok := body(t, string(shape)).(map[string]any)
	if !ok {
		t.Fatalf("read shape %s is not an object", shape)
	}
	for _, k := range []string{"object", "id", "database_id", "page_sort", "created_time", "last_edited_time", "in_trash"} {
		delete(m, k)
	}
	return m
}
