package store

import (
	"context"
	"database/sql"
	"errors"
	"maps"
	"slices"
	"strings"
)

// EmbedJob is one queued node whose text must be embedded again.
type EmbedJob struct {
	NodeID   string
	QueuedMs int64 // the queue entry's version: a write after the claim queues the node again
	Attempts int
}

// ClaimEmbedJobs takes up to limit queued nodes that are due at nowMs and hides them from other
// indexers (other servers on the same database) for leaseMs. The entry stays until the vectors
// are saved, so a crash leaves it queued: the lease expires and another indexer takes it.
func (s *Store) ClaimEmbedJobs(ctx context.Context, nowMs, leaseMs int64, limit int) ([]EmbedJob, error) {
	pick := claimPick(s.engine)
	var jobs []EmbedJob
	err := s.InTx(ctx, func(tx *Tx) error {
		if err := tx.foldEmbedLog(ctx); err != nil {
			return err
		}
		rows, err := tx.tx.QueryContext(ctx, `UPDATE embed_queue SET not_before = $1 + $2
			WHERE node_id IN (`+pick+`) RETURNING node_id, queued_ms, attempts`, nowMs, leaseMs, limit)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var j EmbedJob
			if err := rows.Scan(&j.NodeID, &j.QueuedMs, &j.Attempts); err != nil {
				return err
			}
			jobs = append(jobs, j)
		}
		return rows.Err()
	})
	return jobs, err
}

// claimPick is the claim's choice of the limit ($3) due jobs first queued, at nowMs ($1). A due
// entry's not_before is 0 (queued, never claimed: nearly all of a queue) or a time (a lease
// that ran out, a backoff that ended); each of the two is read in embed_queue_ready's order,
// (not_before, queued_ms), and the first limit of each kept. As one range (not_before <= $1)
// the index gave the entries in not_before order only, so every due entry was read and sorted
// for the first limit: 100,000 queued records, as a bulk import leaves while the indexer
// embeds, made each claim read and sort all of them inside its write transaction
// (docs/performance.md, "Seeding, eleventh pass"). PostgreSQL locks each branch's rows
// (SKIP LOCKED, as before): up to twice limit until the claim commits, a moment.
func claimPick(e Engine) string {
	lock := ""
	if e == Postgres {
		lock = ` FOR UPDATE SKIP LOCKED`
	}
	return `SELECT node_id FROM (
		SELECT node_id, queued_ms FROM (SELECT node_id, queued_ms FROM embed_queue
			WHERE not_before = 0 ORDER BY queued_ms LIMIT $3` + lock + `) fresh
		UNION ALL
		SELECT node_id, queued_ms FROM (SELECT node_id, queued_ms FROM embed_queue
			WHERE not_before > 0 AND not_before <= $1 ORDER BY queued_ms LIMIT $3` + lock + `) retried
	) due ORDER BY queued_ms LIMIT $3`
}

// foldLimit bounds the log entries one claim folds: a backlog of a bulk import is folded over
// several claims instead of in one long transaction.
const foldLimit = 10_000

// foldEmbedLog moves what writers logged (embed_log, migration 00022) into embed_queue: one
// upsert per node, which queues it again as the search triggers did before the log (new
// queued_ms, attempts and lease reset). The log rows are taken with DELETE … RETURNING, so an
// entry committed meanwhile is either folded here or left for the next fold, never lost; other
// indexers skip the rows this one holds. The upserts go in node order, so two indexers folding
// at once lock embed_queue rows in the same order and cannot deadlock.
func (tx *Tx) foldEmbedLog(ctx context.Context) error {
	pick := `SELECT seq FROM embed_log ORDER BY seq LIMIT $1`
	if tx.engine == Postgres {
		pick += ` FOR UPDATE SKIP LOCKED`
	}
	rows, err := tx.tx.QueryContext(ctx, `DELETE FROM embed_log WHERE seq IN (`+pick+`) RETURNING node_id, queued_ms`, foldLimit)
	if err != nil {
		return err
	}
	latest := map[string]int64{}
	for rows.Next() {
		var id string
		var ms int64
		if err := rows.Scan(&id, &ms); err != nil {
			rows.Close()
			return err
		}
		latest[id] = max(latest[id], ms)
	}
	if err := rows.Close(); err != nil {
		return err
	}
	if err := rows.Err(); err != nil {
		return err
	}
	ids := slices.Sorted(maps.Keys(latest))
	for start := 0; start < len(ids); start += 100 {
		batch := ids[start:min(start+100, len(ids))]
		var sb strings.Builder
		sb.WriteString(`INSERT INTO embed_queue (node_id, queued_ms) VALUES `)
		args := make([]any, 0, 2*len(batch))
		for i, id := range batch {
			if i > 0 {
				sb.WriteString(", ")
			}
			tx.values(&sb, 2*i, 2)
			args = append(args, id, latest[id])
		}
		sb.WriteString(` ON CONFLICT (node_id) DO UPDATE SET queued_ms = excluded.queued_ms, attempts = 0, not_before = 0`)
		if _, err := tx.tx.ExecContext(ctx, sb.String(), args...); err != nil {
			return err
		}
	}
	return nil
}

