package store_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/quire-dev/quire/internal/search"
	"github.com/quire-dev/quire/internal/store"
	"github.com/quire-dev/quire/internal/testdb"
)

// TestSearchPlans_PacedLookup (issue 15): a word whose rarest trigram's sample leaves in doubt
// whether it is within the lookup's bound (5,000 entries) is looked up without counting that
// trigram first. zubaro, in 3,500 of 30,000 entries, is read whole and answered from its list
// (a walk bound of one entry never stops it); fimeko, in 7,200, is left to the walk once its
// first entries' pace says the bound will be passed (with that bound the walk stops, and says
// where to resume), and so is gorupi, in 1,000 entries all among the first 2,000: its pace
// takes it for a word past the bound (the price of not counting; the answers are the walk's,
// the same). On PostgreSQL each is read to the bound after the probe, as before: gorupi and
// zubaro from the list, fimeko walked.
func TestSearchPlans_PacedLookup(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, s *store.Store) {
		ws, _ := seed(t, s)
		seedWordPages(t, s, ws.ID)
		for _, tc := range []struct {
			word   string
			listed bool // answered from the index's list, not by the walk
			pages  int  // the pages the word is on, from p0
		}{
			{"zubaro", true, 600},
			{"fimeko", false, 600},
			{"gorupi", s.Engine() == store.Postgres, 40},
		} {
			var queries []string
			q := search.Query{Workspace: ws.ID, Terms: []string{tc.word}, Limit: 10, Tuning: search.Tuning{Walk: 1, Probe: -1}}
			res, resume, err := s.SearchTraceForTest(ctx, q, func(query string, args []any) {
				queries = append(queries, query)
			})
			if err != nil {
				t.Fatal(err)
			}
			for _, query := range queries {
				if strings.HasPrefix(query, "SELECT COUNT(*) FROM (SELECT rowid FROM search_fts") { // the count this replaced
					t.Errorf("%s: a statement counts entries:\n%s", tc.word, query)
				}
			}
			if !tc.listed {
				if resume == nil {
					t.Errorf("%s: answered without the walk (%d results); want the walk, stopped by its bound", tc.word, len(res))
				}
				continue
			}
			var got, want []string
			for _, r := range res {
				got = append(got, r.Node.ID)
			}
			for i := tc.pages - 1; len(want) < 10; i-- {
				want = append(want, fmt.Sprintf("p%d", i))
			}
			if !slices.Equal(got, want) || resume != nil {
				t.Errorf("%s: %v (resume %v), want %v from the list, no walk", tc.word, got, resume, want)
			}
		}
	})
}
