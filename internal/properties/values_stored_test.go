package properties

import (
	"encoding/json"
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/quire-dev/quire/internal/blocks"
)

// marshalValuesJSON is how MarshalValues first wrote the stored form, through encoding/json:
// the reference that the hand-written one must equal byte for byte (stored bytes feed ETags and
// idempotency hashes, and old rows must read the same as new ones).
func marshalValuesJSON(v Values) []byte {
	m := make(map[string]storedValue, len(v))
	for id, val := range v {
		sv := storedValue{Type: val.Type, Text: val.Text, Checkbox: val.Checkbox, ID: val.ID, IDs: val.IDs, Database: val.DatabaseID}
		if val.RichText != nil {
			sv.Short = shortJSON(val.RichText)
		}
		if val.Type == "number" {
			n := val.Number
			sv.Number = &n
		}
		if val.Date != nil {
			sv.Date = &storedDate{Start: val.Date.Start, End: val.Date.End, TimeZone: val.Date.TimeZone}
		}
		for _, f := range val.Files {
			sv.Files = append(sv.Files, storedFile(f))
		}
		m[id] = sv
	}
	b, err := json.Marshal(m)
	if err != nil {
		panic(err)
	}
	return b
}

// shortJSON is the short form of rt through encoding/json: a plain item (plainSample) as its
// content, any other as its read shape.
func shortJSON(rt blocks.RichText) json.RawMessage {
	items := make([]any, len(rt))
	for i := range rt {
		if plainSample(rt[i]) {
			items[i] = rt[i].Text.Content
		} else {
			items[i] = json.RawMessage(blocks.AppendItem(nil, &rt[i]))
		}
	}
	b, err := json.Marshal(items)
	if err != nil {
		panic(err)
	}
	return b
}

// plainSample says whether it reads back the same from its content alone, by comparing the
// read shapes: its own, and that of a text item of that content.
func plainSample(it blocks.Item) bool {
	if it.Type != "text" || it.Text == nil {
		return false
	}
	plain := blocks.NewText(it.Text.Content, blocks.Annotations{}, "")
	return string(blocks.AppendItem(nil, &it)) == string(blocks.AppendItem(nil, &plain))
}

// storedSamples are values of every type, with texts that need escaping.
func storedSamples(text string, num float64) Values {
	rt := blocks.RichText{blocks.NewText(text, blocks.Annotations{Bold: true, TextColor: "red"}, "https://x.test/?a=1&b=<2>"),
		blocks.NewEquation(text, blocks.Annotations{})}
	return Values{
		"title":    {Type: "title", RichText: rt},
		"rt-empty": {Type: "rich_text", RichText: blocks.RichText{}},
		"rt-plain": {Type: "rich_text", RichText: blocks.RichText{blocks.NewText(text, blocks.Annotations{}, ""),
			blocks.NewText(text, blocks.Annotations{TextColor: "default"}, ""), blocks.NewText("b", blocks.Annotations{Code: true}, "")}},
		"n":       {Type: "number", Number: num},
		"n0":      {Type: "number"},
		"u":       {Type: "url", Text: text},
		"c":       {Type: "checkbox", Checkbox: true},
		"s":       {Type: "select", ID: text},
		"m":       {Type: "multi_select", IDs: []string{text, "b"}},
		"m-empty": {Type: "multi_select", IDs: []string{}},
		"r":       {Type: "relation", IDs: []string{"p1"}, DatabaseID: text},
		"d":       {Type: "date", Date: &Date{Start: text, End: "2024-02-01", TimeZone: "Europe/Paris"}},
		"d1":      {Type: "date", Date: &Date{Start: "2024-01-01"}},
		"f":       {Type: "files", Files: []File{{Name: text, Type: "external", URL: "https://x.test/a.png"}, {Type: "file_upload", UploadID: "u1"}}},
		"e":       {Type: "email", Text: "a@b.test"},
		"":        {},
	}
}

var storedTexts = []string{"plain", "", "<b> & \"q\" \\ \n\r\t\b\f\x01\x1f\x7f", "é 漢字 😀", "\u2028\u2029", "bad \xff\xfe utf-8", "</script>"}

