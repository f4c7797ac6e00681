package service_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/quire-dev/quire/internal/blocks"
	"github.com/quire-dev/quire/internal/properties"
	"github.com/quire-dev/quire/internal/quire"
	"github.com/quire-dev/quire/internal/service"
	"github.com/quire-dev/quire/internal/store"
)

// indexedSchema has a property of every type a filter or a sort reads record_values for, and
// the timestamps, which it does not.
const indexedSchema = `{"Name":{"title":{}},"Text":{"rich_text":{}},"Num":{"number":{}},
	"Sel":{"select":{"options":[{"name":"a"},{"name":"b"},{"name":"c"}]}},"Tags":{"multi_select":{"options":[{"name":"t1"},{"name":"t2"},{"name":"t3"}]}},
	"Stage":{"status":{}},"When":{"date":{}},"Done":{"checkbox":{}},"Site":{"url":{}},"Mail":{"email":{}},"Phone":{"phone_number":{}},
	"Who":{"people":{}},"Files":{"files":{}},"Key":{"unique_id":{"prefix":"R"}},"Created":{"created_time":{}},"Editor":{"last_edited_by":{}}}`

// indexedDatabase creates a database titled title of schema, or of indexedSchema when schema is
// nil (decoding gives its properties and options new ids each time).
func indexedDatabase(t *testing.T, svc *service.Service, p *quire.Principal, title string, schema quire.Schema) *quire.Node {
	t.Helper()
	if schema == nil {
		var err error
		if schema, err = properties.DecodeSchema(json.RawMessage(indexedSchema), "properties"); err != nil {
			t.Fatal(err)
		}
	}
	db, err := svc.CreateDatabase(ctx, p, service.NewDatabase{Parent: service.Parent{Type: quire.ParentWorkspace},
		Title: blocks.Plain(title), Schema: schema})
	if err != nil {
		t.Fatal(err)
	}
	return db
}

// indexedValues are record i's values in indexedSchema (variant v changes them), some empty.
func indexedValues(i, v int, owner string) map[string]any {
	rich := func(s string) map[string]any {
		return map[string]any{"rich_text": []any{map[string]any{"text": map[string]any{"content": s}}}}
	}
	opt := func(names ...string) []any {
		out := []any{}
		for _, n := range names {
			out = append(out, map[string]any{"name": n})
		}
		return out
	}
	k := i + 3*v
	vals := map[string]any{
		"Name":  map[string]any{"title": []any{map[string]any{"text": map[string]any{"content": fmt.Sprintf("rec %d", k%13)}}}},
		"Text":  rich([]string{"alpha", "beta gamma", "", "Gamma ray", "delta"}[k%5]),
		"Tags":  map[string]any{"multi_select": opt([][]string{{}, {"t1"}, {"t2", "t1"}, {"t3"}}[k%4]...)},
		"Stage": map[string]any{"status": map[string]any{"name": []string{"Not started", "In progress", "Done"}[k%3]}},
		"Done":  map[string]any{"checkbox": k%2 == 0},
		"Mail":  map[string]any{"email": fmt.Sprintf("u%d@x.test", k%5)},
		"Phone": map[string]any{"phone_number": fmt.Sprintf("+1 555 %d", k%4)},
	}
	if k%7 != 0 {
		vals["Num"] = map[string]any{"number": float64(k%9) - 3.5}
	}
	if k%4 != 3 {
		vals["Sel"] = map[string]any{"select": map[string]any{"name": []string{"a", "b", "c"}[k%4]}}
	}
	switch k % 5 {
	case 0:
	case 1: // relative to now, for past_week and the others
		vals["When"] = map[string]any{"date": map[string]any{"start": time.Now().UTC().AddDate(0, 0, -(k % 9)).Format("2006-01-02")}}
	default:
		vals["When"] = map[string]any{"date": map[string]any{"start": fmt.Sprintf("2024-03-%02dT10:00:00Z", 1+k%28)}}
	}
	if k%4 != 0 {
		vals["Site"] = map[string]any{"url": fmt.Sprintf("https://x.test/%d", k%6)}
	}
	if k%3 == 0 {
		vals["Who"] = map[string]any{"people": []any{map[string]any{"id": owner}}}
	}
	if k%4 == 1 {
		vals["Files"] = map[string]any{"files": []any{map[string]any{"name": "f.png", "external": map[string]any{"url": "https://x.test/f.png"}}}}
	}
	return vals
}

