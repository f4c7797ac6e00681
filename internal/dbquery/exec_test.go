package dbquery_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/quire-dev/quire/internal/dbquery"
)

// filterCases run on the fixture in the default order; want lists the matching ids in that order.
var filterCases = []struct {
	name, filter string
	want         []string
}{
	// title (and the rich_text key on a title property)
	{"title equals", `{"property":"Name","title":{"equals":"Cherry"}}`, ids("r3")},
	{"title equals is case-sensitive", `{"property":"Name","title":{"equals":"cherry"}}`, nil},
	{"title does_not_equal", `{"property":"Name","title":{"does_not_equal":"Cherry"}}`, ids("r6 r4 r2 r1")},
	{"title contains ignores ASCII case", `{"property":"Name","title":{"contains":"APPLE"}}`, ids("r4 r1")},
	{"title does_not_contain", `{"property":"Name","title":{"does_not_contain":"apple"}}`, ids("r6 r3 r2")},
	{"title starts_with", `{"property":"Name","title":{"starts_with":"B"}}`, ids("r2")},
	{"title ends_with", `{"property":"Name","title":{"ends_with":"PIE"}}`, ids("r1")},
	{"title is_empty", `{"property":"Name","title":{"is_empty":true}}`, nil},
	{"title is_not_empty", `{"property":"Name","title":{"is_not_empty":true}}`, ids("r6 r4 r3 r2 r1")},
	{"title by id with rich_text key", `{"property":"title","rich_text":{"contains":"an"}}`, ids("r2")},
	// rich_text: wildcards are literal, non-ASCII letters keep their case on both engines
	{"rich_text contains percent", `{"property":"Notes","rich_text":{"contains":"100%"}}`, ids("r1")},
	{"rich_text contains underscore", `{"property":"Notes","rich_text":{"contains":"r_c"}}`, ids("r1")},
	{"rich_text contains backslash", `{"property":"Notes","rich_text":{"contains":"\\"}}`, nil},
	{"rich_text non-ASCII exact", `{"property":"Notes","rich_text":{"contains":"äpfel"}}`, ids("r6")},
	{"rich_text ASCII folded", `{"property":"Notes","rich_text":{"contains":"PFEL"}}`, ids("r6 r2")},
	{"rich_text does_not_contain keeps empty", `{"property":"Notes","rich_text":{"does_not_contain":"und"}}`, ids("r6 r4 r3 r1")},
	{"rich_text is_empty", `{"property":"Notes","rich_text":{"is_empty":true}}`, ids("r3")},
	{"rich_text equals empty is is_empty", `{"property":"Notes","rich_text":{"equals":""}}`, ids("r3")},
	{"rich_text is_not_empty", `{"property":"Notes","rich_text":{"is_not_empty":true}}`, ids("r6 r4 r2 r1")},
	{"url contains", `{"property":"Web","url":{"contains":"apple"}}`, ids("r1")},
	{"url is_empty", `{"property":"Web","url":{"is_empty":true}}`, ids("r6 r4 r2")},
	{"email ends_with", `{"property":"Mail","email":{"ends_with":"@EXAMPLE.com"}}`, ids("r1")},
	{"email starts_with", `{"property":"Mail","rich_text":{"starts_with":"b@"}}`, ids("r2")},
	{"phone_number contains", `{"property":"Phone","phone_number":{"contains":"555"}}`, ids("r4 r1")},
	// number and unique_id
	{"number equals", `{"property":"Score","number":{"equals":10}}`, ids("r6 r1")},
	{"number does_not_equal keeps empty", `{"property":"Score","number":{"does_not_equal":10}}`, ids("r4 r3 r2")},
	{"number greater_than", `{"property":"Score","number":{"greater_than":5.5}}`, ids("r6 r1")},
	{"number less_than", `{"property":"Score","number":{"less_than":5.5}}`, ids("r4")},
	{"number greater_than_or_equal_to", `{"property":"Score","number":{"greater_than_or_equal_to":5.5}}`, ids("r6 r2 r1")},
	{"number less_than_or_equal_to", `{"property":"Score","number":{"less_than_or_equal_to":5.5}}`, ids("r4 r2")},
	{"number is_empty", `{"property":"Score","number":{"is_empty":true}}`, ids("r3")},
	{"number is_not_empty", `{"property":"Score","number":{"is_not_empty":true}}`, ids("r6 r4 r2 r1")},
	{"unique_id greater_than", `{"property":"ID","unique_id":{"greater_than":3}}`, ids("r6 r4")},
	{"unique_id equals", `{"property":"ID","unique_id":{"equals":2}}`, ids("r2")},
	// checkbox: r4 has no row at all, which reads as unchecked
	{"checkbox equals true", `{"property":"Done","checkbox":{"equals":true}}`, ids("r6 r1")},
	{"checkbox equals false", `{"property":"Done","checkbox":{"equals":false}}`, ids("r4 r3 r2")},
	{"checkbox does_not_equal true", `{"property":"Done","checkbox":{"does_not_equal":true}}`, ids("r4 r3 r2")},
	{"checkbox does_not_equal false", `{"property":"Done","checkbox":{"does_not_equal":false}}`, ids("r6 r1")},
	// select and status
	{"select equals name", `{"property":"Stage","select":{"equals":"Todo"}}`, ids("r6 r1")},
	{"select equals id", `{"property":"Stage","select":{"equals":"b"}}`, ids("r2")},
	{"select equals unknown name", `{"property":"Stage","select":{"equals":"Nope"}}`, nil},
	{"select does_not_equal", `{"property":"Stage","select":{"does_not_equal":"Todo"}}`, ids("r4 r3 r2")},
	{"select does_not_equal unknown name", `{"property":"Stage","select":{"does_not_equal":"Nope"}}`, ids("r6 r4 r3 r2 r1")},
	{"select is_empty", `{"property":"Stage","select":{"is_empty":true}}`, ids("r3")},
	{"select is_not_empty", `{"property":"Stage","select":{"is_not_empty":true}}`, ids("r6 r4 r2 r1")},
	{"status equals", `{"property":"State","status":{"equals":"In progress"}}`, ids("r2")},
	{"status is_empty", `{"property":"State","status":{"is_empty":true}}`, ids("r6 r4")},
	// multi_select
	{"multi_select contains", `{"property":"Tags","multi_select":{"contains":"red"}}`, ids("r4 r1")},
	{"multi_select does_not_contain", `{"property":"Tags","multi_select":{"does_not_contain":"red"}}`, ids("r6 r3 r2")},
	{"multi_select is_empty", `{"property":"Tags","multi_select":{"is_empty":true}}`, ids("r6 r3")},
	{"multi_select is_not_empty", `{"property":"Tags","multi_select":{"is_not_empty":true}}`, ids("r4 r2 r1")},
	// date
	{"date equals day", `{"property":"Due","date":{"equals":"2024-05-10"}}`, ids("r2 r1")},
	{"date equals instant", `{"property":"Due","date":{"equals":"2024-05-10T17:00:00+02:00"}}`, ids("r2")},
	{"date before day", `{"property":"Due","date":{"before":"2024-05-11"}}`, ids("r2 r1")},
	{"date before first", `{"property":"Due","date":{"before":"2024-05-10"}}`, nil},
	{"date after day", `{"property":"Due","date":{"after":"2024-05-10"}}`, ids("r4 r3")},
	{"date after instant", `{"property":"Due","date":{"after":"2024-05-10T15:00:00Z"}}`, ids("r4 r3")},
	{"date on_or_before day", `{"property":"Due","date":{"on_or_before":"2024-05-10"}}`, ids("r2 r1")},
	{"date on_or_before instant without zone", `{"property":"Due","date":{"on_or_before":"2024-05-10T12:00:00"}}`, ids("r1")},
	{"date on_or_after", `{"property":"Due","date":{"on_or_after":"2024-05-11"}}`, ids("r4 r3")},
	{"date is_empty", `{"property":"Due","date":{"is_empty":true}}`, ids("r6")},
	{"date is_not_empty", `{"property":"Due","date":{"is_not_empty":true}}`, ids("r4 r3 r2 r1")},
	{"date past_week", `{"property":"Due","date":{"past_week":{}}}`, ids("r3 r2 r1")},
	{"date past_month", `{"property":"Due","date":{"past_month":{}}}`, ids("r3 r2 r1")},
	{"date past_year", `{"property":"Due","date":{"past_year":{}}}`, ids("r3 r2 r1")},
	{"date next_week", `{"property":"Due","date":{"next_week":{}}}`, nil},
	{"date next_month", `{"property":"Due","date":{"next_month":{}}}`, ids("r4")},
	{"date next_year", `{"property":"Due","date":{"next_year":{}}}`, ids("r4")},
	{"date this_week", `{"property":"Due","date":{"this_week":{}}}`, nil},
	// timestamps, as filters and as properties
	{"timestamp created_time past_week", `{"timestamp":"created_time","created_time":{"past_week":{}}}`, ids("r6 r4 r3")},
	{"timestamp created_time on_or_before", `{"timestamp":"created_time","created_time":{"on_or_before":"2024-05-06"}}`, ids("r2 r1")},
	{"timestamp created_time after instant", `{"timestamp":"created_time","created_time":{"after":"2024-05-06T12:00:00Z"}}`, ids("r6 r4 r3")},
	{"timestamp last_edited_time equals day", `{"timestamp":"last_edited_time","last_edited_time":{"equals":"2024-05-12"}}`, ids("r6 r4 r3")},
	{"created_time property is_empty", `{"property":"Created","created_time":{"is_empty":true}}`, nil},
	{"created_time property is_not_empty", `{"property":"Created","created_time":{"is_not_empty":true}}`, ids("r6 r4 r3 r2 r1")},
	{"created_time property with date key", `{"property":"Created","date":{"before":"2024-05-10"}}`, ids("r2 r1")},
	{"last_edited_time property this_week", `{"property":"Edited","last_edited_time":{"this_week":{}}}`, nil},
	{"last_edited_time property past_month", `{"property":"Edited","last_edited_time":{"past_month":{}}}`, ids("r6 r4 r3 r2 r1")},
	// people, created_by, last_edited_by
	{"people contains", `{"property":"Owner","people":{"contains":"` + u1 + `"}}`, ids("r3 r1")},
	{"people contains undashed upper-case id", `{"property":"Owner","people":{"contains":"11111111111141118111111111111111"}}`, ids("r3 r1")},
	{"people does_not_contain", `{"property":"Owner","people":{"does_not_contain":"` + u1 + `"}}`, ids("r6 r4 r2")},
	{"people is_empty", `{"property":"Owner","people":{"is_empty":true}}`, ids("r6 r4")},
	{"people is_not_empty", `{"property":"Owner","people":{"is_not_empty":true}}`, ids("r3 r2 r1")},
	{"created_by contains", `{"property":"Creator","created_by":{"contains":"` + u2 + `"}}`, ids("r4 r2")},
	{"created_by people key", `{"property":"Creator","people":{"contains":"` + u1 + `"}}`, ids("r6 r3 r1")},
	{"created_by does_not_contain", `{"property":"Creator","created_by":{"does_not_contain":"` + u2 + `"}}`, ids("r6 r3 r1")},
	{"created_by is_empty", `{"property":"Creator","created_by":{"is_empty":true}}`, nil},
	{"created_by is_not_empty", `{"property":"Creator","created_by":{"is_not_empty":true}}`, ids("r6 r4 r3 r2 r1")},
	{"last_edited_by contains", `{"property":"Editor","last_edited_by":{"contains":"` + u2 + `"}}`, ids("r2 r1")},
	// files and relation
	{"files is_empty", `{"property":"Files","files":{"is_empty":true}}`, ids("r6 r4 r2")},
	{"files is_not_empty", `{"property":"Files","files":{"is_not_empty":true}}`, ids("r3 r1")},
	{"relation contains", `{"property":"Link","relation":{"contains":"` + p2 + `"}}`, ids("r4 r2")},
	{"relation does_not_contain", `{"property":"Link","relation":{"does_not_contain":"` + p1 + `"}}`, ids("r6 r4 r3")},
	{"relation is_empty", `{"property":"Link","relation":{"is_empty":true}}`, ids("r6 r3")},
	{"relation is_not_empty", `{"property":"Link","relation":{"is_not_empty":true}}`, ids("r4 r2 r1")},
	// compound filters
	{"and", `{"and":[{"property":"Stage","select":{"equals":"Todo"}},{"property":"Score","number":{"greater_than":5}}]}`, ids("r6 r1")},
	{"or", `{"or":[{"property":"Name","title":{"contains":"cherry"}},{"property":"Tags","multi_select":{"contains":"blue"}}]}`, ids("r3 r2")},
	{"and of or", `{"and":[{"or":[{"property":"Name","title":{"starts_with":"apple"}},{"property":"Name","title":{"starts_with":"b"}}]},{"property":"Done","checkbox":{"equals":true}}]}`, ids("r1")},
	{"or of and", `{"or":[{"and":[{"property":"Score","number":{"equals":10}},{"property":"Done","checkbox":{"equals":true}}]},{"property":"Stage","select":{"equals":"Done"}}]}`, ids("r6 r4 r1")},
	{"empty and", `{"and":[]}`, ids("r6 r4 r3 r2 r1")},
	{"empty or", `{"or":[]}`, nil},
}

