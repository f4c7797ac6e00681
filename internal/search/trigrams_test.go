package search_test

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"slices"
	"testing"

	"github.com/quire-dev/quire/internal/search"
	"github.com/quire-dev/quire/internal/store"
)

var ctx = context.Background()

// sqliteStore opens a migrated SQLite store and, beside it, a read-only connection to its file
// for what this package reads (the store's pools are its own).
func sqliteStore(t *testing.T) (*store.Store, *sql.DB) {
	t.Helper()
	dir := t.TempDir()
	s, err := store.Open(ctx, store.Config{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	db, err := sql.Open("sqlite", "file:"+filepath.Join(dir, "quire.db")+"?_pragma=query_only(1)")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return s, db
}

// TestPlanTrigrams: FTS5 is asked only for a term's rare trigrams ("tok" is in every entry, so
// "tok424242" is looked up as "424242" or "k424242" and verified by substring); a term
// of common trigrams alone is looked up whole, and so is a term alone whose trigrams are at most
// phraseRatio times as dense as its rarest; a trigram that occurs nowhere answers nothing.
// The plan is FTS5's (SQLite); PostgreSQL's trigram index is planned by PostgreSQL.
func TestPlanTrigrams(t *testing.T) {
	s, db := sqliteStore(t)
	err := s.InTx(ctx, func(tx *store.Tx) error {
		for i := range 400 {
			text := fmt.Sprintf("item %d tok%d", i, i*37%1000)
			if i == 200 {
				text = "item x tok424242"
			}
			switch {
			case i%6 == 0:
				text += " exit" // "exi" in every sixth entry
			case i%40 == 1:
				text += " vexil" // "vex" and "xil" in 10: "exi" 7× as dense
			}
			if err := tx.Exec(ctx, `INSERT INTO search_docs (ref, node_id, field, text) VALUES ($1, 'n', 'body', $2)`,
				fmt.Sprint("r", i), text); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// Into the trigram indexes now, not a quarter second later (migration 00027).
	if _, err := s.IndexSearch(ctx); err != nil {
		t.Fatal(err)
	}
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
		// Its trigrams within phraseRatio of the rarest: a term alone is its whole phrase, with
		// nothing to verify; beside another term, its rare pieces (their AND leaves few).
		{terms: []string{"vexil"}, pieces: []string{"vexil"}},
		{terms: []string{"vexil", "item"}, pieces: []string{"vex", "xil"}, verify: []string{"vexil", "item"}},
	} {
		pieces, verify, none, err := search.PlanTrigramsForTest(ctx, db, "search_fts", c.terms)
		if err != nil {
			t.Fatal(err)
		}
		if !(slices.Equal(pieces, c.pieces) || c.alt != nil && slices.Equal(pieces, c.alt)) || !slices.Equal(verify, c.verify) || none != c.none {
			t.Errorf("%q: pieces %q, verify %q, none %v; want %q, %q, %v", c.terms, pieces, verify, none, c.pieces, c.verify, c.none)
		}
	}
}
