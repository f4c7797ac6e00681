package views

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/quire-dev/quire/internal/quire"
)

var fuzzSeeds = []string{
	`{"type":"table","name":"t","property_layout":[{"property":"title","visible":true,"width":200}],"filter":{"operator":"and","filters":[{"property":"sel","operator":"in","value":["High","Low"]},{"operator":"or","filters":[{"property":"chk","operator":"eq","value":"false"},{"operator":"and","filters":[{"property":"num","operator":"gt","value":"1e3"}]}]}]},"sorts":[{"property":"due","direction":"ascending"}],"group_by":{"property":"chk"},"config":{"wrap":true,"freeze_columns":1,"aggregations":{"num":"average","":"x"}}}`,
	`{"type":"board","name":"b","group_by":{"property":"st"},"config":{"card_preview":"property","cover_property":"files","card_size":"small"}}`,
	`{"type":"gallery","name":"g","config":{"card_size":"small","fit_image":true,"":null}}`,
	`{"type":"calendar","name":"c","config":{"date_property":"end"},"group_by":{"property":"sel"}}`,
	`{"type":"timeline","name":"tl","property_layout":[{"property":"title"}],"config":{"start_property":"end","end_property":"end","show_table":0}}`,
	`{"type":"form","name":"f","config":{"title_visible":false,"submit_text":"","allow_multiple_submissions":true}}`,
	`{"type":"list","name":"l","filter":{"operator":"or","filters":[{"property":"ms","operator":"contains","value":"red"},{"property":"ppl","operator":"empty","value":[1]},{"filters":null}]}}`,
	`{"type":1,"name":null,"a.b":{},"[0]":[],"filter":{"operator":"and","filters":[{"property":"due","operator":"lt","value":"2024-02-30"}]}}`,
	`{"type":"table","name":"t","page_sort":["11111111-1111-4111-8111-111111111111"],"sorts":[{"property":"num","direction":"up"},{"property":"num","direction":"descending"}]}`,
	`{}`, `[]`, `null`, `"table"`, `{"type":"table","name":"t","config":{"aggregations":{"\"":"count","num":1e400}},"property_layout":[{"property":"num","visible":true,"width":-1e400}]}`,
}

// FuzzDecodeCreate: any JSON body is answered without a panic; every error is a *quire.Error
// whose details all have a reason and a path without empty segments; a decoded view reads
// back as a body that decodes to the same view, and its stored form round-trips.
func FuzzDecodeCreate(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		v, ok := parseFuzz(data)
		if !ok {
			return
		}
		s := testSchema()
		view, err := DecodeCreate(s, v)
		if err != nil {
			checkFuzzErr(t, err)
			return
		}
		checkFuzzView(t, s, view)
		again, err := DecodeCreate(s, writeBody(t, Encode(s, meta, view, false)))
		if err != nil {
			t.Fatalf("read shape does not write back: %v\n%s", err, Encode(s, meta, view, false))
		}
		if diff := cmp.Diff(Read(s, view, false), Read(s, again, false)); diff != "" {
			t.Fatalf("read shape written back differs (-first +again):\n%s", diff)
		}
	})
}

// FuzzDecodePatch: the same promises for a patch of a stored table view.
func FuzzDecodePatch(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		v, ok := parseFuzz(data)
		if !ok {
			return
		}
		s := testSchema()
		current := tableView()
		view, err := DecodePatch(s, current, v)
		if !cmp.Equal(current, tableView()) {
			t.Fatal("DecodePatch changed the current view")
		}
		if err != nil {
			checkFuzzErr(t, err)
			return
		}
		checkFuzzView(t, s, view)
	})
}

func parseFuzz(data []byte) (any, bool) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) != nil || dec.More() {
		return nil, false
	}
	return v, true
}

func checkFuzzErr(t *testing.T, err error) {
	e, ok := err.(*quire.Error)
	if !ok {
		t.Fatalf("error %T is not a *quire.Error: %v", err, err)
	}
	if len(e.Details) == 0 || e.Message == "" {
		t.Fatalf("error without details or message: %v", e)
	}
	for _, d := range e.Details {
		if d.Reason == "" || !validPath(d.Path) {
			t.Fatalf("detail with a malformed path or no reason: %q %q", d.Path, d.Reason)
		}
	}
}

// validPath reports whether path is key ("." key | "[" digits "]")*, each key non-empty: a
// plain name without . [ ] " or a Go-quoted string.
func validPath(path string) bool {
	first := true
	for {
		if path == "" {
			return !first
		}
		if !first {
			switch path[0] {
			case '[':
				end := strings.IndexByte(path, ']')
				if end < 2 || strings.Trim(path[1:end], "0123456789") != "" {
					return false
				}
				path = path[end+1:]
				continue
			case '.':
				path = path[1:]
			default:
				return false
			}
		}
		first = false
		if strings.HasPrefix(path, `"`) {
			q, err := strconv.QuotedPrefix(path)
			if err != nil {
				return false
			}
			path = path[len(q):]
			continue
		}
		n := strings.IndexAny(path, `.[]"`)
		if n < 0 {
			n = len(path)
		}
		if n == 0 {
			return false
		}
		path = path[n:]
	}
}

func checkFuzzView(t *testing.T, s quire.Schema, view *View) {
	for _, detail := range []bool{false, true} {
		if out := Encode(s, meta, view, detail); !json.Valid(out) {
			t.Fatalf("invalid read shape %s", out)
		}
	}
	raw, err := Marshal(view)
	if err != nil {
		t.Fatalf("Marshal: %v", err)
	}
	back, err := Unmarshal(raw)
	if err != nil {
		t.Fatalf("Unmarshal %s: %v", raw, err)
	}
	if diff := cmp.Diff(Read(s, view, true), Read(s, back, true)); diff != "" {
		t.Fatalf("stored form round trip (-want +got):\n%s\n%s", diff, raw)
	}
}
