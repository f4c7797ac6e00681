package properties

import (
	"encoding/json"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	"github.com/quire-dev/quire/internal/blocks"
)

// marshalLongJSON is how records were stored before the short form: encoding/json from
// storedValue, rich texts in full under "rt".
func marshalLongJSON(v Values) []byte {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(marshalValuesJSON(v), &m); err != nil {
		panic(err)
	}
	for id, val := range v {
		if val.RichText == nil {
			continue
		}
		var sv map[string]json.RawMessage
		if err := json.Unmarshal(m[id], &sv); err != nil {
			panic(err)
		}
		delete(sv, "r")
		sv["rt"] = blocks.AppendRichText(nil, val.RichText)
		// Members in storedValue's order: "t" then "rt" then the rest, as encoding/json writes a struct.
		b := []byte(`{"t":`)
		t, _ := json.Marshal(val.Type)
		b = append(b, t...)
		rt, _ := json.Marshal(sv["rt"])
		b = append(append(b, `,"rt":`...), rt...)
		m[id] = append(b, '}')
	}
	b, err := json.Marshal(m)
	if err != nil {
		panic(err)
	}
	return b
}

// TestShortForm: a record stored in the short form reads, renders and exports exactly as the
// same record stored in full (every record written before), for texts that need escapes, plain
// items, styled ones, links, equations and mentions; the long form is still what encoding/json
// wrote; and a plain item is stored as its text alone.
func TestShortForm(t *testing.T) {
	for _, text := range storedTexts {
		v := renderExtras(storedSamples(text, 2.5), text, 2.5)
		short, long := MarshalValues(v), marshalValues(v, false)
		if want := marshalLongJSON(v); string(long) != string(want) {
			t.Fatalf("text %q: the long form\n got %s\nwant %s", text, long, want)
		}
		fromShort, err := UnmarshalValues(short)
		if err != nil {
			t.Fatal(err)
		}
		fromLong, err := UnmarshalValues(long)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(fromLong, fromShort); diff != "" {
			t.Fatalf("text %q: %s reads other than %s (-long +short):\n%s", text, short, long, diff)
		}
		s := renderSchema(text)
		want, err := NewRenderer(s).Append(nil, long, renderComputed)
		if err != nil {
			t.Fatal(err)
		}
		if got, err := NewRenderer(s).Append(nil, short, renderComputed); err != nil || string(got) != string(want) {
			t.Fatalf("text %q: rendered from the short form (%v)\n got %s\nwant %s", text, err, got, want)
		}
		// Values hold valid UTF-8 (requests are checked): bad bytes were stored as \ufffd and
		// read back as U+FFFD, which encodes as itself.
		if utf8.ValidString(text) {
			if got, err := LongForm(short); err != nil || string(got) != string(long) {
				t.Fatalf("text %q: LongForm (%v)\n got %s\nwant %s", text, err, got, long)
			}
		}
		if got, err := LongForm(short); err != nil || string(got) != string(marshalValues(fromShort, false)) {
			t.Fatalf("text %q: LongForm (%v)\n got %s\nwant %s", text, err, got, long)
		}
		if got, err := LongForm(long); err != nil || string(got) != string(long) {
			t.Fatalf("text %q: LongForm of the long form (%v) changed it:\n%s", text, err, got)
		}
	}
	plain := Values{"title": {Type: "title", RichText: blocks.Plain("Record 1 <b>")}}
	if got, want := string(MarshalValues(plain)), `{"title":{"t":"title","r":["Record 1 \u003cb\u003e"]}}`; got != want {
		t.Errorf("a plain title is stored as %s, want %s", got, want)
	}
	if long := marshalValues(plain, false); len(long)-len(MarshalValues(plain)) < 180 {
		t.Errorf("the short form saves %d bytes of a plain item, want at least 180", len(long)-len(MarshalValues(plain)))
	}
}
