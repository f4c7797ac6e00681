package store

import (
	"context"
	"database/sql"
	"errors"
	"maps"
	"slices"
	"strings"

	"github.com/quire-dev/quire/internal/search"
)

// EmbedChunk is one vector of a node with what it was made from: Hash is ChunkHash of Text
// ("": the vector is never reused), BlockID the block the text starts at ("" for none).
type EmbedChunk struct {
	Vector  []float32
	Hash    string
	Text    string
	BlockID string
}

// EmbedSave is one finished job of the indexer: the node's vectors, or for a node that no longer
// exists no chunks and an empty Workspace. Unchanged says the node's stored vectors are Chunks
// already (StoredChunks.Same): the job ends, and nothing else is written.
type EmbedSave struct {
	Job       EmbedJob
	Workspace string
	Chunks    []EmbedChunk
	Unchanged bool
}

// SaveEmbeddings replaces node job.NodeID's vectors with chunks, made by model, and ends the job
// unless the node was queued again meanwhile (then it is embedded once more). A node that no
// longer exists (no chunks, empty workspace) just leaves the queue.
func (s *Store) SaveEmbeddings(ctx context.Context, job EmbedJob, workspace, model string, chunks []EmbedChunk) error {
	return s.SaveEmbeddingBatch(ctx, model, []EmbedSave{{Job: job, Workspace: workspace, Chunks: chunks}})
}

// embedRowsPerInsert bounds one INSERT of vectors: 9 parameters a row stay far below both
// engines' limits, and 100 rows of 2 KiB vectors are about 300 KiB of statement.
const embedRowsPerInsert = 100

// SaveEmbeddingBatch does SaveEmbeddings for every job of an indexer batch in one transaction,
// in a handful of statements: on PostgreSQL each statement is a round trip through a backend
// and each commit a WAL flush, and one per vector and per node took CPU and fsyncs from the
// requests answered meanwhile (docs/performance.md "Requests first on PostgreSQL"). The jobs
// name distinct nodes (each claimed by this indexer).
func (s *Store) SaveEmbeddingBatch(ctx context.Context, model string, saves []EmbedSave) error {
	if len(saves) == 0 {
		return nil
	}
	// An unchanged node's rows are not written again: at c=1, appends of 100 paragraphs to pages
	// past what the indexer embeds rewrote 32 vectors (about 70 KB of WAL) a page per append on
	// the writer the requests wait for, and bumped the version every semantic cache checks
	// (docs/performance.md "Append, ninth pass").
	var changed []EmbedSave
	for _, sv := range saves {
		if !sv.Unchanged {
			changed = append(changed, sv)
		}
	}
	return s.InTx(ctx, func(tx *Tx) error {
		if len(changed) > 0 {
			ids := make([]any, len(changed))
			for i, sv := range changed {
				ids[i] = sv.Job.NodeID
			}
			var in strings.Builder
			tx.values(&in, 0, len(ids)) // one "row" of every id: the IN list
			if _, err := tx.tx.ExecContext(ctx, `DELETE FROM embeddings WHERE node_id IN `+in.String(), ids...); err != nil {
				return err
			}
			if err := tx.insertEmbeddings(ctx, model, changed); err != nil {
				return err
			}
		}
		for _, sv := range saves {
			if _, err := tx.tx.ExecContext(ctx, `DELETE FROM embed_queue WHERE node_id = $1 AND queued_ms = $2`,
				sv.Job.NodeID, sv.Job.QueuedMs); err != nil {
				return err
			}
		}
		if len(changed) == 0 {
			return nil
		}
		// Last, so the workspace's version row, which every saving indexer updates, is held
		// for the shortest time.
		return tx.bumpVectorVersions(ctx, changed)
	})
}

// insertEmbeddings writes the vectors of saves, embedRowsPerInsert rows per statement.
func (tx *Tx) insertEmbeddings(ctx context.Context, model string, saves []EmbedSave) error {
	const cols = 9
	var sb strings.Builder
	var args []any
	flush := func() error {
		if len(args) == 0 {
			return nil
		}
		_, err := tx.tx.ExecContext(ctx, `INSERT INTO embeddings
			(node_id, chunk, workspace_id, model, dim, vector, text_hash, text, block_id) VALUES `+sb.String(), args...)
		sb.Reset()
		args = args[:0]
		return err
	}
	for _, sv := range saves {
		for i, c := range sv.Chunks {
			if len(args) > 0 {
				sb.WriteString(", ")
			}
			tx.values(&sb, len(args), cols)
			args = append(args, sv.Job.NodeID, i, sv.Workspace, model, len(c.Vector), search.PackVector(c.Vector),
				c.Hash, c.Text, sql.NullString{String: c.BlockID, Valid: c.BlockID != ""})
			if len(args) == cols*embedRowsPerInsert {
				if err := flush(); err != nil {
					return err
				}
			}
		}
	}
	return flush()
}

// bumpVectorVersions takes the next version number of each workspace of saves (the one a node
// is saved in, or for a node that is gone the one it was last saved in) and stamps its nodes
// with it: one number per workspace and batch is enough, as the batch commits at once. The
// workspaces' rows are locked in sorted order, so two indexers saving at once cannot deadlock.
func (tx *Tx) bumpVectorVersions(ctx context.Context, saves []EmbedSave) error {
	byWS := map[string][]string{}
	for _, sv := range saves {
		ws := sv.Workspace
		if ws == "" {
			err := tx.tx.QueryRowContext(ctx, `SELECT workspace_id FROM embed_nodes WHERE node_id = $1`, sv.Job.NodeID).Scan(&ws)
			if errors.Is(err, sql.ErrNoRows) {
				continue // never had vectors: no cache holds it
			}
			if err != nil {
				return err
			}
		}
		byWS[ws] = append(byWS[ws], sv.Job.NodeID)
	}
	for _, ws := range slices.Sorted(maps.Keys(byWS)) {
		var seq int64
		if err := tx.tx.QueryRowContext(ctx, `INSERT INTO embed_versions (workspace_id, seq) VALUES ($1, 1)
			ON CONFLICT (workspace_id) DO UPDATE SET seq = embed_versions.seq + 1 RETURNING seq`, ws).Scan(&seq); err != nil {
			return err
		}
		nodes := byWS[ws]
		var sb strings.Builder
		args := make([]any, 0, 3*len(nodes))
		for i, id := range nodes {
			if i > 0 {
				sb.WriteString(", ")
			}
			tx.values(&sb, 3*i, 3)
			args = append(args, id, ws, seq)
		}
		if _, err := tx.tx.ExecContext(ctx, `INSERT INTO embed_nodes (node_id, workspace_id, seq) VALUES `+sb.String()+`
			ON CONFLICT (node_id) DO UPDATE SET workspace_id = excluded.workspace_id, seq = excluded.seq`, args...); err != nil {
			return err
		}
	}
	return nil
}
