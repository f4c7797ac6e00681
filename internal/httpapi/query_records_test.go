package httpapi

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/quire-dev/quire/internal/store"
	"github.com/quire-dev/quire/internal/testdb"
)

// TestQueryRecordsAsRetrieved: a query answers each record exactly as GET /v2/pages/:id does
// (icon, cover, parent, times, authors, properties), whichever plan read it: walked in the
// sort property's order with its columns fetched by the walk, read by id after (no sort, two
// sorts), with and without record numbers shown. The query reads fewer columns of a record
// than a page read does; nothing the answer shows may be among those left out.
func TestQueryRecordsAsRetrieved(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, st *store.Store) {
		e := newEnv(t, st)
		withNumbers := taskSchema()
		withoutNumbers := taskSchema()
		delete(withoutNumbers, "Key")
		for name, schema := range map[string]map[string]any{"numbers": withNumbers, "no numbers": withoutNumbers} {
			t.Run(name, func(t *testing.T) {
				_, db := e.newDatabase(t, schema)
				id := db["id"].(string)
				for i := range 6 {
					body := map[string]any{"parent": dbParent(id), "properties": map[string]any{
						"Name": []any{txt(fmt.Sprintf("r%d", i))}, "Points": map[string]any{"number": (i * 7) % 5},
						"Status": map[string]any{"select": map[string]any{"name": []string{"Todo", "Done"}[i%2]}}}}
					if i%2 == 0 {
						body["icon"] = map[string]any{"type": "emoji", "emoji": "🎯"}
						body["cover"] = map[string]any{"type": "external", "external": map[string]any{"url": fmt.Sprintf("https://x.test/%d.png", i)}}
					}
					wantOK(t, e.do("POST", "/v2/pages", e.full, body), http.StatusOK)
				}
				for _, q := range []string{`{}`,
					`{"sorts":[{"property":"Points","direction":"ascending"}]}`,
					`{"filter":{"property":"Status","select":{"equals":"Todo"}},"sorts":[{"property":"Points","direction":"descending"}]}`,
					`{"sorts":[{"property":"Status","direction":"ascending"},{"property":"Points","direction":"ascending"}],"page_size":4}`,
				} {
					for range 4 { // the third query of a filter and sort pair registers its index
						r := e.do("POST", "/v2/databases/"+id+"/query", e.full, q)
						wantOK(t, r, http.StatusOK)
						results := r.body["results"].([]any)
						if len(results) < 3 {
							t.Fatalf("%s: %d records", q, len(results))
						}
						for _, res := range results {
							rec := res.(map[string]any)
							got := e.do("GET", "/v2/pages/"+rec["id"].(string), e.full, nil)
							wantOK(t, got, http.StatusOK)
							if d := cmp.Diff(got.body, rec); d != "" {
								t.Fatalf("%s: the query's record differs from its GET (-GET +query):\n%s", q, d)
							}
						}
					}
				}
			})
		}
	})
}
