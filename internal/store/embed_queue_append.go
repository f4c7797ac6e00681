package store

import (
	"context"
	"strconv"
)

// An append at the end of a page queues the page for the semantic indexer, like any write of
// text. The indexer reads a page's first entries only (its window, service.embedMaxEntries of
// them in document order), and an append at the end of a page that already holds that many
// places its entries after all of them: the page's vectors cannot change. Yet each such append
// made the indexer read the window and the stored vectors to find that out, and claim and release
// the page in two write transactions on SQLite's one writer: at one connection sending appends,
// more of the server's CPU than the appends themselves (docs/performance.md "Append, tenth
// pass"). So such an append does not queue its page: on SQLite it writes no queue row at all
// (the store queues the nodes of new entries itself since migration 00039, and leaves out the
// page BeginAppend marks quiet), on PostgreSQL it takes back the rows its statement trigger
// logged.
//
// The entries counted are the page's body entries, which for a page that holds blocks are its
// blocks' (a mind map's nodes have body entries but no blocks, and nothing appends to one). An
// append into a block, or placed before other children, is not an append at the end of the
// page: its caller calls neither.

// QuietAppend is what EndAppend needs to take back an append's queueing of its page.
type QuietAppend struct {
	page   string
	window int
}

// quietAppendCount counts the page's body entries, up to window (an index range of
// search_docs_node), before an append writes any. The window is written into the text, not
// bound: SQLite's planner reads a bound LIMIT's value, and so prepared the statement again at
// every run (sqlite3Reprepare, nine tenths of BeginAppend's time: docs/performance.md "Append,
// twelfth pass"); a literal keeps the prepared statement.
func quietAppendCount(window int) string {
	return `SELECT COUNT(*) FROM (SELECT 1 FROM search_docs WHERE node_id = $1 AND field = 'body' LIMIT ` + strconv.Itoa(window) + `) w`
}

// BeginAppend prepares an append at the end of page, whose first window entries are what the
// indexer reads. It must come before the append writes any search entry. On SQLite it counts the
// page's entries (nothing else writes meanwhile: one writer) and, when the page holds window of
// them, marks it quiet: the transaction's inserts of entries do not queue it until EndAppend. On
// PostgreSQL it reads nothing.
func (tx *Tx) BeginAppend(ctx context.Context, page string, window int) (QuietAppend, error) {
	q := QuietAppend{page: page, window: window}
	if tx.engine != SQLite {
		return q, nil
	}
	var n int
	if err := tx.tx.QueryRowContext(ctx, quietAppendCount(window), page).Scan(&n); err != nil {
		return q, err
	}
	if n >= window {
		tx.quiet = page
	}
	return q, nil
}

// quietAppendLog deletes the embedding log rows this transaction wrote for page $1 when the page
// held $2 body entries besides this transaction's own (PostgreSQL). It runs once the append holds
// the page's row, so that every other writer of the page's blocks has committed (it sees them) or
// waits for this one (which it cannot change): at the transaction's end, with its COMMIT.
const quietAppendLog = `DELETE FROM embed_log WHERE node_id = $1 AND xmin = pg_current_xact_id()::xid
	AND (SELECT COUNT(*) FROM (SELECT 1 FROM search_docs WHERE node_id = $1 AND field = 'body'
		AND xmin <> pg_current_xact_id()::xid LIMIT $2) w) >= $2`

// EndAppend ends what BeginAppend began, after the append's last write of a search entry and,
// on PostgreSQL, once the append holds the page's row: on SQLite the page's later entries in this
// transaction queue it again; on PostgreSQL the append's queueing of the page is taken back when
// the page held at least window entries before it, so that the indexer does not read the page
// again for nothing. An append that changed anything else the indexer reads (the title, an entry
// within the window) must not call BeginAppend. On PostgreSQL the statement that takes the
// queueing back runs with the COMMIT (deferToCommit: nothing reads what it deletes before),
// and so takes back the page's log rows that any later statement of the transaction wrote too.
func (tx *Tx) EndAppend(ctx context.Context, q QuietAppend) error {
	if tx.engine != SQLite {
		tx.deferToCommit(quietAppendLog, q.page, q.window)
		return nil
	}
	tx.quiet = ""
	return nil
}