// EmbedQueueLength counts the nodes waiting to be embedded, folded into the queue or still in
// its log.
func (s *Store) EmbedQueueLength(ctx context.Context) (int64, error) {
	var n int64
	err := s.read.QueryRowContext(ctx, `SELECT COUNT(*) FROM embed_pending`).Scan(&n)
	return n, err
}

// EmbedQueueDepth counts the queued nodes that are due at nowMs and those waiting (claimed by
// an indexer under its lease, or backing off after a failure), each count stopping at limit:
// both walk a range of the embed_queue_ready index and read at most limit entries of it, so a
// metrics scrape stays cheap however long the queue grows. A node in the log not yet folded
// (PostgreSQL, the first limit entries of it) is due, as the next fold will make it: counted
// once, and no longer as waiting.
func (s *Store) EmbedQueueDepth(ctx context.Context, nowMs int64, limit int) (due, waiting int64, err error) {
	logged := `SELECT DISTINCT node_id FROM (SELECT node_id FROM embed_log ORDER BY seq LIMIT $2) l WHERE `
	err = s.read.QueryRowContext(ctx, `SELECT
		(SELECT COUNT(*) FROM (SELECT 1 FROM embed_queue WHERE not_before <= $1 ORDER BY not_before LIMIT $2) d)
		+ (SELECT COUNT(*) FROM (`+logged+`NOT EXISTS (SELECT 1 FROM embed_queue q
			WHERE q.node_id = l.node_id AND q.not_before <= $1)) ld),
		(SELECT COUNT(*) FROM (SELECT 1 FROM embed_queue WHERE not_before > $1 ORDER BY not_before LIMIT $2) w)
		- (SELECT COUNT(*) FROM (`+logged+`EXISTS (SELECT 1 FROM embed_queue q
			WHERE q.node_id = l.node_id AND q.not_before > $1)) lw)`,
		nowMs, limit).Scan(&due, &waiting)
	return min(due, int64(limit)), max(waiting, 0), err
}

// EmbeddingCount counts the stored vectors (chunks) of every model and workspace.
func (s *Store) EmbeddingCount(ctx context.Context) (int64, error) {
	var n int64
	err := s.read.QueryRowContext(ctx, `SELECT COUNT(*) FROM embeddings`).Scan(&n)
	return n, err
}

// EmbedSource is the text of one node to embed: its title and its blocks' text.
type EmbedSource struct {
	WorkspaceID string
	Title       string
	Body        []string
	BodyBlocks  []string // the block of each entry of Body; "" for text that is not a block's
}

// EmbedSource reads node id's text, at most maxEntries block entries of it. ok is false when
// the node no longer exists.
func (s *Store) EmbedSource(ctx context.Context, id string, maxEntries int) (src EmbedSource, ok bool, err error) {
	err = s.read.QueryRowContext(ctx, `SELECT workspace_id, title_plain FROM nodes WHERE id = $1`, id).
		Scan(&src.WorkspaceID, &src.Title)
	if errors.Is(err, sql.ErrNoRows) {
		return src, false, nil
	}
	if err != nil {
		return src, false, err
	}
	// First under the node's first maxEntries children only: when their subtrees hold
	// maxEntries entries, those are the first (every other block, and every entry that is not a
	// block, comes after them), read in time that does not grow with the page. An append queues
	// its page at every write, and reading the whole page's tree and entries to keep its first
	// 200 cost the indexer more than the append cost the request on a page of a few thousand
	// blocks (docs/performance.md "Append, ninth pass"). Otherwise (blocks without text among
	// the first children), the whole tree as before.
	first, all := embedSourceQueries(s.engine)
	if src.Body, src.BodyBlocks, err = s.embedEntries(ctx, first, id, maxEntries); err != nil || len(src.Body) >= maxEntries {
		return src, err == nil, err
	}
	src.Body, src.BodyBlocks, err = s.embedEntries(ctx, all, id, maxEntries)
	return src, err == nil, err
}

