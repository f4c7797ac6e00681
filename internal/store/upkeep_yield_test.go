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

// TestUpkeep_SmallPiecesWhileRequestsCome: with a gate (store.YieldTo), SQLite's upkeep
// indexes in small batches while a request is in flight and the tail is short (250 entries:
// at least three batches of 100), in full ones once requests have stopped (no small batch for
// the next write), and full ones again once the tail reaches the bound. A keyword search finds
// every entry all along, and the trigram indexes are whole after. Fails if the upkeep ignores
// the gate or the bound. PostgreSQL has no upkeep: the same writes are found at once.
func TestUpkeep_SmallPiecesWhileRequestsCome(t *testing.T) {
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
		smalls := func() int64 {
			if !sqlite {
				return 0
			}
			return s.SmallPiecesForTest()
		}
		end := g.Begin() // a request in flight
		want := yieldWrites(t, s, ws, u, "busy", 250)
		indexed("the entries indexed while a request is in flight")
		if n := smalls(); sqlite && n < 3 {
			t.Errorf("%d small batches for 250 entries while a request is in flight, want at least 3", n)
		}
		checkFound(t, s, ws.ID, "while the request is in flight", want)
		end()
		time.Sleep(150 * time.Millisecond) // more than busy.Quiet
		before := smalls()
		want = yieldWrites(t, s, ws, u, "idle", 250)
		indexed("the entries indexed with no request")
		if n := smalls(); n != before {
			t.Errorf("%d small batches with no request, want none", n-before)
		}
		store.SmallTailForTest(t, 20)
		end = g.Begin()
		defer end()
		before = smalls()
		want = yieldWrites(t, s, ws, u, "long", 250)
		indexed("a long tail indexed while a request is in flight")
		// The tail is indexed in full batches; one small batch may follow, finding it empty.
		if n := smalls(); n-before > 1 {
			t.Errorf("%d small batches with 250 entries above a bound of 20, want at most 1", n-before)
		}
		checkFTS(t, s, "after the writes")
		checkFound(t, s, ws.ID, "after the writes", want)
	})
}
