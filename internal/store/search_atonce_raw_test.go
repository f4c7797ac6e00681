package store_test

import (
	"slices"
	"testing"

	"github.com/quire-dev/quire/internal/search"
	"github.com/quire-dev/quire/internal/store"
	"github.com/quire-dev/quire/internal/testdb"
)

// TestSearchAtOnce_RawTexts (issue 15): Store.Search answers a first page as search.Keyword
// alone does whether PostgreSQL's one statement is read through pgRaw or, past the bound of
// texts kept prepared that way (pgRowsDB), through database/sql: with the bound at two, the
// first two texts (page sizes 3 and 5, with the estimate) are read through pgRaw, and the later
// ones (page size 7, and each page size again without the estimate, its plan kept) are not.
func TestSearchAtOnce_RawTexts(t *testing.T) {
	store.LimitRawSearchTextsForTest(t, 2)
	testdb.ForEachEngine(t, func(t *testing.T, s *store.Store) {
		ws, _ := seed(t, s)
		seedFirstPages(t, s, ws.ID)
		for _, limit := range []int{3, 5, 3, 7, 5, 7} {
			q := search.Query{Workspace: ws.ID, Terms: []string{"pudefa"}, Limit: limit}
			res, _, err := s.Search(ctx, q)
			if err != nil {
				t.Fatal(err)
			}
			alone, _, err := s.SearchTraceForTest(ctx, q, func(string, []any) {})
			if err != nil {
				t.Fatal(err)
			}
			if got, want := ids(res), ids(alone); len(got) != limit || !slices.Equal(got, want) {
				t.Errorf("page size %d: Search = %v, Keyword alone = %v", limit, got, want)
			}
		}
		if s.Engine() == store.Postgres {
			if n := s.RawSearchTextsForTest(); n != 2 {
				t.Errorf("%d texts read through pgRaw, want 2 (the bound)", n)
			}
		}
	})
}

func ids(res []search.Result) []string {
	var out []string
	for _, r := range res {
		out = append(out, r.Node.ID)
	}
	return out
}
