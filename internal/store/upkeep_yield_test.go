package store_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/quire-dev/quire/internal/busy"
	"github.com/quire-dev/quire/internal/quire"
	"github.com/quire-dev/quire/internal/store"
	"github.com/quire-dev/quire/internal/testdb"
)

// yieldWrites writes n paragraphs of one new page, each with its own word, in one transaction,
// as an append does, and returns the page and what each word must find.
func yieldWrites(t *testing.T, s *store.Store, ws *quire.Workspace, u *quire.User, tag string, n int) map[string][]string {
	t.Helper()
	page := newNode(ws.ID, "")
	want := map[string][]string{}
	var bs []*quire.Block
	for j := range n {
		word := fmt.Sprintf("%sword%03d", tag, j)
		want[word] = []string{page.ID}
		bs = append(bs, &quire.Block{ID: quire.NewID(), WorkspaceID: ws.ID, PageID: page.ID, ParentID: page.ID,
			Position: fmt.Sprintf("a%03d", j), Type: "paragraph", Version: 1, CreatedBy: u.ID, EditedBy: u.ID,
			Content: []byte(`{"rich_text":` + rich(word) + `}`)})
	}
	mustTx(t, s, func(tx *store.Tx) error {
		if err := tx.InsertNode(ctx, page); err != nil {
			return err
		}
		return tx.InsertBlocks(ctx, bs)
	})
	return want
}

// TestUpkeep_YieldsToRequests: with a gate (store.YieldTo), SQLite's upkeep does not index or
// merge while a request is in flight and the entries above the mark are few: it waits for the
// request to end, and indexes everything once it has. A keyword search finds every entry all
// along (it reads the ones above the mark itself). Fails if the upkeep ignores the gate (the
// entries would be indexed while the request is in flight) or never comes back to them.
// PostgreSQL has no upkeep: the same writes are found at once.
func TestUpkeep_YieldsToRequests(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, s *store.Store) {
		store.YieldForTest(t, time.Hour, 1000) // wait for the request however long it takes
		g := busy.New()
		s.YieldTo(g)
		ws, u := seed(t, s)
		if s.Engine() == store.SQLite {
			eventually(t, "the seed indexed", func() bool { return unindexed(t, s) == 0 })
		}
		end := g.Begin() // a request in flight from here on
		want := yieldWrites(t, s, ws, u, "first", 30)
		if s.Engine() == store.SQLite {
			// Several of the upkeep's rounds (one a quarter second after a write): none may index.
			for range 3 {
				s.KickUpkeepForTest()
				time.Sleep(300 * time.Millisecond)
			}
			if n := unindexed(t, s); n != 31 { // the 30 paragraphs and the page's title
				t.Fatalf("%d entries above the mark while a request is in flight, want 31", n)
			}
			if s.YieldsForTest() == 0 {
				t.Fatal("the upkeep never waited for the request")
			}
		}
		checkFound(t, s, ws.ID, "while the request is in flight", want)
		end()
		if s.Engine() == store.SQLite {
			eventually(t, "the entries indexed after the request", func() bool { return unindexed(t, s) == 0 })
		}
		checkFTS(t, s, "after the request")
		checkFound(t, s, ws.ID, "after the request", want)
	})
}

// TestUpkeep_YieldsOnlyToAShortTail: once the entries above the mark reach the bound, the
// upkeep indexes them even though requests never stop (a stream of them always has one in
// flight), so the tail a search reads by substring stays short. Fails if the wait has no
// bound on the tail.
func TestUpkeep_YieldsOnlyToAShortTail(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, s *store.Store) {
		store.YieldForTest(t, time.Hour, 20)
		g := busy.New()
		s.YieldTo(g)
		ws, u := seed(t, s)
		end := g.Begin()
		defer end()
		want := yieldWrites(t, s, ws, u, "long", 30)
		if s.Engine() == store.SQLite {
			s.KickUpkeepForTest()
			eventually(t, "a tail over the bound indexed while a request is in flight", func() bool { return unindexed(t, s) == 0 })
		}
		checkFTS(t, s, "after the tail's indexing")
		checkFound(t, s, ws.ID, "after the tail's indexing", want)
	})
}
