package httpapi

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/quire-dev/quire/internal/testdb"
)

// benchViews seeds a database with n board views carrying a filter, sorts and a layout.
func benchViews(b *testing.B, n int) (*env, string, []string) {
	e := newEnv(b, testdb.SQLite(b))
	db := seedDatabase(b, e, "", viewSchema())
	body := jsonValue(b, `{"name":"v","type":"board","group_by":{"property":%q},
		"property_layout":[{"property":"title","visible":true},{"property":%q,"visible":true,"width":120}],
		"filter":{"operator":"and","filters":[{"property":%q,"operator":"in","value":["High"]},{"property":%q,"operator":"gt","value":"1"}]},
		"sorts":[{"property":%q,"direction":"ascending"}]}`, vpStatus, vpNum, vpSel, vpNum, vpDue)
	ids := make([]string, n)
	for i := range ids {
		ids[i] = e.mkView(b, db, body).body["id"].(string)
	}
	return e, db, ids
}

// BenchmarkViews_ListPage reads one page of 100 views, from the middle of 1000, on SQLite.
func BenchmarkViews_ListPage(b *testing.B) {
	e, db, _ := benchViews(b, 1000)
	first := e.do(http.MethodGet, viewsPath(db)+"?page_size=100", e.full, nil)
	path := fmt.Sprintf("%s?page_size=100&start_cursor=%s", viewsPath(db), first.body["next_cursor"])
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if r := e.do(http.MethodGet, path, e.full, nil); r.status != 200 {
			b.Fatalf("%d %s", r.status, r.raw)
		}
	}
}

// BenchmarkViews_Patch changes one view's filter, on SQLite (synchronous=FULL commits).
func BenchmarkViews_Patch(b *testing.B) {
	e, db, ids := benchViews(b, 1)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		v := fmt.Sprintf(`{"name":"v%d","filter":{"operator":"or","filters":[{"property":%q,"operator":"contains","value":"blue"}]}}`, i, vpTags)
		if r := e.do(http.MethodPatch, viewPath(db, ids[0]), e.full, v); r.status != 200 {
			b.Fatalf("%d %s", r.status, r.raw)
		}
	}
}
