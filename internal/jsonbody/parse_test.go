package jsonbody

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/quire-dev/quire/internal/quire"
)

func TestParse_Errors(t *testing.T) {
	tests := []struct {
		name, body  string
		wantCode    string
		wantMessage string
		wantPaths   []string
	}{
		{name: "array", body: `[1]`, wantCode: quire.CodeInvalidJSON, wantMessage: "The request body is not a JSON object."},
		{name: "null", body: ` null`, wantCode: quire.CodeInvalidJSON, wantMessage: "The request body is not a JSON object."},
		{name: "empty", body: ``, wantCode: quire.CodeInvalidJSON, wantMessage: "The request body is not valid JSON: it ends too soon."},
		{name: "cut", body: `{"a":[1,`, wantCode: quire.CodeInvalidJSON, wantMessage: "The request body is not valid JSON: it ends too soon."},
		{name: "missing colon", body: "{\n  \"a\" 1}", wantCode: quire.CodeInvalidJSON,
			wantMessage: "The request body is not valid JSON: expected ':' after the key at line 2, column 7."},
		{name: "trailing comma", body: `{"a":1,}`, wantCode: quire.CodeInvalidJSON,
			wantMessage: "The request body is not valid JSON: expected a key in quotes at line 1, column 8."},
		{name: "two objects", body: `{} {}`, wantCode: quire.CodeInvalidJSON,
			wantMessage: "The request body is not valid JSON: more data after the JSON value at line 1, column 4."},
		{name: "bad literal", body: `{"a":tru}`, wantCode: quire.CodeInvalidJSON,
			wantMessage: "The request body is not valid JSON: unexpected character 't' at line 1, column 6."},
		{name: "huge number", body: `{"a":1e999}`, wantCode: quire.CodeInvalidJSON,
			wantMessage: "The request body is not valid JSON: number 1e999 is out of range at line 1, column 6."},
		{name: "raw control character", body: "{\"a\":\"x\ty\"}", wantCode: quire.CodeInvalidJSON,
			wantMessage: "The request body is not valid JSON: control character in a string at line 1, column 8."},
		{name: "bad escape", body: `{"a":"\q"}`, wantCode: quire.CodeInvalidJSON,
			wantMessage: "The request body is not valid JSON: invalid escape at line 1, column 7."},
		{name: "too deep", body: `{"a":` + strings.Repeat("[", maxDepth+1) + strings.Repeat("]", maxDepth+1) + `}`,
			wantCode: quire.CodeInvalidJSON, wantMessage: "The request body is not valid JSON: nesting deeper than 10000 levels at line 1, column 10006."},
		{name: "NUL everywhere", wantCode: quire.CodeValidation, wantMessage: "z: " + MessageNUL,
			body:      `{"z":"a\u0000","children":[{"p":{"rich_text":[{"text":{"content":"\u0000"}}]}}],"k\u0000":{"x":"\u0000"},"a.b":["\u0000"]}`,
			wantPaths: []string{`"a.b"[0]`, `children[0].p.rich_text[0].text.content`, "k\x00", "z"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse([]byte(tt.body))
			qe, ok := quire.AsError(err)
			if !ok {
				t.Fatalf("Parse(%.40q) error = %v, want a *quire.Error", tt.body, err)
			}
			var paths []string
			for _, d := range qe.Details {
				paths = append(paths, d.Path)
				if d.Reason != quire.ReasonInvalidValue {
					t.Errorf("detail %+v: want reason invalid_value", d)
				}
			}
			if qe.Code != tt.wantCode || (tt.wantCode == quire.CodeInvalidJSON && qe.Message != tt.wantMessage) {
				t.Errorf("Parse(%.40q) = %s %q, want %s %q", tt.body, qe.Code, qe.Message, tt.wantCode, tt.wantMessage)
			}
			if diff := cmp.Diff(tt.wantPaths, paths); diff != "" {
				t.Errorf("paths (-want +got):\n%s", diff)
			}
		})
	}
}

func TestParseMembers_KeepsEachMembersBytes(t *testing.T) {
	body := `{ "properties" : {"b":{},"a":{}} , "x":1, "x": [2] }`
	m, members, err := ParseMembers([]byte(body))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]json.RawMessage{"properties": json.RawMessage(`{"b":{},"a":{}}`), "x": json.RawMessage(`[2]`)}
	if diff := cmp.Diff(want, members); diff != "" {
		t.Errorf("members (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[string]any{"properties": map[string]any{"a": map[string]any{}, "b": map[string]any{}}, "x": []any{2.0}}, m); diff != "" {
		t.Errorf("value (-want +got):\n%s", diff)
	}
}

func TestParseOrdered_KeysInTheirFirstPlace(t *testing.T) {
	v, order, err := ParseOrdered([]byte(`{"b":{"z":1,"y":2},"a":1,"b":3,"c":null}`))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"b", "a", "c"}, order); diff != "" {
		t.Errorf("order (-want +got):\n%s", diff)
	}
	if want := map[string]any{"a": 1.0, "b": 3.0, "c": nil}; !reflect.DeepEqual(v, want) {
		t.Errorf("value = %v, want %v", v, want)
	}
	if _, order, _ := ParseOrdered([]byte(`[{"a":1}]`)); order != nil {
		t.Errorf("an array's order = %v, want none", order)
	}
}

