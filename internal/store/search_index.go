package store

import (
	"context"
	"strings"

	"github.com/quire-dev/quire/internal/quire"
	"github.com/quire-dev/quire/internal/search"
)

// indexNewBlocks writes the search entries of new blocks (SQLite) before the blocks themselves,
// in one statement. The insert trigger (blocks_search_ai, 00010) would compute the same entry
// with json_tree, row by row (a tenth of a 100-block append's CPU); it skips a block whose entry
// is there already, and still indexes every block this path leaves out: text it cannot read
// exactly as SQLite does (search.BlockText), and rows inserted by any other statement.
func (tx *Tx) indexNewBlocks(ctx context.Context, blocks []*quire.Block) error {
	var sb strings.Builder
	var args []any
	for _, b := range blocks {
		if b.InTrash || b.Type == "child_page" || b.Type == "child_database" {
			continue
		}
		text, ok := search.BlockText(b.Content)
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
		return nil
	}
	_, err := tx.tx.ExecContext(ctx, sb.String(), args...)
	return err
}
