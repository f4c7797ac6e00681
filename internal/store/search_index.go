package store

import (
	"context"
	"strings"

	"github.com/quire-dev/quire/internal/quire"
	"github.com/quire-dev/quire/internal/search"
)

// indexNewBlocks writes the search entries of new blocks (SQLite) before the blocks themselves,
// in one statement, computing each text in Go. It returns the blocks whose text it cannot read
// exactly as SQLite does (search.BlockText not ok), for indexBlocksSQL to index after the blocks
// are written: no trigger indexes a new block any more (migration 00034). It adds the pages it
// wrote entries for to queue (queueNodes).
func (tx *Tx) indexNewBlocks(ctx context.Context, blocks []*quire.Block, queue []string) (left, queued []string, err error) {
	var sb strings.Builder
	var args []any
	for _, b := range blocks {
		if b.InTrash || b.Type == "child_page" || b.Type == "child_database" {
			continue
		}
		text, ok := search.BlockText(b.Content)
		if !ok {
			left = append(left, b.ID)
		}
		if !ok || text == "" {
			continue
		}
		if len(args) == 0 {
			sb.WriteString(`INSERT INTO search_docs (ref, node_id, field, text) VALUES `)
		} else {
			sb.WriteString(", ")
		}
		sb.WriteString("(?, ?, 'body', ?)")
		args = append(args, b.ID, b.PageID, text)
		queue = addNode(queue, b.PageID)
	}
	if len(args) == 0 {
		return left, queue, nil
	}
	_, err = tx.tx.ExecContext(ctx, sb.String(), args...)
	return left, queue, err
}

// addNode adds node to nodes unless it is there already (the nodes of one write are few: one
// page, nearly always).
func addNode(nodes []string, node string) []string {
	for _, n := range nodes {
		if n == node {
			return nodes
		}
	}
	return append(nodes, node)
}

// queueNodesMax is how many nodes one statement of queueNodes upserts.
const queueNodesMax = 500

// queueNodes queues nodes for the semantic indexer (SQLite), once each, at the clock the
// triggers use, as search_docs_queue_ai did for each new entry until migration 00039: the store
// writes a node's new entries, so it queues the node once per statement instead. It leaves out
// tx.quiet, the page of an append that cannot change what the indexer reads (BeginAppend).
func (tx *Tx) queueNodes(ctx context.Context, nodes []string) error {
	for len(nodes) > 0 {
		var sb strings.Builder
		var args []any
		for _, n := range nodes[:min(len(nodes), queueNodesMax)] {
			if n == tx.quiet {
				continue
			}
			if len(args) == 0 {
				sb.WriteString(`INSERT INTO embed_queue (node_id, queued_ms) VALUES `)
			} else {
				sb.WriteString(", ")
			}
			sb.WriteString("(?, CAST(unixepoch('subsec') * 1000 AS INTEGER))")
			args = append(args, n)
		}
		nodes = nodes[min(len(nodes), queueNodesMax):]
		if len(args) == 0 {
			continue
		}
		sb.WriteString(` ON CONFLICT (node_id) DO UPDATE SET queued_ms = excluded.queued_ms, attempts = 0, not_before = 0`)
		if _, err := tx.tx.ExecContext(ctx, sb.String(), args...); err != nil {
			return err
		}
	}
	return nil
}
