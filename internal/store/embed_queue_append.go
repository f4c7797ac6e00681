package store

import (
	"context"
	"database/sql"
)

// An append at the end of a page queues the page for the semantic indexer through the search
// entries' triggers, like any write of text. The indexer reads a page's first entries only (its
// window, service.embedMaxEntries of them in document order), and an append at the end of a page
// that already holds that many places its entries after all of them: the page's vectors cannot
// change. Yet each such append made the indexer read the window and the stored vectors to find
// that out, and claim and release the page in two write transactions on SQLite's one writer: at
// one connection sending appends, more of the server's CPU than the appends themselves
// (docs/performance.md "Append, tenth pass"). QuietAppend takes back the queueing of such an
// append in its own transaction, so the queue is as the append found it.
//
// The entries counted are the page's body entries, which for a page that holds blocks are its
// blocks' (a mind map's nodes have body entries but no blocks, and nothing appends to one). An
// append into a block, or placed before other children, is not an append at the end of the
// page: its caller does not take back its queueing.

// QuietAppend is what EndAppend needs to take back an append's queueing of its page.
type QuietAppend struct {
	page   string
	window int
	full   bool     // SQLite: the page held window entries before the append
	queued bool     // SQLite: the page's queue row before the append, if any
	row    [3]int64 // queued_ms, attempts, not_before
}

// quietAppendRead counts the page's body entries, up to $2 (an index range of search_docs_node),
// and reads its queue row, before an append writes anything.
const quietAppendRead = `SELECT (SELECT COUNT(*) FROM (SELECT 1 FROM search_docs WHERE node_id = $1 AND field = 'body' LIMIT $2) w),
	q.queued_ms, q.attempts, q.not_before FROM (SELECT 1) o LEFT JOIN embed_queue q ON q.node_id = $1`

// BeginAppend prepares EndAppend for an append at the end of page, whose first window entries
// are what the indexer reads. It must come before the append writes any search entry. On
// SQLite it reads the page's entry count and queue row (nothing else writes meanwhile: one
// writer); on PostgreSQL it reads nothing.
func (tx *Tx) BeginAppend(ctx context.Context, page string, window int) (QuietAppend, error) {
	q := QuietAppend{page: page, window: window}
	if tx.engine != SQLite {
		return q, nil
	}
	var n int
	var ms, attempts, notBefore sql.NullInt64
	if err := tx.tx.QueryRowContext(ctx, quietAppendRead, page, window).Scan(&n, &ms, &attempts, &notBefore); err != nil {
		return q, err
	}
	q.full, q.queued, q.row = n >= window, ms.Valid, [3]int64{ms.Int64, attempts.Int64, notBefore.Int64}
	return q, nil
}

// quietAppendLog deletes the embedding log rows this transaction wrote for page $1 when the page
// held $2 body entries besides this transaction's own (PostgreSQL). It runs once the append holds
// the page's row, so that every other writer of the page's blocks has committed (it sees them) or
// waits for this one (which it cannot change).
const quietAppendLog = `DELETE FROM embed_log WHERE node_id = $1 AND xmin = pg_current_xact_id()::xid
	AND (SELECT COUNT(*) FROM (SELECT 1 FROM search_docs WHERE node_id = $1 AND field = 'body'
		AND xmin <> pg_current_xact_id()::xid LIMIT $2) w) >= $2`

// EndAppend takes back the append's queueing of its page when the page held at least window
// entries before it, so that the indexer does not read the page again for nothing. It must come
// after the append's last write of a search entry and, on PostgreSQL, once the append holds the
// page's row. An append that changed anything else the indexer reads (the title, an entry within
// the window) must not call it.
func (tx *Tx) EndAppend(ctx context.Context, q QuietAppend) error {
	if tx.engine != SQLite {
		_, err := tx.tx.ExecContext(ctx, quietAppendLog, q.page, q.window)
		return err
	}
	if !q.full {
		return nil
	}
	if !q.queued {
		_, err := tx.tx.ExecContext(ctx, `DELETE FROM embed_queue WHERE node_id = $1`, q.page)
		return err
	}
	_, err := tx.tx.ExecContext(ctx, `UPDATE embed_queue SET queued_ms = $2, attempts = $3, not_before = $4 WHERE node_id = $1`,
		q.page, q.row[0], q.row[1], q.row[2])
	return err
}