// canonical turns, in a tree encoding/json read, the dashless ids at id keys into their
// canonical form, as Parse reads them: the reference for FuzzParse.
func canonical(v any, key string) {
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			if s, ok := x.(string); ok && IDKey(k) {
				if id, ok := quire.DashlessID(s); ok && len(s) == 32 {
					v[k] = id
				}
			}
			canonical(x, k)
		}
	case []any:
		for i, x := range v {
			if s, ok := x.(string); ok && IDKey(key) {
				if id, ok := quire.DashlessID(s); ok && len(s) == 32 {
					v[i] = id
				}
			}
			canonical(x, key)
		}
	}
}

// TestParse_DashlessIDs: ids at id keys come out canonical, whatever else holds 32 hex digits
// stays as written.
func TestParse_DashlessIDs(t *testing.T) {
	const id, canon = "0190F2A1B2C37D4E8F90A1B2C3D4E5F6", "0190f2a1-b2c3-7d4e-8f90-a1b2c3d4e5f6"
	for _, c := range []struct{ in, want string }{
		{`{"parent":{"page_id":"` + id + `"}}`, `{"parent":{"page_id":"` + canon + `"}}`},
		{`{"id":"` + id + `","content":"` + id + `"}`, `{"id":"` + canon + `","content":"` + id + `"}`},
		{`{"page_sort":["` + id + `", "` + id + `"],"x":["` + id + `"]}`, `{"page_sort":["` + canon + `", "` + canon + `"],"x":["` + id + `"]}`},
		{`{"children":[{"paragraph":{"rich_text":[{"text":{"content":"` + id + `"}}]}}],"after":"` + id + `","before":"` + id + `"}`,
			`{"children":[{"paragraph":{"rich_text":[{"text":{"content":"` + id + `"}}]}}],"after":"` + canon + `","before":"` + canon + `"}`},
		{`{"relation":[{"id":"` + id + `"}],"n":1,"user_ids":[["` + id + `"]]}`, `{"relation":[{"id":"` + canon + `"}],"n":1,"user_ids":[["` + canon + `"]]}`},
		{`{"page_id":"\u0030190F2A1B2C37D4E8F90A1B2C3D4E5F6"}`, `{"page_id":"` + canon + `"}`}, // escapes are read first
		{`{"page_id":"` + id + `0"}`, `{"page_id":"` + id + `0"}`},                             // 33 digits: no id, left to the decoder
		{`{"page_id":"` + canon + `"}`, `{"page_id":"` + canon + `"}`},
	} {
		got, err := Parse([]byte(c.in))
		if err != nil {
			t.Fatalf("Parse(%s): %v", c.in, err)
		}
		var want map[string]any
		if err := json.Unmarshal([]byte(c.want), &want); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("Parse(%s)\n got %v\nwant %v", c.in, got, want)
		}
	}
}

// FuzzParse holds Parse to encoding/json, the reference: a body encoding/json reads into a map
// reads the same (with the dashless ids at id keys canonical), and one it refuses is refused,
// unless the difference is U+0000, which Parse refuses at its path.
func FuzzParse(f *testing.F) {
	for _, s := range []string{`{}`, `{"a":"\ud83d\ude00 \ud800x \u00e9","b":[1,-0.5e3,true,null,{}]}`, "{\"a\":\"\xff\xfe\"}",
		`{"a":"\u0000"}`, `{"a":1e400}`, `{"a" : [ ] , "a":2}`, `{"\ud800\ud800":"\uDFFF"}`, `[]`, `"x"`, `{"a":01}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		got, members, err := ParseMembers(body)
		var want map[string]any
		wantErr := json.Unmarshal(body, &want)
		if wantErr == nil && want == nil {
			wantErr = json.Unmarshal([]byte("x"), &want) // null: not an object
		}
		canonical(want, "")
		qe, _ := quire.AsError(err)
		switch {
		case wantErr != nil && err == nil:
			t.Fatalf("Parse(%q) = %v; encoding/json refuses it: %v", body, got, wantErr)
		case wantErr != nil && qe.Code != quire.CodeInvalidJSON:
			t.Fatalf("Parse(%q) error = %v, want invalid_json", body, err)
		case wantErr == nil && err != nil:
			if qe.Code != quire.CodeValidation || !strings.Contains(string(body), `\u0000`) {
				t.Fatalf("Parse(%q) error = %v; encoding/json reads it", body, err)
			}
		case wantErr == nil && !reflect.DeepEqual(got, want):
			t.Fatalf("Parse(%q) = %#v, encoding/json reads %#v", body, got, want)
		case err == nil:
			var fromMembers map[string]json.RawMessage
			if json.Unmarshal(body, &fromMembers) != nil {
				t.Fatal("members of an object")
			}
			for k, raw := range fromMembers {
				if string(raw) != string(members[k]) {
					t.Fatalf("member %q = %s, want %s", k, members[k], raw)
				}
			}
		}
	})
}