// embedSourceQueries are EmbedSource's reads of a node's first $2 entries in document order:
// each block's key is its ancestors' positions and its own, joined by '/', which sorts below
// every position digit, so the keys sort depth first; entries that are not blocks follow, by
// ref. first looks only under the node's first $2 children, and finds each one's entry by its
// ref (SQLite's CROSS JOIN keeps tree the outer loop: on a store without statistics it read
// every entry of the node instead); all looks under every block.
func embedSourceQueries(e Engine) (first, all string) {
	collate := ""
	if e == Postgres {
		collate = ` COLLATE "C"`
	}
	first = `WITH RECURSIVE top (id, k) AS (
			SELECT id, position` + collate + ` FROM blocks WHERE parent_id = $1 ORDER BY position` + collate + ` LIMIT $2),
		tree (id, k) AS (
			SELECT id, k FROM top
			UNION ALL
			SELECT b.id, (tree.k || '/' || b.position)` + collate + ` FROM blocks b JOIN tree ON b.parent_id = tree.id)
		SELECT d.text, tree.id FROM tree CROSS JOIN search_docs d
		WHERE d.ref = tree.id AND d.node_id = $1 AND d.field = 'body'
		ORDER BY tree.k LIMIT $2`
	all = `WITH RECURSIVE tree (id, k) AS (
			SELECT id, position` + collate + ` FROM blocks WHERE parent_id = $1
			UNION ALL
			SELECT b.id, (tree.k || '/' || b.position)` + collate + ` FROM blocks b JOIN tree ON b.parent_id = tree.id)
		SELECT d.text, COALESCE(tree.id, '') FROM search_docs d LEFT JOIN tree ON tree.id = d.ref
		WHERE d.node_id = $1 AND d.field = 'body'
		ORDER BY tree.k IS NULL, tree.k, d.ref LIMIT $2`
	return first, all
}

// embedEntries runs one of EmbedSource's reads: the text and block of each entry, in order.
func (s *Store) embedEntries(ctx context.Context, query, id string, maxEntries int) (body, blocks []string, err error) {
	rows, err := s.read.QueryContext(ctx, query, id, maxEntries)
	if err != nil {
		return nil, nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var t, block string
		if err := rows.Scan(&t, &block); err != nil {
			return nil, nil, err
		}
		body, blocks = append(body, t), append(blocks, block)
	}
	return body, blocks, rows.Err()
}

// RetryEmbedJob records a failed attempt: the node is tried again after backoffMs.
func (s *Store) RetryEmbedJob(ctx context.Context, job EmbedJob, nowMs, backoffMs int64) error {
	_, err := s.write.ExecContext(ctx, `UPDATE embed_queue SET attempts = attempts + 1, not_before = $3
		WHERE node_id = $1 AND queued_ms = $2`, job.NodeID, job.QueuedMs, nowMs+backoffMs)
	return err
}

// RequeueOtherModels queues every node with vectors of a model other than model: after a model
// change they are embedded again (and until then not found by semantic search).
func (s *Store) RequeueOtherModels(ctx context.Context, model string, nowMs int64) (int64, error) {
	res, err := s.write.ExecContext(ctx, `INSERT INTO embed_queue (node_id, queued_ms)
		SELECT DISTINCT node_id, CAST($2 AS BIGINT) FROM embeddings WHERE model <> $1
		ON CONFLICT (node_id) DO NOTHING`, model, nowMs)
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

// VectorVersion is the version number of workspace ws's embeddings: it grows with every save.
func (s *Store) VectorVersion(ctx context.Context, ws string) (int64, error) {
	var seq int64
	err := s.read.QueryRowContext(ctx, `SELECT seq FROM embed_versions WHERE workspace_id = $1`, ws).Scan(&seq)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil
	}
	return seq, err
}

// ChangedVectorNodes lists the nodes of workspace ws whose vectors were saved after version
// since, at most limit of them (more reports too many: reload everything).
func (s *Store) ChangedVectorNodes(ctx context.Context, ws string, since int64, limit int) (ids []string, tooMany bool, err error) {
	rows, err := s.read.QueryContext(ctx, `SELECT node_id FROM embed_nodes WHERE workspace_id = $1 AND seq > $2
		ORDER BY seq LIMIT $3`, ws, since, limit+1)
	if err != nil {
		return nil, false, err
	}
	defer rows.Close()
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, false, err
		}
		ids = append(ids, id)
	}
	if len(ids) > limit {
		return nil, true, rows.Err()
	}
	return ids, false, rows.Err()
}
