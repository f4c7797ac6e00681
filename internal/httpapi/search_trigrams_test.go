package httpapi

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/quire-dev/quire/internal/search"
	"github.com/quire-dev/quire/internal/store"
	"github.com/quire-dev/quire/internal/testdb"
)

// TestSearch_RareTrigrams: a term whose trigrams are partly common ("tok" in every block) is
// looked up on SQLite by its rare part and checked by substring (search/trigrams.go). The
// entries that hold the rare part without the whole term, or the term's pieces apart, must not
// match; upper case must; and the walk plan must agree.
func TestSearch_RareTrigrams(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, st *store.Store) {
		e := newEnv(t, st)
		want := map[string][]string{}
		for i := range 6 {
			page := e.mkPage(t, e.full, wsParent, fmt.Sprintf("Log %d", i))
			var kids []any
			for j := range 30 {
				kids = append(kids, para(fmt.Sprintf("entry %d tok%d", j, i*100+j)))
			}
			switch i {
			case 1:
				kids = append(kids, para("the marker TOK424242 is here"))
				want["tok424242"] = append(want["tok424242"], page)
			case 2:
				kids = append(kids, para("only 424242 without the prefix"), para("tok1 and 424242 apart"))
			case 3:
				kids = append(kids, para("entry tok4242429 filed"))
				want["tok424242"] = append(want["tok424242"], page)
				want["entry 4242429"] = append(want["entry 4242429"], page)
			case 4:
				kids = append(kids, para("tok424 and 242 split"))
			}
			e.appendKids(t, page, kids...)
		}
		for _, terms := range [][]string{{"tok424242"}, {"entry", "4242429"}, {"tok42424x"}} {
			var plans [][]string
			for _, dense := range []int{0, 1} {
				ids := planIDs(t, st, e.ws.ID, terms, dense)
				slices.Sort(ids)
				plans = append(plans, ids)
			}
			w := slices.Clone(want[strings.Join(terms, " ")])
			slices.Sort(w)
			if !slices.Equal(plans[0], w) || !slices.Equal(plans[1], w) {
				t.Errorf("%q: index plan %v, walk %v; want %v", terms, plans[0], plans[1], w)
			}
		}
	})
}

// planIDs is the first page (10) of a store search for terms in workspace ws, with no probe and
// dense after the given count of entries (0: the default; 1: walk).
func planIDs(t *testing.T, st *store.Store, ws string, terms []string, dense int) []string {
	t.Helper()
	res, _, err := st.Search(context.Background(), search.Query{Workspace: ws, Terms: terms, Limit: 10, Tuning: search.Tuning{DenseAfter: dense, Probe: -1}})
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, r := range res {
		ids = append(ids, r.Node.ID)
	}
	return ids
}

// TestSearch_ConcentratedTerm: a term in 300 blocks of one page, more entries than denseAfter
// (200) but one node, is listed from the index on SQLite (search's entriesPerNode), not walked: a
// walk bound of one entry never stops. On PostgreSQL it is walked; both find the page alone.
func TestSearch_ConcentratedTerm(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, st *store.Store) {
		e := newEnv(t, st)
		page := e.mkPage(t, e.full, wsParent, "Incident review")
		kids := make([]any, 100)
		for i := range kids {
			kids[i] = para(fmt.Sprintf("postmortem item %d", i))
		}
		for range 3 {
			e.appendKids(t, page, kids...)
		}
		for i := range 3 {
			e.appendKids(t, e.mkPage(t, e.full, wsParent, fmt.Sprintf("Other %d", i)), para("nothing to see"))
		}
		q := search.Query{Workspace: e.ws.ID, Terms: []string{"postmortem"}, Limit: 10, Tuning: search.Tuning{Walk: 1}}
		var got []string
		stops := 0
		for range 100 {
			res, resume, err := st.Search(context.Background(), q)
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range res {
				got = append(got, r.Node.ID)
			}
			if resume == nil {
				break
			}
			q.After = resume
			stops++
		}
		if !slices.Equal(got, []string{page}) {
			t.Errorf("found %v, want %s alone", got, page)
		}
		if st.Engine() == store.SQLite && stops != 0 {
			t.Errorf("walked, stopping %d times, for a term the index lists on one page", stops)
		}
	})
}
