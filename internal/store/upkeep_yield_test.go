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

// TestUpkeep_DefersIndexingWhileRequestsCome: with a gate (store.YieldTo), SQLite's upkeep
// leaves new entries above the mark while a request is in flight and the tail is short (250
// entries under a bound of 1,000, over several rounds), indexes them once requests have stopped,
// and indexes while a request is in flight once the tail reaches the bound, in full batches of
// 500. A keyword search finds every entry all along, and the trigram indexes are whole after.
// Fails if the upkeep ignores the gate or the bound. PostgreSQL has no upkeep: the same writes
// are found at once.
func TestUpkeep_DefersIndexingWhileRequestsCome(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, s *store.Store) {
		g := busy.New()
		s.YieldTo(g)
		ws, u := seed(t, s)
		sqlite := s.Engine() == store.SQLite
		indexed := func(step string) {
			t.Helper()
			if sqlite {
				eventually(t, step, func() bool { return unindexed(t, s) == 0 })
			}
		}
		indexed("the seed indexed")
		store.DeferTailForTest(t, 1000)
		end := g.Begin() // a request in flight
		want := yieldWrites(t, s, ws, u, "busy", 250)
		time.Sleep(time.Second) // several of the upkeep's rounds
		if sqlite {
			if n := unindexed(t, s); n < 250 { // the page's title is one more
				t.Errorf("%d entries above the mark after a second with a request in flight, want all 250", n)
			}
		}
		checkFound(t, s, ws.ID, "while the request is in flight", want)
		end()
		indexed("the entries indexed once the request ended")
		checkFound(t, s, ws.ID, "after the request", want)
		end = g.Begin()
		defer end()
		var before int64
		if sqlite {
			before = s.IndexBatchesForTest()
		}
		for i := range 5 { // 1,250 entries, over the bound
			want = yieldWrites(t, s, ws, u, fmt.Sprintf("long%d", i), 250)
		}
		indexed("a tail over the bound indexed while a request is in flight")
		// In full batches: three of 500 at most for 1,250 entries, and one that finds the tail empty;
		// at 100 entries a batch they were thirteen.
		if sqlite {
			if n := s.IndexBatchesForTest() - before; n > 6 {
				t.Errorf("%d index batches for 1,250 entries, want full ones", n)
			}
		}
		checkFTS(t, s, "after the writes")
		checkFound(t, s, ws.ID, "after the writes", want)
	})
}
