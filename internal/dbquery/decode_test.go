package dbquery_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/quire-dev/quire/internal/dbquery"
	"github.com/quire-dev/quire/internal/quire"
)

func day(s string) dbquery.Date {
	m, _, _ := quire.ParseDate(s)
	return dbquery.Date{Ms: m, Day: true}
}

func instant(s string) dbquery.Date {
	m, _, _ := quire.ParseDate(s)
	return dbquery.Date{Ms: m}
}

func cond(prop, typ, op string, v any) dbquery.Cond {
	return dbquery.Cond{PropertyID: prop, Type: typ, Op: op, Value: v}
}

func TestDecodeFilter(t *testing.T) {
	tests := []struct {
		name, filter string
		want         dbquery.Expr
	}{
		{"none", ``, nil},
		{"null", `null`, nil},
		{"title", `{"property":"Name","title":{"contains":"pie"}}`, cond("title", "title", "contains", "pie")},
		{"title by id, rich_text key", `{"property":"title","rich_text":{"ends_with":"x"}}`, cond("title", "title", "ends_with", "x")},
		{"url", `{"property":"Web","url":{"starts_with":"https"}}`, cond("ur", "url", "starts_with", "https")},
		{"text equals empty is is_empty", `{"property":"Notes","rich_text":{"equals":""}}`, cond("nt", "rich_text", "is_empty", nil)},
		{"text does_not_equal empty is is_not_empty", `{"property":"Notes","rich_text":{"does_not_equal":""}}`, cond("nt", "rich_text", "is_not_empty", nil)},
		{"number", `{"property":"Score","number":{"greater_than_or_equal_to":-1.5e3}}`, cond("sc", "number", "greater_than_or_equal_to", -1500.0)},
		{"unique_id", `{"property":"ID","unique_id":{"equals":7}}`, cond("ui", "unique_id", "equals", 7.0)},
		{"checkbox", `{"property":"Done","checkbox":{"does_not_equal":false}}`, cond("dn", "checkbox", "does_not_equal", false)},
		{"select by name", `{"property":"Stage","select":{"equals":"Doing"}}`, cond("sl", "select", "equals", "b")},
		{"select by id", `{"property":"Stage","select":{"equals":"c"}}`, cond("sl", "select", "equals", "c")},
		{"select unknown name matches nothing", `{"property":"Stage","select":{"equals":"Nope"}}`, cond("sl", "select", "equals", "")},
		{"status", `{"property":"State","status":{"does_not_equal":"Complete"}}`, cond("st", "status", "does_not_equal", "s3")},
		{"multi_select", `{"property":"Tags","multi_select":{"does_not_contain":"blue"}}`, cond("tg", "multi_select", "does_not_contain", "z")},
		{"date day", `{"property":"Due","date":{"on_or_after":"2024-05-10"}}`, cond("du", "date", "on_or_after", day("2024-05-10"))},
		{"date instant", `{"property":"Due","date":{"before":"2024-05-10T12:00:00.250+02:00"}}`, cond("du", "date", "before", instant("2024-05-10T10:00:00.250Z"))},
		{"date without zone is UTC", `{"property":"Due","date":{"after":"2024-05-10T12:00"}}`, cond("du", "date", "after", instant("2024-05-10T12:00:00Z"))},
		{"date relative", `{"property":"Due","date":{"next_month":{}}}`, cond("du", "date", "next_month", nil)},
		{"date is_empty", `{"property":"Due","date":{"is_empty":true}}`, cond("du", "date", "is_empty", nil)},
		{"timestamp", `{"timestamp":"last_edited_time","last_edited_time":{"this_week":{}}}`, cond("", "last_edited_time", "this_week", nil)},
		{"created_time property, date key", `{"property":"Created","date":{"equals":"2024-01-02"}}`, cond("ct", "created_time", "equals", day("2024-01-02"))},
		{"people canonical id", `{"property":"Owner","people":{"contains":"11111111111141118111111111111111"}}`, cond("pp", "people", "contains", u1)},
		{"people upper-case id", `{"property":"Owner","people":{"contains":"` + strings.ToUpper(u1) + `"}}`, cond("pp", "people", "contains", u1)},
		{"created_by, people key", `{"property":"Creator","people":{"does_not_contain":"` + u2 + `"}}`, cond("cb", "created_by", "does_not_contain", u2)},
		{"files", `{"property":"Files","files":{"is_not_empty":true}}`, cond("fl", "files", "is_not_empty", nil)},
		{"relation", `{"property":"Link","relation":{"contains":"` + p1 + `"}}`, cond("rl", "relation", "contains", p1)},
		{"and of or", `{"and":[{"property":"Done","checkbox":{"equals":true}},{"or":[{"property":"Score","number":{"equals":1}},{"property":"Score","number":{"is_empty":true}}]}]}`,
			dbquery.And{cond("dn", "checkbox", "equals", true), dbquery.Or{cond("sc", "number", "equals", 1.0), cond("sc", "number", "is_empty", nil)}}},
		{"empty or", `{"or":[]}`, dbquery.Or{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := dbquery.DecodeFilter(testSchema, []byte(tc.filter))
			if err != nil {
				t.Fatalf("DecodeFilter: %v", err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("DecodeFilter (-want +got):\n%s", diff)
			}
		})
	}
}

func TestDecodeSorts(t *testing.T) {
	got, err := dbquery.DecodeSorts(testSchema, []byte(`[{"property":"Score","direction":"descending"},{"property":"ur","direction":"ascending"},
		{"timestamp":"created_time","direction":"ascending"},{"property":"Edited","direction":"descending"}]`))
	if err != nil {
		t.Fatal(err)
	}
	want := []dbquery.Sort{{PropertyID: "sc", Type: "number", Descending: true}, {PropertyID: "ur", Type: "url"},
		{Type: "created_time"}, {PropertyID: "et", Type: "last_edited_time", Descending: true}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("DecodeSorts (-want +got):\n%s", diff)
	}
	if got, err := dbquery.DecodeSorts(testSchema, []byte(`null`)); err != nil || got != nil {
		t.Errorf("DecodeSorts(null) = %v, %v", got, err)
	}
}

func TestDecodeErrors(t *testing.T) {
	many := func(n int, member string) string {
		return strings.TrimSuffix(strings.Repeat(member+",", n), ",")
	}
	type d struct{ Path, Reason string } // quire.Detail, written unkeyed
	tests := []struct {
		name, filter, sorts string
		want                []d
	}{
		{"filter not an object", `[]`, ``, []d{{"filter", "invalid_type"}}},
		{"filter not JSON", `{"property"`, ``, []d{{"filter", "invalid_value"}}},
		{"filter trailing data", `{} {}`, ``, []d{{"filter", "invalid_value"}}},
		{"no property", `{}`, ``, []d{{"filter.property", "required"}}},
		{"unknown property", `{"property":"Nope","number":{"equals":1}}`, ``, []d{{"filter.property", "invalid_value"}}},
		{"property not a string", `{"property":5,"number":{"equals":1}}`, ``, []d{{"filter.property", "invalid_type"}}},
		{"property cannot be filtered", `{"property":"Calc","formula":{"string":{"equals":"x"}}}`, ``, []d{{"filter.property", "invalid_value"}}},
		{"no condition", `{"property":"Score"}`, ``, []d{{"filter.number", "required"}}},
		{"condition of another type", `{"property":"Score","rich_text":{"contains":"x"}}`, ``, []d{{"filter.rich_text", "invalid_value"}}},
		{"two conditions", `{"property":"Name","rich_text":{"contains":"x"},"title":{"contains":"y"}}`, ``, []d{{"filter.title", "invalid_value"}}},
		{"unknown filter field", `{"property":"Score","number":{"equals":1},"bogus":1}`, ``, []d{{"filter.bogus", "unknown_field"}}},
		{"operator of another type", `{"property":"Score","number":{"contains":"x"}}`, ``, []d{{"filter.number.contains", "unknown_field"}}},
		{"unknown operator", `{"property":"Score","number":{"frobnicate":1}}`, ``, []d{{"filter.number.frobnicate", "unknown_field"}}},
		{"no operator", `{"property":"Score","number":{}}`, ``, []d{{"filter.number", "invalid_value"}}},
		{"two operators", `{"property":"Score","number":{"equals":1,"greater_than":2}}`, ``, []d{{"filter.number.greater_than", "invalid_value"}}},
		{"condition not an object", `{"property":"Score","number":5}`, ``, []d{{"filter.number", "invalid_type"}}},
		{"wrong operand type in or", `{"or":[{"property":"Score","number":{"equals":1}},{"property":"Done","checkbox":{"equals":true}},{"property":"Score","number":{"greater_than":"5"}}]}`, ``,
			[]d{{"filter.or[2].number.greater_than", "invalid_type"}}},
		{"unknown property in and", `{"and":[{"property":"Score","number":{"equals":1}},{"property":"Nope","number":{"equals":1}}]}`, ``, []d{{"filter.and[1].property", "invalid_value"}}},
		{"three levels", `{"and":[{"or":[{"property":"Score","number":{"equals":1}},{"and":[]}]}]}`, ``, []d{{"filter.and[0].or[1].and", "invalid_value"}}},
		{"compound not an array", `{"and":{}}`, ``, []d{{"filter.and", "invalid_type"}}},
		{"and with or", `{"and":[],"or":[]}`, ``, []d{{"filter.or", "invalid_value"}}},
		{"compound with property", `{"and":[],"property":"Score"}`, ``, []d{{"filter.property", "unknown_field"}}},
		{"member not an object", `{"or":[1]}`, ``, []d{{"filter.or[0]", "invalid_type"}}},
		{"too many members", `{"or":[` + many(101, `{"property":"Score","number":{"equals":1}}`) + `]}`, ``, []d{{"filter.or", "too_many"}}},
		{"too many conditions", `{"or":[` + many(51, `{"property":"Score","number":{"equals":1}}`) + `,{"and":[` + many(50, `{"property":"Score","number":{"equals":1}}`) + `]}]}`, ``,
			[]d{{"filter", "too_many"}}},
		{"checkbox not a boolean", `{"property":"Done","checkbox":{"equals":"true"}}`, ``, []d{{"filter.checkbox.equals", "invalid_type"}}},
		{"is_empty false", `{"property":"Score","number":{"is_empty":false}}`, ``, []d{{"filter.number.is_empty", "invalid_value"}}},
		{"is_empty not a boolean", `{"property":"Score","number":{"is_empty":"yes"}}`, ``, []d{{"filter.number.is_empty", "invalid_type"}}},
		{"bad date", `{"property":"Due","date":{"equals":"yesterday"}}`, ``, []d{{"filter.date.equals", "invalid_value"}}},
		{"relative date with a field", `{"property":"Due","date":{"past_week":{"days":3}}}`, ``, []d{{"filter.date.past_week.days", "unknown_field"}}},
		{"relative date not an object", `{"property":"Due","date":{"past_week":true}}`, ``, []d{{"filter.date.past_week", "invalid_type"}}},
		{"ambiguous option name", `{"property":"Stage","select":{"equals":"Twin"}}`, ``, []d{{"filter.select.equals", "ambiguous"}}},
		{"people not a UUID", `{"property":"Owner","people":{"contains":"bob"}}`, ``, []d{{"filter.people.contains", "invalid_value"}}},
		{"number out of range", `{"property":"Score","number":{"less_than":1e999}}`, ``, []d{{"filter.number.less_than", "out_of_range"}}},
		{"text too long", `{"property":"Notes","rich_text":{"contains":"` + strings.Repeat("é", 2001) + `"}}`, ``, []d{{"filter.rich_text.contains", "too_long"}}},
		{"text with NUL", `{"property":"Notes","rich_text":{"contains":"a\u0000b"}}`, ``, []d{{"filter.rich_text.contains", "invalid_value"}}},
		{"unknown timestamp", `{"timestamp":"created","created":{"past_week":{}}}`, ``, []d{{"filter.timestamp", "invalid_value"}, {"filter.created", "unknown_field"}}},
		{"timestamp not a string", `{"timestamp":1}`, ``, []d{{"filter.timestamp", "invalid_type"}}},
		{"timestamp without condition", `{"timestamp":"created_time"}`, ``, []d{{"filter.created_time", "required"}}},
		{"timestamp with the other condition", `{"timestamp":"created_time","last_edited_time":{"past_week":{}}}`, ``,
			[]d{{"filter.last_edited_time", "invalid_value"}, {"filter.created_time", "required"}}},
		{"property and timestamp", `{"property":"Score","timestamp":"created_time","number":{"equals":1}}`, ``, []d{{"filter.timestamp", "invalid_value"}}},
		{"every problem at once", `{"and":[{"property":"Nope","number":{"equals":1}},{"property":"Score","number":{"equals":"x"}}]}`, `[{"property":"Tags","direction":"ascending"}]`,
			[]d{{"filter.and[0].property", "invalid_value"}, {"filter.and[1].number.equals", "invalid_type"}, {"sorts[0].property", "invalid_value"}}},
		{"sorts not an array", ``, `{}`, []d{{"sorts", "invalid_type"}}},
		{"sort not an object", ``, `[1]`, []d{{"sorts[0]", "invalid_type"}}},
		{"sort unknown property", ``, `[{"property":"Nope","direction":"ascending"}]`, []d{{"sorts[0].property", "invalid_value"}}},
		{"sort property not a string", ``, `[{"property":1,"direction":"ascending"}]`, []d{{"sorts[0].property", "invalid_type"}}},
		{"sort unsortable type", ``, `[{"property":"Score","direction":"ascending"},{"property":"Owner","direction":"ascending"}]`, []d{{"sorts[1].property", "invalid_value"}}},
		{"sort without direction", ``, `[{"property":"Score"}]`, []d{{"sorts[0].direction", "required"}}},
		{"sort bad direction", ``, `[{"property":"Score","direction":"up"}]`, []d{{"sorts[0].direction", "invalid_value"}}},
		{"sort direction not a string", ``, `[{"property":"Score","direction":1}]`, []d{{"sorts[0].direction", "invalid_type"}}},
		{"sort unknown timestamp", ``, `[{"timestamp":"created","direction":"ascending"}]`, []d{{"sorts[0].timestamp", "invalid_value"}}},
		{"sort with neither", ``, `[{"direction":"ascending"}]`, []d{{"sorts[0].property", "required"}}},
		{"sort with both", ``, `[{"property":"Score","timestamp":"created_time","direction":"ascending"}]`, []d{{"sorts[0].timestamp", "invalid_value"}}},
		{"sort unknown field", ``, `[{"property":"Score","direction":"ascending","nulls":"last"}]`, []d{{"sorts[0].nulls", "unknown_field"}}},
		{"too many sorts", ``, `[` + many(101, `{"property":"Score","direction":"ascending"}`) + `]`, []d{{"sorts", "too_many"}}},
	}
	// The original service's codes for what is well formed but not taken.
	unsupported := map[string]string{
		"property cannot be filtered": quire.CodeUnsupportedFilter,
		"operator of another type":    quire.CodeUnsupportedFilter,
		"unknown operator":            quire.CodeUnsupportedFilter,
		"sort unsortable type":        quire.CodeUnsupportedSort,
	}
	// The limit broken and the number found, on the detail.
	limits := map[string][2]int64{
		"too many members":    {100, 101},
		"too many conditions": {100, 101},
		"text too long":       {2000, 2001},
		"too many sorts":      {100, 101},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := dbquery.Decode(testSchema, []byte(tc.filter), []byte(tc.sorts))
			e, ok := quire.AsError(err)
			if !ok {
				t.Fatalf("Decode error = %v, want a *quire.Error", err)
			}
			code := quire.CodeValidation
			if c, ok := unsupported[tc.name]; ok {
				code = c
			}
			if e.Code != code || e.Status() != 400 || e.Message == "" {
				t.Errorf("error %q (status %d, message %q), want %s", e.Code, e.Status(), e.Message, code)
			}
			got := make([]d, len(e.Details))
			for i, x := range e.Details {
				got[i] = d{x.Path, x.Reason}
				if l, ok := limits[tc.name]; ok && (x.Limit == nil || x.Actual == nil || *x.Limit != l[0] || *x.Actual != l[1]) {
					t.Errorf("detail %s: limit %v, actual %v, want %d and %d", x.Path, x.Limit, x.Actual, l[0], l[1])
				}
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("details (-want +got):\n%s", diff)
			}
		})
	}
}

func TestParseDate(t *testing.T) {
	tests := []struct {
		in   string
		ms   int64
		day  bool
		fail bool
	}{
		{"2024-05-10", 1715299200000, true, false},
		{"2024-05-10T00:00:00Z", 1715299200000, false, false},
		{"2024-05-10T02:00:00+02:00", 1715299200000, false, false},
		{"2024-05-10T00:00:00.5Z", 1715299200500, false, false},
		{"2024-05-10T00:00:00", 1715299200000, false, false},
		{"2024-05-10T00:00", 1715299200000, false, false},
		{"2024-05-10T02:00+02:00", 1715299200000, false, false},
		{"2024-5-10", 0, false, true},
		{"2024-13-01", 0, false, true},
		{"10/05/2024", 0, false, true},
		{"", 0, false, true},
	}
	for _, tc := range tests {
		ms, day, ok := quire.ParseDate(tc.in)
		if ok == tc.fail || (ok && (ms != tc.ms || day != tc.day)) {
			t.Errorf("ParseDate(%q) = %d, %v, %v; want %d, %v, %v", tc.in, ms, day, ok, tc.ms, tc.day, !tc.fail)
		}
	}
}
