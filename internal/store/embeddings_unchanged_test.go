package store_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/quire-dev/quire/internal/order"
	"github.com/quire-dev/quire/internal/quire"
	"github.com/quire-dev/quire/internal/store"
	"github.com/quire-dev/quire/internal/testdb"
)

// TestStore_StoredChunksSame: the indexer keeps a node's rows when it would write them again
// exactly (docs/performance.md "Append, ninth pass"). Same holds for the stored chunks, in order,
// in the workspace and model they were saved with, and for nothing else: a different text, block,
// order, count, workspace or model, or no rows at all. An Unchanged save then ends the job and
// writes nothing more: the rows and the workspace's vector version stay; a changed save beside it
// in the same batch is written and versioned as before.
func TestStore_StoredChunksSame(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, s *store.Store) {
		chunks := testChunks(3, 0)
		chunks[1].BlockID = "block-1"
		if err := s.SaveEmbeddings(ctx, store.EmbedJob{NodeID: "node-1", QueuedMs: -1}, "ws-a", "m", chunks); err != nil {
			t.Fatal(err)
		}
		stored, err := s.StoredChunksOf(ctx, "m", []string{"node-1", "node-2"})
		if err != nil {
			t.Fatal(err)
		}
		if len(stored["node-1"].Vectors) != 3 || len(stored["node-2"].Vectors) != 0 {
			t.Fatalf("vectors: %d and %d, want 3 and 0", len(stored["node-1"].Vectors), len(stored["node-2"].Vectors))
		}
		other := func(edit func(c []store.EmbedChunk) []store.EmbedChunk) []store.EmbedChunk {
			return edit(slices.Clone(chunks))
		}
		for _, c := range []struct {
			name   string
			ws, m  string
			chunks []store.EmbedChunk
			want   bool
		}{
			{"the same", "ws-a", "m", chunks, true},
			{"another text", "ws-a", "m", other(func(c []store.EmbedChunk) []store.EmbedChunk { c[2] = testChunks(1, 9)[0]; return c }), false},
			{"another block", "ws-a", "m", other(func(c []store.EmbedChunk) []store.EmbedChunk { c[1].BlockID = "block-2"; return c }), false},
			{"no block", "ws-a", "m", other(func(c []store.EmbedChunk) []store.EmbedChunk { c[1].BlockID = ""; return c }), false},
			{"another order", "ws-a", "m", other(func(c []store.EmbedChunk) []store.EmbedChunk { c[0], c[2] = c[2], c[0]; return c }), false},
			{"one fewer", "ws-a", "m", chunks[:2], false},
			{"one more", "ws-a", "m", append(slices.Clone(chunks), testChunks(1, 7)...), false},
			{"another workspace", "ws-b", "m", chunks, false},
			{"another model", "ws-a", "m2", chunks, false},
			{"nothing", "ws-a", "m", nil, false},
		} {
			st, err := s.StoredChunksOf(ctx, c.m, []string{"node-1"})
			if err != nil {
				t.Fatal(err)
			}
			if got := st["node-1"].Same(c.ws, c.m, c.chunks); got != c.want {
				t.Errorf("%s: Same = %v, want %v", c.name, got, c.want)
			}
		}
		if none := stored["node-2"]; none.Same("ws-a", "m", nil) || none.Same("ws-a", "m", chunks) {
			t.Error("a node without rows is Same")
		}

		// A batch: node-1 unchanged, node-2 new. Only node-2 is written and versioned; both jobs end.
		fillEmbedQueue(t, s, 2, 0)
		jobs, err := s.ClaimEmbedJobs(ctx, 1, 60_000, 10)
		if err != nil || len(jobs) != 2 {
			t.Fatalf("claim: %d jobs, %v", len(jobs), err)
		}
		slices.SortFunc(jobs, func(a, b store.EmbedJob) int { return int(a.QueuedMs - b.QueuedMs) })
		verA, err := s.VectorVersion(ctx, "ws-a")
		if err != nil {
			t.Fatal(err)
		}
		// Unchanged with other chunks: the flag is what the store trusts, so the rows must stay
		// as they were (a store that wrote them anyway would store these).
		err = s.SaveEmbeddingBatch(ctx, "m", []store.EmbedSave{
			{Job: jobs[0], Workspace: "ws-a", Chunks: testChunks(1, 50), Unchanged: true},
			{Job: jobs[1], Workspace: "ws-b", Chunks: testChunks(2, 60)},
		})
		if err != nil {
			t.Fatal(err)
		}
		after, err := s.StoredChunksOf(ctx, "m", []string{"node-1", "node-2"})
		if err != nil {
			t.Fatal(err)
		}
		if !after["node-1"].Same("ws-a", "m", chunks) {
			t.Error("an unchanged node's rows were written again")
		}
		if !after["node-2"].Same("ws-b", "m", testChunks(2, 60)) {
			t.Error("the changed node of the batch was not written")
		}
		if v, err := s.VectorVersion(ctx, "ws-a"); err != nil || v != verA {
			t.Errorf("ws-a version %d, %v; want %d (nothing of it changed)", v, err, verA)
		}
		if ids, _, err := s.ChangedVectorNodes(ctx, "ws-b", 0, 10); err != nil || !slices.Equal(ids, []string{"node-2"}) {
			t.Errorf("ws-b changed nodes %v, %v; want node-2", ids, err)
		}
		if n, err := s.EmbedQueueLength(ctx); err != nil || n != 0 {
			t.Errorf("queue length %d, %v; want 0 (both jobs ended)", n, err)
		}
	})
}