func ids(s string) []string { return strings.Fields(s) }

// roundTrip passes a position through JSON, as a cursor does.
func roundTrip(t *testing.T, p *dbquery.Position) *dbquery.Position {
	t.Helper()
	b, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	var out dbquery.Position
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return &out
}

// The plans a query is run with in these tests.
const (
	viaPage   = "page"   // Page: probes, then a walk or a sort
	viaWalk   = "walk"   // Compile without Within: the index walk (or the sort, for several sorts)
	viaSorted = "sorted" // Compile with Within holding every id: the sort
)

var plans = []string{viaPage, viaWalk, viaSorted}

// everyID is Within for viaSorted: all the fixture's ids, trashed and foreign ones included.
var everyID = ids("r1 r2 r3 r4 r5 r6 r9")

// collect walks the whole query pageSize records at a time with the given plan, passing each
// position through JSON as a cursor does.
func collect(t *testing.T, db *sql.DB, d dbquery.Dialect, q dbquery.Query, pageSize int, plan string) []string {
	t.Helper()
	if plan == viaSorted {
		q.Within = everyID
	}
	var all []string
	for pages := 0; ; pages++ {
		if pages > 100 {
			t.Fatalf("walk does not end: %v", all)
		}
		var got []string
		var next *dbquery.Position
		var err error
		if plan == viaPage {
			got, next, err = dbquery.Page(context.Background(), db, d, q, pageSize)
		} else {
			got, next, err = compileLoop(db, d, q, pageSize)
		}
		if err != nil {
			t.Fatalf("%s: %v", plan, err)
		}
		if len(got) > pageSize || (next != nil && len(got) != pageSize) {
			t.Fatalf("page of %d ids %v with next %v for page_size %d", len(got), got, next, pageSize)
		}
		all = append(all, got...)
		if next == nil {
			return all
		}
		q.After = roundTrip(t, next)
	}
}