// indexedFilters are conditions of every operator of every type indexedSchema has.
func indexedFilters(owner string) []string {
	ops := map[string][]string{
		"title":        {`"equals":"rec 3"`, `"does_not_equal":"rec 3"`, `"contains":"c 1"`, `"does_not_contain":"1"`, `"starts_with":"rec 1"`, `"ends_with":"2"`, `"is_empty":true`, `"is_not_empty":true`},
		"rich_text":    {`"equals":"alpha"`, `"does_not_equal":"alpha"`, `"contains":"gamma"`, `"does_not_contain":"a"`, `"starts_with":"Gam"`, `"ends_with":"ta"`, `"is_empty":true`, `"is_not_empty":true`},
		"number":       {`"equals":1.5`, `"does_not_equal":1.5`, `"greater_than":0`, `"less_than":-1`, `"greater_than_or_equal_to":1.5`, `"less_than_or_equal_to":-2.5`, `"is_empty":true`, `"is_not_empty":true`},
		"select":       {`"equals":"b"`, `"does_not_equal":"b"`, `"is_empty":true`, `"is_not_empty":true`},
		"status":       {`"equals":"Done"`, `"does_not_equal":"Done"`, `"is_empty":true`, `"is_not_empty":true`},
		"multi_select": {`"contains":"t1"`, `"does_not_contain":"t1"`, `"is_empty":true`, `"is_not_empty":true`},
		"date": {`"equals":"2024-03-05"`, `"before":"2024-03-10"`, `"after":"2024-03-10T10:00:00Z"`, `"on_or_before":"2024-03-10"`, `"on_or_after":"2024-03-20"`,
			`"is_empty":true`, `"is_not_empty":true`, `"past_week":{}`, `"past_month":{}`, `"past_year":{}`, `"next_week":{}`, `"next_month":{}`, `"next_year":{}`, `"this_week":{}`},
		"checkbox":     {`"equals":true`, `"does_not_equal":true`},
		"people":       {`"contains":"` + owner + `"`, `"does_not_contain":"` + owner + `"`, `"is_empty":true`, `"is_not_empty":true`},
		"files":        {`"is_empty":true`, `"is_not_empty":true`},
		"unique_id":    {`"equals":4`, `"greater_than":20`, `"less_than_or_equal_to":6`, `"is_not_empty":true`},
		"created_time": {`"past_week":{}`, `"is_not_empty":true`},
	}
	props := [][2]string{{"Name", "title"}, {"Text", "rich_text"}, {"Num", "number"}, {"Sel", "select"}, {"Stage", "status"},
		{"Tags", "multi_select"}, {"When", "date"}, {"Done", "checkbox"}, {"Site", "url"}, {"Mail", "email"},
		{"Phone", "phone_number"}, {"Who", "people"}, {"Files", "files"}, {"Key", "unique_id"}, {"Created", "created_time"}}
	var out []string
	for _, p := range props {
		list, key := ops[p[1]], p[1]
		switch p[1] {
		case "url", "email", "phone_number":
			list = []string{`"equals":"` + map[string]string{"url": "https://x.test/2", "email": "u2@x.test", "phone_number": "+1 555 2"}[p[1]] + `"`,
				`"contains":"3"`, `"does_not_contain":"3"`, `"starts_with":"u1"`, `"ends_with":"1"`, `"is_empty":true`, `"is_not_empty":true`}
		case "created_time":
			key = "date"
		}
		for _, op := range list {
			out = append(out, fmt.Sprintf(`{"property":%q,%q:{%s}}`, p[0], key, op))
		}
	}
	// Conditions beside each other, and a sort's property that no filter named before.
	return append(out, `{"and":[{"property":"Sel","select":{"equals":"a"}},{"or":[{"property":"Num","number":{"greater_than":0}},{"property":"Text","rich_text":{"contains":"a"}}]}]}`)
}

