package store_test

import (
	"fmt"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/quire-dev/quire/internal/quire"
	"github.com/quire-dev/quire/internal/store"
	"github.com/quire-dev/quire/internal/testdb"
)

// TestUpkeep writes many small transactions, as a stream of appends does, and checks that the
// index stays exact on both engines; on SQLite, that the upkeep loop copies the WAL into the
// database file (the writer's own checkpoint waits for 10,000 pages, far more than written
// here) and merges the trigram index's segments into one (automerge is off, and FTS5's crisis
// merge alone would leave a dozen or more).
func TestUpkeep(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, s *store.Store) {
		ws, u := seed(t, s)
		page := newNode(ws.ID, "")
		mustTx(t, s, func(tx *store.Tx) error { return tx.InsertNode(ctx, page) })
		var sizeBefore int64
		if s.Engine() == store.SQLite {
			sizeBefore = fileSize(t, s.FileForTest())
		}
		const writes = 45
		for i := range writes {
			mustTx(t, s, func(tx *store.Tx) error {
				var bs []*quire.Block
				for j := range 5 {
					bs = append(bs, &quire.Block{ID: quire.NewID(), WorkspaceID: ws.ID, PageID: page.ID, ParentID: page.ID,
						Position: fmt.Sprintf("a%03d%d", i, j), Type: "paragraph", Version: 1, CreatedBy: u.ID, EditedBy: u.ID,
						Content: []byte(`{"rich_text":` + rich(fmt.Sprintf("upkeep word%03d%d", i, j)) + `}`)})
				}
				return tx.InsertBlocks(ctx, bs)
			})
		}
		if s.Engine() == store.SQLite {
			eventually(t, "the WAL copied into the database file", func() bool {
				return fileSize(t, s.FileForTest()) > sizeBefore
			})
			// The level merges leave a few segments; the rest, at least an eighth of the largest
			// here, is then consolidated with it into one (upkeep.consolidate).
			eventually(t, "the trigram index merged into one segment", func() bool { return ftsSegments(t, s) == 1 })
		}
		checkIndex(t, s, "after the writes", page.ID)
		rows, err := s.RowsForTest(ctx, `SELECT count(*) FROM search_docs WHERE node_id = $1 AND field = 'body'`, page.ID)
		if err != nil || rows[0] != strconv.Itoa(writes*5) {
			t.Fatalf("body entries = %v (%v), want %d", rows, err, writes*5)
		}
		if s.Engine() == store.SQLite {
			hits, err := s.RowsForTest(ctx, `SELECT count(*) FROM search_fts WHERE search_fts MATCH '"word0443"'`)
			if err != nil || hits[0] != "1" {
				t.Fatalf("search_fts finds word0443 %v times (%v), want once", hits, err)
			}
		}
	})
}

func fileSize(t *testing.T, path string) int64 {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Size()
}

// ftsSegments counts the segments of the block index (one per segid in its %_idx table).
func ftsSegments(t *testing.T, s *store.Store) int {
	t.Helper()
	rows, err := s.RowsForTest(ctx, `SELECT count(DISTINCT segid) FROM search_fts_idx`)
	if err != nil {
		t.Fatal(err)
	}
	n, _ := strconv.Atoi(rows[0])
	return n
}

func eventually(t *testing.T, what string, ok func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !ok(); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within 10 s", what)
		}
	}
}

// TestUpkeep_ConsolidatesWhenTheRestHasGrown (SQLite): one large segment and a small one are
// left as they are (rewriting the index whole for one small write would write it again at every
// write); TestUpkeep has the case where the rest has grown.
func TestUpkeep_ConsolidatesWhenTheRestHasGrown(t *testing.T) {
	s := testdb.SQLite(t)
	write := func(n int) {
		mustTx(t, s, func(tx *store.Tx) error {
			return tx.ExecForTest(ctx, `WITH RECURSIVE seq (i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM seq WHERE i < $1)
				INSERT INTO search_docs (ref, node_id, field, text) SELECT 'e' || hex(randomblob(8)), 'p', 'body', hex(randomblob(24)) FROM seq`, n)
		})
		// The entries reach the trigram index behind its mark (search_index_tail.go): index
		// them now, so the segments counted below are the write's, whatever the loop has done.
		if _, err := s.IndexSearch(ctx); err != nil {
			t.Fatal(err)
		}
	}
	write(3000) // indexed in batches of indexBatch, which the idle consolidation makes one segment
	eventually(t, "one segment", func() bool { return ftsSegments(t, s) == 1 })
	write(1)
	if n := ftsSegments(t, s); n != 2 {
		t.Fatalf("%d segments after a small write, want 2", n)
	}
	if due, err := s.ConsolidateDueForTest(ctx, "search_fts"); err != nil || due {
		t.Fatalf("consolidation due = %v (%v) for one small segment beside a large one, want false", due, err)
	}
	// The rest as large as the largest: the upkeep merges them into one.
	write(3000)
	eventually(t, "one segment again", func() bool { return ftsSegments(t, s) == 1 })
}

// TestCheckpointWhileWriterQueued: the upkeep's checkpoints never wait for the writer. Its
// rounds of search indexing and merging do (they write), and under a stream of writes they
// waited seconds behind the queue; when the checkpoint was a step of those rounds, none ran
// meanwhile and the writer checkpointed the whole WAL inside a COMMIT instead. Here the writer is
// held, as a queue of writers holds it, until the round after a write is waiting for it; a
// second write's kick must still be followed by a checkpoint.
func TestCheckpointWhileWriterQueued(t *testing.T) {
	s := testdb.SQLite(t)
	ws, _ := seed(t, s)
	mustTx(t, s, func(tx *store.Tx) error { return tx.InsertNode(ctx, newNode(ws.ID, "")) })
	release, err := s.HoldWriterForTest(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	s.KickUpkeepForTest()
	time.Sleep(600 * time.Millisecond) // the round after the kick (mergeEvery) now waits for the writer
	before := s.CheckpointsForTest()
	s.KickUpkeepForTest()
	for deadline := time.Now().Add(10 * time.Second); s.CheckpointsForTest() == before; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("no checkpoint ran after a write while the writer was queued")
		}
	}
}
