package service_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/quire-dev/quire/internal/properties"
	"github.com/quire-dev/quire/internal/quire"
	"github.com/quire-dev/quire/internal/service"
)

// TestRecordWalks: the walks over every record of a database read them by id a batch at a time
// (store.RecordIDs), and each reaches every record once across the batches: a schema change's
// reindex rewrites the rows of all of them (options reordered: the select sort follows the new
// order for every record), and EachRecord visits every record not in trash once, in id order. Three records a batch, eight records, one of them in trash.
func TestRecordWalks(t *testing.T) {
	defer service.SetRecordBatchForTest(3)()
	for _, e := range engines {
		t.Run(e.name, func(t *testing.T) {
			st := e.open(t)
			svc, p := caller(t, st)
			schema, err := properties.DecodeSchema(json.RawMessage(`{"Name":{"title":{}},
				"Sel":{"select":{"options":[{"name":"a"},{"name":"b"},{"name":"c"}]}}}`), "properties")
			if err != nil {
				t.Fatal(err)
			}
			db := indexedDatabase(t, svc, p, "Walks", schema).ID
			ops := make([]service.Mutation, 8)
			for i := range ops {
				ops[i] = service.Mutation{Op: "create", Path: fmt.Sprintf("mutations[%d]", i), Properties: map[string]any{
					"Name": map[string]any{"title": []any{map[string]any{"text": map[string]any{"content": fmt.Sprint(i)}}}},
					"Sel":  map[string]any{"select": map[string]any{"name": []string{"a", "b", "c"}[i%3]}}}}
			}
			recs, err := svc.MutateRecords(ctx, p, db, ops)
			if err != nil {
				t.Fatal(err)
			}
			var ids []string
			for _, r := range recs {
				ids = append(ids, r.ID)
			}
			if _, err := svc.TrashPage(ctx, p, ids[4]); err != nil {
				t.Fatal(err)
			}
			// In id order: ids made in the same millisecond are not in the order they were made.
			live := slices.Sorted(slices.Values(slices.Delete(slices.Clone(ids), 4, 5)))
			// Sorted by the select, then by title: the records' indexes in ids.
			sorted := func() []int {
				t.Helper()
				q, err := service.DecodeRecordQuery([]byte(`{"sorts":[{"property":"Sel","direction":"ascending"},
					{"property":"Name","direction":"ascending"}],"page_size":100}`))
				if err != nil {
					t.Fatal(err)
				}
				page, err := svc.QueryDatabase(ctx, p, db, q)
				if err != nil {
					t.Fatal(err)
				}
				var out []int
				for _, r := range page.Items {
					out = append(out, slices.Index(ids, r.ID))
				}
				return out
			}
			if diff := cmp.Diff([]int{0, 3, 6, 1, 7, 2, 5}, sorted()); diff != "" {
				t.Fatalf("sorted by a, b, c (-want +got):\n%s", diff)
			}
			if _, err := svc.PatchDatabase(ctx, p, db, service.DatabasePatch{Properties: json.RawMessage(
				`{"Sel":{"select":{"options":[{"name":"c"},{"name":"b"},{"name":"a"}]}}}`)}); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff([]int{2, 5, 1, 7, 0, 3, 6}, sorted()); diff != "" {
				t.Errorf("sorted by c, b, a after the reorder (-want +got):\n%s", diff)
			}
			var seen []string
			if err := svc.EachRecord(ctx, p, db, func(n *quire.Node, number int64) error {
				if want := int64(slices.Index(ids, n.ID) + 1); number != want {
					t.Errorf("record %s: number %d, want %d", n.ID, number, want)
				}
				seen = append(seen, n.ID)
				return nil
			}); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(live, seen); diff != "" {
				t.Errorf("EachRecord (-want +got):\n%s", diff)
			}
		})
	}
}
