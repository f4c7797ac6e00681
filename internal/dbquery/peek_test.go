package dbquery_test

import (
	"fmt"
	"testing"

	"github.com/quire-dev/quire/internal/dbquery"
)

func TestPeek(t *testing.T) {
	f, ss, err := dbquery.Decode(testSchema, []byte(`{"and":[{"property":"Stage","select":{"equals":"Todo"}},{"or":[{"property":"Notes","rich_text":{"contains":"a%b"}},{"timestamp":"created_time","created_time":{"past_week":{}}}]}]}`), []byte(`[{"property":"Score","direction":"descending"}]`))
	if err != nil {
		t.Fatal(err)
	}
	x := 3.5
	for _, d := range []dbquery.Dialect{dbquery.SQLite, dbquery.Postgres} {
		for _, after := range []*dbquery.Position{nil, {Keys: []dbquery.Key{{Num: &x}}, ID: "r1"}, {Keys: []dbquery.Key{{}}}} {
			st, err := dbquery.Compile(d, dbquery.Query{DatabaseID: "db1", Filter: f, Sorts: ss, After: after, Limit: 101, Now: now})
			fmt.Println(st.SQL, st.Args, st.Then, err)
		}
	}
	_, ss, _ = dbquery.Decode(testSchema, nil, []byte(`[{"property":"Score","direction":"ascending"},{"property":"Web","direction":"descending"},{"timestamp":"created_time","direction":"descending"}]`))
	s, y := "x", 1000.0
	st, err := dbquery.Compile(dbquery.SQLite, dbquery.Query{DatabaseID: "db1", Sorts: ss, After: &dbquery.Position{Keys: []dbquery.Key{{Num: &x}, {Text: &s}, {Num: &y}}, ID: "r1"}, Limit: 101})
	fmt.Println(st.SQL, st.Args, err)
}