// indexedSorts are the sorts the cases take in turn: every sortable type, both directions. Each
// ends with the record's number: the two databases' records have the same numbers, but not ids
// in the same order, and ties are broken by id.
var indexedSorts = []string{`[{"property":"Key","direction":"descending"}]`, `[{"property":"Num","direction":"ascending"},{"property":"Key","direction":"ascending"}]`,
	`[{"property":"Name","direction":"descending"},{"property":"Key","direction":"ascending"}]`,
	`[{"property":"When","direction":"descending"},{"property":"Text","direction":"ascending"},{"property":"Key","direction":"ascending"}]`,
	`[{"property":"Sel","direction":"ascending"},{"property":"Key","direction":"descending"}]`, `[{"property":"Stage","direction":"descending"},{"property":"Key","direction":"ascending"}]`,
	`[{"property":"Done","direction":"ascending"},{"property":"Key","direction":"descending"}]`, `[{"property":"Site","direction":"ascending"},{"property":"Key","direction":"ascending"}]`,
	`[{"property":"Mail","direction":"descending"},{"property":"Key","direction":"ascending"}]`, `[{"property":"Phone","direction":"ascending"},{"property":"Key","direction":"ascending"}]`,
	`[{"timestamp":"created_time","direction":"ascending"},{"property":"Key","direction":"ascending"}]`}

// TestIndexedMatchesAlwaysIndexed: a database whose properties are registered only as queries ask
// for them answers every filter and sort (every operator of every type, paged) exactly as one of
// the same records with every property registered before its first record, after creates and
// after later updates, and keeps exactly the same rows for the properties it registered.
func TestIndexedMatchesAlwaysIndexed(t *testing.T) {
	for _, e := range engines {
		t.Run(e.name, func(t *testing.T) {
			st := e.open(t)
			svc, p := caller(t, st)
			owner := p.Token.OwnerID
			schema, err := properties.DecodeSchema(json.RawMessage(indexedSchema), "properties")
			if err != nil {
				t.Fatal(err)
			}
			// The same ids in both, so that their rows compare.
			eager, lazy := indexedDatabase(t, svc, p, "Indexed", schema).ID, indexedDatabase(t, svc, p, "Indexed", schema).ID
			var all []string
			for _, prop := range schema {
				all = append(all, prop.ID)
			}
			if err := st.InTx(ctx, func(tx *store.Tx) error {
				if err := tx.LockIndexing(ctx, eager); err != nil {
					return err
				}
				_, err := tx.RegisterIndexed(ctx, eager, all)
				return err
			}); err != nil {
				t.Fatal(err)
			}
			ids := map[string][]string{} // per database, its records in creation order
			write := func(v int) {
				for _, db := range []string{eager, lazy} {
					var ops []service.Mutation
					for i := range 40 {
						m := service.Mutation{Op: "create", Path: fmt.Sprintf("mutations[%d]", i), Properties: indexedValues(i, v, owner)}
						if v > 0 {
							if i%3 == 0 {
								continue // some records keep their values
							}
							m.Op, m.PageID = "update", ids[db][i]
						}
						ops = append(ops, m)
					}
					recs, err := svc.MutateRecords(ctx, p, db, ops)
					if err != nil {
						t.Fatal(err)
					}
					if v == 0 {
						for _, r := range recs {
							ids[db] = append(ids[db], r.ID)
						}
					}
				}
			}
			query := func(db, filter, sorts string) []int {
				t.Helper()
				body := `{"page_size":7`
				if filter != "" {
					body += `,"filter":` + filter
				}
				if sorts != "" {
					body += `,"sorts":` + sorts
				}
				var out []int
				cursor := ""
				for {
					b := body
					if cursor != "" {
						b += `,"start_cursor":"` + cursor + `"`
					}
					q, err := service.DecodeRecordQuery([]byte(b + "}"))
					if err != nil {
						t.Fatal(err)
					}
					page, err := svc.QueryDatabase(ctx, p, db, q)
					if err != nil {
						t.Fatalf("%s %s: %v", filter, sorts, err)
					}
					for _, r := range page.Items {
						out = append(out, slices.Index(ids[db], r.ID))
					}
					if cursor = page.NextCursor; cursor == "" {
						return out
					}
				}
			}
			write(0)
			if got, err := st.RowsForTest(ctx, `SELECT DISTINCT property_id FROM record_values WHERE database_id = $1`, lazy); err != nil || !slices.Equal(got, []string{"#n"}) {
				t.Fatalf("rows of the new database before its first query: %v, %v; want the numbers only", got, err)
			}
			filters := indexedFilters(owner)
			for round := range 2 {
				for i, f := range filters {
					s := indexedSorts[i%len(indexedSorts)]
					want, got := query(eager, f, s), query(lazy, f, s)
					if diff := cmp.Diff(want, got); diff != "" {
						t.Errorf("round %d, %s sorted %s (-always indexed +indexed on demand):\n%s", round, f, s, diff)
					}
				}
				write(round + 1)
			}
			for _, s := range indexedSorts { // any sort not met yet, on the records as updated
				if diff := cmp.Diff(query(eager, "", s), query(lazy, "", s)); diff != "" {
					t.Errorf("sorted %s (-always indexed +indexed on demand):\n%s", s, diff)
				}
			}
			rows := func(db string) []string {
				got, err := st.RowsForTest(ctx, `SELECT v.record_id, v.property_id, v.ord, COALESCE(v.v_text, '-'), COALESCE(v.v_num, -1)
					FROM record_values v JOIN record_indexed i ON i.database_id = $2 AND i.property_id = v.property_id
					WHERE v.database_id = $1`, db, lazy)
				if err != nil {
					t.Fatal(err)
				}
				for i, r := range got {
					id, rest, _ := strings.Cut(r, "|")
					got[i] = fmt.Sprint(slices.Index(ids[db], id)) + "|" + rest
				}
				slices.Sort(got)
				return got
			}
			want, got := rows(eager), rows(lazy)
			if len(want) == 0 {
				t.Fatal("no rows registered")
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("rows of the registered properties (-always indexed +indexed on demand):\n%s", diff)
			}
		})
	}
}

