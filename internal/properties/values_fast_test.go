package properties_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/quire-dev/quire/internal/jsonbody"
	"github.com/quire-dev/quire/internal/properties"
	"github.com/quire-dev/quire/internal/quire"
)

// checkBodyValues fails unless what ReadBodyValues takes, the reference path (jsonbody's tree
// of the same bytes, DecodeValues) reads without a problem to the same values and stored form.
func checkBodyValues(t *testing.T, s quire.Schema, raw []byte) bool {
	got, ok := properties.ReadBodyValues(s, raw)
	if !ok {
		return false
	}
	tree, err := jsonbody.ParseValue(raw)
	if err != nil {
		t.Fatalf("ReadBodyValues took %q, which jsonbody refuses: %v", raw, err)
	}
	want, err := properties.DecodeValues(s, tree, "properties", nil)
	if err != nil {
		t.Fatalf("ReadBodyValues took %q, which DecodeValues refuses: %v", raw, err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("%q (-DecodeValues +ReadBodyValues):\n%s", raw, diff)
	}
	if a, b := properties.MarshalValues(want), properties.MarshalValues(got); string(a) != string(b) {
		t.Fatalf("%q stored: %s, want %s", raw, b, a)
	}
	return true
}

// fastValues is a record of every type ReadBodyValues takes, as quire-bench's seeding sends one.
const fastValues = `{"C":{"checkbox":true},"D":{"date":{"start":"2026-03-04"}},"E":{"email":"a@b.c"},` +
	`"M":{"multi_select":[{"name":"x"},{"name":"y"},{"name":"x"}]},"N":{"number":-0},"Name":{"title":[{"text":{"content":"Record 1: Budget"}}]},` +
	`"Notes":{"rich_text":[{"type":"text","text":{"content":"We measured it."}}]},"P":{"people":[{"object":"user","id":"` + user + `"}]},` +
	`"Ph":{"phone_number":"+1 555"},"R":{"relation":[{"id":"` + user + `"},{"id":"` + user + `"}]},"S":{"select":{"name":"b"}},` +
	`"St":{"status":{"name":"Done"}},"U":{"url":"https://example.com/records/1"}}`

func TestReadBodyValues_Takes(t *testing.T) {
	s := testSchema(t)
	for _, raw := range []string{
		fastValues, `{}`, " { \"N\" : { \"number\" : 1e3 } , \"C\":{\"checkbox\":false} }\n",
		`{"D":{"date":{"start":"2024-05-10T10:00:00Z","end":null}},"U":{"url":""},"M":{"multi_select":[]},"Name":{"title":[]}}`,
		`{"D":{"date":{"end":"2024-05-12","start":"2024-05-10"}},"S":{"select":{"id":"` + s.ByName("S").Options[0].ID + `"}}}`,
		`{"` + s.ByName("N").ID + `":{"number":2}}`,
	} {
		if !checkBodyValues(t, s, []byte(raw)) {
			t.Errorf("ReadBodyValues gave up on %s", raw)
		}
	}
}

// TestReadBodyValues_GivesUp: properties the fast path leaves to DecodeValues, which reports
// the problems or reads the shapes it does not.
func TestReadBodyValues_GivesUp(t *testing.T) {
	s := testSchema(t)
	for name, raw := range map[string]string{
		"not an object":      `[]`,
		"unknown property":   `{"Nope":{"number":1}}`,
		"twice by name":      `{"N":{"number":1},"N":{"number":2}}`,
		"by name and by id":  `{"N":{"number":1},"` + s.ByName("N").ID + `":{"number":2}}`,
		"computed":           `{"K":{"unique_id":1}}`,
		"null":               `{"N":null}`,
		"null inside":        `{"N":{"number":null}}`,
		"bare rich text":     `{"Name":[{"text":{"content":"a"}}]}`,
		"envelope with id":   `{"N":{"id":"x","number":1}}`,
		"envelope with type": `{"N":{"number":1,"type":"number"}}`,
		"other type":         `{"N":{"checkbox":true}}`,
		"number as string":   `{"N":{"number":"1"}}`,
		"number too large":   `{"N":{"number":1e400}}`,
		"checkbox string":    `{"C":{"checkbox":"true"}}`,
		"bad url":            `{"U":{"url":"not a url"}}`,
		"bad email":          `{"E":{"email":"nobody"}}`,
		"unknown option":     `{"S":{"select":{"name":"zz"}}}`,
		"option with colour": `{"S":{"select":{"name":"a","color":"red"}}}`,
		"option id and name": `{"S":{"select":{"id":"` + s.ByName("S").Options[0].ID + `","name":"a"}}}`,
		"time_zone":          `{"D":{"date":{"start":"2024-05-10T10:00:00","time_zone":"Europe/Paris"}}}`,
		"bad date":           `{"D":{"date":{"start":"2024-13-10"}}}`,
		"end before start":   `{"D":{"date":{"start":"2024-05-10","end":"2024-05-01"}}}`,
		"no start":           `{"D":{"date":{"end":"2024-05-10"}}}`,
		"person not a user":  `{"P":{"people":[{"object":"bot","id":"` + user + `"}]}}`,
		"person without id":  `{"P":{"people":[{"object":"user"}]}}`,
		"bad id":             `{"P":{"people":[{"id":"x"}]}}`,
		"dashless id":        `{"P":{"people":[{"id":"` + strings.ReplaceAll(user, "-", "") + `"}]}}`,
		"object on relation": `{"R":{"relation":[{"object":"user","id":"` + user + `"}]}}`,
		"files":              `{"F":{"files":[]}}`,
		"101 options":        `{"M":{"multi_select":[` + strings.Repeat(`{"name":"x"},`, 100) + `{"name":"x"}]}}`,
		"annotations":        `{"Name":{"title":[{"text":{"content":"a"},"annotations":{"bold":true}}]}}`,
		"escaped NUL":        `{"Notes":{"rich_text":[{"text":{"content":"\u0000"}}]}}`,
		"more after":         `{"N":{"number":1}}x`,
	} {
		if checkBodyValues(t, s, []byte(raw)) {
			t.Errorf("%s: ReadBodyValues took %s", name, raw)
		}
	}
}

// FuzzReadBodyValues: whatever properties ReadBodyValues takes, against a schema of every
// type, DecodeValues reads from jsonbody's tree to the same values and stored form.
func FuzzReadBodyValues(f *testing.F) {
	for _, s := range []string{fastValues, `{}`, `{"N":{"number":-0.0e-5},"C":{"checkbox":false}}`,
		`{"D":{"date":{"start":"2024-05-10","end":"2024-05-10T00:00:00+02:00"}}}`, `{"St":{"status":{"name":"In progress"}}}`,
		`{"Name":{"title":[{"text":{"content":"\u00e9\ud800"}},{"type":"text","text":{"content":""}}]}}`} {
		f.Add([]byte(s))
	}
	s := testSchema(f)
	f.Fuzz(func(t *testing.T, raw []byte) { checkBodyValues(t, s, raw) })
}
