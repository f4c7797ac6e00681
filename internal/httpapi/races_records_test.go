package httpapi

import (
	"fmt"
	"net/http"
	"slices"
	"sort"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/quire-dev/quire/internal/store"
)

// raceRecordsAndSchema: while some clients create and update records in batches
// (/mutations), others change the database's schema (add a property, rename it, some remove
// it). Every write applies; the schema ends with exactly the surviving properties; every
// acknowledged record is there once, with its last acknowledged value, the final schema's
// properties and its own unique number, none skipped.
func raceRecordsAndSchema(t *testing.T, st *store.Store) {
	rounds := raceRounds(1, 10)
	const batches, perBatch = 3, 3
	e := newEnv(t, st)
	rc := e.racer()
	_, db := e.newDatabase(t, map[string]any{
		"Name":   map[string]any{"title": map[string]any{}},
		"Points": map[string]any{"number": map[string]any{}},
		"Key":    map[string]any{"unique_id": map[string]any{"prefix": "R"}},
	})
	id := db["id"].(string)
	mutations, dbPath := "/v2/databases/"+id+"/mutations", "/v2/databases/"+id
	points := map[string]float64{} // record → the last Points its client wrote
	schema := []string{"Key", "Name", "Points"}
	for round := range rounds {
		written := make([]map[string]float64, raceClients)
		var f faults
		race(raceClients, func(c int) {
			if c%2 == 1 { // a schema writer
				extra, renamed := fmt.Sprintf("Extra %d-%d", round, c), fmt.Sprintf("Renamed %d-%d", round, c)
				steps := []any{
					map[string]any{extra: map[string]any{"rich_text": map[string]any{}}},
					map[string]any{extra: map[string]any{"name": renamed}},
				}
				if c%4 == 1 {
					steps = append(steps, map[string]any{renamed: nil})
				}
				for _, s := range steps {
					r, err := rc.send(http.MethodPatch, dbPath, map[string]any{"properties": s})
					if !f.answered("schema", r, err, 200) {
						return
					}
				}
				return
			}
			written[c] = map[string]float64{}
			var mine []string
			for b := range batches {
				var ms []any
				for j := range perBatch {
					name := fmt.Sprintf("r%d-c%d-%d-%d", round, c, b, j)
					ms = append(ms, map[string]any{"op": "create", "properties": map[string]any{
						"Name": []any{txt(name)}, "Points": map[string]any{"number": b*10 + j}}})
				}
				for i, rec := range mine { // and update the client's earlier records
					ms = append(ms, map[string]any{"op": "update", "page_id": rec, "properties": map[string]any{"Points": map[string]any{"number": 1000*b + i}}})
				}
				r, err := rc.send(http.MethodPost, mutations, map[string]any{"mutations": ms})
				if !f.answered("mutations", r, err, 200) {
					return
				}
				results := objects(r.body["results"])
				if len(results) != len(ms) {
					f.add("mutations answered %d records for %d", len(results), len(ms))
					return
				}
				for _, rec := range results {
					rid := rec["id"].(string)
					written[c][rid] = dig(rec, "properties", "Points", "number").(float64)
					if !slices.Contains(mine, rid) {
						mine = append(mine, rid)
					}
				}
			}
		})
		f.check(t)
		for c := range raceClients {
			if c%2 == 1 && c%4 != 1 {
				schema = append(schema, fmt.Sprintf("Renamed %d-%d", round, c))
			}
			for rid, p := range written[c] {
				points[rid] = p
			}
		}
		sort.Strings(schema)
		checkRecords(t, e, id, schema, points)
	}
}

// checkRecords reads database id's schema and every record (the query walked by cursor) and
// compares them with what the clients acknowledged.
func checkRecords(t *testing.T, e *env, id string, schema []string, points map[string]float64) {
	t.Helper()
	got := e.do(http.MethodGet, "/v2/databases/"+id, e.full, nil)
	wantOK(t, got, 200)
	if diff := cmp.Diff(schema, sortedKeys(got.body["properties"])); diff != "" {
		t.Fatalf("schema (-want +got):\n%s", diff)
	}
	var nums []int
	seen := map[string]bool{}
	cursor := ""
	for {
		body := map[string]any{"page_size": 17}
		if cursor != "" {
			body["start_cursor"] = cursor
		}
		r := e.do(http.MethodPost, "/v2/databases/"+id+"/query", e.full, body)
		wantOK(t, r, 200)
		for _, rec := range objects(r.body["results"]) {
			rid := rec["id"].(string)
			if seen[rid] {
				t.Fatalf("record %s is listed twice", rid)
			}
			seen[rid] = true
			if p, ok := points[rid]; !ok || dig(rec, "properties", "Points", "number") != p {
				t.Fatalf("record %s: Points %v, want %v (acknowledged: %t)", rid, dig(rec, "properties", "Points", "number"), p, ok)
			}
			if diff := cmp.Diff(schema, sortedKeys(rec["properties"])); diff != "" {
				t.Fatalf("record %s properties (-schema +record):\n%s", rid, diff)
			}
			nums = append(nums, int(dig(rec, "properties", "Key", "unique_id", "number").(float64)))
		}
		if cursor, _ = r.body["next_cursor"].(string); cursor == "" {
			break
		}
	}
	if len(seen) != len(points) {
		t.Fatalf("%d records listed, %d acknowledged", len(seen), len(points))
	}
	slices.Sort(nums)
	for i, n := range nums {
		if n != i+1 {
			t.Fatalf("unique numbers are not 1..%d: %v", len(nums), nums)
		}
	}
}

func sortedKeys(v any) []string {
	m, _ := v.(map[string]any)
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