// TestIndexedUnderConcurrentWrites: properties registered by queries while four writers create
// and update records keep every row those writes make: afterwards each registered property's
// rows are exactly those written again from the records' stored values on a quiet database.
// Each build runs 3 records a batch, so the writers run between its batches.
func TestIndexedUnderConcurrentWrites(t *testing.T) {
	defer service.SetIndexBuildForTest(3, 0, nil)()
	for _, e := range engines {
		t.Run(e.name, func(t *testing.T) {
			st := e.open(t)
			svc, p := caller(t, st)
			owner := p.Token.OwnerID
			db := indexedDatabase(t, svc, p, "Concurrent", nil)
			var base []string
			var ops []service.Mutation
			for i := range 60 {
				ops = append(ops, service.Mutation{Op: "create", Path: fmt.Sprintf("mutations[%d]", i), Properties: indexedValues(i, 0, owner)})
			}
			recs, err := svc.MutateRecords(ctx, p, db.ID, ops)
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range recs {
				base = append(base, r.ID)
			}
			props := []string{"Num", "Text", "Sel", "Tags", "When", "Site", "Who", "Done", "Name", "Mail"}
			query := func(prop string) {
				q, err := service.DecodeRecordQuery([]byte(`{"page_size":5,"sorts":[],"filter":{"property":"` + prop + `","rich_text":{"is_not_empty":true}}}`))
				if prop == "Num" || prop == "Sel" || prop == "Tags" || prop == "When" || prop == "Who" || prop == "Done" {
					q, err = service.DecodeRecordQuery([]byte(`{"page_size":5,"sorts":[{"property":"Key","direction":"ascending"}],"filter":{"property":"` + prop + `","` +
						map[string]string{"Num": "number", "Sel": "select", "Tags": "multi_select", "When": "date", "Who": "people", "Done": "checkbox"}[prop] + `":` +
						map[bool]string{true: `{"equals":true}`, false: `{"is_not_empty":true}`}[prop == "Done"] + `}}`))
				}
				if err != nil {
					t.Error(err)
					return
				}
				if _, err := svc.QueryDatabase(ctx, p, db.ID, q); err != nil {
					t.Errorf("query on %s: %v", prop, err)
				}
			}
			done := make(chan struct{})
			errs := make(chan error, 4)
			for w := range 4 {
				go func() {
					for b := range 12 {
						var ops []service.Mutation
						for i := range 8 {
							k := w*1000 + b*10 + i
							m := service.Mutation{Op: "create", Path: fmt.Sprintf("mutations[%d]", i), Properties: indexedValues(k, b+1, owner)}
							if i%2 == 1 {
								m.Op, m.PageID = "update", base[(k*7)%len(base)]
							}
							ops = append(ops, m)
						}
						if _, err := svc.MutateRecords(ctx, p, db.ID, ops); err != nil && !quire.IsCode(err, quire.CodeConflict) {
							errs <- err
							return
						}
					}
					errs <- nil
				}()
			}
			go func() {
				defer close(done)
				for _, prop := range props {
					query(prop)
				}
			}()
			for range 4 {
				if err := <-errs; err != nil {
					t.Fatal(err)
				}
			}
			<-done
			rows := func() []string {
				got, err := st.RowsForTest(ctx, `SELECT record_id, property_id, ord, COALESCE(v_text, '-'), COALESCE(v_num, -1)
					FROM record_values WHERE database_id = $1 AND property_id <> '#n'`, db.ID)
				if err != nil {
					t.Fatal(err)
				}
				slices.Sort(got)
				return got
			}
			kept := rows()
			registered, err := st.RowsForTest(ctx, `SELECT property_id FROM record_indexed WHERE database_id = $1`, db.ID)
			if err != nil || len(registered) != len(props)+1 { // and Key, which some sort by
				t.Fatalf("registered %v, %v; want %d properties", registered, err, len(props)+1)
			}
			if err := st.InTx(ctx, func(tx *store.Tx) error {
				if err := tx.Exec(ctx, `DELETE FROM record_values WHERE database_id = $1 AND property_id <> '#n'`, db.ID); err != nil {
					return err
				}
				return tx.Exec(ctx, `DELETE FROM record_indexed WHERE database_id = $1`, db.ID)
			}); err != nil {
				t.Fatal(err)
			}
			for _, prop := range props {
				query(prop)
			}
			if diff := cmp.Diff(rows(), kept); diff != "" {
				t.Errorf("rows kept through the concurrent writes (-written again +kept):\n%s", diff)
			}
		})
	}
}