// compileLoop is Page without the probes: Compile, run, and follow Then.
func compileLoop(db *sql.DB, d dbquery.Dialect, q dbquery.Query, pageSize int) ([]string, *dbquery.Position, error) {
	var got []dbquery.Position
	for {
		q.Limit = pageSize + 1 - len(got)
		st, err := dbquery.Compile(d, q)
		if err != nil {
			return nil, nil, err
		}
		rows, err := db.Query(st.SQL, st.Args...)
		if err != nil {
			return nil, nil, fmt.Errorf("%w\n%s", err, st.SQL)
		}
		n := 0
		for rows.Next() {
			p, err := st.Scan(rows)
			if err != nil {
				return nil, nil, err
			}
			got = append(got, p)
			n++
		}
		rows.Close()
		if n == q.Limit || st.Then == nil {
			break
		}
		q.After = st.Then
	}
	var ids []string
	for i := 0; i < len(got) && i < pageSize; i++ {
		ids = append(ids, got[i].ID)
	}
	if len(got) <= pageSize {
		return ids, nil, nil
	}
	return ids, &got[pageSize-1], nil
}

func TestFiltersRun(t *testing.T) {
	forEachEngine(t, seedFixture, func(t *testing.T, db *sql.DB, d dbquery.Dialect) {
		for _, tc := range filterCases {
			t.Run(tc.name, func(t *testing.T) {
				f, err := dbquery.DecodeFilter(testSchema, []byte(tc.filter))
				if err != nil {
					t.Fatalf("DecodeFilter: %v", err)
				}
				q := dbquery.Query{DatabaseID: dbID, Filter: f, Now: now}
				for _, plan := range plans {
					for _, size := range []int{100, 2} {
						if got := collect(t, db, d, q, size, plan); !slices.Equal(got, tc.want) {
							t.Errorf("%s, page_size %d: ids = %v, want %v", plan, size, got, tc.want)
						}
					}
				}
			})
		}
	})
}

