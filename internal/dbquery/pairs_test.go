package dbquery_test

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/quire-dev/quire/internal/dbquery"
)

// The pairs the differential test registers: every filter property whose equality a pair
// answers, with every sortable property (by_text when the sort column is v_text).
var (
	pairFilters = []string{"title", "sl", "st", "tg", "pp", "rl"}
	pairSorts   = map[string]bool{"sc": false, "ur": true, "sl": false, "du": false, "dn": false, "title": true, "ui": false}
)

// registerPairs adds a key for every pair before any record exists, so the triggers write all
// the rows (the store's backfill is tested in internal/store).
func registerPairs(t testing.TB, db *sql.DB) {
	t.Helper()
	for _, f := range pairFilters {
		for s, byText := range pairSorts {
			if f == s {
				continue
			}
			if _, err := db.Exec(`INSERT INTO record_pair_keys (database_id, filter_prop, sort_prop, by_text, created_ms)
				VALUES ($1, $2, $3, $4, 0)`, dbID, f, s, byText); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// pairDrift counts the rows of record_pairs that differ from what record_values says they are
// (missing or extra, either way): the triggers' whole job.
func pairDrift(t testing.TB, db *sql.DB) int {
	t.Helper()
	const want = `SELECT k.id, f.record_id, f.v_text, CASE WHEN k.by_text THEN NULL ELSE s.v_num END, CASE WHEN k.by_text THEN s.v_text END
		FROM record_pair_keys k
		JOIN record_values f ON f.database_id = k.database_id AND f.property_id = k.filter_prop AND f.v_text IS NOT NULL
		JOIN record_values s ON s.record_id = f.record_id AND s.database_id = k.database_id AND s.property_id = k.sort_prop AND s.ord = 0
		WHERE (k.by_text AND s.v_text IS NOT NULL OR NOT k.by_text AND s.v_num IS NOT NULL)`
	const have = `SELECT pair_id, record_id, f_value, s_num, s_text FROM record_pairs`
	var n int
	if err := db.QueryRow(`SELECT (SELECT count(*) FROM (` + want + ` EXCEPT ` + have + `) a) + (SELECT count(*) FROM (` +
		have + ` EXCEPT ` + want + `) b)`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// randomRecords makes n records with few distinct values (ties in every sort), some without a
// value, some in trash, some in another database.
func randomRecords(r *rand.Rand, n int) []record {
	pick := func(xs ...string) string { return xs[r.IntN(len(xs))] }
	recs := make([]record, n)
	for i := range recs {
		rec := record{id: fmt.Sprintf("q%03d", i), db: dbID, trash: r.IntN(10) == 0, created: int64(r.IntN(50)),
			edited: int64(r.IntN(50)), createdBy: u1, editedBy: u2}
		if r.IntN(10) == 0 {
			rec.db = otherDB
		}
		var v []value
		if r.IntN(5) > 0 {
			v = append(v, tv("title", pick("Apple", "Banana", "Cherry", "Apple pie")))
		}
		if r.IntN(5) > 0 {
			o := r.IntN(4)
			v = append(v, tn("sl", string(rune('a'+o)), float64(o)))
		}
		if r.IntN(3) > 0 {
			o := r.IntN(3)
			v = append(v, tn("st", fmt.Sprintf("s%d", o+1), float64(o)))
		}
		for _, tag := range []string{"x", "y", "z"} {
			if r.IntN(3) == 0 {
				v = append(v, tv("tg", tag))
			}
		}
		for _, u := range []string{u1, u2} {
			if r.IntN(3) == 0 {
				v = append(v, tv("pp", u))
			}
		}
		if r.IntN(4) == 0 {
			v = append(v, tv("rl", pick(p1, p2)))
		}
		if r.IntN(4) > 0 {
			v = append(v, nv("sc", float64(r.IntN(8))))
		}
		if r.IntN(3) > 0 {
			v = append(v, tv("ur", pick("https://a", "https://b", "https://c")))
		}
		if r.IntN(2) > 0 {
			v = append(v, date("du", pick("2024-05-10", "2024-05-11", "2024-05-12T08:00:00Z")))
		}
		v = append(v, nv("dn", float64(r.IntN(2))), nv("ui", float64(i)))
		rec.values = v
		recs[i] = rec
	}
	return recs
}

// pairConds are the conditions a pair answers, with values some records have and one none has.
var pairConds = []string{
	`{"property":"Name","title":{"equals":"Apple"}}`, `{"property":"Name","title":{"equals":"Nobody"}}`,
	`{"property":"Stage","select":{"equals":"a"}}`, `{"property":"Stage","select":{"equals":"Doing"}}`,
	`{"property":"State","status":{"equals":"Complete"}}`,
	`{"property":"Tags","multi_select":{"contains":"red"}}`, `{"property":"Tags","multi_select":{"contains":"blue"}}`,
	`{"property":"Owner","people":{"contains":"` + u1 + `"}}`, `{"property":"Link","relation":{"contains":"` + p2 + `"}}`,
}

// otherConds are filtered beside a pair's condition (or not at all: "").
var otherConds = []string{``, ``,
	`{"property":"Done","checkbox":{"equals":true}}`, `{"property":"Score","number":{"greater_than":3}}`,
	`{"property":"Name","title":{"contains":"an"}}`, `{"property":"Tags","multi_select":{"is_empty":true}}`,
	`{"or":[{"property":"Stage","select":{"equals":"b"}},{"property":"Score","number":{"less_than":2}}]}`,
	`{"property":"Stage","select":{"equals":"c"}}`,
}

var pairSortNames = []string{"Score", "Web", "Stage", "Due", "Done", "Name", "ID"}

// TestPairsMatchOldPlan runs random queries that a pair answers with and without it, walking
// every page (sizes 1 to 50, positions through JSON), before and after random writes, and
// checks the ids are the same in the same order; and that record_pairs equals what
// record_values says after each write.
func TestPairsMatchOldPlan(t *testing.T) {
	forEachEngine(t, registerPairs, func(t *testing.T, db *sql.DB, d dbquery.Dialect) {
		seed := uint64(20261127)
		r := rand.New(rand.NewPCG(seed, 15))
		recs := randomRecords(r, 240)
		insert(t, db, recs)
		if n := pairDrift(t, db); n != 0 {
			t.Fatalf("after inserts, %d rows of record_pairs drift from record_values", n)
		}
		paired := 0
		for round := range 3 {
			if round > 0 {
				mutateValues(t, db, r, recs)
				if n := pairDrift(t, db); n != 0 {
					t.Fatalf("round %d: %d rows of record_pairs drift from record_values", round, n)
				}
			}
			for i := range 60 {
				filter := pairConds[r.IntN(len(pairConds))]
				if o := otherConds[r.IntN(len(otherConds))]; o != "" {
					if r.IntN(2) == 0 {
						filter = `{"and":[` + filter + `,` + o + `]}`
					} else {
						filter = `{"and":[` + o + `,` + filter + `]}`
					}
				}
				sorts := fmt.Sprintf(`[{"property":%q,"direction":%q}]`, pairSortNames[r.IntN(len(pairSortNames))],
					[]string{"ascending", "descending"}[r.IntN(2)])
				size := []int{1, 2, 3, 7, 50}[r.IntN(5)]
				f, ss, err := dbquery.Decode(testSchema, []byte(filter), []byte(sorts))
				if err != nil {
					t.Fatal(err)
				}
				q := dbquery.Query{DatabaseID: dbID, Filter: f, Sorts: ss, Now: now}
				pq := q
				if pq.Pair, err = dbquery.FindPair(context.Background(), db, q); err != nil {
					t.Fatal(err)
				}
				if pq.Pair == nil {
					continue // the sort is on the condition's property
				}
				paired++
				want := collect(t, db, d, q, size, viaPage)
				for _, plan := range []string{viaPage, viaWalk} {
					if got := collect(t, db, d, pq, size, plan); !slices.Equal(got, want) {
						t.Errorf("round %d query %d (seed %d) %s %s page_size %d via %s with the pair:\n got %v\nwant %v",
							round, i, seed, filter, sorts, size, plan, got, want)
					}
				}
			}
		}
		if paired < 120 {
			t.Errorf("only %d of 180 queries found their pair", paired)
		}
	})
}

// mutateValues rewrites random records' rows the ways the store does: a property's rows
// deleted and inserted anew, a row updated in place, a record's rows all deleted, a record's
// rows moved to the other database.
func mutateValues(t *testing.T, db *sql.DB, r *rand.Rand, recs []record) {
	t.Helper()
	exec := func(q string, args ...any) {
		t.Helper()
		if _, err := db.Exec(q, args...); err != nil {
			t.Fatalf("%v\n%s", err, q)
		}
	}
	for range 40 {
		rec := recs[r.IntN(len(recs))]
		switch r.IntN(6) {
		case 0: // a new select
			o := r.IntN(4)
			exec(`DELETE FROM record_values WHERE record_id = $1 AND property_id = 'sl'`, rec.id)
			exec(`INSERT INTO record_values (database_id, record_id, property_id, ord, v_text, v_num) VALUES ($1, $2, 'sl', 0, $3, $4)`,
				dbID, rec.id, string(rune('a'+o)), float64(o))
		case 1: // a number updated in place (or added)
			res, err := db.Exec(`UPDATE record_values SET v_num = $2 WHERE record_id = $1 AND property_id = 'sc' AND ord = 0`, rec.id, float64(r.IntN(8)))
			if err != nil {
				t.Fatal(err)
			}
			if n, _ := res.RowsAffected(); n == 0 {
				exec(`INSERT INTO record_values (database_id, record_id, property_id, ord, v_text, v_num) VALUES ($1, $2, 'sc', 0, NULL, $3)`,
					dbID, rec.id, float64(r.IntN(8)))
			}
		case 2: // the tags rewritten: both rows in one statement
			exec(`DELETE FROM record_values WHERE record_id = $1 AND property_id = 'tg'`, rec.id)
			exec(`INSERT INTO record_values (database_id, record_id, property_id, ord, v_text, v_num) VALUES ($1, $2, 'tg', 0, 'z', NULL), ($1, $2, 'tg', 1, 'x', NULL)`,
				dbID, rec.id)
		case 3: // every row gone (the record moved out of its database)
			exec(`DELETE FROM record_values WHERE record_id = $1`, rec.id)
		case 4: // the options reordered: every select's index changes in one statement
			exec(`UPDATE record_values SET v_num = 3 - v_num WHERE database_id = $1 AND property_id = 'sl' AND v_num IS NOT NULL`, dbID)
		case 5: // a title and a url changed in one statement
			exec(`UPDATE record_values SET v_text = v_text || '!' WHERE record_id = $1 AND property_id IN ('title', 'ur')`, rec.id)
		}

	}
	// A property dropped from the database, then given back to a few records.
	exec(`DELETE FROM record_values WHERE property_id = 'st' AND v_text IS NOT NULL`)
	for _, rec := range recs[:20] {
		exec(`INSERT INTO record_values (database_id, record_id, property_id, ord, v_text, v_num) VALUES ($1, $2, 'st', 0, 's3', 2)`, rec.db, rec.id)
	}
}
