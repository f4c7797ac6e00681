package httpapi

import (
	"fmt"
	"math/rand/v2"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/quire-dev/quire/internal/store"
	"github.com/quire-dev/quire/internal/testdb"
)

// Moves of records between databases linked by a dual relation: the other side follows, and
// moves racing relation writes leave both sides in step.

const backRelation = "Related to Projects (Members)" // the name the synced property gets

// relatedDatabases makes People and Projects, Projects.Members a dual relation to People, under a
// new top-level page; it returns the page and both databases' ids.
func (e *env) relatedDatabases(t testing.TB) (home, people, projects string) {
	t.Helper()
	home, pdb := e.newDatabase(t, map[string]any{"Name": map[string]any{"title": map[string]any{}}})
	people = pdb["id"].(string)
	r := e.do(http.MethodPost, "/v2/databases", e.full, map[string]any{"parent": pageParent(home), "title": []any{txt("Projects")},
		"properties": map[string]any{"Name": map[string]any{"title": map[string]any{}},
			"Members": map[string]any{"relation": map[string]any{"database_id": people, "dual_property": map[string]any{}}}}})
	wantOK(t, r, http.StatusOK)
	return home, people, r.body["id"].(string)
}

func relation(ids ...string) map[string]any {
	items := []any{}
	for _, id := range ids {
		items = append(items, map[string]any{"id": id})
	}
	return map[string]any{"relation": items}
}

// relationsOf maps each record of database db to the ids its relation prop holds.
func (e *env) relationsOf(t testing.TB, db, prop string) map[string][]string {
	t.Helper()
	r := e.do(http.MethodPost, "/v2/databases/"+db+"/query", e.full, map[string]any{"page_size": 100})
	wantOK(t, r, http.StatusOK)
	out := map[string][]string{}
	for _, rec := range objects(r.body["results"]) {
		ids := []string{}
		for _, x := range objects(rec["properties"].(map[string]any)[prop].(map[string]any)["relation"]) {
			ids = append(ids, x["id"].(string))
		}
		slices.Sort(ids)
		out[rec["id"].(string)] = ids
	}
	return out
}

// checkDual fails unless the relation of projects and its synced property on people hold the
// same pairs, each side naming only records of the other.
func (e *env) checkDual(t testing.TB, people, projects string) {
	t.Helper()
	members, back := e.relationsOf(t, projects, "Members"), e.relationsOf(t, people, backRelation)
	want := map[string][]string{}
	for p := range back {
		want[p] = []string{}
	}
	for proj, ids := range members {
		for _, id := range ids {
			if _, ok := back[id]; !ok {
				t.Fatalf("project %s names %s, which is not a record of People", proj, id)
			}
			want[id] = append(want[id], proj)
		}
	}
	for p := range want {
		slices.Sort(want[p])
	}
	if diff := cmp.Diff(want, back); diff != "" {
		t.Fatalf("People's side is out of step with Projects' (-want +got):\n%s", diff)
	}
}

func TestCompatMoves_RelatedRecords(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, st *store.Store) {
		e := newEnv(t, st)
		home, people, projects := e.relatedDatabases(t)
		ada := e.record(t, people, map[string]any{"Name": []any{txt("Ada")}})["id"].(string)
		bob := e.record(t, people, map[string]any{"Name": []any{txt("Bob")}})["id"].(string)
		p1 := e.record(t, projects, map[string]any{"Name": []any{txt("P1")}, "Members": relation(ada, bob)})["id"].(string)

		// Ada leaves People for a page: P1 loses her, as when the value is cleared.
		wantOK(t, e.move(ada, map[string]any{"parent": pageParent(home)}), http.StatusOK)
		if got := e.relationsOf(t, projects, "Members")[p1]; !cmp.Equal(got, []string{bob}) {
			t.Fatalf("P1's members after Ada left = %v", got)
		}
		// P1 leaves Projects: Bob's side loses it.
		wantOK(t, e.move(p1, map[string]any{"parent": pageParent(home)}), http.StatusOK)
		if got := e.relationsOf(t, people, backRelation)[bob]; len(got) != 0 {
			t.Fatalf("Bob's projects after P1 left = %v", got)
		}
		e.checkDual(t, people, projects)

		// An Idempotency-Key replays the move's answer instead of moving again.
		key := []string{"Idempotency-Key", "move-" + ada}
		first := e.move(ada, map[string]any{"parent": dbParent(projects)}, key...)
		again := e.move(ada, map[string]any{"parent": dbParent(projects)}, key...)
		wantOK(t, again, http.StatusOK)
		if again.header.Get("Idempotent-Replayed") != "true" || string(again.raw) != string(first.raw) {
			t.Fatalf("the repeated move was not replayed: %s\n%s", first.raw, again.raw)
		}
		if diff := cmp.Diff(map[string][]string{ada: {}}, e.relationsOf(t, projects, "Members")); diff != "" {
			t.Fatalf("Projects' records (-want +got):\n%s", diff)
		}
	})
}

// TestCompatMoves_RelatedRecordsRace moves records between two databases linked by a dual
// relation (and out to a page and back) while other clients rewrite the relation from both
// sides. Every request answers 200 or 400 (a record that moved away is no longer a valid
// related page), never 5xx or a deadlock, and afterwards both sides hold the same pairs.
func TestCompatMoves_RelatedRecordsRace(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, st *store.Store) {
		e := newEnv(t, st)
		home, people, projects := e.relatedDatabases(t)
		var persons, projs []string
		for i := range 4 {
			persons = append(persons, e.record(t, people, map[string]any{"Name": []any{txt(fmt.Sprint("Person ", i))}})["id"].(string))
			projs = append(projs, e.record(t, projects, map[string]any{"Name": []any{txt(fmt.Sprint("Project ", i))},
				"Members": relation(persons[i])})["id"].(string))
		}
		all := append(slices.Clone(persons), projs...)
		parents := []map[string]any{dbParent(people), dbParent(projects), pageParent(home)}
		seed := uint64(time.Now().UnixNano())
		t.Logf("seed %d", seed)
		rc := e.racer()
		for round := range raceRounds(2, 10) {
			var f faults
			race(raceClients, func(c int) {
				rnd := rand.New(rand.NewPCG(seed, uint64(round*raceClients+c)))
				for range 3 {
					id := all[rnd.IntN(len(all))]
					if c%2 == 0 {
						r, err := rc.send(http.MethodPatch, "/v2/pages/"+id+"/move", map[string]any{"parent": parents[rnd.IntN(len(parents))]})
						f.answered("move", r, err, 200)
						continue
					}
					// Set the relation from whichever side id is on now; 400 when it is on neither
					// or names a record that left.
					prop := map[bool]string{true: "Members", false: backRelation}[rnd.IntN(2) == 0]
					other := all[rnd.IntN(len(all))]
					r, err := rc.send(http.MethodPatch, "/v2/pages/"+id, map[string]any{"properties": map[string]any{prop: relation(other)}})
					f.answered("relate", r, err, 200, 400)
				}
			})
			f.check(t)
			e.checkDual(t, people, projects)
		}
	})
}
