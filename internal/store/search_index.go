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
// are written: no trigger indexes a new block any more (migration 00034).
func (tx *Tx) indexNewBlocks(ctx context.Context, blocks []*quire.Block) (left []string, err error) {
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
	}
	if len(args) == 0 {
		return left, nil
	}
	_, err = tx.tx.ExecContext(ctx, sb.String(), args...)
	return left, err
}
