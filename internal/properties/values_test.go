package properties_test

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/quire-dev/quire/internal/properties"
	"github.com/quire-dev/quire/internal/quire"
)

const user = "7b0c2a8e-4f1d-4c3b-9a5e-2d6f8e1b3c4a"

// testSchema decodes a schema with a property of every writable type.
func testSchema(t testing.TB) quire.Schema {
	t.Helper()
	s, err := properties.DecodeSchema(json.RawMessage(`{
		"Name":{"title":{}}, "Notes":{"rich_text":{}}, "N":{"number":{"format":"percent"}},
		"S":{"select":{"options":[{"name":"a","color":"red"},{"name":"b"}]}},
		"St":{"status":{}}, "M":{"multi_select":{"options":[{"name":"x"},{"name":"y"}]}},
		"D":{"date":{}}, "P":{"people":{}}, "F":{"files":{}}, "C":{"checkbox":{}},
		"U":{"url":{}}, "E":{"email":{}}, "Ph":{"phone_number":{}},
		"R":{"relation":{"database_id":"`+user+`","single_property":{}}},
		"K":{"unique_id":{"prefix":"T"}}, "Ct":{"created_time":{}}, "Eb":{"last_edited_by":{}}
	}`), "properties")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

const fullValues = `{
	"Name":[{"text":{"content":"Hello"}}], "Notes":{"rich_text":[{"text":{"content":"n"}}]}, "N":{"number":0.5},
	"S":{"select":{"name":"b"}}, "St":{"status":{"name":"Done"}}, "M":{"multi_select":[{"name":"y"},{"name":"x"},{"name":"y"}]},
	"D":{"date":{"start":"2024-05-10","end":"2024-05-12"}}, "P":{"people":[{"object":"user","id":"` + user + `"}]},
	"F":{"files":[{"name":"a.pdf","external":{"url":"https://example.com/a.pdf"}}]}, "C":{"checkbox":true},
	"U":{"url":"https://example.com"}, "E":{"email":"a@b.c"}, "Ph":{"phone_number":"+1 555"},
	"R":{"relation":[{"id":"` + user + `"}]}
}`

func TestValuesRoundTrip(t *testing.T) {
	s := testSchema(t)
	vals, err := properties.DecodeValues(s, json.RawMessage(fullValues), "properties", nil)
	if err != nil {
		t.Fatal(err)
	}
	back, err := properties.UnmarshalValues(properties.MarshalValues(vals))
	if err != nil {
		t.Fatal(err)
	}
	c := properties.Computed{CreatedMs: 1715299200000, CreatedBy: user, EditedMs: 1715299200000, EditedBy: user, UniqueNumber: 7}
	a, b := properties.AppendValues(nil, s, vals, c), properties.AppendValues(nil, s, back, c)
	if string(a) != string(b) {
		t.Fatalf("read shape changed by the stored form:\n%s\n%s", a, b)
	}
	var got map[string]map[string]any
	if err := json.Unmarshal(a, &got); err != nil {
		t.Fatalf("read shape is not JSON: %v\n%s", err, a)
	}
	for name, want := range map[string]string{
		"N":  `0.5`,
		"S":  `{"id":"` + s.ByName("S").Options[1].ID + `","name":"b","color":"default"}`,
		"St": `{"id":"` + s.ByName("St").Options[2].ID + `","name":"Done","color":"green"}`,
		"M":  `[{"id":"` + s.ByName("M").Options[1].ID + `","name":"y","color":"default"},{"id":"` + s.ByName("M").Options[0].ID + `","name":"x","color":"default"}]`,
		"D":  `{"start":"2024-05-10","end":"2024-05-12","time_zone":null}`,
		"F":  `[{"name":"a.pdf","type":"external","external":{"url":"https://example.com/a.pdf"}}]`,
		"C":  `true`, "Ph": `"+1 555"`,
		"K":  `{"prefix":"T","number":7}`,
		"Ct": `"2024-05-10T00:00:00.000Z"`,
		"Eb": `{"object":"user","id":"` + user + `"}`,
	} {
		var w any
		if err := json.Unmarshal([]byte(want), &w); err != nil {
			t.Fatal(err)
		}
		typ := got[name]["type"].(string)
		if diff := cmp.Diff(w, got[name][typ]); diff != "" {
			t.Errorf("%s (-want +got):\n%s", name, diff)
		}
	}
	// Empty values read as null, [] or false.
	empty := properties.AppendValues(nil, s, properties.Values{}, properties.Computed{})
	var e map[string]map[string]any
	if err := json.Unmarshal(empty, &e); err != nil {
		t.Fatal(err)
	}
	if e["N"]["number"] != nil || e["C"]["checkbox"] != false || len(e["M"]["multi_select"].([]any)) != 0 || e["K"]["unique_id"].(map[string]any)["number"] != nil {
		t.Fatalf("empty values: %s", empty)
	}
}

func TestScalars(t *testing.T) {
	s := testSchema(t)
	vals, err := properties.DecodeValues(s, json.RawMessage(fullValues), "properties", nil)
	if err != nil {
		t.Fatal(err)
	}
	type row struct {
		Prop string
		Ord  int
		Text string
		Num  float64
	}
	var got []row
	for _, sc := range properties.Scalars(s, vals, 3) {
		r := row{Prop: s.ByID(sc.PropertyID).Name, Ord: sc.Ord}
		if sc.Text != nil {
			r.Text = *sc.Text
		}
		if sc.Num != nil {
			r.Num = *sc.Num
		}
		got = append(got, r)
	}
	m := s.ByName("M").Options
	want := []row{
		{"Name", 0, "Hello", 0}, {"Notes", 0, "n", 0}, {"N", 0, "", 0.5},
		{"S", 0, s.ByName("S").Options[1].ID, 1}, {"St", 0, s.ByName("St").Options[2].ID, 2},
		{"M", 0, m[1].ID, 0}, {"M", 1, m[0].ID, 0},
		{"D", 0, "", 1715299200000}, {"P", 0, user, 0}, {"F", 0, "a.pdf", 0}, {"C", 0, "", 1},
		{"U", 0, "https://example.com", 0}, {"E", 0, "a@b.c", 0}, {"Ph", 0, "+1 555", 0},
		{"R", 0, user, 0}, {"K", 0, "", 3},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("scalars (-want +got):\n%s", diff)
	}
	// An unchecked checkbox still has its row; removed options leave no rows.
	none := properties.Scalars(quire.Schema{s.ByName("C")}, properties.Values{}, 0)
	if len(none) != 1 || *none[0].Num != 0 {
		t.Fatalf("unchecked checkbox = %v", none)
	}
}

// FuzzDecodeValues decodes values against a schema with every type: no panic; what decodes
// survives the stored form and reads back as JSON; every problem has a path.
func FuzzDecodeValues(f *testing.F) {
	f.Add(fullValues)
	f.Add(`{"S":{"select":{"id":"nope"}},"D":{"date":{"start":"2024-13-01"}},"F":{"files":[{"file_upload":{"id":"x"}}]}}`)
	f.Add(`{"N":null,"Name":{"title":[{"mention":{"user":{"id":"` + user + `"}}}]},"C":{"checkbox":"yes"}}`)
	s := testSchema(f)
	f.Fuzz(func(t *testing.T, in string) {
		var v any
		if json.Unmarshal([]byte(in), &v) != nil {
			return
		}
		vals, err := properties.DecodeValues(s, v, "properties", nil)
		if err != nil {
			qe, ok := quire.AsError(err)
			if !ok || len(qe.Details) == 0 {
				t.Fatalf("not a validation error with details: %v", err)
			}
			for _, d := range qe.Details {
				if d.Path == "" || d.Reason == "" {
					t.Fatalf("detail without path: %v", qe.Details)
				}
			}
			return
		}
		back, err := properties.UnmarshalValues(properties.MarshalValues(vals))
		if err != nil {
			t.Fatal(err)
		}
		a, b := properties.AppendValues(nil, s, vals, properties.Computed{}), properties.AppendValues(nil, s, back, properties.Computed{})
		if string(a) != string(b) || !json.Valid(a) {
			t.Fatalf("round trip: %s vs %s", a, b)
		}
		_ = properties.Scalars(s, back, 1)
	})
}

// FuzzApplySchemaPatch patches a schema with every type: no panic; a patched schema stores
// and reads back, and reads as JSON.
func FuzzApplySchemaPatch(f *testing.F) {
	f.Add(`{"S":null,"N":{"name":"Num"},"New":{"status":{}},"M":{"select":{}}}`)
	f.Add(`{"Name":{"number":{}},"R":{"relation":{"database_id":"` + user + `","dual_property":{}}}}`)
	f.Add(`{"K":{"unique_id":{"prefix":"A B"}},"X":{"type":"formula"}}`)
	s := testSchema(f)
	f.Fuzz(func(t *testing.T, in string) {
		if !json.Valid([]byte(in)) {
			return
		}
		next, _, err := properties.ApplySchemaPatch(s, json.RawMessage(in), "properties")
		if err != nil {
			if _, ok := quire.AsError(err); !ok {
				t.Fatalf("not a quire.Error: %v", err)
			}
			return
		}
		raw, err := properties.MarshalSchema(next)
		if err != nil {
			t.Fatal(err)
		}
		back, err := properties.UnmarshalSchema(raw)
		if err != nil {
			t.Fatal(err)
		}
		if a := properties.AppendSchema(nil, back); !json.Valid(a) || string(a) != string(properties.AppendSchema(nil, next)) {
			t.Fatalf("schema read shape: %s", a)
		}
	})
}
