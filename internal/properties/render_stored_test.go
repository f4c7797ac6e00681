package properties

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/quire-dev/quire/internal/blocks"
	"github.com/quire-dev/quire/internal/quire"
)

// renderSchema shows the values of storedSamples(text, …) and renderExtras(text, …) under
// properties of every type, computed ones and properties without a value among them.
func renderSchema(text string) quire.Schema {
	opts := []quire.Option{{ID: "b", Name: "B", Color: "red"}, {ID: text, Name: "T"}, {ID: "o2", Name: "<&>"}}
	return quire.Schema{
		{ID: "title", Name: "Name", Type: quire.PropTitle},
		{ID: "rt-empty", Name: "Notes", Type: quire.PropRichText},
		{ID: "rt-plain", Name: "Plain", Type: quire.PropRichText},
		{ID: "n", Name: "Num", Type: quire.PropNumber},
		{ID: "n0", Name: "Zero", Type: quire.PropNumber},
		{ID: "u", Name: "Site", Type: quire.PropURL},
		{ID: "c", Name: "Done", Type: quire.PropCheckbox},
		{ID: "s", Name: "Sel", Type: quire.PropSelect, Options: opts},
		{ID: "m", Name: "Tags", Type: quire.PropMultiSelect, Options: opts},
		{ID: "m-empty", Name: "No tags", Type: quire.PropMultiSelect, Options: opts},
		{ID: "r", Name: "Rel", Type: quire.PropRelation, RelationDatabaseID: text},
		{ID: "d", Name: "When", Type: quire.PropDate},
		{ID: "d1", Name: "Day", Type: quire.PropDate},
		{ID: "f", Name: "Files", Type: quire.PropFiles},
		{ID: "e", Name: "Mail", Type: quire.PropEmail},
		{ID: "ph", Name: "Phone", Type: quire.PropPhoneNumber},
		{ID: "st", Name: "Stage", Type: quire.PropStatus, Options: opts},
		{ID: "pp", Name: "People", Type: quire.PropPeople},
		{ID: "conv", Name: "Retyped", Type: quire.PropRichText},
		{ID: "gone", Name: "Gone option", Type: quire.PropSelect, Options: opts},
		{ID: "m-gone", Name: "Gone tags", Type: quire.PropMultiSelect, Options: opts},
		{ID: "r-other", Name: "Moved relation", Type: quire.PropRelation, RelationDatabaseID: "db2"},
		{ID: "mention", Name: "Mention", Type: quire.PropRichText},
		{ID: "absent-t", Name: "No title", Type: quire.PropRichText},
		{ID: "absent-n", Name: "No number", Type: quire.PropNumber},
		{ID: "absent-s", Name: "No select", Type: quire.PropSelect, Options: opts},
		{ID: "absent-r", Name: "No relation", Type: quire.PropRelation},
		{ID: "absent-d", Name: "No date", Type: quire.PropDate},
		{ID: "ct", Name: "Created", Type: quire.PropCreatedTime},
		{ID: "cb", Name: "Creator", Type: quire.PropCreatedBy},
		{ID: "et", Name: "Edited", Type: quire.PropLastEditedTime},
		{ID: "eb", Name: "Editor", Type: quire.PropLastEditedBy},
		{ID: "uid", Name: "ID", Type: quire.PropUniqueID, UniquePrefix: "T"},
	}
}

// renderExtras adds to storedSamples the values that read other than as stored: retyped,
// an option or a related database that is gone, a mention, one no property shows.
func renderExtras(v Values, text string, num float64) Values {
	v["ph"] = Value{Type: "phone_number", Text: text}
	v["st"] = Value{Type: "status", ID: "b"}
	v["pp"] = Value{Type: "people", IDs: []string{text, "u2"}}
	v["conv"] = Value{Type: "number", Number: num}
	v["gone"] = Value{Type: "select", ID: "zz"}
	v["m-gone"] = Value{Type: "multi_select", IDs: []string{"zz", "b", "yy"}}
	v["r-other"] = Value{Type: "relation", IDs: []string{"p"}, DatabaseID: "db1"}
	v["mention"] = Value{Type: "rich_text", RichText: blocks.RichText{{Type: "mention", Mention: &blocks.Mention{Type: "user", ID: text}, PlainText: "@x"}}}
	v["unshown"] = Value{Type: "url", Text: "https://x.test"}
	return v
}

