package service_test

import (
	"encoding/json"
	"testing"

	"github.com/quire-dev/quire/internal/blocks"
	"github.com/quire-dev/quire/internal/properties"
	"github.com/quire-dev/quire/internal/quire"
	"github.com/quire-dev/quire/internal/service"
)

// TestQuerySchema_ChangedByAnotherServer: a server's queries follow a schema that another
// server sharing the database changed (a rename, back and forth), from the very next query,
// though the first server decoded and kept the schema before: the filter reads the new name,
// the old one is refused, and the records render under the new name.
func TestQuerySchema_ChangedByAnotherServer(t *testing.T) {
	for _, e := range engines {
		t.Run(e.name, func(t *testing.T) {
			st := e.open(t)
			a, p := caller(t, st)
			b := service.New(st, service.Options{BaseURL: "http://quire.test"}) // another server on the same store
			schema, err := properties.DecodeSchema(json.RawMessage(`{"Name":{"title":{}},"Sel":{"select":{"options":[{"name":"x"},{"name":"y"}]}}}`), "properties")
			if err != nil {
				t.Fatal(err)
			}
			db, err := a.CreateDatabase(ctx, p, service.NewDatabase{Parent: service.Parent{Type: quire.ParentWorkspace},
				Title: blocks.Plain("Schema"), Schema: schema})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := a.MutateRecords(ctx, p, db.ID, []service.Mutation{
				{Op: "create", Path: "mutations[0]", Properties: map[string]any{"Sel": map[string]any{"select": map[string]any{"name": "x"}}}},
				{Op: "create", Path: "mutations[1]", Properties: map[string]any{"Sel": map[string]any{"select": map[string]any{"name": "y"}}}},
			}); err != nil {
				t.Fatal(err)
			}
			query := func(prop string) (service.Results[*quire.Node], error) {
				t.Helper()
				q, err := service.DecodeRecordQuery([]byte(`{"filter":{"property":"` + prop + `","select":{"equals":"x"}}}`))
				if err != nil {
					t.Fatal(err)
				}
				return a.QueryDatabase(ctx, p, db.ID, q)
			}
			rename := func(from, to string) {
				t.Helper()
				patch, err := service.DecodeDatabasePatch([]byte(`{"properties":{"` + from + `":{"name":"` + to + `"}}}`))
				if err != nil {
					t.Fatal(err)
				}
				if _, err := b.PatchDatabase(ctx, p, db.ID, patch); err != nil {
					t.Fatal(err)
				}
			}
			for _, step := range []struct{ from, to string }{{"", "Sel"}, {"Sel", "Choice"}, {"Choice", "Sel"}} {
				if step.from != "" {
					rename(step.from, step.to)
					if _, err := query(step.from); !quire.IsCode(err, quire.CodeValidation) {
						t.Fatalf("query by the old name %q after the rename: %v, want a validation error", step.from, err)
					}
				}
				got, err := query(step.to)
				if err != nil || len(got.Items) != 1 {
					t.Fatalf("query by %q: %d records, %v; want 1", step.to, len(got.Items), err)
				}
				var props map[string]json.RawMessage
				if err := json.Unmarshal(got.Items[0].Properties, &props); err != nil {
					t.Fatal(err)
				}
				if _, ok := props[step.to]; !ok || len(props) != 2 {
					t.Fatalf("record rendered as %s; want the properties Name and %s", got.Items[0].Properties, step.to)
				}
			}
		})
	}
}
