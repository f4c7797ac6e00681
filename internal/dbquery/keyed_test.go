package dbquery_test

import (
	"context"
	"database/sql"
	"errors"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/quire-dev/quire/internal/dbquery"
)

// TestKeyedPair: a walk that reads its pair's id itself (Pair.Keyed) and checks its properties
// are kept (Query.Built) answers every page as the walk given the pair's id does, and answers
// ErrUnconfirmed, rather than a page, when its first statement finds nothing: no match, the
// pair not registered, a property not kept or still being built.
func TestKeyedPair(t *testing.T) {
	forEachEngine(t, registerPairs, func(t *testing.T, db *sql.DB, d dbquery.Dialect) {
		ctx := context.Background()
		insert(t, db, randomRecords(rand.New(rand.NewPCG(20261128, 15)), 240))
		exec := func(q string, args ...any) {
			t.Helper()
			if _, err := db.Exec(q, args...); err != nil {
				t.Fatalf("%v\n%s", err, q)
			}
		}
		for _, p := range []string{"title", "sl", "st", "tg", "pp", "rl", "sc", "ur", "du", "dn", "ui"} {
			exec(`INSERT INTO record_indexed (database_id, property_id, created_ms) VALUES ($1, $2, 0)`, dbID, p)
		}
		keyed := func(q dbquery.Query) dbquery.Query {
			w, _ := dbquery.PairWanted(q)
			q.Pair = &dbquery.Pair{Cond: w.Conds[0], Keyed: true}
			q.Built = dbquery.ValueProperties(q)
			return q
		}
		queries := 0
		for _, filter := range pairConds {
			for _, sort := range pairSortNames {
				for _, dir := range []string{"ascending", "descending"} {
					f, ss, err := dbquery.Decode(testSchema, []byte(filter), []byte(`[{"property":"`+sort+`","direction":"`+dir+`"}]`))
					if err != nil {
						t.Fatal(err)
					}
					q := dbquery.Query{DatabaseID: dbID, Filter: f, Sorts: ss, Now: now}
					if q.Pair, err = dbquery.FindPair(ctx, db, q); err != nil || q.Pair == nil {
						continue // the sort is on the condition's property
					}
					queries++
					for _, size := range []int{3, 50} {
						want := collect(t, db, d, q, size, viaPage)
						ids, _, err := dbquery.Page(ctx, db, d, keyed(q), size)
						if len(want) == 0 {
							if !errors.Is(err, dbquery.ErrUnconfirmed) {
								t.Errorf("%s by %s: no match, keyed walk answered %v, %v; want ErrUnconfirmed", filter, sort, ids, err)
							}
							continue
						}
						if err != nil {
							t.Fatalf("%s by %s: %v", filter, sort, err)
						}
						// Every page as the store reads it: keyed, and the walk given the pair's id where the
						// keyed walk's first statement finds nothing (a page starting past the last sort value).
						if got := collectKeyed(t, db, d, q, keyed, size); !slices.Equal(got, want) {
							t.Errorf("%s by %s %s, page_size %d:\n got %v\nwant %v", filter, sort, dir, size, got, want)
						}
					}
				}
			}
		}
		if queries < 40 {
			t.Fatalf("only %d queries had a pair", queries)
		}
		f, ss, err := dbquery.Decode(testSchema, []byte(`{"property":"Stage","select":{"equals":"a"}}`), []byte(`[{"property":"Score","direction":"ascending"}]`))
		if err != nil {
			t.Fatal(err)
		}
		q := keyed(dbquery.Query{DatabaseID: dbID, Filter: f, Sorts: ss, Now: now})
		if ids, _, err := dbquery.Page(ctx, db, d, q, 10); err != nil || len(ids) == 0 {
			t.Fatalf("Stage a by Score: %v, %v; want records", ids, err)
		}
		for _, step := range []struct{ name, change, undo string }{
			{"the sort property being built", `UPDATE record_indexed SET lease_ms = 99 WHERE property_id = 'sc'`,
				`UPDATE record_indexed SET lease_ms = 0 WHERE property_id = 'sc'`},
			{"the filter property not kept", `DELETE FROM record_indexed WHERE property_id = 'sl'`,
				`INSERT INTO record_indexed (database_id, property_id, created_ms) VALUES ('` + dbID + `', 'sl', 0)`},
			{"the pair not registered", `UPDATE record_pair_keys SET database_id = 'elsewhere' WHERE filter_prop = 'sl' AND sort_prop = 'sc'`,
				`UPDATE record_pair_keys SET database_id = '` + dbID + `' WHERE filter_prop = 'sl' AND sort_prop = 'sc'`},
		} {
			exec(step.change)
			if ids, _, err := dbquery.Page(ctx, db, d, q, 10); !errors.Is(err, dbquery.ErrUnconfirmed) {
				t.Errorf("%s: %v, %v; want ErrUnconfirmed", step.name, ids, err)
			}
			exec(step.undo)
		}
	})
}

// collectKeyed is collect of q's pages read with keyed(q), and with q where that answers
// ErrUnconfirmed.
func collectKeyed(t *testing.T, db *sql.DB, d dbquery.Dialect, q dbquery.Query, keyed func(dbquery.Query) dbquery.Query, size int) []string {
	t.Helper()
	var all []string
	for pages := 0; pages < 100; pages++ {
		got, next, err := dbquery.Page(context.Background(), db, d, keyed(q), size)
		if errors.Is(err, dbquery.ErrUnconfirmed) {
			got, next, err = dbquery.Page(context.Background(), db, d, q, size)
		}
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, got...)
		if next == nil {
			return all
		}
		q.After = roundTrip(t, next)
	}
	t.Fatalf("walk does not end: %v", all)
	return nil
}
