package service

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/quire-dev/quire/internal/jsonbody"
	"github.com/quire-dev/quire/internal/properties"
	"github.com/quire-dev/quire/internal/quire"
)

const fastUser = "7b0c2a8e-4f1d-4c3b-9a5e-2d6f8e1b3c4a"

// fastSchema is quire-bench's records schema with a computed property beside it.
func fastSchema(t testing.TB) quire.Schema {
	t.Helper()
	s, err := properties.DecodeSchema(json.RawMessage(`{"Name":{"title":{}},"Text":{"rich_text":{}},"Num":{"number":{"format":"number"}},
		"Sel":{"select":{"options":[{"name":"opt0"},{"name":"opt1"}]}},"Tags":{"multi_select":{"options":[{"name":"tag0"},{"name":"tag1"}]}},
		"Due":{"date":{}},"Done":{"checkbox":{}},"Link":{"url":{}},"Stage":{"status":{}},"Owner":{"people":{}},"F":{"files":{}},"K":{"unique_id":{}}}`), "properties")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// checkMutations fails unless a body readMutations takes is one the reference path reads
// without a problem into the same operations, whose properties decode against s (through the
// fast path's values) to the same values, or the same error, as the reference's.
func checkMutations(t *testing.T, s quire.Schema, body []byte) bool {
	fast, ok := readMutations(body)
	if !ok {
		return false
	}
	ref, err := decodeMutationsTree(body)
	if err != nil {
		t.Fatalf("readMutations took %q, which the reference refuses: %v", body, err)
	}
	if len(fast) != len(ref) {
		t.Fatalf("readMutations(%q): %d operations, the reference %d", body, len(fast), len(ref))
	}
	for i := range ref {
		f, r := fast[i], ref[i]
		var props any
		if f.raw != nil {
			if props, err = jsonbody.ParseValue(f.raw); err != nil {
				t.Fatal(err)
			}
		}
		if f.Op != r.Op || f.PageID != r.PageID || f.Path != r.Path || f.Children != nil || r.Children != nil ||
			f.Properties != nil || !reflect.DeepEqual(props, r.Properties) {
			t.Fatalf("readMutations(%q)[%d] = %+v (properties %v), the reference %+v", body, i, f, props, r)
		}
		got, gotErr := f.values(s)
		want, wantErr := r.values(s)
		if !reflect.DeepEqual(got, want) || !reflect.DeepEqual(gotErr, wantErr) {
			t.Fatalf("values of %q[%d] = %v, %v; the reference %v, %v", body, i, got, gotErr, want, wantErr)
		}
	}
	return true
}

const fastRecord = `{"op":"create","properties":{"Done":{"checkbox":true},"Due":{"date":{"start":"2026-03-20"}},` +
	`"Link":{"url":"https://example.com/records/1"},"Name":{"title":[{"text":{"content":"Record 1: Budget"}}]},"Num":{"number":12.5},` +
	`"Owner":{"people":[{"id":"` + fastUser + `","object":"user"}]},"Sel":{"select":{"name":"opt1"}},"Stage":{"status":{"name":"In progress"}},` +
	`"Tags":{"multi_select":[{"name":"tag0"},{"name":"tag1"}]},"Text":{"rich_text":[{"text":{"content":"We measured it."}}]}}}`

func TestReadMutations_Takes(t *testing.T) {
	s := fastSchema(t)
	for _, body := range []string{
		`{"mutations":[` + fastRecord + `]}`,
		`{"mutations":[` + strings.Repeat(fastRecord+",", MaxMutations-1) + fastRecord + `]}`,
		"{ \"mutations\" : [ {\"properties\": {\"Num\": {\"number\": 1}}, \"op\": \"create\"}, {\"op\":\"create\"} ] }\n",
		`{"mutations":[{"op":"create","properties":{"F":{"files":[]},"Nope":{"number":1}}},{"op":"create","properties":{"Num":{"number":"x"}}}]}`,
		`{"mutations":[{"op":"create","properties":{"Name":[{"text":{"content":"bare"}}],"Num":null,"Num":{"number":2}}}]}`,
	} {
		if !checkMutations(t, s, []byte(body)) {
			t.Errorf("readMutations gave up on %q", body)
		}
	}
}

// TestReadMutations_GivesUp: bodies left to the reference path, which reads or reports them.
func TestReadMutations_GivesUp(t *testing.T) {
	s := fastSchema(t)
	for name, body := range map[string]string{
		"not an object":        `[]`,
		"no mutations":         `{}`,
		"empty":                `{"mutations":[]}`,
		"101 operations":       `{"mutations":[` + strings.Repeat(`{"op":"create"},`, MaxMutations) + `{"op":"create"}]}`,
		"update":               `{"mutations":[{"op":"update","page_id":"` + fastUser + `","properties":{}}]}`,
		"trash":                `{"mutations":[{"op":"trash","page_id":"` + fastUser + `"}]}`,
		"no op":                `{"mutations":[{"properties":{}}]}`,
		"op twice":             `{"mutations":[{"op":"create","op":"create"}]}`,
		"properties twice":     `{"mutations":[{"op":"create","properties":{},"properties":{}}]}`,
		"properties not obj":   `{"mutations":[{"op":"create","properties":[]}]}`,
		"children":             `{"mutations":[{"op":"create","children":[]}]}`,
		"unknown key":          `{"mutations":[{"op":"create","x":1}]}`,
		"mutations twice":      `{"mutations":[{"op":"create"}],"mutations":[{"op":"create"}]}`,
		"other member":         `{"mutations":[{"op":"create"}],"x":1}`,
		"NUL in a property":    `{"mutations":[{"op":"create","properties":{"Text":{"rich_text":[{"text":{"content":"\u0000"}}]}}}]}`,
		"NUL in a key":         `{"mutations":[{"op":"create","properties":{"\u0000":1}}]}`,
		"dashless id":          `{"mutations":[{"op":"create","properties":{"Owner":{"people":[{"id":"` + strings.ReplaceAll(fastUser, "-", "") + `"}]}}}]}`,
		"invalid UTF-8":        "{\"mutations\":[{\"op\":\"create\",\"properties\":{\"Text\":\"\xff\"}}]}",
		"not JSON":             `{"mutations":[{"op":"create","properties":{"Num":{"number":01}}}]}`,
		"more after the body":  `{"mutations":[{"op":"create"}]}]`,
		"op not a string":      `{"mutations":[{"op":1}]}`,
		"operation not object": `{"mutations":[1]}`,
	} {
		if checkMutations(t, s, []byte(body)) {
			t.Errorf("%s: readMutations took %q", name, body)
		}
		if _, err := DecodeMutations([]byte(body)); err == nil && strings.Contains(name, "NUL") {
			t.Errorf("%s: DecodeMutations took it", name)
		}
	}
}

// FuzzReadMutations: whatever body readMutations takes, the reference path reads to the same
// operations, and each operation's values (through properties.ReadBodyValues or the tree) and
// error are the reference's.
func FuzzReadMutations(f *testing.F) {
	for _, s := range []string{`{"mutations":[` + fastRecord + `]}`, `{"mutations":[{"op":"create"}]}`,
		`{"mutations":[{"op":"create","properties":{"Sel":{"select":{"name":"opt9"}},"K":{"unique_id":1}}}]}`,
		`{"mutations":[{"op":"create","properties":{"Owner":{"people":[{"id":"` + fastUser + `"},{"id":"` + strings.ToUpper(fastUser) + `"}]}}}]}`,
	} {
		f.Add([]byte(s))
	}
	s := fastSchema(f)
	f.Fuzz(func(t *testing.T, body []byte) { checkMutations(t, s, body) })
}

// BenchmarkDecodeBatch: a batch of 100 of quire-bench's records, decoded as a mutations
// request is before its transaction (DecodeMutations, then each operation's values against
// the schema), by the fast path and by the reference path.
func BenchmarkDecodeBatch(b *testing.B) {
	s := fastSchema(b)
	body := []byte(`{"mutations":[` + strings.Repeat(fastRecord+",", MaxMutations-1) + fastRecord + `]}`)
	for _, path := range []struct {
		name   string
		decode func([]byte) ([]Mutation, error)
	}{{"fast", DecodeMutations}, {"reference", decodeMutationsTree}} {
		b.Run(path.name, func(b *testing.B) {
			b.SetBytes(int64(len(body)))
			b.ReportAllocs()
			for b.Loop() {
				ops, err := path.decode(body)
				if err != nil || len(ops) != MaxMutations {
					b.Fatal(err)
				}
				for _, m := range ops {
					if _, err := m.values(s); err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}