var renderComputed = Computed{CreatedMs: 1700000000000, CreatedBy: "u1", EditedMs: 1700000001000, EditedBy: "u2", UniqueNumber: 7}

// appendValuesRef is how records were rendered before Renderer: decoded, then written.
func appendValuesRef(s quire.Schema, raw []byte, c Computed) ([]byte, error) {
	vals, err := UnmarshalValues(raw)
	if err != nil {
		return nil, err
	}
	return AppendValues(nil, s, vals, c), nil
}

// TestAppendStored: every property type renders from its stored bytes exactly as through
// Values, for texts that need escapes on either side, numbers of every form, values that are
// converted or dropped on reading; and the values stored as MarshalValues writes them are
// rendered from their bytes, not decoded.
func TestAppendStored(t *testing.T) {
	for _, text := range storedTexts {
		for _, num := range []float64{0, 1, -2.5, 1e21, 1e-7, 123456789.125} {
			v := renderExtras(storedSamples(text, num), text, num)
			raw := MarshalValues(v)
			s := renderSchema(text)
			want, err := appendValuesRef(s, raw, renderComputed)
			if err != nil {
				t.Fatal(err)
			}
			got, err := NewRenderer(s).Append([]byte("prefix"), raw, renderComputed)
			if err != nil || string(got) != "prefix"+string(want) {
				t.Fatalf("Append (text %q, number %v) = %v\n got %s\nwant prefix%s", text, num, err, got, want)
			}
			if _, ok := NewRenderer(s).appendFast(nil, raw, renderComputed); !ok {
				t.Errorf("text %q: the record was left to readValues", text)
			}
			// Only a filter_properties subset: the same bytes as AppendValues under it.
			sub := quire.Schema{s.ByID("m"), s.ByID("title")}
			want, _ = appendValuesRef(sub, raw, renderComputed)
			if got, _ := NewRenderer(sub).Append(nil, raw, renderComputed); string(got) != string(want) {
				t.Fatalf("subset:\n got %s\nwant %s", got, want)
			}
			checkRenderedFromBytes(t, s, raw, text)
		}
	}
}

// checkRenderedFromBytes: each value stored with its property's type is rendered from its bytes,
// except files (rendered with Computed's file URLs) and options or ids whose JSON has escapes.
func checkRenderedFromBytes(t *testing.T, s quire.Schema, raw []byte, text string) {
	t.Helper()
	var members map[string]json.RawMessage // each value's bytes as stored
	if err := json.Unmarshal(raw, &members); err != nil {
		t.Fatal(err)
	}
	plainText := !strings.ContainsAny(text, "<>&\"\\\n\r\t\b\f\x01\x1f\u2028\u2029\xff")
	for id, val := range members {
		p := s.ByID(id)
		if p == nil || p.Type == quire.PropFiles || p.ID == "conv" || p.ID == "mention" || (p.ID == "s" && text == "") {
			continue
		}
		if !plainText && p.Type != quire.PropTitle && p.Type != quire.PropRichText && p.Type != quire.PropNumber && p.Type != quire.PropCheckbox && p.Type != quire.PropDate {
			continue
		}
		c := cursor{b: val}
		if _, ok := c.bare(nil, &NewRenderer(quire.Schema{p}).props[0]); !ok || c.i != len(val) {
			t.Errorf("text %q: %s value %s was decoded, not rendered from its bytes", text, p.Type, val)
		}
	}
}