// TestViewRegistersProperties: saving a view registers the properties its filter and sorts read
// (not the timestamps), so that its first query finds their rows; a patch registers its new ones.
func TestViewRegistersProperties(t *testing.T) {
	for _, e := range engines {
		t.Run(e.name, func(t *testing.T) {
			st := e.open(t)
			svc, p := caller(t, st)
			db := indexedDatabase(t, svc, p, "Views", nil)
			if _, err := svc.MutateRecords(ctx, p, db.ID, []service.Mutation{{Op: "create", Path: "mutations[0]", Properties: indexedValues(1, 0, p.Token.OwnerID)}}); err != nil {
				t.Fatal(err)
			}
			stored, err := service.DatabaseSchema(db)
			if err != nil {
				t.Fatal(err)
			}
			id := func(name string) string { return stored.ByName(name).ID }
			registered := func(want ...string) {
				t.Helper()
				got, err := st.RowsForTest(ctx, `SELECT property_id FROM record_indexed WHERE database_id = $1`, db.ID)
				if err != nil {
					t.Fatal(err)
				}
				for i, w := range want {
					want[i] = id(w)
				}
				slices.Sort(got)
				slices.Sort(want)
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("registered (-want +got):\n%s", diff)
				}
			}
			var body map[string]any
			if err := json.Unmarshal(fmt.Appendf(nil, `{"name":"v","type":"table","filter":{"operator":"and","filters":[{"property":%q,"operator":"in","value":["a"]},
				{"property":%q,"operator":"gt","value":"1"}]},"sorts":[{"property":%q,"direction":"ascending"},{"property":%q,"direction":"descending"}]}`,
				id("Sel"), id("Num"), id("When"), id("Created")), &body); err != nil {
				t.Fatal(err)
			}
			v, err := svc.CreateView(ctx, p, db.ID, body)
			if err != nil {
				t.Fatal(err)
			}
			registered("Sel", "Num", "When")
			if _, err := svc.PatchView(ctx, p, db.ID, v.Row.ID, map[string]any{"filter": map[string]any{"operator": "or",
				"filters": []any{map[string]any{"property": id("Tags"), "operator": "contains", "value": "t1"}}}}, ""); err != nil {
				t.Fatal(err)
			}
			registered("Sel", "Num", "When", "Tags")
			got, err := st.RowsForTest(ctx, `SELECT COALESCE(v_text, '-') FROM record_values WHERE database_id = $1 AND property_id = $2`, db.ID, id("Tags"))
			if err != nil || !slices.Equal(got, []string{stored.ByName("Tags").Options[0].ID}) {
				t.Errorf("the record's Tags rows after the patch: %v, %v; want its option t1", got, err)
			}
		})
	}
}
