package views

import (
	"bytes"
	"encoding/json"
	"sort"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/quire-dev/quire/internal/quire"
)

// testSchema is a database with one property of most types. Select "sel" has two options named
// "Low" (ambiguous) and one named like another option's id.
func testSchema() quire.Schema {
	return quire.Schema{
		{ID: "title", Name: "Name", Type: quire.PropTitle},
		{ID: "sel", Name: "Priority", Type: quire.PropSelect, Options: []quire.Option{
			{ID: "o1", Name: "High"}, {ID: "o2", Name: "Low"}, {ID: "o3", Name: "Low"}, {ID: "o4", Name: "o1"},
		}},
		{ID: "ms", Name: "Tags", Type: quire.PropMultiSelect, Options: []quire.Option{{ID: "t1", Name: "red"}, {ID: "t2", Name: "blue"}}},
		{ID: "st", Name: "Status", Type: quire.PropStatus, Options: []quire.Option{{ID: "s1", Name: "Done"}, {ID: "s2", Name: "Doing"}}},
		{ID: "num", Name: "Estimate", Type: quire.PropNumber},
		{ID: "due", Name: "Due", Type: quire.PropDate},
		{ID: "end", Name: "End", Type: quire.PropDate},
		{ID: "chk", Name: "Done?", Type: quire.PropCheckbox},
		{ID: "ppl", Name: "Owner", Type: quire.PropPeople},
		{ID: "files", Name: "Attachments", Type: quire.PropFiles},
		{ID: "text", Name: "Notes", Type: quire.PropRichText},
		{ID: "ct", Name: "Created", Type: quire.PropCreatedTime},
	}
}

// legacySchema's title property has a non-title id.
func legacySchema() quire.Schema {
	return quire.Schema{
		{ID: "abc", Name: "Name", Type: quire.PropTitle},
		{ID: "sel", Name: "Priority", Type: quire.PropSelect, Options: []quire.Option{{ID: "o1", Name: "High"}}},
	}
}

// without returns s minus the properties with the given ids.
func without(s quire.Schema, ids ...string) quire.Schema {
	var out quire.Schema
	for _, p := range s {
		if !contains(ids, p.ID) {
			out = append(out, p)
		}
	}
	return out
}

// body parses JSON as a request body is parsed (numbers as json.Number).
func body(t testing.TB, s string) any {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader([]byte(s)))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("bad test JSON %s: %v", s, err)
	}
	return v
}

// details returns err's details sorted, failing unless err is a *quire.Error.
func details(t *testing.T, err error) []quire.Detail {
	t.Helper()
	e, ok := err.(*quire.Error)
	if !ok {
		t.Fatalf("error %T %v is not a *quire.Error", err, err)
	}
	ds := append([]quire.Detail(nil), e.Details...)
	sortDetails(ds)
	return ds
}

func sortDetails(ds []quire.Detail) {
	sort.Slice(ds, func(i, j int) bool {
		if ds[i].Path != ds[j].Path {
			return ds[i].Path < ds[j].Path
		}
		return ds[i].Reason < ds[j].Reason
	})
}

// d builds a detail.
func d(path, reason string) quire.Detail { return quire.Detail{Path: path, Reason: reason} }

// checkErr asserts err is a validation_error with exactly want (in any order).
func checkErr(t *testing.T, err error, want ...quire.Detail) {
	t.Helper()
	if err == nil {
		t.Fatalf("no error; want %v", want)
	}
	if !quire.IsCode(err, quire.CodeValidation) {
		t.Fatalf("error %v is not a validation_error", err)
	}
	want = append([]quire.Detail(nil), want...)
	sortDetails(want)
	if diff := cmp.Diff(want, details(t, err)); diff != "" {
		t.Fatalf("details (-want +got):\n%s", diff)
	}
}

func intp(n int) *int { return &n }

func cond(prop, op string, v *Value) Filter {
	return Filter{Condition: &Condition{Property: prop, Operator: op, Value: v}}
}

func one(s string) *Value                  { return &Value{One: s} }
func many(s ...string) *Value              { return &Value{Many: append([]string{}, s...)} }
func group(op string, fs ...Filter) *Group { return &Group{Operator: op, Filters: fs} }