// TestAppendStored_Unusual: stored forms MarshalValues never wrote (an older writer's, or
// damaged) render as through Values, or fail as UnmarshalValues does.
func TestAppendStored_Unusual(t *testing.T) {
	s := renderSchema("x")
	for _, raw := range []string{``, `{}`, `null`, ` {}`, `{"title":{"t":"title","rt":null}}`, `{"n":{"t":"number"}}`, `{"n":{"n":2,"t":"number"}}`,
		`{"c":{"t":"checkbox","b":false}}`, `{"s":{"t":"select","id":"x"},"s":{"t":"select","id":"b"}}`, `{"s":{"t":"select","id":"b"},"c":{"t":"checkbox","b":true}}`,
		`{"title":{"t":"title","rt":[{"type":"text","text":{"content":"a","link":null},"annotations":{"bold":false,"italic":false,"strikethrough":false,"underline":false,"code":false,"text_color":"","background_color":"default"},"plain_text":"a","href":""}]}}`,
		`{"d":{"t":"date","d":{"s":"2024-01-01","e":"","z":""}}}`, `{"r":{"t":"relation","ids":["a"]}}`, `{"m":{"t":"multi_select"}}`, `{"s":{"t":"select"}}`,
		`{"zz":{"t":5}}`, `{"zz":{"t":"url","s":"\u0041"}}`, `{"u":{"t":"url","s":"a\u2028b"}}`, `{"u":{"t":"url","s":"\ud800"}}`, `{"u":{"t":"url","s":"a"}} x`, `{"u":{"t":"url","s":"a"},}`,
		`{"n":{"t":"number","n":1e400}}`, `{"n":{"t":"number","n":-0}}`, `{"n":{"t":"number","n":01}}`, `{"title":{"t":"title","rt":[`, `{"title":`,
		// Short forms (values_short.go) MarshalValues never wrote.
		`{"title":{"t":"title","r":null}}`, `{"title":{"t":"title","r":[]}}`, `{"title":{"t":"title","r":[1]}}`, `{"title":{"t":"title","r":["a",null]}}`,
		`{"title":{"t":"title","r":"a"}}`, `{"title":{"t":"title","r":["a"],"rt":[]}}`, `{"title":{"t":"title","rt":[],"r":["a"]}}`,
		`{"title":{"t":"title","r":["a\u0041\u003c"]}}`, `{"title":{"t":"title","r":["a\ud800"]}}`, `{"title":{"t":"title","r":["a",]}}`,
		`{"title":{"t":"title","r":[{"type":"text","text":{"content":"a"}}]}}`, `{"title":{"t":"title","r":[{"type":"equation","equation":{"expression":"x"}},"b"]}}`,
		`{"title":{"t":"title","r":[{}]}}`, `{"title":{"t":"title","r":[{"type":"text"}, "b"]}}`, `{"title":{"t":"title","r":[["a"]]}}`,
		`{"n":{"t":"rich_text","r":["7"]}}`, `{"title":{"t":"rich_text","r":["a"]}}`, `{"s":{"t":"title","r":["b"]}}`} {
		want, wantErr := appendValuesRef(s, []byte(raw), renderComputed)
		got, err := NewRenderer(s).Append(nil, []byte(raw), renderComputed)
		if (err != nil) != (wantErr != nil) || string(got) != string(want) {
			t.Errorf("Append(%s) = %v\n got %s\nwant %s (%v)", raw, err, got, want, wantErr)
		}
	}
}

// FuzzAppendStored: for any stored bytes, Renderer.Append answers what decoding them and
// AppendValues answer: the same bytes, or an error when UnmarshalValues refuses them.
func FuzzAppendStored(f *testing.F) {
	for _, text := range storedTexts {
		f.Add(MarshalValues(renderExtras(storedSamples(text, 1.5), text, -3)))
	}
	f.Add([]byte(`{"title":{"t":"title","r":["a",{"type":"text","text":{"content":"b"}},"\u003c"]},"n":{"t":"rich_text","r":["7"]}}`))
	f.Add([]byte(`{"m":{"t":"multi_select","ids":["x","b"]},"r":{"t":"relation","ids":["p"],"db":"x"},"s":{"t":"select","id":"x"}}`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		s := renderSchema("x")
		want, wantErr := appendValuesRef(s, raw, renderComputed)
		got, err := NewRenderer(s).Append(nil, raw, renderComputed)
		if (err != nil) != (wantErr != nil) {
			t.Fatalf("Append(%q) error %v, through Values %v", raw, err, wantErr)
		}
		if string(got) != string(want) {
			t.Fatalf("Append(%q):\n got %s\nwant %s", raw, got, want)
		}
	})
}

// TestRenderer_ShowsNumber: a schema shows records' numbers only through a unique_id property
// (the service reads numbers only then).
func TestRenderer_ShowsNumber(t *testing.T) {
	s := renderSchema("x")
	if !NewRenderer(s).ShowsNumber() {
		t.Error("a schema with a unique_id does not show numbers")
	}
	without := quire.Schema{s.ByID("title"), s.ByID("n"), s.ByID("ct")}
	if NewRenderer(without).ShowsNumber() {
		t.Error("a schema without a unique_id shows numbers")
	}
	if got, _ := NewRenderer(without).Append(nil, MarshalValues(storedSamples("x", 1)), Computed{UniqueNumber: 5}); strings.Contains(string(got), "5") {
		t.Errorf("the number shows without a unique_id: %s", got)
	}
}
