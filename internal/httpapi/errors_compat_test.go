package httpapi

import (
	"net/http"
	"strings"
	"testing"

	"github.com/quire-dev/quire/internal/quire"
	"github.com/quire-dev/quire/internal/store"
	"github.com/quire-dev/quire/internal/testdb"
)

// TestQueryErrorCodes: a query the original service would call unsupported answers its code
// (still 400, with the path), and a detail beyond a limit carries the limit and what it found.
func TestQueryErrorCodes(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, st *store.Store) {
		e := newEnv(t, st)
		_, db := e.newDatabase(t, taskSchema())
		query := "/v2/databases/" + db["id"].(string) + "/query"
		sort := `{"property":"Name","direction":"ascending"}`
		for _, c := range []struct {
			name, body, code, path string
			limit, actual          float64
		}{
			{"unknown operator", `{"filter":{"property":"Points","number":{"frobnicate":1}}}`, quire.CodeUnsupportedFilter, "filter.number.frobnicate", 0, 0},
			{"operator of another type", `{"filter":{"property":"Points","number":{"contains":"x"}}}`, quire.CodeUnsupportedFilter, "filter.number.contains", 0, 0},
			{"unsortable property", `{"sorts":[{"property":"Owner","direction":"ascending"}]}`, quire.CodeUnsupportedSort, "sorts[0].property", 0, 0},
			{"unknown property stays a validation error", `{"filter":{"property":"Nope","number":{"equals":1}}}`, quire.CodeValidation, "filter.property", 0, 0},
			{"too many sorts", `{"sorts":[` + strings.Repeat(sort+",", 100) + sort + `]}`, quire.CodeValidation, "sorts", 100, 101},
			{"operand too long", `{"filter":{"property":"Notes","rich_text":{"contains":"` + strings.Repeat("x", 2001) + `"}}}`, quire.CodeValidation, "filter.rich_text.contains", 2000, 2001},
		} {
			r := e.do(http.MethodPost, query, e.full, c.body)
			r.wantError(t, 400, c.code, c.path)
			d := r.body["details"].([]any)[0].(map[string]any)
			limit, hasLimit := d["limit"]
			actual, hasActual := d["actual"]
			if c.limit == 0 && (hasLimit || hasActual) {
				t.Errorf("%s: detail %v carries a limit", c.name, d)
			}
			if c.limit != 0 && (limit != c.limit || actual != c.actual) {
				t.Errorf("%s: detail %v, want limit %v and actual %v", c.name, d, c.limit, c.actual)
			}
		}
	})
}
