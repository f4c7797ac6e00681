package dbquery_test

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/quire-dev/quire/internal/dbquery"
)

func TestGenCompileCases(t *testing.T) {
	if os.Getenv("GEN") == "" {
		t.Skip()
	}
	var out strings.Builder
	for _, tc := range compileInputs {
		f, ss, err := dbquery.Decode(testSchema, []byte(tc.filter), []byte(tc.sorts))
		if err != nil {
			t.Fatal(err)
		}
		q := dbquery.Query{DatabaseID: "db1", Filter: f, Sorts: ss, After: tc.after, Limit: 3, Now: now, Within: tc.within}
		lite, err1 := dbquery.Compile(dbquery.SQLite, q)
		pg, err2 := dbquery.Compile(dbquery.Postgres, q)
		if err1 != nil || err2 != nil {
			t.Fatal(tc.name, err1, err2)
		}
		fmt.Fprintf(&out, "\t{name: %q,\n\t\tsqlite: `%s`,\n", tc.name, lite.SQL)
		if pg.SQL != lite.SQL {
			fmt.Fprintf(&out, "\t\tpostgres: `%s`,\n", pg.SQL)
		}
		var args []string
		for _, a := range lite.Args {
			switch a := a.(type) {
			case string:
				args = append(args, fmt.Sprintf("%q", a))
			case float64:
				args = append(args, "float64("+strconv.FormatFloat(a, 'f', -1, 64)+")")
			case int64:
				args = append(args, fmt.Sprintf("int64(%d)", a))
			default:
				t.Fatalf("arg %T", a)
			}
		}
		fmt.Fprintf(&out, "\t\targs: []any{%s}},\n", strings.Join(args, ", "))
	}
	os.WriteFile("/tmp/dbq-scratch/gen.txt", []byte(out.String()), 0o644)
}
