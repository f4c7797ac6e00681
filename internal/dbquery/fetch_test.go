package dbquery_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/quire-dev/quire/internal/dbquery"
)

// TestFetch runs random queries (a pair's walk, a sort property's walk, several sorts, a
// timestamp order, selective filters read first) page by page with and without Query.Fetch, and
// checks the pages and positions are the same, that every row Row saw is a record of the page
// or the one past it with that record's own columns, and that the walks do fetch (many pages
// whole).
func TestFetch(t *testing.T) {
	forEachEngine(t, registerPairs, func(t *testing.T, db *sql.DB, d dbquery.Dialect) {
		ctx := context.Background()
		r := rand.New(rand.NewPCG(20261128, 15))
		recs := randomRecords(r, 240)
		insert(t, db, recs)
		created := map[string]int64{}
		for _, rec := range recs {
			created[rec.id] = rec.created
		}
		sortsOf := []string{``, `[{"timestamp":"created_time","direction":"descending"}]`,
			`[{"property":"Score","direction":"ascending"},{"property":"Name","direction":"descending"}]`}
		for _, name := range pairSortNames {
			sortsOf = append(sortsOf, fmt.Sprintf(`[{"property":%q,"direction":"ascending"}]`, name),
				fmt.Sprintf(`[{"property":%q,"direction":"descending"}]`, name))
		}
		whole, fetchedAny := 0, 0
		for i := range 120 {
			filter := pairConds[r.IntN(len(pairConds))]
			if o := otherConds[r.IntN(len(otherConds))]; o != "" {
				filter = `{"and":[` + filter + `,` + o + `]}`
			}
			sorts := sortsOf[r.IntN(len(sortsOf))]
			size := []int{1, 3, 7, 50}[r.IntN(4)]
			f, ss, err := dbquery.Decode(testSchema, []byte(filter), []byte(sorts))
			if err != nil {
				t.Fatal(err)
			}
			q := dbquery.Query{DatabaseID: dbID, Filter: f, Sorts: ss, Now: now}
			if q.Pair, err = dbquery.FindPair(ctx, db, q); err != nil {
				t.Fatal(err)
			}
			for pages := 0; ; pages++ {
				if pages > 300 {
					t.Fatalf("query %d: the walk does not end", i)
				}
				want, wantNext, err := dbquery.Page(ctx, db, d, q, size)
				if err != nil {
					t.Fatal(err)
				}
				type row struct {
					id, parent, self string
					created          int64
				}
				var seen []row
				fq := q
				// n.id fetched too: the id scan returns is the position's, which must be the row's own.
				fq.Fetch = &dbquery.Fetch{Columns: "n.parent_id, n.created_ms, n.id", Row: func(scan func(dest ...any) (string, error)) error {
					var rw row
					var err error
					rw.id, err = scan(&rw.parent, &rw.created, &rw.self)
					seen = append(seen, rw)
					return err
				}}
				got, gotNext, err := dbquery.Page(ctx, db, d, fq, size)
				if err != nil {
					t.Fatal(err)
				}
				where := fmt.Sprintf("query %d %s %s page_size %d page %d", i, filter, sorts, size, pages)
				gn, _ := json.Marshal(gotNext)
				wn, _ := json.Marshal(wantNext)
				if !slices.Equal(got, want) || string(gn) != string(wn) {
					t.Fatalf("%s: with Fetch %v next %s, without %v next %s", where, got, gn, want, wn)
				}
				for _, rw := range seen {
					if rw.parent != dbID || rw.created != created[rw.id] || rw.self != rw.id {
						t.Errorf("%s: fetched %+v, not the record's own row", where, rw)
					}
				}
				if len(seen) > len(got)+1 {
					t.Errorf("%s: fetched %d rows for a page of %d", where, len(seen), len(got))
				}
				fetched := 0
				for _, rw := range seen {
					if slices.Contains(got, rw.id) {
						fetched++
					}
				}
				if len(seen) > 0 {
					fetchedAny++
				}
				if fetched == len(got) && len(got) > 0 {
					whole++
				}
				if wantNext == nil {
					break
				}
				q.After = roundTrip(t, wantNext)
			}
		}
		if whole < 50 || fetchedAny < 50 {
			t.Errorf("only %d pages fetched whole, %d fetched at all", whole, fetchedAny)
		}
	})
}
