package dbquery_test

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/quire-dev/quire/internal/dbquery"
	"github.com/quire-dev/quire/internal/quire"
	"github.com/quire-dev/quire/internal/views"
)

// viewSchema is a database with a property of each kind the conversion treats apart.
var viewSchema = dbquery.NewSchema([]dbquery.Property{
	{ID: "ti", Name: "Name", Type: "title"},
	{ID: "nu", Name: "Score", Type: "number"},
	{ID: "se", Name: "Stage", Type: "select", Options: []dbquery.Option{{ID: "o1", Name: "Red"}, {ID: "o2", Name: "Blue"}}},
	{ID: "ms", Name: "Tags", Type: "multi_select", Options: []dbquery.Option{{ID: "t1", Name: "a"}}},
	{ID: "da", Name: "Due", Type: "date"},
	{ID: "ck", Name: "Done", Type: "checkbox"},
	{ID: "pe", Name: "Owner", Type: "people"},
	{ID: "fi", Name: "Files", Type: "files"},
	{ID: "fx", Name: "Total", Type: "formula"},
})

// group reads a view filter as the web client stores it.
func group(t *testing.T, s string) *views.Group {
	t.Helper()
	var g views.Group
	if err := json.Unmarshal([]byte(s), &g); err != nil {
		t.Fatal(err)
	}
	return &g
}

func TestFromView_Filter(t *testing.T) {
	for _, tc := range []struct {
		name, filter string
		want         dbquery.Expr
	}{
		{"text", `{"operator":"and","filters":[{"property":"ti","operator":"contains","value":"pie"},{"property":"ti","operator":"neq","value":"x"}]}`,
			dbquery.And{cond("ti", "title", "contains", "pie"), cond("ti", "title", "does_not_equal", "x")}},
		{"empty text is is_empty", `{"operator":"and","filters":[{"property":"ti","operator":"eq","value":""}]}`,
			dbquery.And{cond("ti", "title", "is_empty", nil)}},
		{"number", `{"operator":"or","filters":[{"property":"nu","operator":"gt","value":"3"},{"property":"nu","operator":"lte","value":"-1.5"}]}`,
			dbquery.Or{cond("nu", "number", "greater_than", 3.0), cond("nu", "number", "less_than_or_equal_to", -1.5)}},
		{"select in and nin", `{"operator":"and","filters":[{"property":"se","operator":"in","value":["o1","o2"]},{"property":"se","operator":"nin","value":["o2"]}]}`,
			dbquery.And{dbquery.Or{cond("se", "select", "equals", "o1"), cond("se", "select", "equals", "o2")}, dbquery.And{cond("se", "select", "does_not_equal", "o2")}}},
		{"in nothing matches nothing", `{"operator":"and","filters":[{"property":"se","operator":"in","value":[]}]}`,
			dbquery.And{dbquery.Or(nil)}},
		{"multi_select eq is contains", `{"operator":"and","filters":[{"property":"ms","operator":"eq","value":"t1"},{"property":"ms","operator":"neq","value":"t1"}]}`,
			dbquery.And{cond("ms", "multi_select", "contains", "t1"), cond("ms", "multi_select", "does_not_contain", "t1")}},
		{"dates", `{"operator":"and","filters":[{"property":"da","operator":"gte","value":"2026-01-02"},{"property":"da","operator":"neq","value":"2026-03-04T05:06:07Z"}]}`,
			dbquery.And{cond("da", "date", "on_or_after", day("2026-01-02")),
				dbquery.Or{cond("da", "date", "before", instant("2026-03-04T05:06:07Z")), cond("da", "date", "after", instant("2026-03-04T05:06:07Z"))}}},
		{"checkbox", `{"operator":"and","filters":[{"property":"ck","operator":"eq","value":"true"},{"property":"ck","operator":"neq","value":"false"}]}`,
			dbquery.And{cond("ck", "checkbox", "equals", true), cond("ck", "checkbox", "does_not_equal", false)}},
		{"people ids made canonical", `{"operator":"and","filters":[{"property":"pe","operator":"contains","value":"0190A1B2C3D47E5F8A9B0C1D2E3F4A5B"}]}`,
			dbquery.And{cond("pe", "people", "contains", "0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b")}},
		{"empty and not_empty", `{"operator":"and","filters":[{"property":"fi","operator":"empty","value":""},{"property":"se","operator":"not_empty"}]}`,
			dbquery.And{cond("fi", "files", "is_empty", nil), cond("se", "select", "is_not_empty", nil)}},
		{"groups three deep", `{"operator":"or","filters":[{"operator":"and","filters":[{"operator":"or","filters":[{"property":"nu","operator":"eq","value":"1"}]}]}]}`,
			dbquery.Or{dbquery.And{dbquery.Or{cond("nu", "number", "equals", 1.0)}}}},
		{"a deleted property filters nothing", `{"operator":"and","filters":[{"property":"gone","operator":"eq","value":"x"},{"property":"nu","operator":"eq","value":"2"}]}`,
			dbquery.And{cond("nu", "number", "equals", 2.0)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, sorts, err := dbquery.FromView(viewSchema, group(t, tc.filter), nil, "view_id")
			if err != nil || sorts != nil {
				t.Fatalf("FromView: %v, sorts %v", err, sorts)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Fatalf("(-want +got)\n%s", diff)
			}
		})
	}
	got, _, err := dbquery.FromView(viewSchema, nil, nil, "view_id")
	if got != nil || err != nil {
		t.Fatalf("no filter: %v, %v", got, err)
	}
}

// TestFromView_Unsupported: a condition the query cannot apply is refused, never dropped (the
// records would be more than the view shows), with the code and path the caller names.
func TestFromView_Unsupported(t *testing.T) {
	for _, f := range []string{
		`{"operator":"and","filters":[{"property":"fx","operator":"eq","value":"1"}]}`,
		`{"operator":"or","filters":[{"property":"nu","operator":"eq","value":"1"},{"property":"fx","operator":"empty"}]}`,
	} {
		_, _, err := dbquery.FromView(viewSchema, group(t, f), nil, "view_id")
		e, ok := quire.AsError(err)
		if !ok || e.Code != quire.CodeUnsupportedFilter || len(e.Details) != 1 || e.Details[0].Path != "view_id" {
			t.Errorf("%s: %v, want unsupported_filter at view_id", f, err)
		}
	}
}

func TestFromView_Sorts(t *testing.T) {
	_, got, err := dbquery.FromView(viewSchema, nil, []views.Sort{
		{Property: "nu", Direction: views.Descending},
		{Property: "ms", Direction: views.Ascending}, // multi_select cannot be sorted: left out
		{Property: "gone", Direction: views.Ascending},
		{Property: "da", Direction: views.Ascending},
	}, "view_id")
	want := []dbquery.Sort{{PropertyID: "nu", Type: "number", Descending: true}, {PropertyID: "da", Type: "date"}}
	if err != nil || !cmp.Equal(got, want) {
		t.Fatalf("sorts %v, %v; want %v", got, err, want)
	}
}