// sortCases: the whole fixture in each order; records without a value come last.
var sortCases = []struct {
	name, sorts, filter string
	want                []string
}{
	{"default", ``, ``, ids("r6 r4 r3 r2 r1")},
	{"number ascending", `[{"property":"Score","direction":"ascending"}]`, ``, ids("r4 r2 r1 r6 r3")},
	{"number descending", `[{"property":"Score","direction":"descending"}]`, ``, ids("r6 r1 r2 r4 r3")},
	{"number with filter", `[{"property":"Score","direction":"ascending"}]`, `{"property":"Stage","select":{"equals":"Todo"}}`, ids("r1 r6")},
	{"number with filter on empties", `[{"property":"Score","direction":"ascending"}]`, `{"property":"Done","checkbox":{"equals":false}}`, ids("r4 r2 r3")},
	{"url ascending", `[{"property":"Web","direction":"ascending"}]`, ``, ids("r3 r1 r2 r4 r6")},
	{"url descending", `[{"property":"ur","direction":"descending"}]`, ``, ids("r1 r3 r6 r4 r2")},
	{"select by option order", `[{"property":"Stage","direction":"ascending"}]`, ``, ids("r1 r6 r2 r4 r3")},
	{"date ascending", `[{"property":"Due","direction":"ascending"}]`, ``, ids("r1 r2 r3 r4 r6")},
	{"checkbox descending", `[{"property":"Done","direction":"descending"}]`, ``, ids("r6 r1 r3 r2 r4")},
	{"unique_id descending", `[{"property":"ID","direction":"descending"}]`, ``, ids("r6 r4 r3 r2 r1")},
	{"last_edited_time ascending", `[{"timestamp":"last_edited_time","direction":"ascending"}]`, ``, ids("r2 r1 r3 r6 r4")},
	{"created_time ascending", `[{"timestamp":"created_time","direction":"ascending"}]`, ``, ids("r1 r2 r3 r4 r6")},
	{"created_time property descending", `[{"property":"Created","direction":"descending"}]`, ``, ids("r6 r4 r3 r2 r1")},
	{"select then number", `[{"property":"Stage","direction":"ascending"},{"property":"Score","direction":"descending"}]`, ``, ids("r6 r1 r2 r4 r3")},
	{"checkbox then number", `[{"property":"Done","direction":"ascending"},{"property":"Score","direction":"descending"}]`, ``, ids("r2 r3 r6 r1 r4")},
	{"created then number", `[{"timestamp":"created_time","direction":"descending"},{"property":"Score","direction":"ascending"}]`, ``, ids("r4 r6 r3 r2 r1")},
	{"number then url", `[{"property":"Score","direction":"ascending"},{"property":"Web","direction":"ascending"}]`, ``, ids("r4 r2 r1 r6 r3")},
	{"number then url, filtered", `[{"property":"Score","direction":"ascending"},{"property":"Web","direction":"ascending"}]`, `{"property":"Name","title":{"contains":"e"}}`, ids("r4 r1 r6 r3")},
}