// TestStore_EmbedSourceTextlessFirst: when the node's first children hold fewer entries than
// asked for (dividers, empty paragraphs), the read falls back to the whole tree and still
// returns the first entries in document order; with enough entries under the first children it
// returns them alone. It fails if the bounded read's answer is kept when short.
func TestStore_EmbedSourceTextlessFirst(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, s *store.Store) {
		w, _ := seed(t, s)
		page := newNode(w.ID, "")
		keys, _ := order.NBetween("", "", 40)
		var blocks []*quire.Block
		var want []string
		for i, k := range keys {
			b := &quire.Block{ID: quire.NewID(), WorkspaceID: w.ID, PageID: page.ID, ParentID: page.ID, Position: k,
				Type: "divider", Content: []byte(`{}`), Version: 1, CreatedMs: 1, CreatedBy: "u", EditedMs: 1, EditedBy: "u"}
			if i >= 10 { // ten dividers first, then thirty paragraphs
				text := fmt.Sprintf("para %02d", i)
				b.Type, b.Content = "paragraph", []byte(`{"rich_text":[{"plain_text":"`+text+`"}]}`)
				want = append(want, text)
			}
			blocks = append(blocks, b)
		}
		mustTx(t, s, func(tx *store.Tx) error {
			if err := tx.InsertNode(ctx, page); err != nil {
				return err
			}
			return tx.InsertBlocks(ctx, blocks)
		})
		for _, limit := range []int{5, 15, 30, 35} {
			src, ok, err := s.EmbedSource(ctx, page.ID, limit)
			if err != nil || !ok {
				t.Fatalf("EmbedSource: %v %v", ok, err)
			}
			if w := want[:min(limit, len(want))]; !slices.Equal(src.Body, w) {
				t.Fatalf("limit %d: body = %q, want %q", limit, src.Body, w)
			}
		}
	})
}

// TestEmbedSourcePlan pins the bounded read's plan on a page of a thousand blocks: the page's
// first children from the children index (no scan of the page's blocks, no sort of them), each
// child's entry by its ref. Losing either makes the indexer's read of an appended page grow with
// the page again.
func TestEmbedSourcePlan(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, s *store.Store) {
		seedPlanShapes(t, s)
		first, _ := store.EmbedSourceQueriesForTest(s.Engine())
		plan, err := s.PlanForTest(ctx, false, first, "n3", 200)
		if err != nil {
			t.Fatal(err)
		}
		if s.Engine() == store.SQLite {
			checkSQLitePlan(t, "embed source", strings.ReplaceAll(strings.ReplaceAll(plan, "SCAN top", ""), "SCAN tree", ""),
				[]string{"SEARCH blocks USING COVERING INDEX blocks_children (parent_id=?)", "SEARCH d USING INDEX sqlite_autoindex_search_docs_1 (ref=?)"})
			return
		}
		checkPostgresPlan(t, "embed source", plan, []string{"blocks_children"})
	})
}
