package service_test

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/quire-dev/quire/internal/blocks"
	"github.com/quire-dev/quire/internal/properties"
	"github.com/quire-dev/quire/internal/quire"
	"github.com/quire-dev/quire/internal/service"
	"github.com/quire-dev/quire/internal/store"
)

// renderTestSchema has a property of every type a record shows.
const renderTestSchema = `{"Name":{"title":{}},"Text":{"rich_text":{}},"Num":{"number":{}},
	"Sel":{"select":{"options":[{"name":"a&b","color":"red"},{"name":"<c>"}]}},"Tags":{"multi_select":{"options":[{"name":"t1"},{"name":"t2"}]}},
	"Stage":{"status":{}},"When":{"date":{}},"Done":{"checkbox":{}},"Site":{"url":{}},"Mail":{"email":{}},"Phone":{"phone_number":{}},
	"Who":{"people":{}},"Files":{"files":{}},"Created":{"created_time":{}},"Creator":{"created_by":{}},"Edited":{"last_edited_time":{}},
	"Editor":{"last_edited_by":{}},"Key":{"unique_id":{"prefix":"R"}}}`

// TestRecordRendering_EveryPath: a record reads the same on every path that shows it (the
// mutation's result, GET of the page, a query, the export's rendering), and that is what
// decoding its stored values and writing them out (properties.AppendValues) gives, for values
// of every type with texts that need escaping.
func TestRecordRendering_EveryPath(t *testing.T) {
	for _, e := range engines {
		t.Run(e.name, func(t *testing.T) {
			st := e.open(t)
			svc, p := caller(t, st)
			schema, err := properties.DecodeSchema(json.RawMessage(renderTestSchema), "properties")
			if err != nil {
				t.Fatal(err)
			}
			db, err := svc.CreateDatabase(ctx, p, service.NewDatabase{Parent: service.Parent{Type: quire.ParentWorkspace},
				Title: blocks.Plain("Render"), Schema: schema})
			if err != nil {
				t.Fatal(err)
			}
			rich := func(s string) []any {
				return []any{map[string]any{"text": map[string]any{"content": s, "link": map[string]any{"url": "https://x.test/?a=1&b=2"}},
					"annotations": map[string]any{"bold": true, "color": "red"}},
					map[string]any{"type": "equation", "equation": map[string]any{"expression": s}},
					map[string]any{"type": "mention", "mention": map[string]any{"user": map[string]any{"id": p.Token.OwnerID}}}}
			}
			var ops []service.Mutation
			for i, text := range []string{"plain", `<b> & "q" \ é 漢字`, "line\nbreak\ttab \u2028"} {
				ops = append(ops, service.Mutation{Op: "create", Path: fmt.Sprintf("mutations[%d]", i), Properties: map[string]any{
					"Name": map[string]any{"title": rich(text)}, "Text": map[string]any{"rich_text": rich(text + "!")},
					"Num": map[string]any{"number": 1.5 + float64(i)*1e21}, "Sel": map[string]any{"select": map[string]any{"name": "a&b"}},
					"Tags":  map[string]any{"multi_select": []any{map[string]any{"name": "t2"}, map[string]any{"name": "t1"}}},
					"Stage": map[string]any{"status": map[string]any{"name": "Done"}},
					"When":  map[string]any{"date": map[string]any{"start": "2024-01-02T03:04:05", "end": "2024-02-01T00:00:00", "time_zone": "Europe/Paris"}},
					"Done":  map[string]any{"checkbox": i%2 == 0}, "Site": map[string]any{"url": "https://x.test/" + fmt.Sprint(i) + "?q=<1>&r"},
					"Mail": map[string]any{"email": "a@b.test"}, "Phone": map[string]any{"phone_number": fmt.Sprintf("+1 <%d> & 2", i)},
					"Who":   map[string]any{"people": []any{map[string]any{"id": p.Token.OwnerID}}},
					"Files": map[string]any{"files": []any{map[string]any{"name": text, "external": map[string]any{"url": "https://x.test/f.png"}}}},
				}})
			}
			ops = append(ops, service.Mutation{Op: "create", Path: "mutations[3]", Properties: map[string]any{}})
			created, err := svc.MutateRecords(ctx, p, db.ID, ops)
			if err != nil {
				t.Fatal(err)
			}
			q, _ := service.DecodeRecordQuery([]byte(`{"page_size":100}`))
			page, err := svc.QueryDatabase(ctx, p, db.ID, q)
			if err != nil || len(page.Items) != len(created) {
				t.Fatalf("query: %d records, %v", len(page.Items), err)
			}
			queried := map[string][]byte{}
			for _, n := range page.Items {
				queried[n.ID] = n.Properties
			}
			for _, n := range created {
				want := referenceRendering(t, st, svc, p, n.ID)
				got, err := svc.Page(ctx, p, n.ID)
				if err != nil {
					t.Fatal(err)
				}
				stored, err := st.Node(ctx, p.WorkspaceID(), n.ID)
				if err != nil {
					t.Fatal(err)
				}
				nums, _ := st.RecordNumbers(ctx, []string{n.ID})
				exported, err := svc.RenderedProperties(ctx, stored, nums[n.ID])
				if err != nil {
					t.Fatal(err)
				}
				for path, b := range map[string][]byte{"mutation": n.Properties, "GET": got.Properties, "query": queried[n.ID], "export": exported} {
					if string(b) != string(want) {
						t.Errorf("%s of record %s:\n got %s\nwant %s", path, n.ID, b, want)
					}
				}
			}
		})
	}
}

// referenceRendering renders record id as before properties.Renderer: its stored values decoded, then
// written by properties.AppendValues under the database's schema.
func referenceRendering(t *testing.T, st *store.Store, svc *service.Service, p *quire.Principal, id string) []byte {
	t.Helper()
	n, err := st.Node(ctx, p.WorkspaceID(), id)
	if err != nil {
		t.Fatal(err)
	}
	db, err := st.Node(ctx, p.WorkspaceID(), n.ParentID)
	if err != nil {
		t.Fatal(err)
	}
	schema, err := service.DatabaseSchema(db)
	if err != nil {
		t.Fatal(err)
	}
	vals, err := properties.UnmarshalValues(n.Properties)
	if err != nil {
		t.Fatal(err)
	}
	nums, err := st.RecordNumbers(ctx, []string{id})
	if err != nil || nums[id] == 0 {
		t.Fatalf("numbers %v, %v", nums, err)
	}
	return properties.AppendValues(nil, schema, vals, properties.Computed{CreatedMs: n.CreatedMs, CreatedBy: n.CreatedBy,
		EditedMs: n.EditedMs, EditedBy: n.EditedBy, UniqueNumber: nums[id]})
}