// TestMarshalValues: the stored form is what encoding/json wrote, and reads back (by hand) to
// the same values as through encoding/json.
func TestMarshalValues(t *testing.T) {
	for _, text := range storedTexts {
		for _, num := range []float64{0, 1, -2.5, 1e21, 1e-7, 123456789.125, math.MaxFloat64, math.SmallestNonzeroFloat64} {
			v := storedSamples(text, num)
			got, want := MarshalValues(v), marshalValuesJSON(v)
			if string(got) != string(want) {
				t.Fatalf("MarshalValues (text %q, number %v):\n got %s\nwant %s", text, num, got, want)
			}
			// Ids are UUIDs, "title" or "#n": a key that needs escapes is left to encoding/json.
			v[text] = Value{Type: "phone_number", Text: "1"}
			got = MarshalValues(v)
			if want := marshalValuesJSON(v); string(got) != string(want) {
				t.Fatalf("MarshalValues (key %q):\n got %s\nwant %s", text, got, want)
			}
			delete(v, text)
			got = MarshalValues(v)
			read, ok := readValues(got)
			if !ok {
				t.Errorf("readValues left %s to encoding/json", got)
			}
			ref, err := unmarshalValuesJSON(got)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(ref, read); diff != "" {
				t.Errorf("%s (-encoding/json +readValues):\n%s", got, diff)
			}
		}
	}
}

// FuzzMarshalValues: MarshalValues writes what encoding/json wrote for any text and number.
func FuzzMarshalValues(f *testing.F) {
	for _, s := range storedTexts {
		f.Add(s, 1.5)
	}
	f.Fuzz(func(t *testing.T, text string, num float64) {
		if math.IsNaN(num) || math.IsInf(num, 0) {
			return // values never hold them
		}
		v := storedSamples(text, num)
		if got, want := MarshalValues(v), marshalValuesJSON(v); string(got) != string(want) {
			t.Fatalf("MarshalValues:\n got %s\nwant %s", got, want)
		}
	})
}

// FuzzReadValues: whatever readValues takes, encoding/json reads to the same values; what it
// leaves, UnmarshalValues answers as encoding/json does.
func FuzzReadValues(f *testing.F) {
	f.Add(MarshalValues(storedSamples("<x>", 2)))
	for _, s := range []string{`{}`, `null`, `{"a":{"t":"number","n":null}}`, `{"a":{"t":"files","f":[]}}`, `{"a":{"t":"multi_select","ids":[]}}`,
		`{"a":{"t":"title","rt":null}}`, `{"a":{"t":"title","r":null}}`, `{"a":{"t":"title","r":["x",{"type":"text","text":{"content":"y"}},null]}}`,
		`{"a":{"t":"title","r":["x"],"rt":[]}}`, `{"a":{"t":"title","r":[1]}}`, `{"a":{"t":"title","r":["\u00e9\ud800"]}}`, `{"a":{"t":"x"},"a":{"t":"y"}}`, `{"a":{"t":"x","t":"y"}}`, `{"a":{"T":"x"}}`, `{"a":{"ids":[null]}}`,
		`{"a":{"d":{}}}`, `{"a":{"n":1e400}}`, `{"a":{"n":-0}}`, `{"a":{"s":"\u00e9\ud83d\ude00"}}`, `{"a":1}`, `{"a":{}} `} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		want, wantErr := unmarshalValuesJSON(raw)
		if got, ok := readValues(raw); ok {
			if wantErr != nil {
				t.Fatalf("readValues read %q, encoding/json: %v", raw, wantErr)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Fatalf("%q (-encoding/json +readValues):\n%s", raw, diff)
			}
		}
		if len(raw) == 0 {
			return
		}
		got, err := UnmarshalValues(raw)
		if (err != nil) != (wantErr != nil) {
			t.Fatalf("UnmarshalValues(%q) error %v, encoding/json %v", raw, err, wantErr)
		}
		if diff := cmp.Diff(want, got); err == nil && diff != "" {
			t.Fatalf("UnmarshalValues(%q) (-encoding/json +got):\n%s", raw, diff)
		}
	})
}