func TestSortsRun(t *testing.T) {
	forEachEngine(t, seedFixture, func(t *testing.T, db *sql.DB, d dbquery.Dialect) {
		for _, tc := range sortCases {
			t.Run(tc.name, func(t *testing.T) {
				f, ss, err := dbquery.Decode(testSchema, []byte(tc.filter), []byte(tc.sorts))
				if err != nil {
					t.Fatalf("Decode: %v", err)
				}
				q := dbquery.Query{DatabaseID: dbID, Filter: f, Sorts: ss, Now: now}
				for _, plan := range plans {
					for _, size := range []int{100, 1, 2, 3} {
						if got := collect(t, db, d, q, size, plan); !slices.Equal(got, tc.want) {
							t.Errorf("%s, page_size %d: ids = %v, want %v", plan, size, got, tc.want)
						}
					}
				}
			})
		}
	})
}

// TestWalkWhileWriting inserts records while a walk is under way (before and after its
// position, with and without a sort value): every record present throughout is returned once.
func TestWalkWhileWriting(t *testing.T) {
	for name, sorts := range map[string]string{
		"default":              ``,
		"number ascending":     `[{"property":"Score","direction":"ascending"}]`,
		"number descending":    `[{"property":"Score","direction":"descending"}]`,
		"last_edited_time":     `[{"timestamp":"last_edited_time","direction":"descending"}]`,
		"checkbox then number": `[{"property":"Done","direction":"ascending"},{"property":"Score","direction":"descending"}]`,
		"created then number":  `[{"timestamp":"created_time","direction":"ascending"},{"property":"Score","direction":"descending"}]`,
	} {
		t.Run(name, func(t *testing.T) {
			forEachEngine(t, seedFixture, func(t *testing.T, db *sql.DB, d dbquery.Dialect) {
				_, ss, err := dbquery.Decode(testSchema, nil, []byte(sorts))
				if err != nil {
					t.Fatal(err)
				}
				q := dbquery.Query{DatabaseID: dbID, Sorts: ss, Now: now}
				seen := map[string]int{}
				for i := 0; ; i++ {
					got, next, err := dbquery.Page(context.Background(), db, d, q, 2)
					if err != nil {
						t.Fatal(err)
					}
					for _, id := range got {
						seen[id]++
					}
					// After each page, a record that sorts first and one that sorts last.
					insert(t, db, []record{
						{id: fmt.Sprintf("n%da", i), db: dbID, created: ms("2024-06-01T00:00:00Z") + int64(i), edited: ms("2020-01-01T00:00:00Z"), createdBy: u1, editedBy: u1,
							values: []value{nv("sc", -100-float64(i)), nv("dn", 0)}},
						{id: fmt.Sprintf("n%db", i), db: dbID, created: ms("2020-01-01T00:00:00Z") - int64(i), edited: ms("2024-06-01T00:00:00Z"), createdBy: u1, editedBy: u1},
					})
					if next == nil {
						break
					}
					q.After = roundTrip(t, next)
				}
				for _, id := range ids("r1 r2 r3 r4 r6") {
					if seen[id] != 1 {
						t.Errorf("%s returned %d times (seen %v)", id, seen[id], seen)
					}
				}
				for id, n := range seen {
					if n != 1 {
						t.Errorf("%s returned %d times", id, n)
					}
				}
			})
		})
	}
}
