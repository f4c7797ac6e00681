package dbquery_test

import (
	"regexp"
	"strings"
	"testing"

	"github.com/quire-dev/quire/internal/dbquery"
	"github.com/quire-dev/quire/internal/quire"
)

var reasons = map[string]bool{
	quire.ReasonRequired: true, quire.ReasonInvalidType: true, quire.ReasonInvalidValue: true,
	quire.ReasonUnknownField: true, quire.ReasonTooLong: true, quire.ReasonTooMany: true,
	quire.ReasonOutOfRange: true, quire.ReasonAmbiguous: true,
}

var placeholder = regexp.MustCompile(`\$[0-9]+`)

// FuzzDecodeFilter: decoding never panics; every error is a validation_error whose details name
// a path under filter with a contract reason; every filter that decodes compiles on both
// dialects into statements whose placeholders match their arguments (the probes, and the
// statement narrowed by each probe's condition, too). Seeds: the filters of the
// run tests and testdata/fuzz/FuzzDecodeFilter.
func FuzzDecodeFilter(f *testing.F) {
	for _, tc := range filterCases {
		f.Add([]byte(tc.filter))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		e, err := dbquery.DecodeFilter(testSchema, data)
		if err != nil {
			qe, ok := quire.AsError(err)
			if !ok || (qe.Code != quire.CodeValidation && qe.Code != quire.CodeUnsupportedFilter) || qe.Message == "" || len(qe.Details) == 0 {
				t.Fatalf("error %#v is not a validation_error or unsupported_filter with details", err)
			}
			for _, d := range qe.Details {
				if !strings.HasPrefix(d.Path, "filter") || !reasons[d.Reason] {
					t.Fatalf("detail %+v: want a path under filter and a contract reason", d)
				}
				if (d.Reason == quire.ReasonTooMany || d.Reason == quire.ReasonTooLong) && (d.Limit == nil || d.Actual == nil || *d.Actual <= *d.Limit) {
					t.Fatalf("detail %+v: want the limit and a larger actual", d)
				}
			}
			return
		}
		q := dbquery.Query{DatabaseID: "db1", Filter: e, Limit: 101, Now: now}
		for _, d := range []dbquery.Dialect{dbquery.SQLite, dbquery.Postgres} {
			for _, sorts := range [][]dbquery.Sort{nil, {{PropertyID: "sc", Type: "number"}}, {{PropertyID: "sc", Type: "number"}, {Type: "created_time"}}} {
				q.Sorts = sorts
				st, err := dbquery.Compile(d, q)
				if err != nil {
					t.Fatalf("Compile: %v", err)
				}
				checkPlaceholders(t, st.SQL, st.Args)
			}
			ps, err := dbquery.Probes(d, q, 1000)
			if err != nil {
				t.Fatalf("Probes: %v", err)
			}
			for _, p := range ps {
				checkPlaceholders(t, p.SQL, p.Args)
				// The statement reading the condition's records first, as Page runs it.
				nq := q
				nq.Narrow = &p.Cond
				st, err := dbquery.Compile(d, nq)
				if err != nil {
					t.Fatalf("Compile with Narrow: %v", err)
				}
				checkPlaceholders(t, st.SQL, st.Args)
			}
		}
	})
}

// checkPlaceholders: $1…$n are used, each argument exactly by its number.
func checkPlaceholders(t *testing.T, sql string, args []any) {
	t.Helper()
	used := map[string]bool{}
	for _, p := range placeholder.FindAllString(sql, -1) {
		used[p] = true
	}
	if len(used) != len(args) {
		t.Fatalf("%d placeholders for %d args in\n%s", len(used), len(args), sql)
	}
}
