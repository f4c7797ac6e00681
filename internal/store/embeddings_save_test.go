package store_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/quire-dev/quire/internal/store"
	"github.com/quire-dev/quire/internal/testdb"
)

// testChunks makes n chunks with distinct texts and vectors whose first value is first+i.
func testChunks(n int, first float32) []store.EmbedChunk {
	out := make([]store.EmbedChunk, n)
	for i := range out {
		text := fmt.Sprintf("chunk %v", first+float32(i))
		out[i] = store.EmbedChunk{Vector: []float32{first + float32(i), 1}, Hash: store.ChunkHash(text), Text: text}
	}
	return out
}

// TestStore_SaveEmbeddingBatch saves an indexer batch in one transaction: each node's vectors
// replaced (more rows than one INSERT takes, for node-3), a node that is gone left without any,
// the queue entries ended unless queued again meanwhile, and one version number per workspace
// stamped on all of its nodes, so the semantic caches reload exactly those. The vectors are read
// back as the indexer reads a batch's, in one statement, by model.
func TestStore_SaveEmbeddingBatch(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, s *store.Store) {
		fillEmbedQueue(t, s, 4, 0) // node-1 … node-4, all due
		jobs, err := s.ClaimEmbedJobs(ctx, 1, 60_000, 10)
		if err != nil || len(jobs) != 4 {
			t.Fatalf("claim: %d jobs, %v", len(jobs), err)
		}
		slices.SortFunc(jobs, func(a, b store.EmbedJob) int { return int(a.QueuedMs - b.QueuedMs) })
		// Vectors from before: node-1's are replaced, node-4 (gone) loses its own. The jobs'
		// queued_ms differ, so these saves leave the queue as it is.
		for _, pre := range []struct{ node, ws string }{{"node-1", "ws-a"}, {"node-4", "ws-b"}} {
			if err := s.SaveEmbeddings(ctx, store.EmbedJob{NodeID: pre.node, QueuedMs: -1}, pre.ws, "m", testChunks(3, 100)); err != nil {
				t.Fatal(err)
			}
		}
		verA, errA := s.VectorVersion(ctx, "ws-a")
		verB, errB := s.VectorVersion(ctx, "ws-b")
		if errA != nil || errB != nil {
			t.Fatal(errA, errB)
		}
		// node-2 is written again after the claim: its entry must stay.
		if err := s.InTx(ctx, func(tx *store.Tx) error {
			return tx.ExecForTest(ctx, `UPDATE embed_queue SET queued_ms = 99 WHERE node_id = 'node-2'`)
		}); err != nil {
			t.Fatal(err)
		}
		err = s.SaveEmbeddingBatch(ctx, "m", []store.EmbedSave{
			{Job: jobs[0], Workspace: "ws-a", Chunks: testChunks(2, 0)},
			{Job: jobs[1], Workspace: "ws-a", Chunks: testChunks(1, 10)},
			{Job: jobs[2], Workspace: "ws-b", Chunks: testChunks(150, 1000)},
			{Job: jobs[3]},
		})
		if err != nil {
			t.Fatal(err)
		}
		// The indexer reads a batch's stored vectors in one statement (StoredChunksOf).
		byNode, err := s.StoredChunksOf(ctx, "m", []string{"node-1", "node-2", "node-3", "node-4"})
		if err != nil {
			t.Fatal(err)
		}
		if other, err := s.StoredChunksOf(ctx, "other-model", []string{"node-1"}); err != nil || len(other["node-1"].Vectors) != 0 {
			t.Fatalf("another model's vectors: %v, %v; want none", other, err)
		}
		for _, c := range []struct {
			node  string
			want  int
			first float32
		}{{"node-1", 2, 0}, {"node-2", 1, 10}, {"node-3", 150, 1000}, {"node-4", 0, 0}} {
			stored, ok := byNode[c.node]
			got := stored.Vectors
			if !ok || len(got) != c.want {
				t.Fatalf("%s: %d vectors (%v); want %d", c.node, len(got), ok, c.want)
			}
			for i, want := range testChunks(c.want, c.first) {
				if v := got[want.Hash]; len(v) != 2 || v[0] != want.Vector[0] {
					t.Errorf("%s chunk %d: vector %v, want %v", c.node, i, v, want.Vector)
				}
			}
		}
		if n, err := s.EmbeddingCount(ctx); err != nil || n != 153 {
			t.Errorf("EmbeddingCount = %d, %v; want 153", n, err)
		}
		if n, err := s.EmbedQueueLength(ctx); err != nil || n != 1 {
			t.Errorf("queue length %d, %v; want 1 (node-2, queued again)", n, err)
		}
		for _, c := range []struct {
			ws    string
			since int64
			want  []string
		}{{"ws-a", verA, []string{"node-1", "node-2"}}, {"ws-b", verB, []string{"node-3", "node-4"}}} {
			if v, err := s.VectorVersion(ctx, c.ws); err != nil || v != c.since+1 {
				t.Errorf("%s: version %d, %v; want %d (one per batch)", c.ws, v, err, c.since+1)
			}
			ids, tooMany, err := s.ChangedVectorNodes(ctx, c.ws, c.since, 10)
			slices.Sort(ids)
			if err != nil || tooMany || !slices.Equal(ids, c.want) {
				t.Errorf("%s: changed since %d = %v, %v, %v; want %v", c.ws, c.since, ids, tooMany, err, c.want)
			}
		}
	})
}
