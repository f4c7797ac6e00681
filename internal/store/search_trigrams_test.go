package store_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/quire-dev/quire/internal/store"
	"github.com/quire-dev/quire/internal/testdb"
)

// TestPlanTrigrams: FTS5 is asked only for a term's rare trigrams ("tok" is in every entry, so
// "tok424242" is looked up as "424242" or "k424242" and verified by substring); a term
// of common trigrams alone is looked up whole; a trigram that occurs nowhere answers nothing.
// The plan is FTS5's (SQLite); PostgreSQL's trigram index is planned by PostgreSQL.
func TestPlanTrigrams(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, s *store.Store) {
		if s.Engine() != store.SQLite {
			t.Skip("the trigram plan is FTS5's")
		}
		mustTx(t, s, func(tx *store.Tx) error {
			for i := range 400 {
				text := fmt.Sprintf("item %d tok%d", i, i*37%1000)
				if i == 200 {
					text = "item x tok424242"
				}
				if err := tx.Exec(ctx, `INSERT INTO search_docs (ref, node_id, field, text) VALUES ($1, 'n', 'body', $2)`,
					fmt.Sprint("r", i), text); err != nil {
					return err
				}
			}
			return nil
		})
		for _, c := range []struct {
			terms          []string
			pieces, verify []string
			alt            []string // other pieces that are as right
			none           bool
		}{
			// "k42" is rare too here (numbers from 420 to 429): either run is right.
			{terms: []string{"tok424242"}, pieces: []string{"424242"}, alt: []string{"k424242"}, verify: []string{"tok424242"}},
			{terms: []string{"ITEM"}, pieces: []string{"ITEM"}},
			{terms: []string{"item", "424242"}, pieces: []string{"424242"}, verify: []string{"item"}},
			{terms: []string{"tok42x"}, none: true},
		} {
			pieces, verify, none, err := s.PlanTrigramsForTest(ctx, "search_fts", c.terms)
			if err != nil {
				t.Fatal(err)
			}
			if !(slices.Equal(pieces, c.pieces) || c.alt != nil && slices.Equal(pieces, c.alt)) || !slices.Equal(verify, c.verify) || none != c.none {
				t.Errorf("%q: pieces %q, verify %q, none %v; want %q, %q, %v", c.terms, pieces, verify, none, c.pieces, c.verify, c.none)
			}
		}
	})
}
